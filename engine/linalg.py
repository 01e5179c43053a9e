"""``torch.linalg``: decompositions, solvers, inverses and norms, each one node as in PyTorch.

The forwards are NumPy's LAPACK calls. Every backward rule is written with this engine's ops
(``matmul``, ``solve``, ``where``, ...), so higher-order grads work as for the other ops. The
decompositions whose rules read several outputs (qr, eigh, svd) keep those besides the first as
``_SavedOutputs``: their rules read them back as tensors whose ``grad_fn`` is the node, as
PyTorch's saved outputs are.

>>> import engine as torch
>>> A = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True)
>>> torch.linalg.det(A)
tensor(5., grad_fn=<LinalgDetBackward0>)
"""
import builtins
import math
import warnings
import weakref

import numpy as np

from . import _dtypes, _grad_mode
from ._ops import (_broadcast_checked, _broadcast_error, _given, _mul_scalar, _prod_of_others, _quietly,
                   _record_shared, _saved_attr, _saved_dim, _saved_output, _saved_slot, _saved_tensor_attr,
                   _scalar_type, _shared_rules, _sub_scalar, amax, amin, cat, clone, defop, expand, matmul, narrow,
                   neg, norm_dims, permute, register_saved, return_type, sum, to_dtype, transpose, tril, triu,
                   unsqueeze, where, diag_embed)
from ._ops import _norm as _vector_norm_impl, NORM as _VECTOR_NORM, diagonal as _diagonal
from ._ops import _given_kw, invalid_arguments, need_tensor
from ._ops import _tensors_expected, cumprod, flatten, mm, movedim, reshape, vdot, view
from ._graph import freed_error
from ._tensor import _CPP_TYPE_NAMES, Tensor, _wrap, record

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
           "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul",
           "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]


class LinAlgError(RuntimeError):
    """A singular or non-positive-definite input (PyTorch's ``torch._C._LinAlgError``)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torch._C"


# ----- torch.return_types.linalg_* -----

_SlogdetResult = return_type("slogdet", ("sign", "logabsdet"))
_LinalgSlogdet = return_type("linalg_slogdet", ("sign", "logabsdet"))
_LinalgInvEx = return_type("linalg_inv_ex", ("inverse", "info"))
_LinalgSolveEx = return_type("linalg_solve_ex", ("result", "info"))
_LinalgCholeskyEx = return_type("linalg_cholesky_ex", ("L", "info"))
_TriangularSolve = return_type("triangular_solve", ("solution", "cloned_coefficient"))
_LinalgQr = return_type("linalg_qr", ("Q", "R"))
_LinalgEigh = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_LinalgSvd = return_type("linalg_svd", ("U", "S", "Vh"))


# ----- Checks, with PyTorch's messages -----

def _check_ndim(A, fname, name="A"):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {name} must have at least 2 dimensions.")


def _check_square(A, fname):
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are {m} by {n} matrices")


def _check_float(A, fname):
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_scalar_type(A)}")


def _not_for(A, kernel):
    """PyTorch has no CPU kernel for this dtype (Half, or an integer type where it checks nothing first)."""
    if A._data.dtype == np.float16 or A._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_type(A)}'")


def _no_low_precision(A, fname):
    if A._data.dtype == np.float16:
        raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got Half")


def _square_float(A, fname):
    _check_ndim(A, fname)
    _check_square(A, fname)
    _check_float(A, fname)


def _batch_prefix(A, info):
    """"(Batch element k): " for the first failing matrix of a batch; nothing for one matrix."""
    if A._data.ndim <= 2:
        return "", int(info.reshape(-1)[0])
    k = int(np.flatnonzero(info.reshape(-1))[0])
    return f"(Batch element {k}): ", int(info.reshape(-1)[k])


# ----- LAPACK's LU (getrf/getrs), for what NumPy does not return -----
# NumPy's inv and solve raise on a singular matrix without saying which; PyTorch names the first
# zero pivot, returns inf/nan from inv_ex and solve_ex, and shows LU and pivots as _saved_LU.

def _lu(a):
    """getrf's partial pivoting on each m x n matrix: (packed LU, 1-based int32 pivots, info = the
    first zero pivot). A nan is taken as pivot only where it comes first in its column, as idamax does."""
    shape = a.shape
    m, n = shape[-2:]
    k = builtins.min(m, n)
    lu = a.reshape((math.prod(shape[:-2]), m, n)).copy()
    b = lu.shape[0]
    rows = np.arange(b)
    piv = np.zeros((b, k), np.int32)
    info = np.zeros(b, np.int32)
    with np.errstate(all="ignore"):
        for j in range(k):
            col = np.abs(lu[:, j:, j])
            nan = np.isnan(col)
            p = j + np.where(nan[:, 0], 0, np.argmax(np.where(nan, -1, col), axis=1))
            piv[:, j] = p + 1
            top = lu[rows, p].copy()
            lu[rows, p] = lu[:, j]
            lu[:, j] = top
            pivot = lu[:, j, j]
            zero = pivot == 0
            info[(info == 0) & zero] = j + 1
            lu[:, j + 1:, j] *= np.where(zero, 1, 1 / np.where(zero, 1, pivot))[:, None].astype(lu.dtype)
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(shape), piv.reshape(shape[:-2] + (k,)), info.reshape(shape[:-2])


def _lu_solve(lu, piv, rhs, adjoint=False):
    """getrs: X with ``A X = B`` (``A^T X = B`` if ``adjoint``) from the factors of ``_lu``; the
    batches broadcast. A zero pivot gives PyTorch's infs and nans rather than an error."""
    n = lu.shape[-1]
    batch = np.broadcast_shapes(rhs.shape[:-2], lu.shape[:-2])
    shape = batch + rhs.shape[-2:]
    count = math.prod(batch)
    lu = np.broadcast_to(lu, batch + (n, n)).reshape((count, n, n))
    piv = np.broadcast_to(piv, batch + (n,)).reshape((count, n)) - 1
    x = np.array(np.broadcast_to(rhs, shape), dtype=lu.dtype).reshape((count,) + shape[-2:])
    rows = np.arange(x.shape[0])

    def swap(k):
        p = piv[:, k]
        top = x[rows, p].copy()
        x[rows, p] = x[:, k]
        x[:, k] = top

    with np.errstate(all="ignore"):
        if not adjoint:  # P L U X = B
            for k in range(n):
                swap(k)
            for k in range(n):
                x[:, k + 1:] -= lu[:, k + 1:, k, None] * x[:, k, None, :]
            for k in reversed(range(n)):
                x[:, k] /= lu[:, k, k, None]
                x[:, :k] -= lu[:, :k, k, None] * x[:, k, None, :]
        else:  # U^T L^T P^T X = B
            for k in range(n):
                x[:, k] /= lu[:, k, k, None]
                x[:, k + 1:] -= lu[:, k, k + 1:, None] * x[:, k, None, :]
            for k in reversed(range(n)):
                x[:, :k] -= lu[:, k, :k, None] * x[:, k, None, :]
            for k in reversed(range(n)):
                swap(k)
    return x.reshape(shape)


def _column_major(x):
    """Each matrix laid out column-major, as LAPACK returns it and PyTorch keeps it (so views and
    products of the result take PyTorch's nodes: ReshapeAliasBackward0 rather than ViewBackward0)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _eye_like(d):
    n = d.shape[-1]
    return np.broadcast_to(np.eye(n, dtype=d.dtype), d.shape).copy()


def _inverse(d):
    """(inverse, info) of a stack of square matrices; a singular one is solved as getrs does."""
    try:
        out = _quietly(np.linalg.inv, d)
        # (Pyodide's NumPy raises nothing for a singular matrix: WebAssembly has no floating-point flags)
        if np.isfinite(out).all() or not np.isfinite(d).all():
            return out, np.zeros(d.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    lu, piv, info = _lu(d)
    return _lu_solve(lu, piv, _eye_like(d)), info


def _mT(x):
    return transpose(x, -2, -1)


def _eye(n, dtype):
    return _wrap(np.eye(n, dtype=dtype))


def _diag_embed(v):
    return unsqueeze(v, -1) * _eye(v._data.shape[-1], v._data.dtype)


# ----- det, slogdet, logdet -----

def _det_grad(g, ans, A):
    # PyTorch's rule: g * det * A^-T; where det is 0 it gives 0 (first order), or the matrix of
    # cofactors from an SVD when a graph is built (so second derivatives at a singular matrix exist).
    scale = unsqueeze(unsqueeze(g * ans, -1), -1)
    zero = ans._data == 0
    if not _grad_mode._enabled and not _grad_mode._fw_active:
        d = A._data
        mask = zero[..., None, None]
        safe = np.where(mask, np.eye(d.shape[-1], dtype=d.dtype), d)
        inv_t = np.swapaxes(_inverse(safe)[0], -1, -2)
        return _wrap(np.where(mask, d.dtype.type(0), scale._data * inv_t))
    if not zero.any():
        return scale * _mT(inv(A))
    n, dt = A._data.shape[-1], A._data.dtype
    g2 = unsqueeze(unsqueeze(g, -1), -1)
    if zero.all():
        return g2 * _cofactors(A)
    mask = _wrap(zero[..., None, None])
    # Each formula gets a stand-in where the other applies (I, and a matrix with distinct singular
    # values), so that neither puts inf or nan in the other's grads.
    nonsingular = scale * _mT(inv(where(mask, _eye(n, dt), A)))
    singular = g2 * _cofactors(where(mask, A, _wrap(np.diag(np.arange(1, n + 1, dtype=dt)))))
    return where(mask, singular, nonsingular)


def _cofactors(A):
    U, S, Vh = svd(A, full_matrices=False)
    sign = np.linalg.det(U._data) * np.linalg.det(Vh._data)
    others = _prod_of_others(S, S._data.ndim - 1) * _wrap(np.asarray(sign, S._data.dtype)[..., None])
    return matmul(U * unsqueeze(others, -2), Vh)


def _slogdet_grad(gs, ans, A):
    g = gs[1]
    if g is None:
        return None  # the sign is locally constant: PyTorch leaves the grad undefined
    g2 = unsqueeze(unsqueeze(g, -1), -1)
    if _grad_mode._enabled or _grad_mode._fw_active:
        return solve(_mT(A), g2 * _eye(A._data.shape[-1], A._data.dtype))
    return _wrap(g2._data * np.swapaxes(_inverse(A._data)[0], -1, -2))


DET = defop("LinalgDetBackward0", _det_grad, saves=(0, "result"))
SLOGDET = defop("LinalgSlogdetBackward0", _slogdet_grad, saves=(0, "result"), outputs=(0, 1))


def det(A):
    """The determinant of each matrix; one ``LinalgDetBackward0`` node."""
    need_tensor("linalg_det", "A", 1, A)
    _square_float(A, "linalg.det")
    _not_for(A, "lu_cpu")
    d = A._data
    out = np.asarray(_quietly(np.linalg.det, d), dtype=d.dtype)
    return record(DET, (A,), _nan_where_nan(d, out))


def _nan_where_nan(d, out, fill=np.nan):
    """``fill`` for each matrix holding a nan, as LAPACK's LU in PyTorch gives (NumPy's may pivot it away)."""
    has_nan = np.isnan(d).any(axis=(-2, -1)) if d.size else False
    return np.where(has_nan, d.dtype.type(fill), out) if np.any(has_nan) else out


def _slogdet(A, fname, result_type):
    _square_float(A, fname)
    _no_low_precision(A, fname)
    d = A._data
    sign, logabs = _quietly(np.linalg.slogdet, d)
    sign, logabs = _nan_where_nan(d, np.asarray(sign, d.dtype), 0), _nan_where_nan(d, np.asarray(logabs, d.dtype))
    outs = record(SLOGDET, (A,), (sign, logabs), n_outputs=2)
    return result_type(*outs)


def slogdet(A):
    """``(sign, logabsdet)`` of each matrix, both outputs of one ``LinalgSlogdetBackward0`` node."""
    need_tensor("linalg_slogdet", "A", 1, A)
    return _slogdet(A, "linalg.slogdet", _LinalgSlogdet)


def _torch_slogdet(A):
    """``torch.slogdet``: ``linalg.slogdet`` with the return type ``torch.return_types.slogdet``."""
    return _slogdet(A, "linalg.slogdet", _SlogdetResult)


def _logdet(A):
    """``torch.logdet``: nan where the determinant is negative, as PyTorch computes it from slogdet."""
    sign, logabs = _slogdet(A, "logdet", lambda *outs: outs)
    return where(sign < 0, math.nan, logabs)


# ----- inv, solve -----

INV = defop("LinalgInvExBackward0", lambda g, ans, A: neg(matmul(_mT(ans), matmul(g, _mT(ans)))), saves=("result",))


def _inv_checks(A):
    _square_float(A, "linalg.inv")
    _no_low_precision(A, "linalg.inv")


def _singular_inverse(A, fname, info):
    prefix, k = _batch_prefix(A, info)
    return LinAlgError(f"{fname}: {prefix}The diagonal element {k} is zero, the inversion could not be completed "
                       "because the input matrix is singular.")


def inv(A):
    """The inverse of each matrix (``LinalgInvExBackward0``); a singular one raises ``LinAlgError``."""
    need_tensor("linalg_inv", "A", 1, A)
    _inv_checks(A)
    out, info = _inverse(A._data)
    if info.any():
        raise _singular_inverse(A, "linalg.inv", info)
    return record(INV, (A,), _column_major(out))


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: info is the first zero pivot of each matrix (0 when invertible)."""
    need_tensor("linalg_inv_ex", "A", 1, A)
    _inv_checks(A)
    out, info = _inverse(A._data)
    if check_errors and info.any():
        raise _singular_inverse(A, "linalg.inv_ex", info)
    return _LinalgInvEx(record(INV, (A,), _column_major(out)), _wrap(np.asarray(info, np.int32)))


