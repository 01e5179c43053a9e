"""``torch.compiler``: see ``torch.compile`` (engine/_compile.py)."""
from ._compile import is_compiling, list_backends  # noqa: F401

__all__ = ["disable", "is_compiling", "list_backends", "reset"]


def reset():
    """Clear compiled code: the engine keeps none (it runs a compiled function as written)."""


def disable(fn=None, recursive=True, *, reason=None):
    """``fn`` run eagerly inside a compiled function (a graph break), as every op is here."""
    return (lambda f: f) if fn is None else fn
