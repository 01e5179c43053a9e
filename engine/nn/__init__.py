"""``torch.nn``: the functional API (losses and activations) the tutorials use."""
from . import functional

__all__ = ["functional"]
