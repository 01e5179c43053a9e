"""Run notebook cells with ``torch`` bound to a given module tree (the engine, or real PyTorch).

``run_cells(cells, torch_module)`` executes code cells one after another in a single namespace,
like a Jupyter kernel, and returns what each cell shows: its stdout, the warnings it raised, the
error that stopped it, and the ``repr`` of a last bare expression (unless that is ``None``).

``import torch``, ``import torch.autograd as autograd``, ``from torch.autograd import variable``,
``from torch.autograd.function import Function`` and ``import torch.nn.functional as F`` resolve
to ``torch_module`` and its submodules through an ``__import__`` placed in the cells' builtins;
``sys.modules['torch']`` is never touched. Jupyter magics (``%matplotlib inline``, ``!pip ...``)
are skipped.

``module_with(mod, **overrides)`` is a stand-in for ``mod`` with some attributes replaced, and
``RandomTape`` uses it to make two runs see the same random numbers: one run records what its
``rand``/``randn`` produced, the other replays those values.
"""
import ast
import builtins
import contextlib
import importlib
import io
import types
import warnings

import numpy as np

__all__ = ["run_cells", "module_with", "RandomTape", "strip_magics"]

RANDOM_FACTORIES = ("rand", "randn", "rand_like", "randn_like")


def strip_magics(source):
    """Drop IPython magics and shell escapes (lines starting with ``%`` or ``!``)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


def _submodule(mod, part):
    try:
        sub = getattr(mod, part)
    except AttributeError:
        sub = None
    if not isinstance(sub, types.ModuleType):
        sub = importlib.import_module(f"{mod.__name__}.{part}")
    return sub


def _make_import(torch_module):
    real_import = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            mod = torch_module
            for part in name.split(".")[1:]:
                mod = _submodule(mod, part)
            return mod if fromlist else torch_module
        return real_import(name, globals, locals, fromlist, level)

    return __import__


def _show(value):
    return "" if value is None else repr(value) + "\n"


def run_cells(cells, torch_module, namespace=None):
    """Execute ``cells`` in order in one namespace and return each cell's output text.

    ``namespace`` (a dict) may be passed to inspect the variables afterwards; ``torch`` is
    pre-bound in it, as in the playground, so a cell may use ``torch`` before importing it.
    """
    cell_builtins = dict(vars(builtins))
    cell_builtins["__import__"] = _make_import(torch_module)
    ns = {} if namespace is None else namespace
    ns.update({"__builtins__": cell_builtins, "__name__": "__main__", "torch": torch_module})
    outputs = []
    for i, cell in enumerate(cells):
        source = strip_magics(cell)
        buf = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buf):
            warnings.simplefilter("always")
            try:
                tree = ast.parse(source, filename=f"<cell {i}>")
                last = None
                # like IPython, a trailing ";" hides the last expression's value
                if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
                    last = ast.Expression(tree.body.pop().value)
                exec(compile(tree, f"<cell {i}>", "exec"), ns)
                if last is not None:
                    buf.write(_show(eval(compile(last, f"<cell {i}>", "eval"), ns)))
            except Exception as exc:  # a notebook shows the error and goes on with the next cell
                buf.write(f"{type(exc).__name__}: {exc}\n")
        text = buf.getvalue()
        for w in caught:
            text += f"{w.category.__name__}: {w.message}\n"
        outputs.append(text)
    return outputs


class _ModuleWith(types.ModuleType):
    def __init__(self, mod, overrides):
        super().__init__(mod.__name__, mod.__doc__)
        object.__setattr__(self, "_wrapped", mod)
        self.__dict__.update(overrides)

    def __getattr__(self, name):
        return getattr(self._wrapped, name)

    def __dir__(self):
        return sorted(set(dir(self._wrapped)) | set(self.__dict__))


def module_with(mod, **overrides):
    """A module that is ``mod`` except for ``overrides`` (``mod`` itself is left untouched)."""
    return _ModuleWith(mod, overrides)


class RandomTape:
    """Record the random tensors one run draws, and hand the same values to another run.

    >>> tape = RandomTape()
    >>> run_cells(cells, tape.recording(torch))    # doctest: +SKIP
    >>> run_cells(cells, tape.replaying(engine))   # doctest: +SKIP

    The replaying factories still call the module's own factory (so its argument handling,
    shape, dtype and ``requires_grad`` are exercised) and then overwrite the values.
    """

    def __init__(self):
        self.values = []
        self.calls = []
        self._pos = 0

    def recording(self, mod):
        def wrap(name):
            real = getattr(mod, name)

            def factory(*args, **kwargs):
                out = real(*args, **kwargs)
                self.calls.append(name)
                self.values.append(np.array(out.detach().numpy(), copy=True))
                return out

            return factory

        return module_with(mod, **{name: wrap(name) for name in RANDOM_FACTORIES})

    def replaying(self, mod):
        def wrap(name):
            real = getattr(mod, name)

            def factory(*args, **kwargs):
                out = real(*args, **kwargs)
                if self._pos >= len(self.values):
                    raise AssertionError(f"replay: {name} called more often than in the recorded run")
                if self.calls[self._pos] != name:
                    raise AssertionError(f"replay: {name} called where the recorded run called {self.calls[self._pos]}")
                value = self.values[self._pos]
                self._pos += 1
                if tuple(out.shape) != value.shape:
                    raise AssertionError(f"replay: {name} gave shape {tuple(out.shape)}, recorded {value.shape}")
                with mod.no_grad():
                    out.copy_(mod.from_numpy(value.copy()))
                return out

            return factory

        return module_with(mod, **{name: wrap(name) for name in RANDOM_FACTORIES})

    @property
    def exhausted(self):
        return self._pos == len(self.values)
