"""The ``torch.nn`` modules, laid out as PyTorch's ``torch/nn/modules`` (a class's dotted name,
``torch.nn.modules.linear.Linear``, is what PyTorch's messages print)."""
from ... import _lazy
from .activation import (CELU, ELU, GELU, GLU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax,
                         Mish, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax, Softmin, Softplus, Softsign, Tanh, Tanhshrink,
                         Threshold, MultiheadAttention, Hardshrink, Softshrink, PReLU)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .flatten import Flatten, Unflatten
from .linear import Identity, LazyLinear, Linear, NonDynamicallyQuantizableLinear
from .lazy import LazyModuleMixin
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss,
                   MarginRankingLoss, MSELoss, NLLLoss, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss)
from .module import Module
from .sparse import Embedding

__all__ = ["Module", "Identity", "Linear", "LazyLinear", "LazyModuleMixin", "Flatten", "Unflatten", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "ReLU", "Sigmoid", "Tanh", "LeakyReLU", "Softmax", "LogSoftmax",
           "Softplus", "SiLU", "ELU", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "GELU", "Hardtanh", "ReLU6", "Softsign", "LogSigmoid", "SELU", "CELU", "Mish",
           "Hardsigmoid", "Hardswish", "Softmin", "GLU", "Threshold", "Tanhshrink", "SmoothL1Loss", "HuberLoss",
           "KLDivLoss", "CosineSimilarity", "PairwiseDistance", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "Embedding", "MultiheadAttention", "Hardshrink", "Softshrink", "PReLU", "SoftMarginLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "PoissonNLLLoss"]


# Loaded at first use, not at import (see engine.__getattr__): class name -> module under torch.nn.modules.
# torch.nn reads this table too.
_LAZY = {name: module for module, names in (
    ("rnn", ("RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell")),
    ("batchnorm", ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
                   "LazyBatchNorm3d")),
    ("instancenorm", ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")),
    ("normalization", ("LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm")),
    ("conv", ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
              "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d")),
    ("pooling", ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveMaxPool1d",
                 "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "LPPool1d", "LPPool2d", "LPPool3d",
                 "MaxUnpool1d", "MaxUnpool2d")),
    ("padding", ("CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
                 "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
                 "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d")),
    ("fold", ("Fold", "Unfold")),
    ("upsampling", ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d")),
    ("pixelshuffle", ("PixelShuffle", "PixelUnshuffle")),
    ("channelshuffle", ("ChannelShuffle",)),
    ("loss", ("GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CosineEmbeddingLoss",
              "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss")),
    ("linear", ("Bilinear",)),
    ("activation", ("RReLU",)),
    ("dropout", ("AlphaDropout", "FeatureAlphaDropout")),
    ("transformer", ("Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
                     "TransformerDecoderLayer"))) for name in names}

__getattr__ = _lazy.lazy_getattr(__name__, "torch.nn.modules", {n: (m, n) for n, m in _LAZY.items()})

