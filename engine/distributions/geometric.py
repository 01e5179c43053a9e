"""``Geometric(probs=None, logits=None)``: the number of failures before the first success."""
from . import constraints
from .distribution import Distribution
from .utils import _BinaryProbs, _Number, _expand, _probs_or_logits, broadcast_all, torch

__all__ = ["Geometric"]


class Geometric(_BinaryProbs, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        batch_shape = torch.Size() if isinstance(value, _Number) else value.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                invalid_value = value.data[~valid]
                raise ValueError("Expected parameter probs "
                                 f"({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {repr(self)} "
                                 f"to be positive but found invalid values:\n{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        new = _expand(self, Geometric, batch_shape, _instance, ("probs", "logits"))
        new.__dict__.pop("_param", None)
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=torch.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return (torch.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
                / self.probs)
