"""Helpers the distributions share, as ``torch.distributions.utils`` has them."""
import importlib
from functools import update_wrapper

torch = importlib.import_module("..", __package__)  # the engine, bound the way PyTorch's code binds torch

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant
_Number = (int, float, bool)

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _is_tensor_like(v):
    return isinstance(v, torch.Tensor) or hasattr(type(v), "__torch_function__")


def broadcast_all(*values):
    """The values broadcast to one shape; numbers become tensors of the first tensor's dtype (or the
    default dtype)."""
    if not all(_is_tensor_like(v) or isinstance(v, _Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(_is_tensor_like(v) for v in values):
        options = dict(dtype=torch.get_default_dtype())
        for value in values:
            if isinstance(value, torch.Tensor):
                options = dict(dtype=value.dtype, device=value.device)
                break
        values = [v if _is_tensor_like(v) else torch.tensor(v, **options) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """``value`` with its ``dim`` rightmost dims summed out."""
    if dim == 0:
        return value
    required_shape = value.shape[:-dim] + (-1,)
    return value.reshape(required_shape).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property:
    """An attribute computed (with grad enabled) at first access, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What the class gives for a lazy property: a property to documentation tools, a lazy_property to
    Distribution's argument validation."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


class _BinaryProbs:
    """``probs`` and ``logits`` of a two-outcome parameter, each worked out from the other at first use."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = torch.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec, diag=0):
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         + "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    arange = torch.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat


def _set_params(dist, **params):
    """Broadcasts the parameters onto ``dist``; the batch shape is theirs, or () when all were numbers."""
    for name, t in zip(params, broadcast_all(*params.values())):
        setattr(dist, name, t)
    if all(isinstance(v, _Number) for v in params.values()):
        return torch.Size()
    return getattr(dist, next(iter(params))).size()


def _expand(dist, cls, batch_shape, _instance, names, event_shape=None):
    """``dist.expand``: a new instance whose parameters (those of ``names`` it holds) are expanded views."""
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = torch.Size(batch_shape)
    param_shape = batch_shape + (dist._event_shape if event_shape is None else event_shape)
    for name in names:
        if name in dist.__dict__:
            setattr(new, name, getattr(dist, name).expand(param_shape))
            if name in ("probs", "logits"):
                new._param = getattr(new, name)
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new


def _probs_or_logits(probs, logits):
    """The one of probs/logits given: PyTorch's error unless exactly one is."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)
