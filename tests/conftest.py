"""Shared fixtures. ``torch_ref`` is the real PyTorch 2.13.0, the reference for every comparison:
locally it may be missing (those tests skip); in CI (CI=true) a missing torch fails them."""
import pytest
from needs import require


@pytest.fixture(scope="session")
def torch_ref():
    return require("torch", "pip install torch==2.13.0: the reference every comparison needs")


@pytest.fixture()
def et():
    """The engine, as user code sees it when it writes ``import torch``."""
    import engine

    return engine
