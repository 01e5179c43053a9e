"""Parameters as one flat vector, and back."""
from ... import _ops
from ..._tensor import Tensor
from ...optim.optimizer import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All ``parameters`` flattened and concatenated into one 1-d tensor (differentiable)."""
    flat = []
    for p in parameters:
        p.device  # noqa: B018 - PyTorch checks each one's device first: a non-tensor fails here, as there
        flat.append(p.view(-1))
    return _ops.cat(flat)


def vector_to_parameters(vec, parameters):
    """Make each parameter's data the next ``numel`` values of ``vec`` (a view of it, in its shape)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    start = 0
    for p in parameters:
        p.device  # noqa: B018 - as in parameters_to_vector
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
