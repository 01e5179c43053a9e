"""The engine's core checks in CPython; tests/browser runs the same checks in Pyodide."""
import pytest

import core_checks


@pytest.mark.parametrize("name", sorted(core_checks.CHECKS))
def test_core_check(name):
    core_checks.CHECKS[name]()