def _vector_case(A, B):
    return B.ndim == 1 or B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]


def _solve_grads(g, X, A, B, left):
    # PyTorch's linalg_solve_backward (as it runs when a graph is built): gB = A^-T gX, gA = -gB X^T
    # (-X^T gB when not ``left``), a vector right-hand side taken as a column.
    vector = _vector_case(A._data, g._data)
    gB = solve(_mT(A), unsqueeze(g, -1) if vector else g, left=left)
    gA = None
    if A._requires_grad:
        Xm = unsqueeze(X, -1) if vector else X
        gA = neg(matmul(gB, _mT(Xm))) if left else neg(matmul(_mT(Xm), gB))
    return gA, gB.squeeze(-1) if vector else gB


SOLVE = defop("LinalgSolveExBackward0", *_shared_rules(2, _solve_grads, with_result=True), saves=(0, "result"))


def _solve(A, B, left, fname):
    _check_float(A, fname)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fname}: Expected A and B to have the same dtype, but found A of type {_scalar_type(A)} "
                           f"and B of type {_scalar_type(B)} instead")
    _check_ndim(A, fname)
    if B._data.ndim < 1:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    _check_square(A, fname)
    _not_for(A, "lu_cpu")
    a, b = A._data, B._data
    vector = _vector_case(a, b)
    bm = b[..., None] if vector else b
    n = a.shape[-1]
    if (bm.shape[-2] if left else bm.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{bm.shape[-2]}x{bm.shape[-1]})")
    batch = _broadcast_checked(bm.shape[:-2], a.shape[:-2])
    a2 = np.broadcast_to(a, batch + a.shape[-2:])
    b2 = np.broadcast_to(bm, batch + bm.shape[-2:])
    if not left:  # X A = B as A^T X^T = B^T
        a2, b2 = np.swapaxes(a2, -1, -2), np.swapaxes(b2, -1, -2)
    info = np.zeros(a.shape[:-2], np.int32)
    try:
        x = _quietly(np.linalg.solve, a2, b2)
        if not np.isfinite(x).all() and np.isfinite(a2).all() and np.isfinite(b2).all():
            raise np.linalg.LinAlgError  # (singular, in Pyodide, which raises nothing: see _inverse)
    except np.linalg.LinAlgError:
        lu, piv, info = _lu(a if left else np.swapaxes(a, -1, -2))
        lu2 = np.broadcast_to(lu, batch + lu.shape[-2:])
        x = _lu_solve(lu2, np.broadcast_to(piv, batch + piv.shape[-1:]), np.ascontiguousarray(b2))
    if not left:
        x = np.swapaxes(x, -1, -2)
    x = np.ascontiguousarray(x[..., 0]) if vector else _column_major(x) if left else np.ascontiguousarray(x)
    return _record_shared(SOLVE, (A, B), x, {"left": left}), info


def _singular_solve(A, info, fname="torch.linalg.solve"):
    prefix, _ = _batch_prefix(A, info)
    return LinAlgError(f"{fname}: {prefix}The solver failed because the input matrix is singular.")


def solve(A, B, *, left=True):
    """X with ``A X = B`` (``XA = B`` when ``left=False``); B may be a (batch of) vector(s)."""
    need_tensor("linalg_solve", "A", 1, A)
    need_tensor("linalg_solve", "B", 2, B)
    x, info = _solve(A, B, left, "linalg.solve")
    if info.any():
        raise _singular_solve(A, info)
    return x


def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)``: ``solve`` that reports a singular matrix in info instead of raising."""
    need_tensor("linalg_solve_ex", "A", 1, A)
    need_tensor("linalg_solve_ex", "B", 2, B)
    x, info = _solve(A, B, left, "linalg.solve")
    if check_errors and info.any():
        raise _singular_solve(A, info, "torch.linalg.solve_ex")
    return _LinalgSolveEx(x, _wrap(np.asarray(info, np.int32)))


# ----- cholesky -----

def _cholesky_info(a):
    """potrf's info for each matrix (reading its lower triangle): the order of the first leading
    minor that is not positive-definite, 0 if none."""
    n = a.shape[-1]
    a = a.reshape((-1, n, n)).astype(np.float64)
    L = np.zeros_like(a)
    info = np.zeros(a.shape[0], np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            d = a[:, j, j] - np.sum(L[:, j, :j] ** 2, axis=-1)
            bad = ~(d > 0)
            info[(info == 0) & bad] = j + 1
            dj = np.sqrt(np.where(bad, 1.0, d))
            L[:, j, j] = dj
            L[:, j + 1:, j] = (a[:, j + 1:, j] - np.einsum("bik,bk->bi", L[:, j + 1:, :j], L[:, j, :j])) / dj[:, None]
    return info


def _cholesky_grad(g, ans, A, upper):
    # PyTorch's rule: gA = L^-T pi*(tril(L^T gL)) L^-1 with pi*(X) = (X + X^T - diag(X)) / 2, symmetric
    L, gL = (_mT(ans), _mT(g)) if upper else (ans, g)
    gA = tril(matmul(_mT(L), gL))
    gA = _mul_scalar(gA + _mT(tril(gA, -1)), 0.5)
    gA = solve_triangular(_mT(L), gA, upper=True)
    return solve_triangular(L, gA, upper=False, left=False)


CHOLESKY = defop("LinalgCholeskyExBackward0", _cholesky_grad, saves=("result",))
CHOLESKY_LEGACY = defop("CholeskyBackward0", _cholesky_grad, saves=("result",))


def _potrf2(a):
    """LAPACK's recursive potrf2 on one matrix's lower triangle, in place; the info it returns. Where
    it stops at a leading minor that is not positive-definite, what it leaves is the L PyTorch shows."""
    n = a.shape[0]
    if n == 1:
        if not a[0, 0] > 0:
            return 1
        a[0, 0] = np.sqrt(a[0, 0])
        return 0
    n1 = n // 2
    info = _potrf2(a[:n1, :n1])
    if info:
        return info
    a[n1:, :n1] = np.swapaxes(_substitute(a[:n1, :n1], a[n1:, :n1].T, False, False), -1, -2)
    a[n1:, n1:] -= a[n1:, :n1] @ a[n1:, :n1].T
    info = _potrf2(a[n1:, n1:])
    return info + n1 if info else 0


def _cholesky_factor(d):
    """(L, info) of a stack of matrices, from their lower triangles."""
    try:
        L = _quietly(np.linalg.cholesky, d)
        if np.isfinite(L).all():
            return L, np.zeros(d.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    n = d.shape[-1]
    flat = d.reshape((-1, n, n))
    info = _cholesky_info(flat)
    L = np.empty_like(flat)
    with np.errstate(all="ignore"):
        for k, a in enumerate(flat):
            if not info[k]:
                try:
                    L[k] = np.linalg.cholesky(a)
                    continue
                except np.linalg.LinAlgError:  # positive-definite in float64 only
                    pass
            L[k] = np.tril(a)
            info[k] = _potrf2(L[k]) or info[k]
            L[k] = np.tril(L[k])
    return L.reshape(d.shape), info.reshape(d.shape[:-2])


def _not_positive_definite(A, fname, info):
    prefix, k = _batch_prefix(A, info)
    return LinAlgError(f"{fname}: {prefix}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {k} is not positive-definite).")


def _cholesky(A, upper, fname, op, check_errors=True):
    _square_float(A, "linalg.cholesky")
    _not_for(A, "cholesky_cpu")
    d = A._data
    L, info = _cholesky_factor(np.swapaxes(d, -1, -2) if upper else d)  # upper=True reads the upper triangle
    if check_errors and info.any():
        raise _not_positive_definite(A, fname, info)
    out = np.swapaxes(L, -1, -2) if upper else L
    return record(op, (A,), _column_major(out.astype(d.dtype, copy=False)), {"upper": upper}), info


def cholesky(A, *, upper=False):
    """L with ``A = L L^T`` (U with ``A = U^T U`` if ``upper``); not positive-definite raises ``LinAlgError``."""
    need_tensor("linalg_cholesky", "input", 1, A)
    return _cholesky(A, upper, "linalg.cholesky", CHOLESKY)[0]


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: info is the order of the first leading minor that is not positive-definite (0 if
    none), and L then what LAPACK leaves."""
    need_tensor("linalg_cholesky_ex", "input", 1, A)
    L, info = _cholesky(A, upper, "linalg.cholesky_ex", CHOLESKY, check_errors)
    return _LinalgCholeskyEx(L, _wrap(np.asarray(info, np.int32)))


# ----- triangular solves: solve_triangular, torch.triangular_solve, cholesky_solve, cholesky_inverse -----

def _substitute(a, b, upper, unitriangular):
    """X with ``A X = B``, A triangular (only that triangle read), by substitution as trsm solves it:
    a zero on the diagonal gives infs and nans, as in PyTorch, rather than an error."""
    n = a.shape[-1]
    x = np.array(b, dtype=a.dtype)
    with np.errstate(all="ignore"):
        for k in (reversed(range(n)) if upper else range(n)):
            if not unitriangular:
                x[..., k, :] /= a[..., k, k, None]
            rest = slice(0, k) if upper else slice(k + 1, n)
            x[..., rest, :] -= a[..., rest, k, None] * x[..., k, None, :]
    return x


def _triangular_arrays(a, b, upper, left, unitriangular):
    """X with ``AX = B`` (``XA = B`` unless ``left``), batches broadcast."""
    batch = _broadcast_checked(b.shape[:-2], a.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if left:
        return _substitute(a, b, upper, unitriangular)
    return np.swapaxes(_substitute(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, unitriangular), -1, -2)


def _solve_triangular_grad_B(g, ans, A, B, upper, left, unitriangular):
    return solve_triangular(_mT(A), g, upper=not upper, left=left, unitriangular=unitriangular)


def _solve_triangular_grad_A(g, ans, A, B, upper, left, unitriangular):
    # gB = A^-T g, gA = -gB X^T (-X^T gB when right), in A's triangle (without the diagonal if unit)
    gB = solve_triangular(_mT(A), g, upper=not upper, left=left, unitriangular=unitriangular)
    gA = neg(matmul(gB, _mT(ans)) if left else matmul(_mT(ans), gB))
    return triu(gA, int(unitriangular)) if upper else tril(gA, -int(unitriangular))


SOLVE_TRIANGULAR = defop("LinalgSolveTriangularBackward0", _solve_triangular_grad_A, _solve_triangular_grad_B,
                         saves=(0, "result"))


def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False):
    """X with ``AX = B`` (``XA = B`` when ``left=False``) for a triangular A; ``LinalgSolveTriangularBackward0``."""
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    fname = "linalg.solve_triangular"
    _check_ndim(A, fname)
    _check_ndim(B, fname, "B")
    _check_square(A, fname)
    a, b = A._data, B._data
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    _not_for(A, "triangular_solve_cpu")
    x = _triangular_arrays(a, b, upper, left, unitriangular)
    return record(SOLVE_TRIANGULAR, (A, B), _column_major(x),
                  {"upper": upper, "left": left, "unitriangular": unitriangular})


def _triangular_solve_grad_b(gs, ans, b, A, upper, transpose, unitriangular):
    gx = gs[0]
    if gx is None:
        return expand(_wrap(np.zeros(1, b.dtype.np)), b.shape)
    return _torch_triangular_solve(gx, A, upper, not transpose, unitriangular, _warn=False)[0]


def _triangular_solve_grad_A(gs, x, b, A, upper, transpose, unitriangular):
    gx, gm = gs
    gA = None
    if gx is not None:
        gb = _torch_triangular_solve(gx, A, upper, not transpose, unitriangular, _warn=False)[0]
        gA = neg(matmul(x, _mT(gb)) if transpose else matmul(gb, _mT(x)))
        gA = triu(gA, int(unitriangular)) if upper else tril(gA, -int(unitriangular))
    if gA is None:
        gA = expand(_wrap(np.zeros(1, A.dtype.np)), A.shape)
    return gA if gm is None else gA + gm


TRIANGULAR_SOLVE = defop("TriangularSolveBackward0", _triangular_solve_grad_b, _triangular_solve_grad_A,
                         saves=(0, 1, "result"), outputs=(0, 1))


