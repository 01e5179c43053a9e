"""Distance modules: ``F.pairwise_distance`` and ``F.cosine_similarity`` with their options."""
from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    r"""The ``p``-norm distance between the rows (the last dimension) of ``x1`` and ``x2``:
    :math:`\Vert x_1 - x_2 + \epsilon \Vert_p`.

    Args:
        p: the norm degree. Default: 2
        eps: added to the difference, against division by zero. Default: 1e-6
        keepdim: keep the last dimension (of size 1). Default: ``False``
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r"""The cosine similarity of ``x1`` and ``x2`` along ``dim``: :math:`\frac{x_1 \cdot x_2}
    {\max(\Vert x_1 \Vert, \epsilon) \max(\Vert x_2 \Vert, \epsilon)}`.

    Args:
        dim: the dimension it is computed along. Default: 1
        eps: the smallest norm divided by. Default: 1e-8
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
