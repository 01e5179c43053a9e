"""``torch.utils``: the data-loading utilities, activation checkpointing and hook handles."""
from .. import _lazy
from . import hooks

__all__ = ["checkpoint", "data", "hooks"]

# Loaded at first use: engine._graph imports utils.hooks early in ``import engine``, before what
# utils.data needs exists.
__getattr__ = _lazy.lazy_getattr(__name__, "torch.utils", {"data": ("data", None), "checkpoint": ("checkpoint", None)})