def _solve_checks(b, A, fname):
    """The checks torch.triangular_solve and torch.cholesky_solve share (b first, as PyTorch names them)."""
    if b._data.dtype != A._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_scalar_type(b)} and A of "
                           f"type {_scalar_type(A)} instead.")
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} matrices")
    if n != b._data.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {fname}: each A matrix is {m} by {m} but each b matrix "
                           f"is {b._data.shape[-2]} by {b._data.shape[-1]}")


def _torch_triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, _warn=True):
    """``torch.triangular_solve``: deprecated in PyTorch, with its warning (once); ``(solution,
    cloned_coefficient)``, both outputs of one ``TriangularSolveBackward0`` node."""
    if _warn:
        _warn_once("triangular_solve", (
            "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
            "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return "
            "a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
            "X = torch.linalg.solve_triangular(A, B). (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)"))
    if b._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b._data.ndim} dimensions instead")
    if A._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A._data.ndim} dimensions instead")
    _solve_checks(b, A, "triangular_solve")
    _not_for(A, "triangular_solve_cpu")
    a = A._data
    x = _triangular_arrays(np.swapaxes(a, -1, -2) if transpose else a, b._data, upper != transpose, True,
                           unitriangular)
    coefficient = _column_major(np.broadcast_to(a, x.shape[:-2] + a.shape[-2:]))
    attrs = {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}
    return _TriangularSolve(*record(TRIANGULAR_SOLVE, (b, A), (_column_major(x), coefficient), attrs, n_outputs=2))


def _cholesky_solve_grad_B(g, ans, B, L, upper):
    return _torch_cholesky_solve(g, L, upper)


def _cholesky_solve_grad_L(g, ans, B, L, upper):
    gB = _torch_cholesky_solve(g, L, upper)
    common = matmul(gB, _mT(ans))
    common = common + _mT(common)
    return neg(matmul(L, common)) if upper else neg(matmul(common, L))


CHOLESKY_SOLVE = defop("CholeskySolveBackward0", _cholesky_solve_grad_B, _cholesky_solve_grad_L,
                       saves=(0, 1, "result"))


def _torch_cholesky_solve(B, L, upper=False):
    """``torch.cholesky_solve``: X with ``(L L^T) X = B`` (``U^T U`` if ``upper``), from a Cholesky factor."""
    if B._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._data.ndim} dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} dimensions instead")
    _solve_checks(B, L, "cholesky_solve")
    _not_for(L, "cholesky_solve_cpu")
    d = L._data
    lower = np.swapaxes(d, -1, -2) if upper else d
    y = _triangular_arrays(lower, B._data, False, True, False)
    x = _substitute(np.broadcast_to(np.swapaxes(lower, -1, -2), y.shape[:-2] + d.shape[-2:]), y, True, False)
    return record(CHOLESKY_SOLVE, (B, L), _column_major(x), {"upper": upper})


def _cholesky_inverse_grad(g, ans, L, upper):
    common = matmul(ans, matmul(g + _mT(g), ans))
    return neg(matmul(L, common)) if upper else neg(matmul(common, L))


CHOLESKY_INVERSE = defop("CholeskyInverseBackward0", _cholesky_inverse_grad, saves=(0, "result"))


def _torch_cholesky_inverse(L, upper=False):
    """``torch.cholesky_inverse``: ``(L L^T)^-1`` (``(U^T U)^-1`` if ``upper``) from the factor's triangle."""
    fname = "cholesky_inverse"
    _check_ndim(L, fname)
    _check_square(L, fname)
    _not_for(L, "cholesky_inverse_out_cpu")
    d = L._data
    tri = np.triu(d) if upper else np.tril(d)
    zero = np.diagonal(tri, axis1=-2, axis2=-1) == 0
    if zero.any():
        info = np.where(zero.any(-1), np.argmax(zero, -1) + 1, 0)
        prefix, k = _batch_prefix(L, info)
        raise LinAlgError(f"{fname}: {prefix}The diagonal element {k} is zero, the inversion could not be completed "
                          "because the input matrix is singular.")
    t_inv = _substitute(tri, _eye_like(d), upper, False)
    out = t_inv @ np.swapaxes(t_inv, -1, -2) if upper else np.swapaxes(t_inv, -1, -2) @ t_inv
    out = np.tril(out) + np.swapaxes(np.tril(out, -1), -1, -2)
    return record(CHOLESKY_INVERSE, (L,), _column_major(out), {"upper": upper})


_WARNED = set()  # PyTorch gives its deprecation warnings once per process


def _warn_once(key, message):
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def _torch_cholesky(A, upper=False):
    """``torch.cholesky``: deprecated in PyTorch, with its warning (once); node ``CholeskyBackward0``."""
    _warn_once("cholesky", (
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
        "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
        "This transform will produce equivalent results for all valid (symmetric positive definite) inputs. "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)"))
    return _cholesky(A, upper, "linalg.cholesky", CHOLESKY_LEGACY)[0]


# ----- qr -----

def _qr_grad(gs, Q, A, mode, outs=None):
    # PyTorch's linalg_qr_backward, in its order of operations: with M = gR R^T - Q^T gQ,
    # gA = (gQ + Q syminvadj(triu(M))) R^-T when m >= n (syminvadj(X) = X + X^T, diagonal halved);
    # for a wide A = Q [R1 | R2], gA = [Q tril(M^T - M) R1^-T | 0] + Q gR.
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = A.shape[-2:]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ, gR = gs
    R = outs.get(1)
    if gQ is not None:
        gA = matmul(gR, _mT(R)) - matmul(_mT(Q), gQ) if gR is not None else neg(matmul(_mT(Q), gQ))
    else:
        gA = matmul(gR, _mT(R))
    if m >= n:
        upper = triu(gA)
        sym = upper + _mT(upper)
        _diagonal(sym, 0, -2, -1).mul_(0.5)
        gA = matmul(Q, sym)
        if gQ is not None:
            gA = gA + gQ
        return solve_triangular(_mT(R), gA, upper=False, left=False)
    skew = neg(gA)
    gA = matmul(Q, tril(skew - _mT(skew)))
    gA = solve_triangular(_mT(narrow(R, -1, 0, m)), gA, upper=False, left=False)
    gA = cat([gA, _wrap(np.zeros(R.shape[:-1] + (n - m,), R._data.dtype))], -1)
    return gA + matmul(Q, gR) if gR is not None else gA


QR = defop("LinalgQrBackward0", _qr_grad, saves=("result",), outputs=(0, 1))


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = QR``; ``mode`` is 'reduced', 'complete' or 'r' (Q then empty)."""
    need_tensor("linalg_qr", "A", 1, A)
    _check_ndim(A, "linalg.qr")
    _check_float(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _not_for(A, "geqrf_cpu")
    d = A._data
    m, n = d.shape[-2:]
    if 0 in (m, n):  # (NumPy's QR of an empty matrix is not LAPACK's)
        k = m if mode == "complete" else builtins.min(m, n)
        Q = np.broadcast_to(np.eye(m, k, dtype=d.dtype), d.shape[:-2] + (m, k)).copy()
        R = np.zeros(d.shape[:-2] + (k, n), d.dtype)
    elif mode == "r":
        R = _quietly(np.linalg.qr, d, mode="r")
    else:
        Q, R = _quietly(np.linalg.qr, d, mode=mode)
    if mode == "r":
        Q = np.zeros((0,), d.dtype)
    attrs = {"mode": mode}
    if mode != "r":
        Q = _column_major(Q.astype(d.dtype, copy=False))
    return _LinalgQr(*record(QR, (A,), (Q, _column_major(R.astype(d.dtype, copy=False))), attrs, n_outputs=2,
                             keep=(1,)))


# ----- eigh, eigvalsh -----

def _eigh_grad(gs, L, A, outs=None):
    # gA = V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i: symmetric, as PyTorch's.
    gL, gV = gs
    V = outs.get(1)
    inner = _diag_embed(gL) if gL is not None else None
    if gV is not None:
        K = matmul(_mT(V), gV)
        E = unsqueeze(L, -2) - unsqueeze(L, -1) + _eye(L._data.shape[-1], L._data.dtype)  # (1 on the diagonal)
        F = (K - _mT(K)) * 0.5 / E
        inner = F if inner is None else inner + F
    return matmul(matmul(V, inner), _mT(V))


EIGH = defop("LinalgEighBackward0", _eigh_grad, saves=("result",), outputs=(0, 1))


def _eigh_checks(A, UPLO, fname="linalg_eigh"):
    if not isinstance(UPLO, str):
        raise TypeError(f"{fname}(): argument 'UPLO' must be str, not {type(UPLO).__name__}")
    _check_ndim(A, "linalg.eigh")
    _check_square(A, "linalg.eigh")
    _not_for(A, "linalg_eigh_cpu")
    if UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh(A, UPLO):
    d = A._data
    w, V = _quietly(np.linalg.eigh, d, UPLO=UPLO.upper())
    attrs = {}
    return record(EIGH, (A,), (w.astype(d.dtype, copy=False), _column_major(V.astype(d.dtype, copy=False))), attrs,
                  n_outputs=2, keep=(1,))


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, read from the ``UPLO`` triangle."""
    need_tensor("linalg_eigh", "input", 1, A)
    _eigh_checks(A, UPLO)
    return _LinalgEigh(*_eigh(A, UPLO))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of ``eigh``; output 0 of its ``LinalgEighBackward0`` node when A requires grad."""
    need_tensor("linalg_eigvalsh", "input", 1, A)
    _eigh_checks(A, UPLO, "linalg_eigvalsh")
    if _grad_mode._enabled and A._requires_grad or _grad_mode._fw_active and A._fw_grad is not None:
        return _eigh(A, UPLO)[0]
    d = A._data
    return _wrap(_quietly(np.linalg.eigvalsh, d, UPLO=UPLO.upper()).astype(d.dtype, copy=False))


# ----- svd, svdvals -----

def _svd_grad(gs, U, A, full_matrices, outs=None):
    # PyTorch's svd_backward, in its order of operations (so that a double backward draws its graph):
    # gA = U [(skew(U^T gU) / E) S + S (skew(V^T gV) / E) + diag(gS)] V^T, E_ij = s_j^2 - s_i^2 (1 on
    # the diagonal), plus the parts of gU, gV outside the span of U, V when A is not square. With
    # full_matrices, the columns past k are not unique: the rule ignores them.
    gU, gS, gVh = gs
    S, Vh = outs.get(1), outs.get(2)
    k = S.shape[-1]
    if full_matrices:
        gU = narrow(gU, -1, 0, k) if gU is not None else None
        gVh = narrow(gVh, -2, 0, k) if gVh is not None else None
        U, Vh = narrow(U, -1, 0, k), narrow(Vh, -2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return matmul(U, unsqueeze(gS, -1) * Vh) if m >= n else matmul(U * unsqueeze(gS, -2), Vh)
    UhgU = matmul(_mT(U), gU) if gU is not None else None
    UhgU = UhgU - _mT(UhgU) if gU is not None else None
    VhgV = matmul(Vh, _mT(gVh)) if gVh is not None else None
    VhgV = VhgV - _mT(VhgV) if gVh is not None else None
    S2 = S * S
    E = unsqueeze(S2, -2) - unsqueeze(S2, -1)
    _diagonal(E, 0, -2, -1).fill_(1)
    if gU is not None:
        inner = (UhgU * unsqueeze(S, -2) + unsqueeze(S, -1) * VhgV) / E if gVh is not None \
            else (UhgU / E) * unsqueeze(S, -2)
    else:
        inner = unsqueeze(S, -1) * (VhgV / E)
    if gS is not None:
        inner = inner + diag_embed(gS)
    if m > n and gU is not None:
        gA = matmul(U, inner)
        gUSinv = gU / unsqueeze(S, -2)
        gA = gA + gUSinv - matmul(U, matmul(_mT(U), gUSinv))
        return matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = matmul(inner, Vh)
        SinvgVh = gVh / unsqueeze(S, -1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, _mT(Vh)), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(inner, Vh)) if m >= n else matmul(matmul(U, inner), Vh)


SVD = defop("LinalgSvdBackward0", _svd_grad, saves=("result",), outputs=(0, 1, 2))


def _svd_checks(A):
    _check_ndim(A, "linalg.svd")
    _check_float(A, "linalg.svd")
    _not_for(A, "linalg_svd_cpu")


def _no_nan(A):
    if np.isnan(A._data).any():
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained non-finite "
                          "values.")


def _svd_arrays(d, full_matrices):
    m, n = d.shape[-2:]
    if 0 in (m, n):  # (NumPy refuses an empty matrix)
        batch, k = d.shape[:-2], builtins.min(m, n)
        cols_u, rows_v = (m, n) if full_matrices else (k, k)
        return (np.broadcast_to(np.eye(m, cols_u, dtype=d.dtype), batch + (m, cols_u)).copy(),
                np.zeros(batch + (k,), d.dtype),
                np.broadcast_to(np.eye(rows_v, n, dtype=d.dtype), batch + (rows_v, n)).copy())
    try:
        U, S, Vh = _quietly(np.linalg.svd, d, full_matrices=full_matrices)
    except np.linalg.LinAlgError:  # an inf: no convergence, nans as in PyTorch
        k = builtins.min(m, n)
        cols_u, rows_v = (m, n) if full_matrices else (k, k)
        U, S, Vh = (np.full(d.shape[:-2] + s, np.nan, d.dtype) for s in ((m, cols_u), (k,), (rows_v, n)))
    return (_column_major(U.astype(d.dtype, copy=False)), S.astype(d.dtype, copy=False),
            _column_major(Vh.astype(d.dtype, copy=False)))


def _svd(A, full_matrices):
    attrs = {"full_matrices": full_matrices}
    return record(SVD, (A,), _svd_arrays(A._data, full_matrices), attrs, n_outputs=3, keep=(1, 2))


def svd(A, full_matrices=True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, S descending; one ``LinalgSvdBackward0`` node."""
    need_tensor("linalg_svd", "A", 1, A)
    _svd_checks(A)
    _no_nan(A)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    return _LinalgSvd(*_svd(A, full_matrices))


def svdvals(A, *, driver=None):
    """The singular values: output 1 of an ``LinalgSvdBackward0`` node when A requires grad."""
    need_tensor("linalg_svdvals", "A", 1, A)
    _svd_checks(A)
    _no_nan(A)
    if _grad_mode._enabled and A._requires_grad or _grad_mode._fw_active and A._fw_grad is not None:
        return _svd(A, False)[1]
    d = A._data
    if 0 in d.shape[-2:]:
        return _wrap(np.zeros(d.shape[:-2] + (0,), d.dtype))
    try:
        return _wrap(_quietly(np.linalg.svd, d, compute_uv=False).astype(d.dtype, copy=False))
    except np.linalg.LinAlgError:
        return _wrap(np.full(d.shape[:-2] + (builtins.min(d.shape[-2:]),), np.nan, d.dtype))


# ----- pinv -----

def _pinv_grad(g, P, A):
    # The derivative of the pseudo-inverse at constant rank (Golub and Pereyra),
    # gA = -P^T g P^T + (I - AP) g^T P P^T + P^T P g^T (I - PA), arranged as PyTorch's pinv_backward
    # (smallest products first), so that a double backward draws its graph.
    m, n = A.shape[-2:]
    Ph, gh = _mT(P), _mT(g)
    if m <= n:
        K = matmul(gh, P)
        KPh = matmul(K, Ph)
        return neg(_mT(matmul(P, K))) + KPh - matmul(matmul(A, P), KPh) + matmul(matmul(Ph, P), gh - matmul(K, A))
    K = matmul(P, gh)
    PhK = matmul(Ph, K)
    return neg(_mT(matmul(K, P))) + matmul(matmul(gh - matmul(A, K), P), Ph) + PhK - matmul(matmul(PhK, P), A)


PINV = defop("LinalgPinvBackward0", _pinv_grad, saves=(0, "result"))


def _tolerance(x):
    if x is None:
        return None
    return np.asarray(x._data if isinstance(x, Tensor) else x, dtype=np.float64)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse, from the SVD (or ``eigh`` if ``hermitian``): singular values
    at most ``max(atol, rtol * largest)`` count as zero."""
    if type(A) is not Tensor and not isinstance(A, Tensor):
        raise invalid_arguments("linalg_pinv", A, *(() if rcond is None else (rcond,)),
                                **_given_kw(hermitian=hermitian, atol=atol, rtol=rtol))
    d = A._data
    if d.ndim < 2 or d.dtype.kind != "f" or d.dtype == np.float16:
        raise RuntimeError(f"linalg.pinv({_scalar_type(A)}{{{list(d.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    m, n = d.shape[-2:]
    atol_, rtol_ = _tolerance(atol), _tolerance(rtol)
    if rtol_ is None:
        # PyTorch's default: eps * max(m, n), or 0 once a positive atol is given
        rtol_ = (np.where(atol_ > 0, 0.0, np.finfo(d.dtype).eps * builtins.max(m, n)) if atol_ is not None
                 else np.asarray(np.finfo(d.dtype).eps * builtins.max(m, n)))
    if atol_ is None:
        atol_ = np.asarray(0.0)
    if hermitian:
        _check_square(A, "linalg.eigh")
        w, V = _quietly(np.linalg.eigh, d)
        s, U, Vh = np.abs(w), V * np.sign(w)[..., None, :], np.swapaxes(V, -1, -2)
    elif 0 in (m, n):
        return record(PINV, (A,), np.zeros(d.shape[:-2] + (n, m), d.dtype))
    else:
        _no_nan(A)
        U, s, Vh = _quietly(np.linalg.svd, d, full_matrices=False)
    with np.errstate(all="ignore"):
        top = np.max(s, axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
        cut = np.maximum(atol_[..., None], rtol_[..., None] * top)
        s_inv = np.where(s > cut, 1 / np.where(s > cut, s, 1), 0)
    out = np.swapaxes(Vh, -1, -2) @ (s_inv[..., :, None] * np.swapaxes(U, -1, -2))
    return record(PINV, (A,), out.astype(d.dtype, copy=False))


# ----- matrix_power -----

def matrix_power(A, n):
    """``A`` to the integer power ``n`` by repeated squaring, with PyTorch's products (``MmBackward0``
    or batched matmul nodes); a negative ``n`` inverts first, 0 gives the identity."""
    need_tensor("linalg_matrix_power", "input", 1, A)
    if type(n) is not int:
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    _check_ndim(A, "linalg.matrix_power")
    _check_square(A, "linalg.matrix_power")
    if n == 0:
        out = clone(A)
        return out.copy_(_wrap(_eye_like(A._data)))
    if n == -1:
        return inv(A)
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return clone(A)
    if A._data.dtype == np.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ----- matrix_exp -----
# PyTorch's algorithm (Bader, Blanes and Casas, "Computing the matrix exponential with an optimized
# Taylor polynomial approximation", 2019): a Taylor polynomial of degree 1, 2, 4, 8, 12 or 18 chosen
# by the 1-norm, with scaling and squaring above the last. Each step is PyTorch's, in its order, so
# that the roundings are the same (the matrix products differ by BLAS only).

_MEXP_THETAS = {
    np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                           5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
    np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00),
}

_T12_B = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
          (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
          (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
          (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))

_T18_B = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
          (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
           -6.37898194594723280150e-04),
          (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
           -6.98210122488052056106e-03, 3.34975017086070470649e-05),
          (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
           2.95552570429315521194e-02, -1.39180257516060693404e-05),
          (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _lincomb(mats, coeffs):
    """_compute_linear_combination: 0 + m0 c0 + m1 c1 + ..., in that order, in the matrices' dtype."""
    out = np.zeros_like(mats[0])
    for m, c in zip(mats, coeffs):
        out += m * m.dtype.type(c)
    return out


