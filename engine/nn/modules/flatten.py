"""``Flatten`` and ``Unflatten``."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    r"""Flattens dimensions ``start_dim`` to ``end_dim`` into one (by default all but the batch dimension).

    >>> nn.Flatten()(torch.randn(32, 1, 5, 5)).shape
    torch.Size([32, 25])
    """

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Expands dimension ``dim`` into the shape ``unflattened_size``.

    >>> nn.Unflatten(1, (2, 5, 5))(torch.randn(2, 50)).shape
    torch.Size([2, 2, 5, 5])
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, n in enumerate(unflattened_size):
            if not isinstance(n, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                f"{type(n).__name__} at pos {i}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
