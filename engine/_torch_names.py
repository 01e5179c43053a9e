"""The engine's public classes carry PyTorch's module paths: ``type(model)`` prints
``<class 'torch.nn.modules.linear.Linear'>``, ``torch.optim.SGD`` ``<class 'torch.optim.sgd.SGD'>``,
and ``torch.save`` writes the globals PyTorch writes. The engine's layout mirrors PyTorch's, so a
module ``engine.a.b`` gives its classes ``torch.a.b``; the exceptions are in ``_PLACES``.

Every engine module is renamed as it is imported (a finder on ``sys.meta_path``): many load only at
first use (see _lazy), and user code imports some directly (``from torch.optim.lr_scheduler import
StepLR``). The classes keep the engine's module for ``pickle``, through ``_reduce_ex``."""
import copyreg
import importlib
import importlib.machinery
import sys

# Engine modules whose classes live elsewhere in PyTorch.
_PLACES = {"engine._grad_mode": "torch.autograd.grad_mode", "engine._random": "torch._C",
           "engine._graph": "torch.autograd.graph"}

RENAMED = {}  # class -> the engine module that defines it
BY_TORCH_NAME = {}  # (PyTorch's module, qualname) -> class, for torch.load


def torch_module(name):
    """PyTorch's module for the classes of engine module ``name``, or None (a private module)."""
    if name in _PLACES:
        return _PLACES[name]
    parts = name.split(".")
    if parts[0] != "engine" or any(p.startswith("_") for p in parts[1:]):
        return None
    return "torch" + name[len("engine"):]


def rename(module):
    """Give the public classes ``module`` defines PyTorch's module path."""
    name = module.__name__
    target = torch_module(name)
    if target is None:
        return
    for attr, value in list(vars(module).items()):
        if isinstance(value, type) and not attr.startswith("_") and value.__module__ == name:
            RENAMED[value] = name
            BY_TORCH_NAME[target, value.__qualname__] = value
            value.__module__ = target
            if value.__reduce_ex__ is object.__reduce_ex__:  # (its own way of pickling is kept)
                value.__reduce_ex__ = _reduce_ex


def _reduce_ex(self, protocol):
    """``object.__reduce_ex__``, naming a renamed class by its engine module: pickle looks a class up
    by its ``__module__``, and ``torch.nn.modules.linear`` is PyTorch's, or nothing."""
    rv = object.__reduce_ex__(self, protocol)
    cls = type(self)
    if cls not in RENAMED:
        return rv
    if rv[0] is not copyreg.__newobj__:  # (protocols 0 and 1 name the class the same way)
        rv = object.__reduce_ex__(self, 2)
    return (_new, (RENAMED[cls], cls.__qualname__) + rv[1][1:]) + rv[2:]


def _new(module, qualname, *args):
    cls = getattr(importlib.import_module(module), qualname)
    return cls.__new__(cls, *args)


class _Finder:
    """Finds engine modules as Python would, and renames each module's classes once it has run."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("engine.") or torch_module(name) is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                rename(module)

            spec.loader.exec_module = exec_module
        return spec


def install():
    """Called first thing by ``engine/__init__``: every engine module imported after it is renamed."""
    if not any(f is _Finder for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder)
