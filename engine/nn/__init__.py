"""``torch.nn``: modules, parameters, initialisations and the functional API (losses and activations)."""
from . import functional, init
from .modules import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, ELU, Flatten, Identity, L1Loss, LeakyReLU, Linear,
                      LogSoftmax, Module, ModuleDict, ModuleList, MSELoss, NLLLoss, ParameterDict, ParameterList, ReLU,
                      Sequential, SiLU, Sigmoid, Softmax, Softplus, Tanh, Unflatten)
from .parameter import Parameter

__all__ = ["functional", "init", "Parameter", "Module", "Identity", "Linear", "Flatten", "Unflatten", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU", "Sigmoid", "Tanh", "LeakyReLU",
           "Softmax", "LogSoftmax", "Softplus", "SiLU", "ELU", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss"]
