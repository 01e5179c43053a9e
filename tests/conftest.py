"""Shared fixtures. ``torch_ref`` is the real PyTorch 2.13.0, the reference for every comparison:
locally it may be missing (those tests skip); in CI (CI=true) a missing torch fails them."""
import os

import pytest

IN_CI = os.environ.get("CI") == "true"


def _load_torch():
    try:
        import torch
    except ImportError:
        if IN_CI:
            pytest.fail("PyTorch 2.13.0 is required in CI (pip install torch==2.13.0)")
        pytest.skip("PyTorch is not installed; comparison with the reference skipped")
    return torch


@pytest.fixture(scope="session")
def torch_ref():
    return _load_torch()


@pytest.fixture()
def et():
    """The engine, as user code sees it when it writes ``import torch``."""
    import engine

    return engine