def _mexp_powers(a, k):
    """The first k of I, A, A^2, A^3, A^6."""
    out = [_eye_like(a), a]
    if k > 2:
        out.append(a @ a)
    if k > 3:
        out.append(a @ out[2])
    if k > 4:
        out.append(out[3] @ out[3])
    return out[:k]


def _mexp_t1(a):
    i, a = _mexp_powers(a, 2)
    return i + a


def _mexp_t2(a):
    i, a, a2 = _mexp_powers(a, 3)
    return i + a + a2 / a.dtype.type(2)


def _mexp_t4(a):
    ps = _mexp_powers(a, 3)
    ps.append(ps[2] @ _lincomb(ps, (1 / 2.0, 1 / 6.0, 1 / 24.0)))
    return _lincomb(ps, (1.0, 1.0, 0.0, 1.0))


def _mexp_t8(a):
    t = a.dtype.type
    # (constexpr scalar_t in PyTorch: sqrt_177 and x3 are rounded to the dtype before the rest)
    sqrt_177, x3 = float(t(0.1330413469565007072504e+2)), float(t(2. / 3.))
    x1, x2 = x3 * ((1. + sqrt_177) / 88.), x3 * ((1. + sqrt_177) / 352.)
    x4 = (-271. + 29. * sqrt_177) / (315. * x3)
    x5 = (-11. + 11. * sqrt_177) / (1260. * x3)
    x6 = (-99. + 11. * sqrt_177) / (5040. * x3)
    x7 = (89. - sqrt_177) / (5040. * x3)
    y2 = (857. - 58. * sqrt_177) / 630.
    ps = _mexp_powers(a, 3)
    ps.append(ps[2] @ _lincomb(ps[1:3], (x1, x2)))
    ps.append(_lincomb(ps[2:4], (x3, 1.0)) @ _lincomb(ps[:4], (x4, x5, x6, x7)))
    return _lincomb(ps, (1.0, 1.0, y2, 0.0, 1.0))


def _mexp_t12(a):
    b = [_lincomb(_mexp_powers(a, 4), row) for row in _T12_B]
    b[2] += b[3] @ b[3]
    b[1] += b[2]
    return b[0] + b[1] @ b[2]


def _mexp_t18(a):
    ps = _mexp_powers(a, 5)
    b = [_lincomb(ps, row) for row in _T18_B]
    b[3] += b[0] @ b[4]
    b[2] += b[3]
    return b[1] + b[2] @ b[3]


def _mexp_scale_square(a, norm, theta):
    t = a.dtype.type
    s = np.maximum(np.ceil(np.log2(norm / t(theta))), t(0))
    out = _mexp_t18(a * np.power(t(2), -s)[:, None, None])
    squarings = np.where(np.isfinite(s), s, 0).astype(np.int64)
    for k in range(int(squarings.max(initial=0))):
        more = squarings > k
        out[more] = out[more] @ out[more]
    return out


def _mexp(d):
    """exp of a stack of square matrices (n >= 2), as PyTorch's ``mexp``."""
    thetas = _MEXP_THETAS[d.dtype]
    a = d.reshape((-1,) + d.shape[-2:])
    with np.errstate(all="ignore"):
        norm = np.abs(a).sum(-2).max(-1)
        if a.shape[0] > 1:  # a batch: degree 18 for all, as PyTorch takes it
            return _mexp_scale_square(a, norm, thetas[5]).reshape(d.shape)
        t = d.dtype.type
        out = np.full_like(a, np.nan)
        for degree, (low, high) in zip((_mexp_t1, _mexp_t2, _mexp_t4, _mexp_t8, _mexp_t12),
                                       zip((-1.0,) + thetas[:4], thetas[:5])):
            if (t(low) < norm[0]) & (norm[0] <= t(high)):
                out = degree(a)
        if norm[0] >= t(thetas[4]):
            out = _mexp_scale_square(a, norm, thetas[5])
    return out.reshape(d.shape)


def _matrix_exp_grad(g, ans, A):
    # PyTorch's linalg_matrix_exp_differential: the upper-right block of exp([[A^T, g], [0, A^T]]),
    # built in a zero matrix by three copies into its blocks, as PyTorch builds it.
    At = _mT(A)
    n = A.shape[-1]
    shape = A.shape[:-2] + (2 * n, 2 * n)
    meta = _wrap(np.zeros(shape, g._data.dtype))
    narrow(narrow(meta, -2, 0, n), -1, 0, n).copy_(At)
    narrow(narrow(meta, -2, n, n), -1, n, n).copy_(At)
    narrow(narrow(meta, -2, 0, n), -1, n, n).copy_(g)
    return narrow(narrow(matrix_exp(meta), -2, 0, n), -1, n, n)


MATRIX_EXP = defop("LinalgMatrixExpBackward0", _matrix_exp_grad, saves=(0,))


def matrix_exp(A):
    """The matrix exponential of each square matrix, by PyTorch's algorithm; one ``LinalgMatrixExpBackward0``."""
    need_tensor("linalg_matrix_exp", "input", 1, A)
    _square_float(A, "linalg.matrix_exp")
    _no_low_precision(A, "linalg.matrix_exp")
    d = A._data
    n = d.shape[-1]
    if n == 0:
        out = d.copy()
    elif n == 1:
        out = _quietly(np.exp, d)
    else:
        out = _mexp(d)
    return record(MATRIX_EXP, (A,), out)


# ----- householder_product (orgqr), geqrf -----

