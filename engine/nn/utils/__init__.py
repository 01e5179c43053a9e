"""``torch.nn.utils``: gradient clipping, parameter/vector conversion, and (loaded at first use)
packed sequences (``rnn``)."""
from ... import _lazy
from . import clip_grad, convert_parameters
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]

_LAZY = {"rnn": ("rnn", None)}

__getattr__ = _lazy.lazy_getattr(__name__, "torch.nn.utils", _LAZY)
