"""Attributes a module loads at first use (a module ``__getattr__``), so that ``import engine`` stays
quick: the playground's first view waits for it."""
import importlib


def lazy_getattr(package, shown, table):
    """A module's ``__getattr__`` over ``table``: name -> (module under ``package``, attribute, or None
    for the module itself). ``shown`` is the module's name as PyTorch's AttributeError gives it."""

    def __getattr__(name):
        if name not in table:
            raise AttributeError(f"module '{shown}' has no attribute '{name}'")
        module, attr = table[name]
        value = importlib.import_module(f"{package}.{module}")
        return value if attr is None else getattr(value, attr)

    return __getattr__