def _orgqr(a, tau):
    """LAPACK's orgqr (the unblocked org2r): the first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T,
    v_i below the diagonal of column i of ``a`` with a 1 on it."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    q = np.array(a, copy=True)
    q[..., :, k:] = 0
    for j in range(k, n):
        q[..., j, j] = 1
    for i in reversed(range(k)):
        t = tau[..., i, None]
        if i < n - 1:
            q[..., i, i] = 1
            v, c = q[..., i:, i], q[..., i:, i + 1:]
            w = np.einsum("...r,...rc->...c", v, c)
            c += v[..., :, None] * (-t * w)[..., None, :]
        if i < m - 1:
            q[..., i + 1:, i] *= -t
        q[..., i, i] = 1 - tau[..., i]
        q[..., :i, i] = 0
    return q


def _reflect(m, i, v, t, K, left, in_place):
    """PyTorch's apply_simple_transformation: (I - t v v^T) K, or K (I - t v v^T) if not ``left``; in
    place on the rows (columns) from i on, where v is nonzero, for a first-order backward."""
    t = unsqueeze(t, -1)
    if in_place:
        vi = narrow(v, -2, i, m - i)
        if left:
            u = matmul(_mT(vi), narrow(K, -2, i, m - i))
            narrow(K, -2, i, m - i).sub_((t * vi) * u)
        else:
            u = matmul(narrow(K, -1, i, m - i), t * vi)
            narrow(K, -1, i, m - i).sub_(u * _mT(vi))
        return K
    if left:
        return K - (t * v) * matmul(_mT(v), K)
    return K - matmul(K, t * v) * _mT(v)


def _householder_grads(grad, result, input_, tau):
    """PyTorch's householder_product_backward: (grad of input, grad of tau), or (None, None)."""
    if grad is None or input_._data.size == 0 or tau._data.size == 0:
        return None, None
    m, k = input_.shape[-2], tau.shape[-1]
    V = tril(input_, -1)
    _diagonal(V, 0, -2, -1).fill_(1.0)
    first = narrow(V, -1, 0, k)
    sigma = tau / _sub_scalar(tau * sum(first * first, -2), 1.0)
    K = matmul(result, _mT(grad))
    in_place = not _grad_mode._enabled
    K = _reflect(m, 0, narrow(V, -1, 0, 1), narrow(sigma, -1, 0, 1), K, True, in_place)
    input_grad = _wrap(np.zeros(input_.shape, input_._data.dtype))
    tau_grad = _wrap(np.zeros(tau.shape, tau._data.dtype))
    for i in range(k):
        v_i, t_i = narrow(V, -1, i, 1), narrow(tau, -1, i, 1)
        v = narrow(v_i, -2, i, m - i)
        vHK = matmul(_mT(v), narrow(K, -2, i, m - i))
        Kv = matmul(narrow(K, -1, i, m - i), v)
        t = unsqueeze(t_i, -1)
        v_grad = unsqueeze((neg(t) * vHK).squeeze(-2) - (t * Kv).squeeze(-1), -1)
        t_grad = neg(matmul(narrow(vHK, -1, i, m - i), v)).squeeze(-1)
        input_grad.select(-1, i).copy_(v_grad.squeeze(-1))
        tau_grad.select(-1, i).copy_(t_grad.squeeze(-1))
        if i != k - 1:
            K = _reflect(m, i + 1, narrow(V, -1, i + 1, 1), narrow(sigma, -1, i + 1, 1), K, True, in_place)
            K = _reflect(m, i, v_i, t_i, K, False, in_place)
    input_grad.tril_(-1)
    return input_grad, tau_grad


HOUSEHOLDER_PRODUCT = defop("LinalgHouseholderProductBackward0", *_shared_rules(2, _householder_grads, with_result=True),
                            saves=(0, 1, "result"))


