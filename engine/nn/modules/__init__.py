"""The ``torch.nn`` modules, laid out as PyTorch's ``torch/nn/modules`` (a class's dotted name,
``torch.nn.modules.linear.Linear``, is what PyTorch's messages print)."""
from .activation import ELU, LeakyReLU, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax, Softplus, Tanh
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module

__all__ = ["Module", "Identity", "Linear", "Flatten", "Unflatten", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "ReLU", "Sigmoid", "Tanh", "LeakyReLU", "Softmax", "LogSoftmax",
           "Softplus", "SiLU", "ELU", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss"]
