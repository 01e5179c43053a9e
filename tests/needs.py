"""What a test needs from the machine. Locally a missing piece skips the test; in CI (CI=true)
it fails the run, so a skipped comparison or browser test can never hide a gap."""
import importlib
import os

import pytest

IN_CI = os.environ.get("CI") == "true"


def missing(reason):
    if IN_CI:
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason, allow_module_level=True)


def require(module, hint):
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"{module} is not installed ({hint})")
