"""``torch.autograd.graph``: the ``Node`` class every ``grad_fn`` is an instance of."""
from .._graph import Node, RemovableHandle

__all__ = ["Node", "RemovableHandle"]
