"""``torch.nn``: modules, parameters, initialisations and the functional API (losses and activations)."""
from .. import _lazy
from . import functional, init, modules
from .modules import (BCELoss, BCEWithLogitsLoss, CELU, CosineSimilarity, CrossEntropyLoss, Dropout, Dropout1d,
                      Dropout2d, Dropout3d, ELU, Embedding, Flatten, GELU, GLU, Hardsigmoid, Hardswish, Hardtanh,
                      HuberLoss, Identity, KLDivLoss, L1Loss, LazyLinear, LeakyReLU, Linear, LogSigmoid, LogSoftmax, Mish, Module,
                      ModuleDict, ModuleList, MSELoss, MultiheadAttention, NLLLoss, PairwiseDistance, ParameterDict, ParameterList, ReLU,
                      ReLU6, SELU, Sequential, SiLU, Sigmoid, SmoothL1Loss, Softmax, Softmin, Softplus, Softsign, Tanh,
                      Tanhshrink, Threshold, Unflatten, Hardshrink, Softshrink, PReLU, SoftMarginLoss,
                      MarginRankingLoss, HingeEmbeddingLoss, PoissonNLLLoss)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["functional", "init", "Buffer", "Parameter", "UninitializedParameter", "UninitializedBuffer", "Module", "Identity", "Linear", "LazyLinear", "Flatten", "Unflatten", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU", "Sigmoid", "Tanh", "LeakyReLU",
           "Softmax", "LogSoftmax", "Softplus", "SiLU", "ELU", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "GELU", "Hardtanh", "ReLU6", "Softsign", "LogSigmoid", "SELU", "CELU",
           "Mish", "Hardsigmoid", "Hardswish", "Softmin", "GLU", "Threshold", "Tanhshrink", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "CosineSimilarity", "PairwiseDistance", "Dropout", "Dropout1d", "Dropout2d",
           "Dropout3d", "Embedding", "MultiheadAttention", "Hardshrink", "Softshrink", "PReLU", "SoftMarginLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "PoissonNLLLoss"]


# Loaded at first use, not at import (see engine.__getattr__): name -> (module under torch.nn, attribute or None).
_LAZY = {"utils": ("utils", None), "attention": ("attention", None), **{name: (f"modules.{module}", name) for name, module in modules._LAZY.items()}}

__getattr__ = _lazy.lazy_getattr(__name__, "torch.nn", _LAZY)

