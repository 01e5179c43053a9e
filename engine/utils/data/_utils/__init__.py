"""Helpers behind ``DataLoader``, at PyTorch's import path (``torch.utils.data._utils.collate``)."""
from . import collate

__all__ = ["collate"]
