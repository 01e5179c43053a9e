"""NumPy's names for PyTorch's parameters: PyTorch's argument parser takes ``axis`` for ``dim``,
``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input`` and ``x2`` for ``other`` in the
functions and methods it binds (``x.sum(axis=0, keepdims=True)``, ``torch.add(x=a, x2=b)``), but
not in those PyTorch writes in Python (``norm``, ``split``, ``unique``, ``unflatten``)."""
import functools

from ._transparent import transparent

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"), ("x", "input"), ("a", "input"), ("x1", "input"),
            ("x2", "other"))
_PYTHON_IN_PYTORCH = {"norm", "split", "unique", "unique_consecutive", "unflatten", "backward", "register_hook",
                      "register_post_accumulate_grad_hook"}


def _parameters(fn):
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    return set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]) if code is not None else set()


def _with_numpy_names(fn, renames, params):
    @functools.wraps(fn)
    def f(*args, **kwargs):
        if not kwargs:
            return fn(*args)
        given = list(kwargs)
        for alias, name in renames:
            if alias in kwargs and name not in kwargs:  # (both given: Python's "unexpected keyword")
                kwargs[name] = kwargs.pop(alias)
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            # PyTorch names the first keyword that is not a parameter's own name, an alias too
            # (``t.sum(axis=0, out=None)``: 'axis')
            if "got an unexpected keyword argument" not in str(e) or len(given) == len(set(given) & params):
                raise
            first = next(k for k in given if k not in params)
            raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{first}'") from None

    return transparent(f)


def take_numpy_names(namespace, names, methods=False):
    """Rebind each of ``names`` in ``namespace`` (a module's globals or a class) that has a ``dim``,
    ``keepdim``, ``input`` or ``other`` parameter to a function that also takes NumPy's names (a
    method's ``input`` is self: no wrapper for that alone)."""
    aliases = tuple((a, n) for a, n in _ALIASES if n != "input") if methods else _ALIASES
    setter = namespace.__setitem__ if isinstance(namespace, dict) else (lambda k, v: setattr(namespace, k, v))
    getter = namespace.get if isinstance(namespace, dict) else (lambda k: namespace.__dict__.get(k))
    for name in names:
        fn = getter(name)
        if name.startswith("_") or name in _PYTHON_IN_PYTORCH or not callable(fn) or isinstance(fn, type):
            continue
        params = _parameters(fn)
        renames = tuple((a, n) for a, n in aliases if n in params and a not in params)
        if renames:
            setter(name, _with_numpy_names(fn, renames, params))
