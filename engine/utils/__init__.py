"""``torch.utils``: the data-loading utilities."""
from . import data

__all__ = ["data"]
