"""``torch.nn.utils.parametrizations``: ``orthogonal``, ``weight_norm`` and ``spectral_norm`` as
parametrizations (see ``parametrize``), as PyTorch 2.13 composes them."""
from enum import Enum, auto

from ... import _ops
from ..._grad_mode import no_grad
from ..._ops import _OTHER, _SELF, defop, register_saved
from ..._tensor import Tensor, record
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q, eps=None):
    import engine as torch

    n, k = Q.size(-2), Q.size(-1)
    Id = torch.eye(k, dtype=Q.dtype, device=Q.device)
    # A reasonable eps, but not too large
    eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mT @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with the diagonal of R non-negative."""
    import engine as torch

    X, tau = torch.geqrf(A)
    Q = torch.linalg.householder_product(X, tau)
    # The diagonal of X is the diagonal of R, so its signs normalise Q's columns
    Q *= _ops.sgn(X.diagonal(dim1=-2, dim2=-1)).unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        # (the engine's tensors are real: PyTorch refuses householder only for complex ones)
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        import engine as torch

        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # Here n > k and X is a tall matrix
        if self.orthogonal_map == _OrthMaps.matrix_exp or self.orthogonal_map == _OrthMaps.cayley:
            # We just need n x k - k(k-1)/2 parameters
            X = X.tril()
            if n != k:
                # Embed into a square matrix
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            # A is skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = torch.matrix_exp(A)
            else:
                # The Cayley retraction (I+A/2)(I-A/2)^{-1}
                Id = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(Id, A, alpha=-0.5), torch.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            # The diagonal of X is 1's and -1's: cast, so as not to differentiate through it
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)

        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q):
        import engine as torch

        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n

        # Q is copied on every path
        if not hasattr(self, "base"):
            # Without the trivialization only householder's map can be inverted
            if self.orthogonal_map == _OrthMaps.cayley or self.orthogonal_map == _OrthMaps.matrix_exp:
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            # The reflectors of Q's QR, with the diagonal of R's signs (those of a reflection not
            # taken, tau == 0 exactly, flipped) on the diagonal
            A, tau = torch.geqrf(Q)
            diagonal = A.diagonal(dim1=-2, dim2=-1)
            diagonal.copy_(diagonal.sign())
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            if not _is_orthogonal(Q):
                Q = _make_orthogonal(Q)
            else:
                Q = Q.clone()
        else:
            # Complete Q into a full n x n orthogonal matrix
            N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = torch.cat([Q, N], dim=-1)
            Q = _make_orthogonal(Q)
        self.base = Q
        # -Id, so that householder(zeros) is the identity
        neg_Id = torch.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    r"""Makes ``module.<name>`` orthogonal (orthonormal columns if it is tall, rows if wide), as the
    image of an unconstrained tensor under ``orthogonal_map``: ``"matrix_exp"`` or ``"cayley"`` of a
    skew-symmetric matrix, or ``"householder"`` (a product of reflectors). The default is
    ``"matrix_exp"`` for a square weight and ``"householder"`` otherwise. With
    ``use_trivialization`` (the default) the result is multiplied by an orthogonal ``base`` buffer
    (``module.parametrizations.<name>[0].base``), set when a value is assigned.

    >>> m = orthogonal(nn.Linear(20, 40))
    >>> torch.dist(m.weight.T @ m.weight, torch.eye(20)) < 1e-5
    tensor(True)
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    r"""Weight normalisation as a parametrization: ``module.<name>`` becomes
    :math:`g\, v / \|v\|`, with ``g`` (``parametrizations.<name>.original0``) the norm of the
    weight over every dim but ``dim`` (the whole tensor for ``dim=None``) and ``v``
    (``original1``) its direction. A ``state_dict`` of the deprecated ``weight_norm`` (``<name>_g``
    and ``<name>_v``) loads into it.

    >>> m = weight_norm(nn.Linear(20, 40))
    >>> m.parametrizations.weight.original0.size()
    torch.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    # PyTorch registers this as a load_state_dict pre-hook, which its _load_from_state_dict runs
    # first; the engine's Module has no such hooks, so the module's own Parametrized class (made
    # for this module alone by register_parametrization) runs it there.
    cls = type(module)
    load = cls._load_from_state_dict

    def _load_from_state_dict(self, state_dict, prefix, *args):
        _weight_norm_compat_hook(state_dict, prefix, *args)
        load(self, state_dict, prefix, *args)

    cls._load_from_state_dict = _load_from_state_dict
    return module


# torch.vdot of real vectors: the sum of their products
VDOT = defop("VdotBackward0", lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves=(0, 1))
VDOT.save_for = {0: (1,), 1: (0,)}  # (each saved only for the other's grad, as PyTorch saves them)
register_saved({"VdotBackward0": {"self": _SELF, "other": _OTHER}})


def _vdot(a, b):
    return record(VDOT, (a, b), (a._data * b._data).sum(dtype=a._data.dtype))


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # (a vector is normalised exactly: nothing to approximate)
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # u and v start from 15 steps of the power method
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations):
        # u and v approach the first left and right singular vectors of the weight, so that u^T W v
        # is its largest singular value. They are updated in place, as PyTorch's out= does.
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        for _ in range(n_power_iterations):
            self._u.copy_(F.normalize(_ops.mv(weight_mat, self._v), dim=0, eps=self.eps))
            self._v.copy_(F.normalize(_ops.mv(weight_mat.mT, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # Clones, so that the power method's next in-place update is not an error at backward
        u = self._u.clone()
        v = self._v.clone()
        sigma = _vdot(u, _ops.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Spectral normalisation as a parametrization: ``module.<name>`` becomes the weight divided by
    its largest singular value (of the weight as a matrix, ``dim`` first: 1 for the transposed
    convolutions, 0 otherwise), estimated by ``n_power_iterations`` steps of the power method at
    each access in training mode (buffers ``_u`` and ``_v`` of the parametrization)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