def householder_product(A, tau):
    """The first n columns of the product of the Householder reflectors I - tau_i v_i v_i^T stored
    below the diagonal of A (m x n, m >= n), as LAPACK's orgqr; ``LinalgHouseholderProductBackward0``."""
    need_tensor("linalg_householder_product", "input", 1, A)
    need_tensor("linalg_householder_product", "tau", 2, tau)
    fname = "torch.linalg.householder_product"
    a, t = A._data, tau._data
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{fname}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if t.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if a.shape[-1] < t.shape[-1]:
        raise RuntimeError(f"{fname}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if a.ndim - t.ndim != 1:
        raise RuntimeError(f"{fname}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{t.ndim} and input.ndim is equal to {a.ndim}")
    if a.ndim > 2 and t.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(f"{fname}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"[{', '.join(map(str, t.shape[:-1]))}]")
    if t.dtype != a.dtype:
        raise RuntimeError(f"{fname}: tau dtype {_scalar_type(tau)} does not match input dtype {_scalar_type(A)}")
    _not_for(A, "orgqr_cpu")
    with np.errstate(all="ignore"):
        q = _orgqr(a, t)
    return _record_shared(HOUSEHOLDER_PRODUCT, (A, tau), _column_major(q), {})


def _geqrf_grad(gs, ans, A):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


GEQRF = defop("GeqrfBackward0", _geqrf_grad, outputs=(0, 1))
_Geqrf = return_type("geqrf", ("a", "tau"))


def _torch_geqrf(A):
    """``torch.geqrf``: LAPACK's QR in its raw form, ``(a, tau)``: R on and above the diagonal of a,
    the Householder vectors below it. Not differentiable in PyTorch: backward through it raises."""
    if A._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _not_for(A, "geqrf_cpu")
    d = A._data
    if 0 in d.shape[-2:]:
        a, tau = d.copy(), np.zeros(d.shape[:-2] + (builtins.min(d.shape[-2:]),), d.dtype)
    else:
        h, tau = _quietly(np.linalg.qr, d, mode="raw")
        a = np.swapaxes(h, -1, -2)
    return _Geqrf(*record(GEQRF, (A,), (_column_major(a.astype(d.dtype, copy=False)), tau.astype(d.dtype)),
                          n_outputs=2))


# ----- cross -----

def _cross_checks(a, b, dim, fname):
    if a._data.ndim != b._data.ndim:
        raise RuntimeError(f"{fname}: inputs must have the same number of dimensions.")
    nd = a._data.ndim
    if nd == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = norm_dims(dim, nd)[0]
    if a._data.shape[d] != 3 or b._data.shape[d] != 3:
        raise RuntimeError(f"{fname}: inputs dimension {dim} must have length 3. Got {a._data.shape[d]} and "
                           f"{b._data.shape[d]}")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type(a)} but found {_scalar_type(b)}")
    if a._data.dtype == np.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    return d


CROSS = defop("LinalgCrossBackward0", lambda g, ans, a, b, dim: _cross(b, g, dim),
              lambda g, ans, a, b, dim: _cross(g, a, dim), saves=(0, 1))
CROSS.save_for = {0: (1,), 1: (0,)}  # (each input is saved only for the other's grad, as PyTorch saves)


def _cross(a, b, dim):
    try:
        out = np.cross(a._data, b._data, axis=dim)
    except ValueError:
        raise _broadcast_error(a._data.shape, b._data.shape) from None
    return record(CROSS, (a, b), np.asarray(out, dtype=a._data.dtype), {"dim": dim})


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim``; inputs broadcast. Node ``LinalgCrossBackward0``."""
    need_tensor("linalg_cross", "input", 1, input)
    need_tensor("linalg_cross", "other", 2, other)
    d = _cross_checks(input, other, dim, "linalg.cross")
    out = _cross(input, other, d)
    return _given(out, dim=dim) if dim != d else out


def _torch_cross(input, other, dim=None):
    """``torch.cross``: without ``dim``, the first dim of size 3 (deprecated, with PyTorch's warning, once)."""
    need_tensor("cross", "input", 1, input)
    need_tensor("cross", "other", 2, other)
    if dim is None:
        _warn_once("cross", 
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
            "Cross.cpp:63.)")
        shape = np.broadcast_shapes(input._data.shape, other._data.shape) if input._data.ndim == other._data.ndim \
            else input._data.shape
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return cross(input, other, dim=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in the last two dims (``torch.diagonal`` with those defaults)."""
    need_tensor("linalg_diagonal", "A", 1, A)
    return _diagonal(A, offset, dim1, dim2)


# ----- Norms -----

def _norm_dtype_checks(A, dtype, fname):
    _check_float(A, fname)
    if dtype is not None:
        dt = _dtypes.to_numpy_dtype(dtype)
        if dt.kind != "f":
            raise RuntimeError(f"{fname}: dtype should be floating point or complex, but got "
                               f"{_dtypes.from_numpy_dtype(dt)._legacy[:-len('Tensor')]}")
        if np.promote_types(A._data.dtype, dt) != dt:
            raise RuntimeError(f"{fname}: the dtype of the input ({_scalar_type(A)}) should be convertible without "
                               f"narrowing to the specified dtype ({_dtypes.from_numpy_dtype(dt)._legacy[:-6]})")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over ``dim`` (all elements by default): one ``LinalgVectorNormBackward0``."""
    need_tensor("linalg_vector_norm", "input", 1, x)
    if not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    _norm_dtype_checks(x, dtype, "linalg.vector_norm")
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None
    return _vector_norm_impl(x, ord, dim, keepdim, dtype, _VECTOR_NORM)


_MATRIX_ORDS = (1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dims ``dim``: 'fro' and 'nuc', the max/min column (1, -1) or row
    (inf, -inf) sums, and the largest/smallest singular value (2, -2), built from PyTorch's ops."""
    need_tensor("linalg_matrix_norm", "input", 1, A)
    fname = "linalg.matrix_norm"
    _check_ndim(A, fname)
    _norm_dtype_checks(A, dtype, fname)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    nd = A._data.ndim
    d0, d1 = (norm_dims(d, nd)[0] for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{fname}: dims must be different. Got ({d0}, {d1})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{fname}: Order {ord} not supported.")
    elif ord not in _MATRIX_ORDS:
        raise RuntimeError(f"{fname}: Order {ord:g} not supported.")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        _no_low_precision(A, fname)
        if dtype is not None:
            A = to_dtype(A, dtype)
        perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
        S = svdvals(permute(A, perm))
        out = sum(S, -1, keepdim=keepdim) if ord == "nuc" else _max_min(S, -1, keepdim, ord > 0)
        if keepdim:
            out = permute(unsqueeze(out, -1), [perm.index(i) for i in range(nd)])
        return out
    # 1, -1: the max/min over d1 of column sums (over d0); inf, -inf: over d0 of row sums (over d1).
    first, second = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = vector_norm(A, 1.0, (first,), keepdim, dtype=dtype)
    if not keepdim and second > first:
        second -= 1
    return _max_min(sums, second, keepdim, ord > 0)


def _max_min(x, dim, keepdim, largest):
    """amax or amin over ``dim``; over an empty dim amax is 0, with no graph, as in PyTorch's matrix_norm."""
    d = x._data
    if d.shape[dim] == 0:
        if not largest:
            raise IndexError(f"amin(): Expected reduction dim {dim} to have non-zero size.")
        shape = list(d.shape)
        shape[dim] = 1
        return _wrap(np.zeros(shape, d.dtype) if keepdim else np.zeros(shape, d.dtype).squeeze(dim))
    return (amax if largest else amin)(x, dim, keepdim=keepdim)


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm over one dim (or all), a matrix norm over two: ``vector_norm`` or ``matrix_norm``
    as PyTorch chooses between them."""
    need_tensor("linalg_norm", "input", 1, input)
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if isinstance(ord, str):
            return matrix_norm(input, ord, dim, keepdim, dtype=dtype)
        if len(dims) == 1:
            return vector_norm(input, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)
        if len(dims) == 2:
            if ord is None:
                return vector_norm(input, 2.0, dim, keepdim, dtype=dtype)
            return matrix_norm(input, ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    if ord is None:
        return vector_norm(input, 2.0, None, keepdim, dtype=dtype)
    if input._data.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{input._data.ndim}D.")
    if isinstance(ord, str) or input._data.ndim == 2:
        return matrix_norm(input, ord, (-2, -1) if input._data.ndim == 1 else (0, 1), keepdim, dtype=dtype)
    return vector_norm(input, ord, None, keepdim, dtype=dtype)


# ----- LU: lu_factor(_ex), lu, lu_unpack, lu_solve, and the legacy torch.lu, torch.lu_solve -----

_LinalgLuFactor = return_type("linalg_lu_factor", ("LU", "pivots"))
_LinalgLuFactorEx = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_LinalgLu = return_type("linalg_lu", ("P", "L", "U"))
_LuUnpack = return_type("lu_unpack", ("P", "L", "U"))
_LuWithInfo = return_type("_lu_with_info", ("LU", "pivots", "info"))


def _permutation(piv, m):
    """The rows getrf's swaps bring to the top, in order (``A[perm] = L U``), as PyTorch unpacks pivots."""
    if np.any((piv < 1) | (piv > m)):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                           "pass the result of lu_factor?")
    k = piv.shape[-1]
    flat = piv.reshape((math.prod(piv.shape[:-1]), k)).astype(np.int64) - 1
    perm = np.array(np.broadcast_to(np.arange(m), (flat.shape[0], m)))
    rows = np.arange(flat.shape[0])
    for i in range(k):
        j = flat[:, i]
        here = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = here
    return perm.reshape(piv.shape[:-1] + (m,))


def _permutation_matrix(piv, m, dtype):
    perm = _permutation(piv, m)
    P = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(P, perm[..., None, :], 1, axis=-2)  # P[perm[j], j] = 1: A = P L U
    return P


def _unpacked(lu, piv, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from getrf's packed factors, as lu_unpack gives them (empty where not unpacked)."""
    m, n = lu.shape[-2:]
    k = builtins.min(m, n)
    empty = np.zeros(0, lu.dtype)
    P = _permutation_matrix(np.broadcast_to(piv, lu.shape[:-2] + piv.shape[-1:]), m, lu.dtype) if unpack_pivots \
        else empty
    if not unpack_data:
        return P, empty, empty
    L = np.tril(lu[..., :, :k], -1)
    L[..., np.arange(k), np.arange(k)] = 1
    return P, L, np.triu(lu[..., :k, :])


def _lu_grad(gL, gU, P, L, U, pivot):
    """PyTorch's linalg_lu_backward: A = P L U, the factors' grads pulled back through two triangular
    solves; a wide (tall) A carries the block of U (L) past the square part straight through."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = builtins.min(m, n)
    if m == n:
        gA = tril(matmul(_mT(L), gL), -1) if gL is not None else None
        if gU is not None:
            gA = triu(matmul(gU, _mT(U))) if gA is None else gA + triu(matmul(gU, _mT(U)))
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
    elif m < n:
        gA = matmul(_mT(L), gL) if gL is not None else None
        if gU is not None:
            gA = neg(matmul(triu(gU), _mT(U))) if gA is None else gA - matmul(triu(gU), _mT(U))
        gA = solve_triangular(_mT(narrow(U, -1, 0, k)), tril(gA, -1), upper=False, left=False)
        if gU is not None:
            gA = cat([gA + triu(narrow(gU, -1, 0, k)), narrow(gU, -1, k, n - k)], -1)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
        if gU is None:
            gA = cat([gA, _zeros(U.shape[:-1] + (n - k,), U)], -1)
    else:
        gA = matmul(gU, _mT(U)) if gU is not None else None
        if gL is not None:
            gA = neg(matmul(_mT(L), tril(gL, -1))) if gA is None else gA - matmul(_mT(L), tril(gL, -1))
        gA = solve_triangular(_mT(narrow(L, -2, 0, k)), triu(gA), upper=True, left=True, unitriangular=True)
        if gL is not None:
            gA = cat([gA + tril(narrow(gL, -2, 0, k), -1), narrow(gL, -2, k, m - k)], -2)
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
        if gL is None:
            gA = cat([gA, _zeros(L.shape[:-2] + (m - k,) + L.shape[-1:], L)], -2)
    return matmul(P, gA) if pivot else gA


def _zeros(shape, like):
    return _wrap(np.zeros(tuple(shape), like._data.dtype))


def _lu_factor_grad(gs, LU, A, pivot, outs=None):
    P, L, U = _lu_unpack(LU, outs.get(1, graph=False), True, pivot)
    g = gs[0]
    k = builtins.min(LU.shape[-2:])
    return _lu_grad(narrow(g, -1, 0, k), narrow(g, -2, 0, k), P, L, U, pivot)


def _linalg_lu_grad(gs, P, A, pivot, outs=None):
    return _lu_grad(gs[1], gs[2], outs.get(0, graph=False), outs.get(1), outs.get(2), pivot)


LU_FACTOR = defop("LinalgLuFactorExBackward0", _lu_factor_grad, saves=("result",), outputs=(0,))
LINALG_LU = defop("LinalgLuBackward0", _linalg_lu_grad, outputs=(1, 2), keeps=True)  # (P, L, U kept in attrs)


def _lu_unpack_grad(gs, P, LU):
    """PyTorch's lu_unpack_backward: L's grad below the diagonal, U's on and above it, and the
    block past the square part from whichever factor holds it."""
    gL, gU = gs[1], gs[2]
    if gL is None and gU is None:
        return None
    m, n = LU.shape[-2:]
    k = builtins.min(m, n)
    if gL is not None and gU is not None:
        if m == n:
            return tril(gL, -1) + triu(gU)
        top = tril(gL if m == k else narrow(gL, -2, 0, k), -1) + triu(gU if n == k else narrow(gU, -1, 0, k))
        return cat([top, narrow(gL, -2, k, m - k) if m > n else narrow(gU, -1, k, n - k)], -2 if m > n else -1)
    if gL is not None:
        if m >= n:
            return tril(gL, -1)
        return cat([tril(gL, -1), _zeros(gL.shape[:-1] + (n - m,), gL)], -1)
    if n >= m:
        return triu(gU)
    return cat([triu(gU), _zeros(gU.shape[:-2] + (m - n,) + gU.shape[-1:], gU)], -2)


# (The pivots take no grad: PyTorch's node has no edge for them, as for lu_solve's.)
LU_UNPACK = defop("LuUnpackBackward0", _lu_unpack_grad, outputs=(1, 2))


def _lu_factor_checks(A, fname="torch.lu_factor", pivot=True):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: Expected tensor with 2 or more dimensions. Got size: {list(A._data.shape)} "
                           "instead")
    if A._data.size:  # (PyTorch returns at once for an empty input, unchecked)
        _not_for(A, "lu_cpu")
        if not pivot:
            raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_factor(A, pivot, check_errors, fname):
    """(LU, pivots, info) of getrf, LU column-major as LAPACK leaves it: one LinalgLuFactorExBackward0."""
    _lu_factor_checks(A, pivot=pivot)
    lu, piv, info = _lu(A._data)
    if check_errors and info.any():
        prefix, k = _batch_prefix(A, info)
        raise RuntimeError(f"{fname}: {prefix}U[{k},{k}] is zero and using it on lu_solve would result in a division "
                           "by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return record(LU_FACTOR, (A,), (_column_major(lu), piv, info), {"pivot": pivot}, n_outputs=3, keep=(1,))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the LU decomposition with partial pivoting, packed as LAPACK's getrf
    leaves it (L below the diagonal, its unit diagonal implied), 1-based int32 pivots, and info the
    first zero pivot of each matrix (0 if none)."""
    need_tensor("linalg_lu_factor_ex", "A", 1, A)
    return _LinalgLuFactorEx(*_lu_factor(A, pivot, check_errors, "torch.linalg.lu_factor_ex"))


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)`` of ``lu_factor_ex``; a zero pivot raises, as it would divide by zero in ``lu_solve``."""
    need_tensor("linalg_lu_factor", "A", 1, A)
    return _LinalgLuFactor(*_lu_factor(A, pivot, True, "torch.linalg.lu_factor")[:2])


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P L U``: L unit lower triangular (m x k), U upper (k x n), k = min(m, n).
    P does not take a grad; L and U are outputs of one LinalgLuBackward0 node."""
    need_tensor("linalg_lu", "A", 1, A)
    _lu_factor_checks(A, "linalg.lu", pivot)
    lu_, piv, _ = _lu(A._data)
    P, L, U = _unpacked(lu_, piv)
    outs = record(LINALG_LU, (A,), (P, L, U), {"pivot": pivot}, n_outputs=3, keep=(0, 1, 2))
    _rest_on_node(outs, 1)
    return _LinalgLu(*outs)


def _rest_on_node(outs, i):
    """Kept outputs read back with the node as their grad_fn: taken from output ``i`` where the
    first (P) takes no grad, so has no grad_fn to give."""
    kept = outs[i]._grad_fn is not None and outs[0]._grad_fn is None and (outs[i]._grad_fn._attrs or {}).get("outs")
    if kept:
        kept.node = weakref.ref(outs[i]._grad_fn)


def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from ``lu_factor``'s packed form (empty tensors for what is not unpacked); L and
    U are outputs of one LuUnpackBackward0 node."""
    need_tensor("lu_unpack", "LU_data", 1, LU_data)
    need_tensor("lu_unpack", "LU_pivots", 2, LU_pivots)
    d = LU_data._data
    if d.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(d.shape)} "
                           "instead")
    if unpack_pivots and LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    P, L, U = _unpacked(d, LU_pivots._data, unpack_data, unpack_pivots)
    return _LuUnpack(*record(LU_UNPACK, (LU_data,), (P, L, U), n_outputs=3))


def _lu_solve_grad_LU(gX, X, LU, B, pivots, left, adjoint):
    """PyTorch's linalg_lu_solve_LU: the grad of the packed factors, L's part below the diagonal
    and U's on and above it."""
    P, L, U = _lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        gR = solve_triangular(_mT(U), neg(matmul(gX if left else _mT(gX), _mT(X) if left else X)), upper=False)
        gL = tril(solve_triangular(_mT(L), matmul(gR, _mT(U)), upper=True, left=True, unitriangular=True), -1)
        return gL + triu(gR)
    gR = neg(matmul(matmul(matmul(_mT(P), X if left else _mT(X)), _mT(gX) if left else gX), P))
    gR = solve_triangular(_mT(L), gR, upper=True, left=False, unitriangular=True)
    gU = triu(solve_triangular(_mT(U), matmul(_mT(L), gR), upper=False, left=False))
    return tril(gR, -1) + gU


LU_SOLVE = defop("LinalgLuSolveBackward0", _lu_solve_grad_LU,
                 lambda g, X, LU, B, pivots, left, adjoint: lu_solve(LU, pivots, g, left=left, adjoint=not adjoint),
                 saves=(0, "result"), keeps=True)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with ``A X = B`` (``X A = B`` if not ``left``; A^T in place of A if ``adjoint``) from the
    factors of ``lu_factor``; batches broadcast. Node LinalgLuSolveBackward0."""
    need_tensor("linalg_lu_solve", "LU", 1, LU)
    need_tensor("linalg_lu_solve", "pivots", 2, pivots)
    need_tensor("linalg_lu_solve", "B", 3, B)
    fname = "linalg.lu_solve"
    _check_float(LU, "torch.linalg.lu_solve")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fname}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_scalar_type(LU)} and B of type {_scalar_type(B)} instead")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{fname}: pivots should be a Tensor of scalar type torch.int32")
    _check_ndim(LU, "torch.linalg.lu_solve")
    _check_square(LU, "torch.linalg.lu_solve")
    _check_ndim(B, fname, "B")
    lu_, piv, b = LU._data, pivots._data, B._data
    n = lu_.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    if piv.ndim == 0 or piv.shape[-1] != n:
        raise RuntimeError(f"{fname}: Number of pivots per batch should be same as the dimension of the matrix")
    if piv.shape != lu_.shape[:-1]:
        raise RuntimeError(f"{fname}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(piv.shape)} instead")
    _broadcast_checked(b.shape[:-2], lu_.shape[:-2])
    if lu_.dtype == np.float16:
        raise NotImplementedError("\"linalg.lu_solve_cpu\" not implemented for 'Half'")
    if np.any(piv > n):
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly "
                           "pass the result of lu_factor?")
    if left:
        x = _column_major(_lu_solve(lu_, piv, b, adjoint))
    else:  # X A = B: A^T X^T = B^T
        x = np.ascontiguousarray(np.swapaxes(_lu_solve(lu_, piv, np.swapaxes(b, -1, -2), not adjoint), -1, -2))
    return record(LU_SOLVE, (LU, B), x, {"pivots": pivots, "left": left, "adjoint": adjoint})


_LU_WARNING = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a "
    "future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
    "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
    "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally "
    "at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")


def _torch_lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu``: ``(LU, pivots)``, or ``(LU, pivots, info)`` if ``get_infos``, with PyTorch's
    deprecation warning (once); a zero pivot is never an error here. ``out`` is filled in place."""
    need_tensor("_lu_with_info", "input", 1, A)
    _warn_once("lu", _LU_WARNING)
    result = _lu_factor(A, pivot, False, "torch.lu_factor")
    if out is not None:
        if len(out) - int(bool(get_infos)) != 2:
            raise TypeError(f"expected tuple of {2 + int(bool(get_infos))} elements but got {len(out)}")
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        for o, r in zip(out, result):
            o.resize_as_(r).copy_(r)
        return out
    return _LuWithInfo(*result) if get_infos else tuple(result[:2])


def _tensor_lu(self, pivot=True, get_infos=False):
    """``Tensor.lu``: ``torch.lu``'s results as a plain tuple."""
    _warn_once("lu", _LU_WARNING)
    return tuple(_lu_factor(self, pivot, False, "torch.lu_factor")[:3 if get_infos else 2])


_LU_SOLVE_WARNING = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\n"
    "Note that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
    "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")


def _torch_lu_solve(input, LU_data, LU_pivots):
    """``torch.lu_solve(b, LU, pivots)``: ``linalg.lu_solve`` with its arguments reversed, deprecated
    (PyTorch's warning, once)."""
    need_tensor("lu_solve", "input", 1, input)
    need_tensor("lu_solve", "LU_data", 2, LU_data)
    need_tensor("lu_solve", "LU_pivots", 3, LU_pivots)
    _warn_once("lu_solve", _LU_SOLVE_WARNING)
    return lu_solve(LU_data, LU_pivots, input)


# ----- lstsq -----

_LinalgLstsq = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_grads(gs, X, A, B):
    """PyTorch's linalg_lstsq_backward: through the pseudo-inverse for the solution, and
    ``2 (AX - B)`` for the residuals (Danskin: X held fixed)."""
    gX, gL = gs[0], gs[1]
    with_L = gL is not None and gL._data.size > 0
    if gX is None and not with_L:
        return None, None
    vector = _vector_case(A._data, B._data)
    Bm = unsqueeze(B, -1) if vector else B
    gA = gB = None
    if gX is not None:
        gXm = unsqueeze(gX, -1) if vector else gX
        pinvA = pinv(A)
        if A._requires_grad:
            gA = _pinv_grad(matmul(gXm, _mT(Bm)), pinvA, A)
        if B._requires_grad:
            gB = matmul(_mT(pinvA), gXm)
            gB = gB.squeeze(-1) if vector else gB
    if with_L:
        Xm = unsqueeze(X, -1) if vector else X
        r = matmul(A, Xm) - Bm
        gLm = unsqueeze(gL, -2)
        if A._requires_grad:
            gA_L = _mul_scalar(matmul(gLm * r, _mT(Xm)), 2.0)
            gA = gA_L if gA is None else gA + gA_L
        if B._requires_grad:
            gB_L = _mul_scalar(gLm, -2.0) * r
            gB_L = gB_L.squeeze(-1) if vector else gB_L
            gB = gB_L if gB is None else gB + gB_L
    return gA, gB


LSTSQ = defop("LinalgLstsqBackward0", *_shared_rules(2, _lstsq_grads, with_result=True), saves=(0, 1, "result"),
              outputs=(0, 1))


def _pivoted_qr(a, c):
    """Householder QR of ``a`` (m x n) with column pivoting, as geqp3 (the column of largest
    remaining norm first), applying Q^T to ``c`` too: (R, Q^T c, the columns' order)."""
    r, c = a.copy(), c.copy()
    m, n = r.shape
    order = np.arange(n)
    for j in range(builtins.min(m, n)):
        p = j + int(np.argmax(np.einsum("ij,ij->j", r[j:, j:], r[j:, j:])))
        r[:, [j, p]] = r[:, [p, j]]
        order[[j, p]] = order[[p, j]]
        x = r[j:, j]
        alpha = np.sqrt(np.dot(x, x))
        if alpha == 0:
            continue
        v = x.copy()
        v[0] += alpha if x[0] >= 0 else -alpha
        v /= np.sqrt(np.dot(v, v))
        r[j:, j:] -= 2 * np.outer(v, v @ r[j:, j:])
        c[j:] -= 2 * np.outer(v, v @ c[j:])
    return r, c, order


def _min_norm(w, c):
    """The least-norm y with ``w y = c``, w of full row rank."""
    q, t = np.linalg.qr(w.T)
    return q @ np.linalg.solve(t.T, c)


def _gelsy(a, b, rcond):
    """LAPACK's gelsy on one matrix: QR with column pivoting, the rank as the largest leading
    triangle whose condition stays under 1/rcond, then the least-norm solution of that truncated
    problem. (LAPACK estimates each triangle's extreme singular values; they are computed here.)"""
    m, n = a.shape
    x = np.zeros((n, b.shape[1]), a.dtype)
    if 0 in (m, n):
        return x, 0
    r, c, order = _pivoted_qr(a, b)
    k = builtins.min(m, n)
    if r[0, 0] == 0:
        return x, 0

    def conditioned(i):  # (a leading triangle's condition grows with i: the rank is found by bisection)
        s = np.linalg.svd(np.triu(r[:i, :i]), compute_uv=False)
        return s[0] * rcond <= s[-1]

    low, high = 1, k  # conditioned(low); the rank is in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if conditioned(mid) else (low, mid - 1)
    x[order] = _min_norm(np.triu(r[:low]), c[:low])
    return x, low


def _gels(a, b):
    """LAPACK's gels on one matrix: QR (LQ if wide); info, the first zero on R's diagonal, when A
    has not full rank."""
    m, n = a.shape
    if 0 in (m, n):
        return np.zeros((n, b.shape[1]), a.dtype), 0
    if m >= n:
        q, r = np.linalg.qr(a)
        zero = np.flatnonzero(np.diagonal(r) == 0)
        if zero.size:
            return None, int(zero[0]) + 1
        return np.linalg.solve(r, q.T @ b), 0
    q, r = np.linalg.qr(a.T)
    zero = np.flatnonzero(np.diagonal(r) == 0)
    if zero.size:
        return None, int(zero[0]) + 1
    return q @ np.linalg.solve(r.T, b), 0


def _gelsd(a, b, rcond):
    """gelsd/gelss on one matrix: the SVD's least-norm solution, singular values at most
    ``rcond`` times the largest taken as zero."""
    m, n = a.shape
    k = builtins.min(m, n)
    if 0 in (m, n):
        return np.zeros((n, b.shape[1]), a.dtype), 0, np.zeros(k, a.dtype)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    keep = s > rcond * s[0]
    s_inv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(a.dtype)
    return vh.T @ (s_inv[:, None] * (u.T @ b)), int(keep.sum()), s


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (B a matrix, or a vector per batch) and what the
    driver fills besides, as PyTorch's CPU drivers do: the residuals' squared norms only for a tall
    A of full rank (never from gelsy), the rank from all but gels, the singular values from gelsd
    and gelss. Solution and residuals are outputs of one LinalgLstsqBackward0 node."""
    need_tensor("linalg_lstsq", "self", 1, A)
    need_tensor("linalg_lstsq", "b", 2, B)
    a, b = A._data, B._data
    fname = "torch.linalg.lstsq"
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError(f"{fname}: other must have at least 1 dimension.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{fname}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{_scalar_type(A)} and other's dtype {_scalar_type(B)}")
    if not 0 <= a.ndim - b.ndim <= 1:
        raise RuntimeError(f"{fname}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
                           "other.dim()) <= 1")
    vector = _vector_case(a, b)
    if a.shape[-2] != (b.shape[-1] if vector else b.shape[-2]):
        raise RuntimeError(f"{fname}: input.size(-2) should match other.size({-1 if vector else -2})")
    b2 = b[..., None] if a.ndim != b.ndim else b
    batch = _broadcast_checked(a.shape[:-2], b2.shape[:-2])
    driver = "gelsy" if driver is None else driver.lower()
    if driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{fname}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    m, n = a.shape[-2:]
    nrhs = b2.shape[-1]
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * builtins.max(m, n)
    a_flat = a.reshape((math.prod(a.shape[:-2]), m, n))
    count = math.prod(batch)
    ab = np.broadcast_to(a, batch + (m, n)).reshape((count, m, n))
    bb = np.broadcast_to(b2, batch + (m, nrhs)).reshape((count, m, nrhs))
    x = np.zeros((ab.shape[0], n, nrhs), a.dtype)
    ranks = np.zeros(a_flat.shape[0], np.int64)
    svals = np.zeros((a_flat.shape[0], builtins.min(m, n)), a.dtype)
    # (which matrix of A each broadcast batch element uses, for the rank and singular values of A's own batch)
    which = np.broadcast_to(np.arange(a_flat.shape[0]).reshape(a.shape[:-2]), batch).reshape(-1)
    with np.errstate(all="ignore"):
        for i in range(ab.shape[0]):
            if driver == "gels":
                xi, info = _gels(ab[i], bb[i])
                if info:
                    prefix = "" if a_flat.shape[0] <= 1 else f"(Batch element {which[i]}): "
                    raise LinAlgError(f"{fname}: {prefix}The least squares solution could not be computed because "
                                      f"the input matrix does not have full rank (error code: {info}).")
            elif driver == "gelsy":
                xi, ranks[which[i]] = _gelsy(ab[i], bb[i], rcond)
            else:
                xi, ranks[which[i]], svals[which[i]] = _gelsd(ab[i], bb[i], rcond)
            x[i] = xi
    residuals = np.zeros(0, a.dtype)
    if m > n and (driver == "gels" or driver in ("gelsd", "gelss") and np.all(ranks == n)):
        with np.errstate(all="ignore"):
            res = np.einsum("bij,bjk->bik", ab, x) - bb
            residuals = np.sum(res * res, axis=-2).reshape(batch + (nrhs,))
    # LAPACK solves in B's column-major buffer of max(m, n) rows: the solution is its first n.
    buf = np.zeros(batch + (builtins.max(m, n), nrhs), a.dtype)
    buf = _column_major(buf)
    buf[..., :n, :] = x.reshape(batch + (n, nrhs))
    solution = buf[..., :n, :]
    if vector:
        solution = solution[..., 0]
    rank = ranks.reshape(a.shape[:-2]) if driver != "gels" else np.zeros(0, np.int64)
    sv = svals.reshape(a.shape[:-2] + (builtins.min(m, n),)) if driver in ("gelsd", "gelss") else np.zeros(0, a.dtype)
    outs = _record_shared(LSTSQ, (A, B), (solution, residuals, rank, sv), {}, n_outputs=4)
    return _LinalgLstsq(*outs)


# ----- matrix_rank, cond -----

def _tolerance_of(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return np.asarray(x._data, np.float64)
    return np.asarray(float(x))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values (absolute eigenvalues if ``hermitian``) above
    ``max(atol, rtol * largest)``; rtol's default eps * max(m, n), 0 once atol > 0 is given. The
    old ``tol`` is an atol with rtol 0. An int64 tensor, no grad."""
    mixed = atol is not None and rtol is not None and isinstance(atol, Tensor) != isinstance(rtol, Tensor)
    if not isinstance(A, Tensor) or tol is not None and (atol is not None or rtol is not None) or mixed:
        raise invalid_arguments("linalg_matrix_rank", A, *(() if tol is None else (tol,)),
                                **_given_kw(hermitian=hermitian, atol=atol, rtol=rtol))
    if tol is not None:
        atol, rtol = tol, 0.0
    d = A._data
    if d.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    atol_ = _tolerance_of(atol)
    rtol_ = _tolerance_of(rtol)
    if rtol_ is None:
        if d.dtype not in (np.float32, np.float64):
            raise RuntimeError("This function doesn't handle types other than float and double")
        default = np.finfo(d.dtype).eps * builtins.max(d.shape[-2:])
        rtol_ = np.where(atol_ > 0, 0.0, default) if atol_ is not None else np.asarray(default)
    if atol_ is None:
        atol_ = np.asarray(0.0)
    if d.size == 0:
        return _wrap(np.zeros(d.shape[:-2], np.int64))
    with _grad_mode.no_grad():
        if hermitian:
            S = np.abs(eigvalsh(A)._data)
            top = S.max(-1, keepdims=True)
        else:
            S = svdvals(A)._data
            top = S[..., :1]
    with np.errstate(all="ignore"):
        cut = np.maximum(atol_[..., None], rtol_[..., None] * top)
        rank = np.sum(S > cut, axis=-1).astype(np.int64)
    if rank.shape != d.shape[:-2] and math.prod(d.shape[:-2]):
        # (PyTorch sums into a result of A's batch shape: tolerances with more dims resize it)
        resize_warning(d.shape[:-2], rank.shape, stacklevel=3)
    return _wrap(rank)


def _cond_empty(A):
    return _wrap(np.zeros(A._data.shape[:-2], A._data.dtype))


def _cond_by_inverse(A, ord):
    # ||A|| ||A^-1||, the inverse inf where A is singular, and inf for 0 * inf, as PyTorch builds it
    inverse, info = inv_ex(A)
    inverse.masked_fill_(unsqueeze(unsqueeze(info, -1), -1) > 0, math.inf)
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    return result.nan_to_num_(math.inf, math.inf, -math.inf)


def cond(A, p=None):
    """The condition number of each matrix in the norm ``p``: the ratio of the extreme singular
    values for None and +-2, ``||A|| ||A^-1||`` for 'fro', 'nuc', +-1 and +-inf (square A only).
    Built from PyTorch's ops, so the graph shows its nodes. 0 for an empty matrix."""
    need_tensor("linalg_cond", "input", 1, A)
    if isinstance(p, str):
        name = f"linalg.cond(ord={p})"
        _check_ndim(A, name)
        _check_square(A, name)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if A._data.size == 0:
            return _cond_empty(A)
        if p == "nuc":
            S = svdvals(A)
            return sum(S, -1) * sum(S.reciprocal(), -1)
        return _cond_by_inverse(A, p)
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    if builtins.abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {ord:g}")
    if A._data.size == 0:
        return _cond_empty(A)
    if builtins.abs(ord) == 2:
        S = svdvals(A)
        largest, smallest = narrow(S, -1, 0, 1), narrow(S, -1, -1, 1)
        return (smallest / largest if ord < 0 else largest / smallest).squeeze(-1)
    shown = ord if not isinstance(ord, float) or math.isinf(ord) else f"{ord:f}"
    _check_square(A, f"linalg.cond(ord={shown})")
    return _cond_by_inverse(A, ord)


# ----- multi_dot, vecdot, vander, tensorinv, tensorsolve -----

def _chain_order(dims):
    """Where to split each run i..j of matrices so that the products cost least (Cormen et al.,
    as PyTorch's matrix_chain_order; the first split of the cheapest kept)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(tensors):
    """The product of two or more matrices (the first and last may be vectors) in the order that
    costs least, with PyTorch's mm nodes and a final view."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    _tensors_expected(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    out_shape = []
    ts = list(tensors)
    first, last = tensors[0], tensors[-1]
    if first._data.ndim == 1:
        ts[0] = unsqueeze(first, 0)
    elif first._data.ndim == 2:
        out_shape.append(first._data.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first._data.ndim}D")
    if last._data.ndim == 1:
        ts[-1] = unsqueeze(last, -1)
    elif last._data.ndim == 2:
        out_shape.append(last._data.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last._data.ndim}D")
    for i in range(1, n - 1):
        if tensors[i]._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i]._data.ndim}D")
    dt = ts[0]._data.dtype
    for i in range(1, n):
        if ts[i]._data.dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_CPP_TYPE_NAMES[dt.name]} and tensor {i} {_CPP_TYPE_NAMES[ts[i]._data.dtype.name]}")
        if ts[i - 1]._data.shape[-1] != ts[i]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1]._data.shape)} "
                               f"and {list(tensors[i]._data.shape)} cannot be multiplied")
    if n == 2:
        result = mm(ts[0], ts[1])
    elif n == 3:
        a, b = ts[0]._data.shape[0], ts[1]._data.shape[0]
        c, d = ts[2]._data.shape
        cost_1, cost_2 = a * c * (b + d), b * d * (a + c)
        result = mm(ts[0], mm(ts[1], ts[2])) if cost_1 > cost_2 else mm(mm(ts[0], ts[1]), ts[2])
    else:
        split = _chain_order([t._data.shape[0] for t in ts] + [ts[-1]._data.shape[1]])

        def chain(i, j):
            return ts[i] if i == j else mm(chain(i, split[i][j]), chain(split[i][j] + 1, j))

        result = chain(0, n - 1)
    return view(result, out_shape)


