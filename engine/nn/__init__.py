"""``torch.nn``: modules, parameters, initialisations and the functional API (losses and activations)."""
from . import functional, init
from .modules import (BCELoss, BCEWithLogitsLoss, CELU, CosineSimilarity, CrossEntropyLoss, Dropout, Dropout1d,
                      Dropout2d, Dropout3d, ELU, Embedding, Flatten, GELU, GLU, Hardsigmoid, Hardswish, Hardtanh,
                      HuberLoss, Identity, KLDivLoss, L1Loss, LeakyReLU, Linear, LogSigmoid, LogSoftmax, Mish, Module,
                      ModuleDict, ModuleList, MSELoss, NLLLoss, PairwiseDistance, ParameterDict, ParameterList, ReLU,
                      ReLU6, SELU, Sequential, SiLU, Sigmoid, SmoothL1Loss, Softmax, Softmin, Softplus, Softsign, Tanh,
                      Tanhshrink, Threshold, Unflatten)
from .parameter import Parameter

__all__ = ["functional", "init", "Parameter", "Module", "Identity", "Linear", "Flatten", "Unflatten", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU", "Sigmoid", "Tanh", "LeakyReLU",
           "Softmax", "LogSoftmax", "Softplus", "SiLU", "ELU", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "GELU", "Hardtanh", "ReLU6", "Softsign", "LogSigmoid", "SELU", "CELU",
           "Mish", "Hardsigmoid", "Hardswish", "Softmin", "GLU", "Threshold", "Tanhshrink", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "CosineSimilarity", "PairwiseDistance", "Dropout", "Dropout1d", "Dropout2d",
           "Dropout3d", "Embedding"]


# Loaded at first use, not at import (see engine.__getattr__): name -> (module under torch.nn, attribute or None).
_LAZY = {"utils": ("utils", None),
         "RNNBase": ("modules.rnn", "RNNBase"),
         "RNN": ("modules.rnn", "RNN"),
         "LSTM": ("modules.rnn", "LSTM"),
         "GRU": ("modules.rnn", "GRU"),
         "RNNCellBase": ("modules.rnn", "RNNCellBase"),
         "RNNCell": ("modules.rnn", "RNNCell"),
         "LSTMCell": ("modules.rnn", "LSTMCell"),
         "GRUCell": ("modules.rnn", "GRUCell"),
         "BatchNorm1d": ("modules.batchnorm", "BatchNorm1d"),
         "BatchNorm2d": ("modules.batchnorm", "BatchNorm2d"),
         "BatchNorm3d": ("modules.batchnorm", "BatchNorm3d"),
         "InstanceNorm1d": ("modules.instancenorm", "InstanceNorm1d"),
         "InstanceNorm2d": ("modules.instancenorm", "InstanceNorm2d"),
         "InstanceNorm3d": ("modules.instancenorm", "InstanceNorm3d"),
         "LayerNorm": ("modules.normalization", "LayerNorm"),
         "GroupNorm": ("modules.normalization", "GroupNorm"),
         "RMSNorm": ("modules.normalization", "RMSNorm"),
         **{name: (f"modules.{module}", name) for module, names in (
             ("conv", ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")),
             ("pooling", ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
                          "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d")),
             ("padding", ("CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
                          "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
                          "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d")),
             ("fold", ("Fold", "Unfold"))) for name in names}}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
    import importlib

    module, attr = _LAZY[name]
    value = importlib.import_module(f"{__name__}.{module}")
    return value if attr is None else getattr(value, attr)
