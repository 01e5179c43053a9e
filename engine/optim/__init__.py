"""``torch.optim``: optimizers that update parameters in place from their ``.grad``.

>>> w = torch.tensor([1.0, -2.0], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from . import lr_scheduler  # noqa: E402  (torch.optim.lr_scheduler)

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD"]