_CHAIN_MATMUL_WARNING = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
    "instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1102.)")


def _chain_matmul(*matrices, out=None):
    """``torch.chain_matmul(*matrices)``: ``linalg.multi_dot`` of two or more matrices (one is
    cloned), deprecated with PyTorch's warning (once)."""
    _tensors_expected(matrices)
    _warn_once("chain_matmul", _CHAIN_MATMUL_WARNING)
    for m in matrices:
        if m._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._data.ndim}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if out is not None:
        if len(matrices) == 1:
            out.resize_(matrices[0].shape)
            return out.copy_(matrices[0])
        from . import linalg

        return linalg.multi_dot(list(matrices), out=out)
    return clone(matrices[0]) if len(matrices) == 1 else multi_dot(list(matrices))


def vecdot(x, y, *, dim=-1):
    """The dot products of the vectors along ``dim`` (batches broadcast): ``vdot`` for two vectors,
    else ``(x * y).sum(dim)``, as PyTorch computes it for real tensors."""
    need_tensor("linalg_vecdot", "x", 1, x)
    need_tensor("linalg_vecdot", "y", 2, y)
    _check_float(x, "linalg.vecdot")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_scalar_type(x)} and y of type {_scalar_type(y)} instead")
    if x._data.ndim == 1 and y._data.ndim == 1:
        return vdot(x, y)
    return sum(x * y, dim)


