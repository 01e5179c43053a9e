import os
import sys

import pytest
from needs import require

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


# What user code gets as ``torch``: the engine, as in the product;
# PLAYGROUND_TORCH=torch runs the same tests on real PyTorch.
TORCH_MODULE_NAME = os.environ.get("PLAYGROUND_TORCH", "engine")


@pytest.fixture(scope="session")
def torch_module():
    return require(TORCH_MODULE_NAME, "the module user code gets as torch")


@pytest.fixture(scope="session")
def torch_module_name(torch_module):
    return TORCH_MODULE_NAME


@pytest.fixture
def runner(torch_module):
    from playground.model.runner import Runner

    return Runner(torch_module, time_limit=2.0)


@pytest.fixture
def session(torch_module):
    from playground.model.session import InProcessSession

    return InProcessSession(torch_module, time_limit=2.0)
