"""``torch.optim``: optimizers that update parameters in place from their ``.grad``.

>>> w = torch.tensor([1.0, -2.0], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""
from .. import _lazy
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from . import lr_scheduler  # noqa: E402  (torch.optim.lr_scheduler)

# Loaded at first use (``import engine`` stays quick): name -> (module, attribute or None).
_LAZY = {"Adadelta": ("adadelta", "Adadelta"), "Adamax": ("adamax", "Adamax"), "ASGD": ("asgd", "ASGD"),
         "LBFGS": ("lbfgs", "LBFGS"), "NAdam": ("nadam", "NAdam"), "RAdam": ("radam", "RAdam"),
         "Rprop": ("rprop", "Rprop"), "swa_utils": ("swa_utils", None)}

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD"]


__getattr__ = _lazy.lazy_getattr(__name__, "torch.optim", _LAZY)

def __dir__():
    return sorted(set(globals()) | set(_LAZY))
