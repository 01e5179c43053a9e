"""Global module forward hooks (``torch.nn.modules.module.register_module_forward_pre_hook`` and
``register_module_forward_hook``) against real PyTorch 2.13: when they run relative to a module's own
hooks and to nested modules, what their return values replace, removal, ``with_kwargs`` and
``always_call`` when a call raises. Every case removes its global hooks, even when it fails: a
leftover one would run in every later test of the process."""
import contextlib

import pytest

from tests.engine.opinfo import same

pytestmark = pytest.mark.torch


def _name(m):
    return type(m).__name__


@contextlib.contextmanager
def _global(t, *hooks):
    """Register ``hooks`` (("pre", fn) or ("post", fn, options)) globally for the block."""
    mm = t.nn.modules.module
    with contextlib.ExitStack() as stack:
        for kind, fn, *options in hooks:
            if kind == "pre":
                stack.enter_context(mm.register_module_forward_pre_hook(fn))
            else:
                stack.enter_context(mm.register_module_forward_hook(fn, **(options[0] if options else {})))
        yield


def _order(t):
    """Global hooks before the module's own; in a Sequential the outer module's pre-hook first and
    its forward hook last."""
    t.manual_seed(0)
    seq = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.ReLU())
    log = []
    seq[0].register_forward_pre_hook(lambda m, a: log.append(("pre", _name(m))))
    seq[0].register_forward_hook(lambda m, a, o: log.append(("post", _name(m))))
    seq[0].register_forward_pre_hook(lambda m, a: log.append(("pre first", _name(m))), prepend=True)
    with _global(t, ("pre", lambda m, a: log.append(("global pre", _name(m), a))),
                 ("post", lambda m, a, o: log.append(("global post", _name(m), o))),
                 ("pre", lambda m, a: log.append(("global pre 2", _name(m))))):
        out = seq(t.ones(1, 2))
    return log, out


def _replace(t):
    """A global pre-hook's value replaces the arguments (a non-tuple is wrapped), a global forward
    hook's the output; the module's own hooks, and the next module of a Sequential, see the new ones."""
    t.manual_seed(0)
    seq = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.Linear(3, 1))
    log = []
    seq[1].register_forward_pre_hook(lambda m, a: log.append(("local pre", a)))
    seq[1].register_forward_hook(lambda m, a, o: log.append(("local post", a, o)))

    def pre(m, args):
        if isinstance(m, t.nn.Linear):
            return args[0] * 2  # not a tuple: wrapped in one

    def post(m, args, out):
        if isinstance(m, t.nn.Linear):
            return out + 1

    def pre_tuple(m, args):
        return (args[0] - 0.5,)

    with _global(t, ("pre", pre), ("post", post), ("pre", pre_tuple)):
        hooked = seq(t.ones(2, 2))
    return log, hooked, seq(t.ones(2, 2))


def _removal(t):
    """``remove()`` (twice is fine) and the context manager unregister; the global dicts end empty."""
    mm = t.nn.modules.module
    lin = t.nn.Identity()
    log = []
    h1 = mm.register_module_forward_pre_hook(lambda m, a: log.append("pre"))
    h2 = mm.register_module_forward_hook(lambda m, a, k, o: log.append(("post", k)), always_call=True,
                                         with_kwargs=True)
    try:
        with mm.register_module_forward_hook(lambda m, a, o: log.append("ctx")) as h3:
            lin(1)
        log.append(type(h3).__name__)
        lin(2)
        h1.remove()
        h1.remove()
        lin(3)
    finally:
        h1.remove()
        h2.remove()
    lin(4)
    return (log, len(mm._global_forward_pre_hooks), len(mm._global_forward_hooks),
            len(mm._global_forward_hooks_always_called), h1.id < h2.id < h3.id)


def _with_kwargs(t):
    """``with_kwargs=True``: the global forward hook gets the call's keyword arguments (after the
    module's own pre-hooks replaced them); without it, only the positional ones."""
    class Scale(t.nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = Scale()
    log = []
    m.register_forward_pre_hook(lambda m, a, k: (a, {"scale": k["scale"] + 1}), with_kwargs=True)
    with _global(t, ("post", lambda m, a, k, o: log.append(("kw", a, k, o)) or o * 10, {"with_kwargs": True}),
                 ("post", lambda m, a, o: log.append(("plain", a, o)))):
        out = m(t.tensor([1.0, 2.0]), scale=2.0)
    return log, out


class _Boom(Exception):
    pass


def _always_call(t):
    """When ``forward`` raises, the ``always_call`` hooks run (global then local) with output None and
    the error is re-raised; the other hooks do not run. A global always_call hook gets no kwargs even
    with ``with_kwargs`` (PyTorch's), so that one raises, which is only warned about."""
    import warnings

    class Fail(t.nn.Module):
        def forward(self, x, flag=None):
            raise _Boom("forward failed")

    m = Fail()
    log = []
    m.register_forward_hook(lambda m, a, k, o: log.append(("local always", a, k, o)), always_call=True,
                            with_kwargs=True)
    m.register_forward_hook(lambda m, a, o: log.append("local never"))
    with _global(t, ("post", lambda m, a, o: log.append(("global always", a, o)), {"always_call": True}),
                 ("post", lambda m, a, k, o: log.append("global kw"), {"always_call": True, "with_kwargs": True}),
                 ("post", lambda m, a, o: log.append("global never")),
                 ("pre", lambda m, a: (a[0] + 1,))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                m(1, flag=True)
            except _Boom as e:
                log.append(("raised", str(e)))
    log.append([(w.category.__name__, str(w.message)) for w in caught])
    return log


def _always_call_after_hook_error(t):
    """A forward hook that raises: the always_call hooks that already ran do not run again, those
    after it do; a pre-hook that raises runs them all; an always_call hook's own error in that pass
    is a warning, and the first error is the one raised."""
    import warnings

    lin = t.nn.Identity()
    log = []

    def bad(m, a, o):
        raise ValueError("hook failed")

    with _global(t, ("post", lambda m, a, o: log.append(("first", o)), {"always_call": True}),
                 ("post", bad),
                 ("post", lambda m, a, o: log.append(("second", o)) or "replaced", {"always_call": True}),
                 ("post", bad, {"always_call": True})):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                lin(5)
            except ValueError as e:
                log.append(("raised", str(e)))
            with _global(t, ("pre", lambda m, a: 1 / 0)):
                try:
                    lin(6)
                except ZeroDivisionError as e:
                    log.append(("raised", str(e)))
    log.append([(w.category.__name__, str(w.message)) for w in caught])
    return log


def _exports(t):
    mm = t.nn.modules.module
    names = ["register_module_forward_pre_hook", "register_module_forward_hook"]
    return ([n in mm.__all__ for n in names], [hasattr(t.nn.modules, n) for n in names],
            [hasattr(t.nn, n) for n in names], [callable(getattr(mm, n)) for n in names])


CASES = {
    "order": _order,
    "replace": _replace,
    "removal": _removal,
    "with_kwargs": _with_kwargs,
    "always_call": _always_call,
    "always_call_after_hook_error": _always_call_after_hook_error,
    "exports": _exports,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_global_forward_hooks(torch_ref, et, name):
    same(torch_ref, et, CASES[name])
    for t in (et, torch_ref):
        mm = t.nn.modules.module
        assert not (mm._global_forward_pre_hooks or mm._global_forward_hooks
                    or mm._global_forward_hooks_always_called)