def vander(x, *, N=None):
    """The Vandermonde matrix of the powers 0, 1, ..., N - 1 of each element (increasing, unlike
    ``torch.vander``): a row of ones, then a cumprod, as PyTorch builds it."""
    need_tensor("linalg_vander", "x", 1, x)
    d = x._data
    if d.dtype == np.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    n = N if N is not None else d.shape[-1] if d.ndim else 0
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(expand(unsqueeze(x, -1), d.shape + (n - 1,)), -1)
    ones = _wrap(np.ones(d.shape + (1,), powers._data.dtype))
    return cat([ones, powers], -1)


def tensorinv(A, ind=2):
    """The inverse of A seen as a matrix of its first ``ind`` dims by the rest: shape
    ``A.shape[ind:] + A.shape[:ind]``. Through ``inv_ex`` and two reshapes, as PyTorch computes it."""
    need_tensor("linalg_tensorinv", "input", 1, A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = A._data.shape
    if ind > len(shape):
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {len(shape)}")
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {cols} != {rows}")
    square = reshape(A, (cols, cols))
    result, info = inv_ex(square)
    if info._data.any():
        raise _singular_inverse(square, "inv", info._data)
    return reshape(result, shape[ind:] + shape[:ind])


def tensorsolve(A, B, dims=None):
    """X with ``tensordot(A, X, X.ndim) = B``: A's dims ``dims`` moved last, then a matrix ``solve``
    between reshapes, as PyTorch computes it."""
    need_tensor("linalg_tensorsolve", "input", 1, A)
    need_tensor("linalg_tensorsolve", "other", 2, B)
    nd = A._data.ndim
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = movedim(A, dims, list(range(nd - len(dims), nd)))
    shape = A._data.shape
    result_shape = shape[B._data.ndim:]
    size, other = math.prod(result_shape), math.prod(B._data.shape)
    if size != other:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {size} != {other}")
    return reshape(solve(reshape(A, (size, size)), flatten(B)), result_shape)


# ----- The legacy torch.svd, torch.qr, torch.pinverse, and the functions PyTorch has removed -----

_Svd = return_type("svd", ("U", "S", "V"))
_Qr = return_type("qr", ("Q", "R"))


def _torch_svd(input, some=True, compute_uv=True):
    """``torch.svd``: ``(U, S, V)`` with V, not V^T (a transposed view of linalg.svd's Vh); reduced
    unless ``some=False``. Without ``compute_uv``, U and V are zeros of full size."""
    need_tensor("svd", "input", 1, input)
    d = input._data
    if d.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {d.ndim} dimensions instead")
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return _Svd(U, S, _mT(Vh))
    S = svdvals(input)
    m, n = d.shape[-2:]
    return _Svd(_wrap(np.zeros(d.shape[:-2] + (m, m), d.dtype)), S,
                _mT(_wrap(np.zeros(d.shape[:-2] + (n, n), d.dtype))))


_QR_WARNING = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe "
    "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be "
    "replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)")


def _torch_qr(input, some=True):
    """``torch.qr``: ``linalg.qr`` in 'reduced' (or 'complete' if not ``some``) mode, deprecated
    with PyTorch's warning (once)."""
    need_tensor("qr", "input", 1, input)
    _warn_once("qr", _QR_WARNING)
    return _Qr(*qr(input, "reduced" if some else "complete"))


def _pinverse(input, rcond=1e-15):
    """``Tensor.pinverse``: ``linalg.pinv`` with ``rcond``."""
    return pinv(input, rcond=rcond)


def _named(name, qualname=None):
    """Give a function PyTorch's name for it, which its argument errors show."""
    def named(f):
        f.__name__, f.__qualname__ = name, qualname or name
        return f
    return named


_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor of "
    "`torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU factorization."
    "\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n"
    "X = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")
_LSTSQ_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor of "
    "`torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
    "the returned tuple (although it returns other information about the problem).\n\nTo get the QR decomposition "
    "consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution "
    "in the last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the "
    "field 'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, "
    "A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_EIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex tensors of "
    "dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
    "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be "
    "replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")
_SYMEIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. The default behavior has changed from using "
    "the upper triangular portion of the matrix by default to using the lower triangular portion.\n\nL, _ = "
    "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else "
    "'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, "
    "UPLO='U' if upper else 'L')")
_MATRIX_RANK_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed.\nPlease use the `torch.linalg.matrix_rank` "
    "function instead. The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")

# These exist in PyTorch only to say what replaces them, with its signatures (which argument errors show).

@_named("solve")
def _torch_solve(input, A, *, out=None):
    raise RuntimeError(_SOLVE_REMOVED)


@_named("lstsq")
def _torch_lstsq(input, A, *, out=None):
    raise RuntimeError(_LSTSQ_REMOVED)


@_named("eig")
def _torch_eig(self, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(_EIG_REMOVED)


@_named("_symeig")
def _torch_symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(_SYMEIG_REMOVED)


@_named("matrix_rank")
def _torch_matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(_MATRIX_RANK_REMOVED)


@_named("solve", "Tensor.solve")
def _tensor_solve(self, other):
    raise RuntimeError(_SOLVE_REMOVED)


@_named("lstsq", "Tensor.lstsq")
def _tensor_lstsq(self, other):
    raise RuntimeError(_LSTSQ_REMOVED)


@_named("eig", "Tensor.eig")
def _tensor_eig(self, eigenvectors=False):
    raise RuntimeError(_EIG_REMOVED)


@_named("symeig", "Tensor.symeig")
def _tensor_symeig(self, eigenvectors=False):
    raise RuntimeError(_SYMEIG_REMOVED)


# ----- grad_fn._saved_* of these nodes, named as PyTorch names them -----

def _saved_lu(transposed):
    """det and slogdet factor the matrix as it lies in memory read column-major (A^T for a
    row-major A); solve factors A itself."""
    def lu_of(node):
        a = _saved_slot(0)(node)._data
        if transposed and a.flags.c_contiguous:
            a = np.swapaxes(a, -1, -2)
        return _lu(a)
    return (lambda node: _wrap(lu_of(node)[0])), (lambda node: _wrap(lu_of(node)[1]))


def _kept_output(node, i):
    """A kept output that takes no grad (pivots, P): without the node as grad_fn, as PyTorch saves it."""
    if node._freed:
        raise freed_error()
    return node._attrs["outs"].get(i, graph=False)


_DET_LU, _DET_PIVOTS = _saved_lu(True)
_SOLVE_LU, _SOLVE_PIVOTS = _saved_lu(False)
_SAVED = {
    "LinalgDetBackward0": {"A": _saved_slot(0), "LU": _DET_LU, "pivots": _DET_PIVOTS, "result": _saved_slot("result")},
    "LinalgSlogdetBackward0": {"A": _saved_slot(0), "LU": _DET_LU, "pivots": _DET_PIVOTS,
                               "sign": _saved_slot("result")},
    "LinalgInvExBackward0": {"inverse": _saved_slot("result")},
    "LinalgSolveExBackward0": {"A": _saved_slot(0), "LU": _SOLVE_LU, "pivots": _SOLVE_PIVOTS,
                               "left": _saved_attr("left"), "result": _saved_slot("result")},
    "LinalgCholeskyExBackward0": {"L": _saved_slot("result"), "upper": _saved_attr("upper")},
    "LinalgSolveTriangularBackward0": {"self": _saved_slot(0), "result": _saved_slot("result"),
                                       "upper": _saved_attr("upper"), "left": _saved_attr("left"),
                                       "unitriangular": _saved_attr("unitriangular")},
    "TriangularSolveBackward0": {"A": _saved_slot(1), "self": _saved_slot(0), "solution": _saved_slot("result"),
                                 "upper": _saved_attr("upper"), "transpose": _saved_attr("transpose"),
                                 "unitriangular": _saved_attr("unitriangular")},
    "CholeskySolveBackward0": {"self": _saved_slot(0), "input2": _saved_slot(1), "result": _saved_slot("result"),
                               "upper": _saved_attr("upper")},
    "CholeskyInverseBackward0": {"self": _saved_slot(0), "result": _saved_slot("result"),
                                 "upper": _saved_attr("upper")},
    "CholeskyBackward0": {"result": _saved_slot("result"), "upper": _saved_attr("upper")},
    "LinalgQrBackward0": {"Q": _saved_slot("result"), "R": _saved_output(1), "mode": _saved_attr("mode")},
    "LinalgEighBackward0": {"eigenvalues": _saved_slot("result"), "eigenvectors": _saved_output(1)},
    "LinalgSvdBackward0": {"U": _saved_slot("result"), "S": _saved_output(1), "Vh": _saved_output(2),
                           "full_matrices": _saved_attr("full_matrices"),
                           "S_sym_argsize_minus_1": lambda node: node._attrs["outs"].items[1][0].shape[-1]},
    "LinalgPinvBackward0": {"self": _saved_slot(0), "result": _saved_slot("result")},
    "LinalgCrossBackward0": {"dim": _saved_dim(), "self": _saved_slot(0), "other": _saved_slot(1)},
    "LinalgMatrixExpBackward0": {"self": _saved_slot(0)},
    "LinalgHouseholderProductBackward0": {"input": _saved_slot(0), "tau": _saved_slot(1),
                                          "result": _saved_slot("result")},
    "GeqrfBackward0": {},
    "LinalgLuFactorExBackward0": {"LU": _saved_slot("result"), "pivot": _saved_attr("pivot"),
                                  "pivots": lambda node: _kept_output(node, 1)},
    "LinalgLuBackward0": {"P": lambda node: _kept_output(node, 0), "L": _saved_output(1), "U": _saved_output(2),
                          "pivot": _saved_attr("pivot")},
    "LuUnpackBackward0": {"LU_data_sym_argsize_minus_1": lambda node: node._metas[0][0][-1],
                          "LU_data_sym_argsize_minus_2": lambda node: node._metas[0][0][-2]},
    "LinalgLuSolveBackward0": {"LU": _saved_slot(0), "pivots": _saved_tensor_attr("pivots"),
                               "result": _saved_slot("result"), "left": _saved_attr("left"),
                               "adjoint": _saved_attr("adjoint")},
    "LinalgLstsqBackward0": {"self": _saved_slot(0), "b": _saved_slot(1), "solution": _saved_slot("result")},
}
register_saved(_SAVED)

from ._out import resize_warning, take_out  # noqa: E402

take_out(globals(), "linalg.")
