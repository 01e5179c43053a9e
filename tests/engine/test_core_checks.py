"""The engine's core checks in CPython; tests/browser runs the same checks in Pyodide."""
import pytest

import core_checks


@pytest.mark.parametrize("name", sorted(core_checks.CHECKS))
def test_core_check(name):
    core_checks.CHECKS[name]()


def test_every_check_is_in_the_table():
    # (a check written below the CHECKS line would be left out, here and in Pyodide)
    assert sorted(n for n in vars(core_checks) if n.startswith("check_")) == sorted(core_checks.CHECKS)
