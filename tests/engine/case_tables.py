"""Every table of cases in the engine's test files, run on the engine alone, as plain JSON-able data.

The browser test (tests/browser/test_engine_in_pyodide.py) runs these in the site's Pyodide and in
CPython and compares the two: NumPy there is another build (32-bit intp, no floating-point flags in
WebAssembly), and only running the cases there finds what differs. A table is an upper-case dict of a
test module whose values are ``fn(torch)`` or ``(op, *values)`` (an op whose float64 grads are taken).

    python -m tests.engine.case_tables > results.json      (CPython's side)
"""
import importlib
import inspect
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))


class _Anything:
    """Stands for pytest's and hypothesis's decorators and strategies where they are not installed
    (the site's Pyodide): the tables are plain data, the tests around them are not run. A bare
    pytest decorator gives back its function; hypothesis's (``@st.composite``) give a strategy."""

    def __init__(self, keeps_functions):
        self._keeps = keeps_functions

    def __call__(self, *args, **kwargs):
        if self._keeps and len(args) == 1 and callable(args[0]) and not kwargs and type(args[0]) is not _Anything:
            return args[0]
        return self

    def __getattr__(self, name):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __iter__(self):
        return iter(())


def _stub(name):
    module = types.ModuleType(name)
    anything = _Anything(name == "pytest")
    module.__getattr__ = lambda attr: anything  # (submodules too: ``from hypothesis import strategies``)
    sys.modules[name] = module


def install_stubs():
    for name, subs in (("pytest", ()), ("hypothesis", ("strategies", "extra", "extra.numpy"))):
        try:
            importlib.import_module(name)
        except ImportError:
            for module in (name, *(f"{name}.{sub}" for sub in subs)):
                _stub(module)


def module_names():
    return sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py"))


def _grads_of(op, values):
    def run(t):
        xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
        out = op(t, *xs)
        ys = [y for y in (out if isinstance(out, tuple) else (out,)) if getattr(y, "requires_grad", False)]
        return out, (t.autograd.grad([y.sum() for y in ys], xs, allow_unused=True) if ys else [])
    return run


def _takes_torch(fn, n):
    """Whether ``fn`` takes the module and ``n - 1`` more: ``n`` required positional parameters, the
    first named as the tables name the module (tables of modules' inputs name it ``nn``, ``x``...)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return False
    return len(params) == n and params[0].name in ("t", "T", "torch")


def run_all(names=None):
    """{"module.TABLE.case": [kind, outcome]} for every case of every table ("fn": ``fn(torch)``, "grads":
    an op and its values), and {"module": error} for the modules that do not import. Cases of another
    form (``fn(torch, x)``, ``fn(nn)``) are left out."""
    install_stubs()
    for p in (os.path.dirname(os.path.dirname(HERE)), os.path.dirname(HERE), HERE):
        if p not in sys.path:
            sys.path.insert(0, p)
    import engine
    from tests.engine.opinfo import outcome

    results, failed = {}, {}
    for name in names or module_names():
        try:
            module = importlib.import_module("tests.engine." + name)
        except BaseException as e:  # noqa: BLE001 - reported, not fatal (pytest's skip is a BaseException)
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            failed[name] = f"{type(e).__name__}: {e}"
            continue
        for table, cases in list(vars(module).items()):
            if not (table.isupper() and isinstance(cases, dict)):
                continue
            for key, case in cases.items():
                if isinstance(case, tuple) and case and callable(case[0]):
                    if not _takes_torch(case[0], len(case)):
                        continue
                    kind, case = "grads", _grads_of(case[0], case[1:])
                elif type(case) is not _Anything and callable(case) and _takes_torch(case, 1):
                    kind = "fn"  # (not a stubbed pytest.param)
                else:
                    continue
                engine.set_grad_enabled(True)
                engine.set_default_dtype(engine.float32)
                engine.manual_seed(0)
                try:
                    result = outcome(case, engine)[0]
                except Exception as e:  # noqa: BLE001 - outcome catches the case's own; this is plain()'s
                    result = ("unplain", type(e).__name__, str(e))
                if kind == "grads" and result[0] == "raised":
                    continue  # (a pair of another form: a distribution's maker(T, dtype) and its value)
                results[f"{name}.{table}.{key}"] = [kind, json.loads(json.dumps(result, default=repr))]
    return results, failed


if __name__ == "__main__":
    json.dump(run_all(sys.argv[1:] or None), sys.stdout)
