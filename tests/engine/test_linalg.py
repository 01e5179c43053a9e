"""``torch.linalg`` against real PyTorch 2.13: values, grads (first and second order), node names and
``next_functions``, return types, ``_saved_*`` attributes, batched inputs, errors and their messages.

LAPACK differs between PyTorch and NumPy, so float results are compared with a tolerance (``close``)
unless exact (``same``), and QR, eigh and SVD, whose signs are not unique, through sign-free
quantities (reconstructions, projectors, ``V diag(c) V^T``)."""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import same

_INF, _NAN = float("inf"), float("nan")

# ----- Inputs: the same arrays for both modules -----

def _rng(seed=0):
    return np.random.default_rng(seed)


def general(*shape, seed=0):
    """Well-conditioned square matrices (``general(n)`` is n x n), or any shape when not square."""
    shape = shape * 2 if len(shape) == 1 else shape
    a = _rng(seed).standard_normal(shape)
    if shape[-1] == shape[-2]:
        a = a + shape[-1] * np.eye(shape[-1]) * np.sign(_rng(seed + 1).standard_normal(shape[:-2] + (1, 1)))
    return a


def vec(n, seed=0):
    return _rng(seed).standard_normal(n)


def spd(*shape, seed=0):
    shape = shape * 2 if len(shape) == 1 else shape
    x = _rng(seed).standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(*shape, seed=0):
    shape = shape * 2 if len(shape) == 1 else shape
    x = _rng(seed).standard_normal(shape)
    return x + np.swapaxes(x, -1, -2)


def tril(*shape, seed=0, unit=False):
    """Lower-triangular factors with a diagonal away from 0 (random values above it, which must not be read)."""
    a = _rng(seed).standard_normal(shape)
    n = shape[-1]
    lower = np.tril(a, -1) + np.eye(n) * (1.0 if unit else 1.5 + np.abs(a))
    return lower + np.triu(_rng(seed + 5).standard_normal(shape), 1) * 10


def triu(*shape, seed=0):
    return np.swapaxes(tril(*shape, seed=seed), -1, -2)


def quiet(fn):
    """``fn`` without warnings: torch.cholesky and torch.cross without dim warn once per process
    (see test_deprecation_warnings), so a test that calls them must not depend on which is first."""
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    return run


def T_(T, a, dtype="float32", grad=False):
    return T.tensor(np.asarray(a), dtype=getattr(T, dtype), requires_grad=grad)


# ----- Comparing with a tolerance -----

def _plain(x):
    if isinstance(x, tuple):
        return (type(x).__name__, getattr(x, "n_fields", None), [_plain(v) for v in x])
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if hasattr(x, "detach") and hasattr(x, "dtype"):
        return ("tensor", str(x.dtype), tuple(x.shape), x.requires_grad, x.detach().numpy().astype(np.float64))
    return x


def _assert_close(a, b, rtol, atol, path="result"):
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape, f"{path}: {a.shape} != {b.shape}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{path}: {a} != {b}"
        for i, (u, v) in enumerate(zip(a, b)):
            _assert_close(u, v, rtol, atol, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def close(torch_ref, et, fn, rtol=1e-5, atol=1e-5):
    """``fn(torch)`` and ``fn(engine)``: the same structure, dtypes, shapes and requires_grad, values to a tolerance."""
    ref, ours = _plain(fn(torch_ref)), _plain(fn(et))
    _assert_close(ours, ref, rtol, atol)


def grads(fn, *arrays, dtype="float32", weights_seed=7):
    """``fn`` applied to leaves made from ``arrays``: the leaves' grads of a random weighting of the
    outputs, as a function of the module."""
    def run(T):
        xs = [T_(T, a, dtype, grad=True) for a in arrays]
        outs = fn(T, *xs)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        rng = _rng(weights_seed)
        loss = sum((o * T_(T, rng.standard_normal(tuple(o.shape)), dtype)).sum() for o in outs if o.requires_grad)
        gs = T.autograd.grad(loss, xs, allow_unused=True)
        return [g for g in gs]
    return run


def graph(t, depth=4):
    """``grad_fn`` and its ``next_functions`` (names and output numbers), ``depth`` levels deep."""
    def walk(fn, d):
        if fn is None:
            return None
        kids = [(walk(f, d - 1), nr) for f, nr in fn.next_functions] if d else []
        return (fn.name(), kids)
    return walk(t.grad_fn, depth)


# ----- Sign-free views of the decompositions -----

def qr_view(T, A, mode="reduced"):
    Q, R = T.linalg.qr(A, mode=mode)
    return Q @ R, (Q * Q).sum(-2), R.abs()


def eigh_view(T, A, UPLO="L"):
    L, V = T.linalg.eigh(A, UPLO=UPLO)
    c = T.arange(1, L.shape[-1] + 1, dtype=A.dtype)
    return L, (V * c) @ V.mT, V * V


def svd_view(T, A, full_matrices=False):
    U, S, Vh = T.linalg.svd(A, full_matrices=full_matrices)
    k = S.shape[-1]
    c = T.arange(1, k + 1, dtype=A.dtype)
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    return S, (U * c) @ U.mT, (Vh.mT * c) @ Vh, (U * S.unsqueeze(-2)) @ Vh


# ===== Values =====

VALUES = {
    "det": lambda T: T.linalg.det(T_(T, general(4))),
    "det batched": lambda T: T.linalg.det(T_(T, general(2, 3, 4, 4))),
    "det float64": lambda T: T.linalg.det(T_(T, general(5), "float64")),
    "det 1x1 and empty": lambda T: (T.linalg.det(T_(T, [[3.0]])), T.linalg.det(T.zeros(0, 0)), T.linalg.det(T.zeros(2, 0, 0))),
    "det singular": lambda T: T.linalg.det(T_(T, [[1.0, 2.0], [2.0, 4.0]])),
    "torch.det": lambda T: T.det(T_(T, general(3, 3, 3))),
    "slogdet": lambda T: T.linalg.slogdet(T_(T, general(2, 4, 4))),
    "slogdet singular and empty": lambda T: (T.linalg.slogdet(T_(T, [[1.0, 2.0], [2.0, 4.0]])), T.linalg.slogdet(T.zeros(0, 0))),
    "torch.slogdet": lambda T: T.slogdet(T_(T, general(4))),
    "logdet": lambda T: (T.logdet(T_(T, spd(2, 3, 3))), T.logdet(-T.eye(3)), T.logdet(T_(T, [[1.0, 2.0], [2.0, 4.0]]))),
    "inv": lambda T: T.linalg.inv(T_(T, general(2, 4, 4))),
    "inv float64": lambda T: T.linalg.inv(T_(T, general(3), "float64")),
    "inverse": lambda T: T.inverse(T_(T, general(3))),
    "inv empty": lambda T: (T.linalg.inv(T.zeros(0, 0)), T.linalg.inv(T.zeros(2, 0, 0))),
    "inv_ex": lambda T: T.linalg.inv_ex(T_(T, general(2, 3, 3))),
    "inv_ex singular": lambda T: T.linalg.inv_ex(T.stack([T.eye(2), T_(T, [[1.0, 2.0], [2.0, 4.0]]), T.zeros(2, 2)])),
    "solve": lambda T: T.linalg.solve(T_(T, general(4)), T_(T, general(4, 2, seed=3))),
    "solve vector": lambda T: T.linalg.solve(T_(T, general(4)), T_(T, vec(4, seed=3))),
    "solve batch of vectors": lambda T: T.linalg.solve(T_(T, general(3, 4, 4)), T_(T, general(3, 4, seed=3))),
    "solve broadcast": lambda T: (T.linalg.solve(T_(T, general(2, 1, 3, 3)), T_(T, general(4, 3, 2, seed=3))),
                                  T.linalg.solve(T_(T, general(3, 3)), T_(T, general(2, 3, 1, seed=3)))),
    "solve left=False": lambda T: T.linalg.solve(T_(T, general(2, 3, 3)), T_(T, general(2, 4, 3, seed=3)), left=False),
    "solve empty": lambda T: T.linalg.solve(T.zeros(0, 0), T.zeros(0, 2)),
    "solve_ex singular": lambda T: T.linalg.solve_ex(T.zeros(2, 2), T.ones(2)),
    "cholesky": lambda T: T.linalg.cholesky(T_(T, spd(2, 4, 4))),
    "cholesky upper": lambda T: T.linalg.cholesky(T_(T, spd(4)), upper=True),
    "cholesky reads one triangle": lambda T: (T.linalg.cholesky(T_(T, [[4.0, 100.0], [1.0, 1.0]])),
                                              T.linalg.cholesky(T_(T, [[4.0, 1.0], [100.0, 1.0]]), upper=True)),
    "cholesky empty": lambda T: T.linalg.cholesky(T.zeros(0, 0)),
    "torch.cholesky": quiet(lambda T: T.cholesky(T_(T, spd(3)))),
    "cholesky_ex": lambda T: (T.linalg.cholesky_ex(T_(T, spd(2, 4, 4))), T.linalg.cholesky_ex(T_(T, spd(3)), upper=True),
                              T.linalg.cholesky_ex(T.zeros(0, 0)), T.linalg.cholesky_ex(T.zeros(2, 0, 0))),
    "cholesky_ex not positive-definite": lambda T: T.linalg.cholesky_ex(T.stack([
        T_(T, [[4.0, 2.0, 1.0], [2.0, 5.0, 3.0], [1.0, 3.0, 0.5]]), T.eye(3), -T.eye(3),
        T_(T, [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])])),
    "solve_triangular": lambda T: (T.linalg.solve_triangular(T_(T, tril(4)), T_(T, general(4, 2, seed=3)), upper=False),
                                   T.linalg.solve_triangular(T_(T, triu(2, 3, 3)), T_(T, general(2, 3, 4, seed=3)), upper=True)),
    "solve_triangular left=False": lambda T: (
        T.linalg.solve_triangular(T_(T, tril(3)), T_(T, general(2, 3, seed=3)), upper=False, left=False),
        T.linalg.solve_triangular(T_(T, triu(2, 3, 3)), T_(T, general(4, 3, seed=3)), upper=True, left=False)),
    "solve_triangular unitriangular": lambda T: (
        T.linalg.solve_triangular(T_(T, tril(4)), T_(T, general(4, 2, seed=3)), upper=False, unitriangular=True),
        T.linalg.solve_triangular(T_(T, triu(4)), T_(T, general(3, 4, seed=3)), upper=True, left=False, unitriangular=True)),
    "solve_triangular broadcast": lambda T: (
        T.linalg.solve_triangular(T_(T, tril(2, 1, 3, 3)), T_(T, general(4, 3, 2, seed=3)), upper=False),
        T.linalg.solve_triangular(T_(T, tril(3)), T_(T, general(2, 3, 2, seed=3)), upper=False),
        T.linalg.solve_triangular(T_(T, tril(3)).expand(2, 3, 3), T_(T, general(3, 2, seed=3)), upper=False)),
    "solve_triangular empty": lambda T: (T.linalg.solve_triangular(T.eye(3), T.ones(3, 0), upper=False),
                                         T.linalg.solve_triangular(T.zeros(0, 0), T.ones(0, 2), upper=True)),
    "cholesky_inverse": lambda T: (T.cholesky_inverse(T_(T, tril(2, 4, 4))), T.cholesky_inverse(T_(T, triu(3)), upper=True),
                                   T.cholesky_inverse(T.zeros(0, 0)), T_(T, tril(3)).cholesky_inverse()),
    "cholesky_solve": lambda T: (T.cholesky_solve(T_(T, general(4, 2, seed=3)), T_(T, tril(4))),
                                 T.cholesky_solve(T_(T, general(2, 3, 3, seed=3)), T_(T, triu(3)), upper=True),
                                 T.cholesky_solve(T_(T, general(3, 2, seed=3)), T_(T, tril(2, 1, 3, 3))),
                                 T_(T, general(3, 1, seed=3)).cholesky_solve(T_(T, tril(3)))),
    "triangular_solve": quiet(lambda T: (
        T.triangular_solve(T_(T, general(4, 2, seed=3)), T_(T, triu(4))),
        T.triangular_solve(T_(T, general(2, 3, 2, seed=3)), T_(T, tril(3)), upper=False),
        T.triangular_solve(T_(T, general(3, 2, seed=3)), T_(T, tril(3)), upper=False, transpose=True),
        T.triangular_solve(T_(T, general(3, 2, seed=3)), T_(T, triu(2, 1, 3, 3)), unitriangular=True),
        T_(T, general(3, 1, seed=3)).triangular_solve(T_(T, triu(3))))),
    "qr": lambda T: qr_view(T, T_(T, general(5, 3))),
    "qr wide batched": lambda T: qr_view(T, T_(T, general(2, 3, 5))),
    "qr complete": lambda T: (qr_view(T, T_(T, general(5, 3)), "complete"), qr_view(T, T_(T, general(3, 5)), "complete")),
    "qr r": lambda T: T.linalg.qr(T_(T, general(4, 3)), mode="r")[0],
    "qr signs": lambda T: T.linalg.qr(T_(T, general(4, 3), "float64")),
    "qr empty": lambda T: (T.linalg.qr(T.zeros(3, 0)), T.linalg.qr(T.zeros(0, 3)), T.linalg.qr(T.zeros(3, 0), mode="complete")),
    "eigh": lambda T: eigh_view(T, T_(T, sym(2, 4, 4))),
    "eigh upper": lambda T: eigh_view(T, T_(T, general(4, 4)), "U"),
    "eigh reads one triangle": lambda T: (T.linalg.eigh(T_(T, [[4.0, 100.0], [1.0, 1.0]]))[0],
                                          T.linalg.eigh(T_(T, [[4.0, 100.0], [1.0, 1.0]]), UPLO="U")[0],
                                          T.linalg.eigh(T.eye(2), UPLO="l")[0]),
    "eigh empty": lambda T: T.linalg.eigh(T.zeros(0, 0)),
    "eigvalsh": lambda T: (T.linalg.eigvalsh(T_(T, sym(2, 3, 3))), T.linalg.eigvalsh(T_(T, general(3)), UPLO="U")),
    "svd": lambda T: svd_view(T, T_(T, general(2, 5, 3))),
    "svd wide": lambda T: svd_view(T, T_(T, general(3, 5))),
    "svd full shapes": lambda T: [tuple(o.shape) for o in T.linalg.svd(T_(T, general(2, 5, 3)))],
    "svd empty": lambda T: (T.linalg.svd(T.zeros(3, 0)), T.linalg.svd(T.zeros(3, 0), full_matrices=False),
                            T.linalg.svdvals(T.zeros(3, 0))),
    "svdvals": lambda T: (T.linalg.svdvals(T_(T, general(2, 3, 5))), T.linalg.svdvals(T_(T, general(4, 2)))),
    "pinv": lambda T: (T.linalg.pinv(T_(T, general(2, 3, 5))), T.linalg.pinv(T_(T, general(5, 3)))),
    "pinv rank deficient": lambda T: T.linalg.pinv(T_(T, [[1.0, 2.0], [2.0, 4.0]])),
    "pinv tolerances": lambda T: (T.linalg.pinv(T_(T, [[1.0, 0.0], [0.0, 1e-3]]), atol=1e-2),
                                  T.linalg.pinv(T_(T, [[1.0, 0.0], [0.0, 1e-3]]), rtol=1e-2),
                                  T.linalg.pinv(T_(T, [[1.0, 0.0], [0.0, 1e-3]]), 1e-2),
                                  T.linalg.pinv(T.eye(2), atol=-1.0),
                                  T.linalg.pinv(T_(T, [[1.0, 0.0], [0.0, 1e-3]]), atol=T.tensor(1e-2))),
    "pinv hermitian": lambda T: (T.linalg.pinv(T_(T, [[2.0, 1.0], [3.0, -1.0]]), hermitian=True),
                                 T.linalg.pinv(T_(T, sym(2, 3, 3)), hermitian=True)),
    "pinv empty": lambda T: T.linalg.pinv(T.ones(0, 3)),
    "matrix_power": lambda T: [T.linalg.matrix_power(T_(T, general(3) / 3), n) for n in range(-3, 9)],
    "matrix_power batched": lambda T: [T.linalg.matrix_power(T_(T, general(2, 3, 3) / 3), n) for n in (-2, 0, 1, 5)],
    "matrix_power int": lambda T: (T.linalg.matrix_power(T.tensor([[1, 1], [1, 0]]), 10),
                                   T.linalg.matrix_power(T.tensor([[1, 1], [1, 0]]), 0),
                                   T.matrix_power(T.tensor([[2, 1], [0, 1]]), 3)),
    "matrix_power empty": lambda T: T.linalg.matrix_power(T.ones(0, 0), 3),
    "cross": lambda T: (T.linalg.cross(T_(T, general(4, 3)), T_(T, general(4, 3, seed=2))),
                        T.linalg.cross(T_(T, general(3, 2)), T_(T, general(3, 2, seed=2)), dim=0),
                        T.linalg.cross(T_(T, general(1, 3)), T_(T, general(2, 3, seed=2))),
                        T.linalg.cross(T.tensor([1, 0, 0]), T.tensor([0, 1, 0])),
                        T.cross(T_(T, general(3, 2)), T_(T, general(3, 2, seed=2)), dim=0)),
    "vector_norm": lambda T: [T.linalg.vector_norm(T_(T, general(2, 3, 4)), o) for o in (2, 1, 3, 0, 0.5, -1, _INF, -_INF)],
    "vector_norm dims": lambda T: (T.linalg.vector_norm(T_(T, general(2, 3, 4)), 3, dim=(-1, 0)),
                                   T.linalg.vector_norm(T_(T, general(2, 3, 4)), dim=1, keepdim=True),
                                   T.linalg.vector_norm(T_(T, general(2, 3, 4)), dtype=T.float64),
                                   T.linalg.vector_norm(T.tensor(-3.0)), T.linalg.vector_norm(T.zeros(0))),
    "matrix_norm": lambda T: [T.linalg.matrix_norm(T_(T, general(2, 3, 4)), o) for o in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF)],
    "matrix_norm dims keepdim": lambda T: [T.linalg.matrix_norm(T_(T, general(2, 3, 4)), o, dim=(2, 0), keepdim=k)
                                           for o in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF) for k in (False, True)],
    "matrix_norm dtype": lambda T: [T.linalg.matrix_norm(T_(T, general(3, 4)), o, dtype=T.float64) for o in ("fro", 1, 2)],
    "matrix_norm empty": lambda T: (T.linalg.matrix_norm(T.zeros(0, 3), 1), T.linalg.matrix_norm(T.zeros(0, 3), 2),
                                    T.linalg.matrix_norm(T.zeros(3, 0), "nuc"), T.linalg.matrix_norm(T.zeros(0, 3))),
    "norm": lambda T: (T.linalg.norm(T_(T, general(2, 3, 4))), T.linalg.norm(T_(T, general(3, 4)), "fro"),
                       T.linalg.norm(T_(T, general(3, 4)), 1), T.linalg.norm(T_(T, general(3, 4)), "nuc"),
                       T.linalg.norm(T_(T, vec(4)), 3), T.linalg.norm(T_(T, vec(4)), _INF),
                       T.linalg.norm(T_(T, general(2, 3, 4)), dim=1), T.linalg.norm(T_(T, general(2, 3, 4)), 3, dim=[1]),
                       T.linalg.norm(T_(T, general(2, 3, 4)), dim=(1, 0)), T.linalg.norm(T_(T, general(2, 3, 4)), -2, dim=(1, 2)),
                       T.linalg.norm(T_(T, general(2, 3, 4)), keepdim=True), T.linalg.norm(T_(T, general(3, 4)), dtype=T.float64)),
    "norm half": lambda T: (T.linalg.norm(T.eye(2, dtype=T.float16) * 2), T.linalg.matrix_norm(T.eye(2, dtype=T.float16))),
    "matmul and diagonal": lambda T: (T.linalg.matmul(T_(T, general(2, 3)), T_(T, general(3, 2))),
                                      T.linalg.diagonal(T_(T, general(2, 3, 3)))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", VALUES)
def test_values(name, torch_ref, et):
    close(torch_ref, et, VALUES[name], rtol=2e-5, atol=2e-5)


EXACT = {
    # infs and nans where a pivot is zero, exact small integers: these must agree to the last digit
    "inv_ex singular": VALUES["inv_ex singular"],
    "solve_ex singular": VALUES["solve_ex singular"],
    "det singular": VALUES["det singular"],
    "slogdet singular": VALUES["slogdet singular and empty"],
    "logdet": lambda T: (T.logdet(T.eye(3) * 2), T.logdet(-T.eye(3)), T.logdet(T_(T, [[1.0, 2.0], [2.0, 4.0]]))),
    "matrix_power int": VALUES["matrix_power int"],
    "cholesky_ex not positive-definite": VALUES["cholesky_ex not positive-definite"],
    "cholesky_ex nan and upper": lambda T: (T.linalg.cholesky_ex(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
                                           T.linalg.cholesky_ex(T_(T, [[1.0, 2.0], [0.0, 1.0]]), upper=True),
                                           T.linalg.cholesky_ex(T.eye(2).expand(3, 2, 2) * 4)),
    "solve_triangular zero diagonal": lambda T: (
        T.linalg.solve_triangular(T.zeros(2, 2), T.ones(2, 1), upper=True),
        T.linalg.solve_triangular(T.zeros(2, 2), T.zeros(2, 1), upper=False),
        T.linalg.solve_triangular(T_(T, [[0.0, 0.0], [1.0, 1.0]]), T.ones(2, 1), upper=False),
        T.cholesky_solve(T.ones(2, 2), T.zeros(2, 2))),
    "solve_triangular exact": lambda T: (
        T.linalg.solve_triangular(T_(T, [[2.0, 0.0], [1.0, 4.0]]), T_(T, [[2.0, 4.0], [5.0, 8.0]]), upper=False),
        T.linalg.solve_triangular(T_(T, [[1.0, 5.0], [7.0, 2.0]]), T.ones(2, 1), upper=False, unitriangular=True),
        T.linalg.solve_triangular(T.eye(2, dtype=T.float64), T.ones(2, 2), upper=False),
        T.linalg.solve_triangular(T.eye(2), T.ones(2, 2, dtype=T.long), upper=False)),
    "triangular_solve exact": quiet(lambda T: (
        T.triangular_solve(T.ones(2, 2), T.zeros(2, 2)),
        T.triangular_solve(T.ones(2, 1), T_(T, [[1.0, 2.0], [3.0, 4.0]]), upper=False, unitriangular=True))),
    "cross int": lambda T: T.linalg.cross(T.tensor([[1, 0, 0], [0, 2, 0]]), T.tensor([[0, 1, 0], [0, 0, 3]])),
    "float64 values": lambda T: (T.linalg.det(T_(T, general(4), "float64")), T.linalg.inv(T_(T, general(4), "float64")),
                                 T.linalg.solve(T_(T, general(4), "float64"), T_(T, vec(4, seed=2), "float64")),
                                 T.linalg.cholesky(T_(T, spd(4), "float64")), T.linalg.eigvalsh(T_(T, sym(4), "float64")),
                                 T.linalg.svdvals(T_(T, general(4, 3), "float64")),
                                 T.linalg.pinv(T_(T, general(4, 3), "float64")),
                                 T.linalg.matrix_norm(T_(T, general(4, 3), "float64"), "nuc")),
    "return types": lambda T: [(type(r).__module__, type(r).__name__, r.n_fields, r.n_sequence_fields,
                                r.n_unnamed_fields, len(r), type(r).__mro__[1:]) for r in (
        T.linalg.slogdet(T.eye(2)), T.slogdet(T.eye(2)), T.linalg.inv_ex(T.eye(2)), T.linalg.solve_ex(T.eye(2), T.ones(2)),
        T.linalg.qr(T.eye(2)), T.linalg.eigh(T.eye(2)), T.linalg.svd(T.eye(2)), T.linalg.cholesky_ex(T.eye(2)),
        quiet(T.triangular_solve)(T.eye(2), T.eye(2)))],
    "return type fields": lambda T: (T.linalg.slogdet(T.eye(2) * 2).logabsdet, T.linalg.inv_ex(T.eye(2)).info,
                                     T.linalg.solve_ex(T.eye(2), T.ones(2)).result, T.linalg.qr(T.eye(2)).R,
                                     T.linalg.eigh(T.eye(2) * 3).eigenvalues, T.linalg.svd(T.eye(2) * 2).S,
                                     T.linalg.svd(T.eye(2)).Vh, T.linalg.eigh(T.eye(2)).eigenvectors,
                                     T.linalg.cholesky_ex(T.eye(2) * 4).L, T.linalg.cholesky_ex(T.eye(2)).info,
                                     quiet(T.triangular_solve)(T.eye(2), T.eye(2) * 2).solution,
                                     quiet(T.triangular_solve)(T.eye(2), T.eye(2) * 2).cloned_coefficient),
    "return type repr": lambda T: (repr(T.linalg.slogdet(T.eye(2) * 2)) + repr(T.linalg.inv_ex(T.eye(2)))
                                   + repr(T.linalg.cholesky_ex(T.eye(2))) + repr(quiet(T.triangular_solve)(T.eye(2), T.eye(2)))),
    "methods": lambda T: (T.eye(2).mul(2).det(), T.eye(2).mul(2).logdet(), T.eye(2).mul(2).slogdet(), T.eye(2).mul(2).inverse(),
                          T.tensor([[1.0, 1.0], [1.0, 0.0]]).matrix_power(3),
                          T.tensor([1.0, 0.0, 0.0]).cross(T.tensor([0.0, 1.0, 0.0]), dim=0)),
    "requires_grad of outputs": lambda T: [(o.requires_grad, o.grad_fn is not None) for r in (
        T.linalg.slogdet(T.eye(2).requires_grad_()), T.linalg.inv_ex(T.eye(2).requires_grad_()),
        T.linalg.qr(T.eye(2).requires_grad_(), mode="r"), T.linalg.svd(T.eye(2).requires_grad_()),
        T.linalg.solve_ex(T.eye(2).requires_grad_(), T.ones(2)), T.linalg.cholesky_ex(T.eye(2).requires_grad_()),
        quiet(T.triangular_solve)(T.eye(2), T.eye(2).requires_grad_()),
        quiet(T.triangular_solve)(T.eye(2).requires_grad_(), T.eye(2))) for o in r],
    "LinAlgError": lambda T: (issubclass(T.linalg.LinAlgError, RuntimeError), T.linalg.LinAlgError.__name__),
    "nan inputs": lambda T: (T.linalg.det(T.stack([T_(T, [[_NAN, 1.0], [1.0, 1.0]]), T.eye(2)])),
                             T.linalg.slogdet(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
                             T.linalg.inv(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
                             T.linalg.solve(T_(T, [[_NAN, 1.0], [1.0, 1.0]]), T.ones(2))),
    "empty matrix norms": lambda T: [(T.linalg.matrix_norm(T.zeros(s, requires_grad=True), o, keepdim=k).detach(),
                                      T.linalg.matrix_norm(T.zeros(s, requires_grad=True), o).grad_fn is None)
                                     for s in ((0, 3), (3, 0), (2, 0, 3), (0, 3, 3)) for o in (1, _INF, 2, "nuc", "fro")
                                     for k in (False, True)],
    "vector_norm edge arguments": lambda T: (T.linalg.vector_norm(T.ones(2, 3), dim=()), T.linalg.vector_norm(T.ones(2, 3), True),
                                             T.linalg.vector_norm(T.ones(2, 3), keepdim=True), T.linalg.norm(T.tensor(3.0)),
                                             T.linalg.norm(T.tensor(3.0), 2), T.linalg.norm(T.ones(3), 3, keepdim=True)),
    "norm dims as given": lambda T: [T.linalg.norm(T.ones(2, 3, 3, requires_grad=True), o, dim=d).grad_fn._saved_dim
                                     for o, d in ((None, (-1, 0)), ("fro", (-1, 0)), (None, -1), (3, [-2]))],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", EXACT)
def test_exact(name, torch_ref, et):
    same(torch_ref, et, EXACT[name])


# ===== Grads =====

GRADS = {
    "det": (lambda T, a: T.linalg.det(a), [general(4)]),
    "det batched": (lambda T, a: T.linalg.det(a), [general(2, 3, 3)]),
    "det 1x1": (lambda T, a: T.linalg.det(a), [general(2, 1, 1)]),
    "slogdet": (lambda T, a: T.linalg.slogdet(a), [general(2, 4, 4)]),
    "slogdet logabsdet": (lambda T, a: T.linalg.slogdet(a)[1], [general(3)]),
    "logdet": (lambda T, a: T.logdet(a), [spd(2, 3, 3)]),
    "inv": (lambda T, a: T.linalg.inv(a), [general(2, 4, 4)]),
    "inv_ex": (lambda T, a: T.linalg.inv_ex(a).inverse, [general(3)]),
    "solve": (lambda T, a, b: T.linalg.solve(a, b), [general(4), general(4, 2, seed=3)]),
    "solve vector": (lambda T, a, b: T.linalg.solve(a, b), [general(4), vec(4, seed=3)]),
    "solve batch of vectors": (lambda T, a, b: T.linalg.solve(a, b), [general(3, 4, 4), general(3, 4, seed=3)]),
    "solve broadcast": (lambda T, a, b: T.linalg.solve(a, b), [general(2, 1, 3, 3), general(4, 3, 2, seed=3)]),
    "solve broadcast B": (lambda T, a, b: T.linalg.solve(a, b), [general(2, 3, 3), general(3, 2, seed=3)]),
    "solve left=False": (lambda T, a, b: T.linalg.solve(a, b, left=False), [general(2, 3, 3), general(2, 4, 3, seed=3)]),
    "cholesky": (lambda T, a: T.linalg.cholesky(a), [spd(2, 4, 4)]),
    "cholesky upper": (lambda T, a: T.linalg.cholesky(a, upper=True), [spd(4)]),
    "cholesky asymmetric": (lambda T, a: T.linalg.cholesky(a), [spd(3) + np.triu(np.ones((3, 3)), 1)]),
    "torch.cholesky": (quiet(lambda T, a: T.cholesky(a)), [spd(3)]),
    "cholesky_ex": (lambda T, a: T.linalg.cholesky_ex(a), [spd(2, 3, 3)]),
    "cholesky_ex upper": (lambda T, a: T.linalg.cholesky_ex(a, upper=True).L, [spd(3)]),
    "solve_triangular": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False), [tril(4), general(4, 2, seed=3)]),
    "solve_triangular upper": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), [triu(2, 3, 3), general(2, 3, 4, seed=3)]),
    "solve_triangular left=False": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, left=False),
                                    [tril(3), general(2, 3, seed=3)]),
    "solve_triangular upper left=False": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True, left=False),
                                          [triu(3), general(4, 3, seed=3)]),
    "solve_triangular unitriangular": (lambda T, a, b: [T.linalg.solve_triangular(a, b, upper=u, unitriangular=True, left=l)
                                                        for u in (False, True) for l in (True, False)],
                                       [tril(3), general(3, 3, seed=3)]),
    "solve_triangular broadcast": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False),
                                   [tril(2, 1, 3, 3), general(4, 3, 2, seed=3)]),
    "solve_triangular broadcast A": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True),
                                     [triu(3), general(2, 3, 2, seed=3)]),
    "cholesky_inverse": (lambda T, a: T.cholesky_inverse(a), [tril(2, 3, 3)]),
    "cholesky_inverse upper": (lambda T, a: T.cholesky_inverse(a, upper=True), [triu(3)]),
    "cholesky_solve": (lambda T, b, a: T.cholesky_solve(b, a), [general(3, 2, seed=3), tril(3)]),
    "cholesky_solve upper broadcast": (lambda T, b, a: T.cholesky_solve(b, a, upper=True),
                                       [general(2, 3, 2, seed=3), triu(3)]),
    "triangular_solve": (quiet(lambda T, b, a: T.triangular_solve(b, a)), [general(3, 2, seed=3), triu(3)]),
    "triangular_solve transpose": (quiet(lambda T, b, a: T.triangular_solve(b, a, upper=False, transpose=True)),
                                   [general(2, 3, 2, seed=3), tril(3)]),
    "triangular_solve unitriangular": (quiet(lambda T, b, a: T.triangular_solve(b, a, unitriangular=True)),
                                       [general(3, 2, seed=3), triu(2, 3, 3)]),
    "triangular_solve solution only": (quiet(lambda T, b, a: T.triangular_solve(b, a, upper=False).solution),
                                       [general(3, 2, seed=3), tril(3)]),
    "triangular_solve coefficient only": (quiet(lambda T, b, a: T.triangular_solve(b, a).cloned_coefficient * 1),
                                          [general(3, 2, seed=3), triu(3)]),
    "qr": (lambda T, a: qr_view(T, a), [general(5, 3)]),
    "qr square batched": (lambda T, a: qr_view(T, a), [general(2, 4, 4)]),
    "qr wide": (lambda T, a: qr_view(T, a), [general(2, 3, 5)]),
    "qr Q only": (lambda T, a: T.linalg.qr(a)[0] ** 2, [general(5, 3)]),
    "qr R only": (lambda T, a: T.linalg.qr(a)[1].abs(), [general(3, 5)]),
    "qr complete wide": (lambda T, a: qr_view(T, a, "complete"), [general(3, 5)]),
    "eigh": (lambda T, a: eigh_view(T, a), [sym(2, 4, 4)]),
    "eigh asymmetric": (lambda T, a: eigh_view(T, a), [general(4)]),
    "eigh upper": (lambda T, a: eigh_view(T, a, "U"), [general(4)]),
    "eigh values only": (lambda T, a: T.linalg.eigh(a)[0], [sym(3)]),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a) ** 2, [general(2, 3, 3)]),
    "svd": (lambda T, a: svd_view(T, a), [general(2, 4, 4)]),
    "svd tall": (lambda T, a: svd_view(T, a), [general(5, 3)]),
    "svd wide batched": (lambda T, a: svd_view(T, a), [general(2, 3, 5)]),
    "svd full_matrices": (lambda T, a: svd_view(T, a, True), [general(3, 5)]),
    "svd S only": (lambda T, a: T.linalg.svd(a)[1], [general(3, 5)]),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), [general(2, 5, 3)]),
    "pinv": (lambda T, a: T.linalg.pinv(a), [general(2, 3, 5)]),
    "pinv tall": (lambda T, a: T.linalg.pinv(a), [general(5, 3)]),
    "pinv square": (lambda T, a: T.linalg.pinv(a), [general(3)]),
    "pinv hermitian": (lambda T, a: T.linalg.pinv(a, hermitian=True), [np.array([[2.0, 1.0], [3.0, -1.0]])]),
    "matrix_power": (lambda T, a: [T.linalg.matrix_power(a, n) for n in (-3, -1, 0, 1, 2, 3, 5, 8)], [general(3) / 3]),
    "matrix_power batched": (lambda T, a: [T.linalg.matrix_power(a, n) for n in (-2, 0, 1, 3)], [general(2, 3, 3) / 3]),
    "cross": (lambda T, a, b: T.linalg.cross(a, b), [general(4, 3), general(4, 3, seed=2)]),
    "cross broadcast dim": (lambda T, a, b: T.linalg.cross(a, b, dim=0), [general(3, 1), general(3, 4, seed=2)]),
    "vector_norm": (lambda T, a: [T.linalg.vector_norm(a, o, dim=1) for o in (2, 1, 3, 0.5, -1, _INF)], [general(2, 3, 4)]),
    "matrix_norm": (lambda T, a: [T.linalg.matrix_norm(a, o) for o in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF)],
                    [general(2, 3, 4)]),
    "matrix_norm dims keepdim": (lambda T, a: [T.linalg.matrix_norm(a, o, dim=(2, 0), keepdim=True)
                                               for o in ("fro", "nuc", 1, -2, _INF)], [general(2, 3, 4)]),
    "matrix_norm dtype": (lambda T, a: [T.linalg.matrix_norm(a, o, dtype=T.float64) for o in ("fro", 1, 2)], [general(3, 4)]),
    "norm": (lambda T, a: [T.linalg.norm(a), T.linalg.norm(a, "nuc"), T.linalg.norm(a, 2), T.linalg.norm(a, dim=1),
                           T.linalg.norm(a[0], 3)], [general(3, 4)]),
}


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", GRADS)
def test_grads(name, dtype, torch_ref, et):
    fn, arrays = GRADS[name]
    tol = 2e-4 if dtype == "float32" else 1e-9
    close(torch_ref, et, grads(fn, *arrays, dtype=dtype), rtol=tol, atol=tol)


# A function of each op whose derivatives finite differences can check (sign-free for QR, eigh, SVD).
CHECKS = {
    "det": (lambda T: T.linalg.det, [general(3)]),
    "det batched": (lambda T: T.linalg.det, [general(2, 3, 3)]),
    "slogdet": (lambda T: lambda a: T.linalg.slogdet(a).logabsdet, [general(2, 3, 3)]),
    "logdet": (lambda T: T.logdet, [spd(3)]),
    "inv": (lambda T: T.linalg.inv, [general(2, 3, 3)]),
    "solve": (lambda T: T.linalg.solve, [general(3), general(3, 2, seed=3)]),
    "solve vector broadcast": (lambda T: T.linalg.solve, [general(2, 3, 3), vec(3, seed=3)]),
    "solve left=False": (lambda T: lambda a, b: T.linalg.solve(a, b, left=False), [general(3), general(2, 3, seed=3)]),
    "cholesky": (lambda T: lambda a: T.linalg.cholesky(a @ a.mT + T.eye(3)), [general(2, 3, 3)]),
    "cholesky upper": (lambda T: lambda a: T.linalg.cholesky(a @ a.mT + T.eye(3), upper=True), [general(3)]),
    "cholesky_ex": (lambda T: lambda a: T.linalg.cholesky_ex(a @ a.mT + T.eye(3)).L, [general(2, 3, 3)]),
    "solve_triangular": (lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=False), [tril(3), general(3, 2, seed=3)]),
    "solve_triangular upper broadcast": (lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=True),
                                         [triu(2, 1, 3, 3), general(2, 3, 2, seed=3)]),
    "solve_triangular left=False": (lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=False, left=False),
                                    [tril(3), general(2, 3, seed=3)]),
    "solve_triangular unitriangular": (lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
                                       [triu(3), general(3, 2, seed=3)]),
    # (PyTorch's rules for these two give a grad on the whole factor, of which only one triangle is read)
    "cholesky_inverse": (lambda T: lambda a: T.cholesky_inverse(a.tril()), [tril(2, 3, 3)]),
    "cholesky_inverse upper": (lambda T: lambda a: T.cholesky_inverse(a.triu(), True), [triu(3)]),
    "cholesky_solve": (lambda T: lambda b, a: T.cholesky_solve(b, a.tril()), [general(3, 2, seed=3), tril(3)]),
    "cholesky_solve upper": (lambda T: lambda b, a: T.cholesky_solve(b, a.triu(), True), [general(2, 3, 2, seed=3), triu(3)]),
    "triangular_solve": (lambda T: quiet(lambda b, a: T.triangular_solve(b, a)), [general(3, 2, seed=3), triu(3)]),
    "triangular_solve transpose": (lambda T: quiet(lambda b, a: T.triangular_solve(b, a, False, True)),
                                   [general(3, 2, seed=3), tril(3)]),
    "qr": (lambda T: lambda a: T.linalg.qr(a), [general(4, 3)]),
    "qr wide": (lambda T: lambda a: T.linalg.qr(a), [general(2, 3, 4)]),
    "eigh": (lambda T: lambda a: eigh_view(T, a + a.mT), [general(3)]),
    "eigvalsh": (lambda T: lambda a: T.linalg.eigvalsh(a + a.mT), [general(2, 3, 3)]),
    "svd": (lambda T: lambda a: svd_view(T, a), [general(3, 3)]),
    "svd tall": (lambda T: lambda a: svd_view(T, a), [general(4, 3)]),
    "svd wide full": (lambda T: lambda a: svd_view(T, a, True), [general(2, 4)]),
    "svdvals": (lambda T: T.linalg.svdvals, [general(2, 4, 3)]),
    "pinv": (lambda T: T.linalg.pinv, [general(2, 4)]),
    "matrix_power": (lambda T: lambda a: (T.linalg.matrix_power(a, 5), T.linalg.matrix_power(a, -2)), [general(3) / 3]),
    "cross": (lambda T: T.linalg.cross, [general(2, 3), general(2, 3, seed=2)]),
    "matrix_norm": (lambda T: lambda a: [T.linalg.matrix_norm(a, o) for o in ("fro", "nuc", 2, -2, 1, _INF)], [general(3, 4)]),
}


@pytest.mark.parametrize("name", CHECKS)
def test_gradcheck_and_gradgradcheck(name, et):
    make, arrays = CHECKS[name]
    xs = tuple(T_(et, a, "float64", grad=True) for a in arrays)
    assert et.autograd.gradcheck(make(et), xs)
    assert et.autograd.gradgradcheck(make(et), xs)


@pytest.mark.parametrize("name", [n for n in CHECKS if n.split()[0] in (
    "cholesky_ex", "solve_triangular", "cholesky_inverse", "cholesky_solve", "triangular_solve")])
def test_forward_ad(name, et):
    """Tangents of the triangular solvers (from their backward rules) against finite differences."""
    make, arrays = CHECKS[name]
    xs = tuple(T_(et, a, "float64", grad=True) for a in arrays)
    assert et.autograd.gradcheck(make(et), xs, check_forward_ad=True)


@pytest.mark.torch
def test_double_backward_values(torch_ref, et):
    def second(T):
        out = []
        for fn, a in ((lambda x: T.linalg.det(x), general(3)), (lambda x: T.linalg.inv(x).sum(), general(3)),
                      (lambda x: T.linalg.eigvalsh(x).pow(3).sum(), sym(3)),
                      (lambda x: T.linalg.cholesky(x).pow(2).sum(), spd(3)),
                      (lambda x: T.linalg.solve_triangular(x, T.ones(3, 2, dtype=T.float64), upper=False).pow(2).sum(), tril(3)),
                      (lambda x: T.cholesky_inverse(x).pow(2).sum(), tril(3)),
                      (lambda x: T.cholesky_solve(T.ones(3, 1, dtype=T.float64), x).pow(2).sum(), tril(3)),
                      (lambda x: T.linalg.svdvals(x).pow(3).sum(), general(3, 4))):
            x = T_(T, a, "float64", grad=True)
            g, = T.autograd.grad(fn(x), x, create_graph=True)
            h, = T.autograd.grad((g * T_(T, np.arange(x.numel()).reshape(x.shape), "float64")).sum(), x)
            out.append((g.requires_grad, h))
        return out
    close(torch_ref, et, second, rtol=1e-8, atol=1e-8)


@pytest.mark.torch
def test_double_backward_graphs(torch_ref, et):
    """The graph a create_graph backward builds is made of PyTorch's nodes (the rules use the same ops)."""
    def run(T):
        out = []
        for fn, a in ((lambda x: T.linalg.cholesky(x), spd(3)), (lambda x: T.linalg.cholesky(x, upper=True), spd(3)),
                      (lambda x: T.linalg.solve_triangular(x, x.detach()[:, :2], upper=False), tril(3)),
                      (lambda x: T.linalg.solve_triangular(x.detach(), x, upper=True, left=False, unitriangular=True),
                       triu(3)),
                      (lambda x: T.cholesky_inverse(x), tril(3)), (lambda x: T.cholesky_solve(x, x.detach()), tril(3)),
                      (lambda x: T.cholesky_solve(x.detach(), x, upper=True), triu(3)),
                      (quiet(lambda x: T.triangular_solve(x, x.detach())[0]), triu(3)),
                      (quiet(lambda x: T.triangular_solve(x.detach(), x, transpose=True)[0]), triu(3))):
            x = T_(T, a, "float64", grad=True)
            y = fn(x)
            g, = T.autograd.grad(y, x, T.ones_like(y), create_graph=True)
            out.append((graph(g, 6), g.detach()))
        return out
    close(torch_ref, et, run, rtol=1e-9, atol=1e-9)


# ===== det at a singular matrix: 0 at first order, the cofactors when a graph is built =====

# (the det of each is exactly 0 in both, whose LAPACKs differ: [[1, 2, 3], [2, 4, 6], [1, 0, 1]] is 0 in NumPy's
# and -6.7e-16 in PyTorch's, so PyTorch takes the cofactors' formula there)
SINGULAR = [[[1.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]]]


@pytest.mark.torch
@pytest.mark.parametrize("m", SINGULAR, ids=["diag", "rank1", "rank2"])
def test_det_grads_at_singular_matrices(m, torch_ref, et):
    def run(T):
        A = T_(T, m, "float64", grad=True)
        g1, = T.autograd.grad(T.linalg.det(A), A)
        g, = T.autograd.grad(T.linalg.det(A), A, create_graph=True)
        h, = T.autograd.grad((g * T.arange(A.numel(), dtype=T.float64).reshape(A.shape)).sum(), A)
        B = T.stack([T_(T, m, "float64"), T.eye(len(m), dtype=T.float64) * 2]).requires_grad_()
        gb1, = T.autograd.grad(T.linalg.det(B).sum(), B)
        gb, = T.autograd.grad(T.linalg.det(B).sum(), B, create_graph=True)
        return g1, g, h, gb1, gb
    close(torch_ref, et, run, rtol=1e-7, atol=1e-7)


@pytest.mark.torch
def test_singular_grads(torch_ref, et):
    def run(T):
        sing = [[1.0, 2.0], [2.0, 4.0]]
        out = []
        for fn in (lambda a: T.linalg.slogdet(a).logabsdet, T.logdet, lambda a: T.linalg.inv_ex(a).inverse.sum()):
            a = T_(T, sing, grad=True)
            fn(a).backward()
            out.append(a.grad)
        a = T.eye(2).mul(2).requires_grad_()
        T.linalg.slogdet(a).sign.sum().backward()
        out.append(a.grad)  # None: the sign has no grad
        a = T.eye(3).neg().requires_grad_()
        T.logdet(a).backward()
        out.append(a.grad)
        a = T.eye(3).requires_grad_()
        T.linalg.eigh(a).eigenvalues.sum().backward()
        out.append(a.grad)
        a = T.eye(3).requires_grad_()
        T.linalg.svd(a).S.sum().backward()
        out.append(a.grad)
        return out
    same(torch_ref, et, run)


@pytest.mark.torch
def test_repeated_eigenvalues_give_nan(torch_ref, et):
    def run(T):
        out = []
        for f in (lambda a: T.linalg.eigh(a).eigenvectors.sum(), lambda a: T.linalg.svd(a).U.sum()):
            a = T.eye(3).requires_grad_()
            f(a).backward()
            out.append(a.grad)
        return out
    same(torch_ref, et, run)


# ===== Graphs: node names, next_functions, saved attributes =====

GRAPHS = {
    "det": lambda T, a: T.linalg.det(a),
    "torch.det": lambda T, a: T.det(a),
    "slogdet": lambda T, a: T.linalg.slogdet(a),
    "logdet": lambda T, a: T.logdet(a @ a.mT),
    "inv": lambda T, a: T.linalg.inv(a),
    "inverse": lambda T, a: T.inverse(a),
    "inv_ex": lambda T, a: T.linalg.inv_ex(a),
    "solve": lambda T, a: T.linalg.solve(a, a[..., 0].detach()),
    "solve both": lambda T, a: T.linalg.solve(a, a[..., :2]),
    "solve_ex": lambda T, a: T.linalg.solve_ex(a.detach(), a),
    "cholesky": lambda T, a: T.linalg.cholesky(a @ a.mT),
    "torch.cholesky": quiet(lambda T, a: T.cholesky(a @ a.mT)),
    "cholesky_ex": lambda T, a: T.linalg.cholesky_ex(a @ a.mT),
    "solve_triangular": lambda T, a: (T.linalg.solve_triangular(a, a.detach(), upper=False),
                                      T.linalg.solve_triangular(a.detach(), a, upper=True, left=False),
                                      T.linalg.solve_triangular(a, a, upper=False, unitriangular=True)),
    "cholesky_inverse": lambda T, a: (T.cholesky_inverse(a), T.cholesky_inverse(a, upper=True)),
    "cholesky_solve": lambda T, a: (T.cholesky_solve(a, a.detach()), T.cholesky_solve(a.detach(), a, True),
                                    T.cholesky_solve(a, a)),
    "triangular_solve": quiet(lambda T, a: (T.triangular_solve(a, a.detach()) + T.triangular_solve(a.detach(), a, upper=False)
                                            + T.triangular_solve(a, a, transpose=True))),
    "qr": lambda T, a: T.linalg.qr(a),
    "qr r": lambda T, a: T.linalg.qr(a, mode="r"),
    "eigh": lambda T, a: T.linalg.eigh(a),
    "eigvalsh": lambda T, a: T.linalg.eigvalsh(a),
    "svd": lambda T, a: T.linalg.svd(a)[1],
    "svdvals": lambda T, a: T.linalg.svdvals(a),
    "pinv": lambda T, a: T.linalg.pinv(a),
    "pinv hermitian": lambda T, a: T.linalg.pinv(a, hermitian=True),
    "matrix_power": lambda T, a: [T.linalg.matrix_power(a, n) for n in range(-3, 9)],
    "torch.matrix_power": lambda T, a: T.matrix_power(a, 4),
    "cross": lambda T, a: (T.linalg.cross(a, a.detach()), T.linalg.cross(a, a, dim=0), T.cross(a.detach(), a, dim=1)),
    "vector_norm": lambda T, a: [T.linalg.vector_norm(a, o) for o in (2, 1, 0, _INF)],
    "matrix_norm": lambda T, a: [T.linalg.matrix_norm(a, o, dim=d, keepdim=k, dtype=dt)
                                 for o in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF) for d in ((-2, -1), (-1, 0))
                                 for k in (False, True) for dt in (None, T.float64)],
    "norm": lambda T, a: (T.linalg.norm(a), T.linalg.norm(a, "fro"), T.linalg.norm(a, 2), T.linalg.norm(a, _INF),
                          T.linalg.norm(a[0], 1), T.linalg.norm(a, dim=1), T.linalg.norm(a, 3, dim=(1,)),
                          T.linalg.norm(a, dim=(1, 0)), T.linalg.norm(a, -1, dim=(1, 0), keepdim=True)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name,batched", [pytest.param(n, b, id=f"{n}-{'batched' if b else 'matrix'}") for n in GRAPHS
                                          for b in (False, True) if not (b and "norm" in n)])
def test_graphs(name, batched, torch_ref, et):
    a = general(2, 3, 3) if batched else general(3)

    def run(T):
        outs = GRAPHS[name](T, T_(T, a, grad=True))
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        return [(tuple(o.shape), str(o.dtype), o.requires_grad, getattr(o, "output_nr", None) if o.grad_fn else None,
                 graph(o)) for o in outs]
    same(torch_ref, et, run)


SAVED = {
    "det": (lambda T, a: T.linalg.det(a), ["A", "LU", "pivots", "result"]),
    "det of a transposed view": (lambda T, a: T.linalg.det(a.mT), ["LU", "pivots"]),
    "slogdet": (lambda T, a: T.linalg.slogdet(a)[1], ["A", "LU", "pivots", "sign"]),
    "inv": (lambda T, a: T.linalg.inv(a), ["inverse"]),
    "solve": (lambda T, a: T.linalg.solve(a, a[0].detach()), ["A", "LU", "pivots", "left", "result"]),
    "solve left=False": (lambda T, a: T.linalg.solve(a, a.detach(), left=False), ["LU", "pivots", "left"]),
    "cholesky": (lambda T, a: T.linalg.cholesky(a @ a.mT), ["L", "upper"]),
    "cholesky upper": (lambda T, a: T.linalg.cholesky(a @ a.mT, upper=True), ["L", "upper"]),
    "torch.cholesky": (quiet(lambda T, a: T.cholesky(a @ a.mT)), ["result", "upper"]),
    "cholesky_ex": (lambda T, a: T.linalg.cholesky_ex(a @ a.mT, upper=True).L, ["L", "upper"]),
    "solve_triangular": (lambda T, a: T.linalg.solve_triangular(a, a.detach(), upper=False),
                         ["self", "result", "upper", "left", "unitriangular"]),
    "solve_triangular right": (lambda T, a: T.linalg.solve_triangular(a, a[:2], upper=True, left=False, unitriangular=True),
                               ["self", "result", "upper", "left", "unitriangular"]),
    "cholesky_inverse": (lambda T, a: T.cholesky_inverse(a, upper=True), ["self", "result", "upper"]),
    "cholesky_solve": (lambda T, a: T.cholesky_solve(a[:, :2], a.detach()), ["self", "input2", "result", "upper"]),
    "triangular_solve": (quiet(lambda T, a: T.triangular_solve(a[:, :2], a * 2, transpose=True).solution),
                         ["self", "A", "solution", "upper", "transpose", "unitriangular"]),
    "qr": (lambda T, a: T.linalg.qr(a)[1], ["Q", "R", "mode"]),
    "qr complete": (lambda T, a: T.linalg.qr(a, mode="complete")[1], ["mode"]),
    "eigh": (lambda T, a: T.linalg.eigh(a @ a.mT)[1], ["eigenvalues", "eigenvectors"]),
    "svd": (lambda T, a: T.linalg.svd(a)[2], ["U", "S", "Vh", "full_matrices", "S_sym_argsize_minus_1"]),
    "svd wide": (lambda T, a: T.linalg.svd(a[:2])[2], ["S", "full_matrices", "S_sym_argsize_minus_1"]),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), ["S", "full_matrices", "S_sym_argsize_minus_1"]),
    "pinv": (lambda T, a: T.linalg.pinv(a), ["self", "result"]),
    "cross": (lambda T, a: T.linalg.cross(a, a.detach()), ["dim", "self", "other"]),
    "cross dim": (lambda T, a: T.linalg.cross(a, a.detach(), dim=0), ["dim"]),
}


def _sign_free(attr, v):
    """The factors only up to the signs of their columns (rows of Vh and R)."""
    if attr in ("Q", "eigenvectors", "U", "Vh", "R"):
        return v.abs()
    return v


@pytest.mark.torch
@pytest.mark.parametrize("name", SAVED)
def test_saved_attributes(name, torch_ref, et):
    fn, attrs = SAVED[name]

    def run(T):
        out = fn(T, T_(T, general(3), "float64", grad=True))
        vals = [_sign_free(k, getattr(out.grad_fn, "_saved_" + k)) for k in attrs]
        return [(v.detach(), str(v.dtype), v.requires_grad) if hasattr(v, "detach") else v for v in vals]
    close(torch_ref, et, run, rtol=1e-9, atol=1e-9)


def test_saved_attributes_are_the_inputs_and_outputs(et):
    A = et.tensor(general(3), requires_grad=True)
    d = et.linalg.det(A)
    assert d.grad_fn._saved_A is A
    Q, R = et.linalg.qr(A)
    assert d.grad_fn._saved_result.grad_fn is d.grad_fn
    assert R.grad_fn._saved_R.grad_fn is R.grad_fn and R.grad_fn._saved_R.output_nr == 1
    (Q.sum() + R.sum()).backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        R.grad_fn._saved_R


@pytest.mark.torch
def test_freed_and_modified_outputs(torch_ref, et):
    def second_backward(T):
        A = T_(T, general(3), grad=True)
        L, V = T.linalg.eigh(A)
        (L.sum() + V.sum()).backward()
        (L.sum() + V.sum()).backward()

    def modified(T):
        A = T_(T, general(3), grad=True)
        Q, R = T.linalg.qr(A)
        R.mul_(2)
        (Q.sum() + R.sum()).backward()

    def modified_first(T):
        A = T_(T, general(3), grad=True)
        U, S, Vh = T.linalg.svd(A)
        U.mul_(2)
        S.sum().backward()
    for fn in (second_backward, modified, modified_first):
        same(torch_ref, et, fn)


# ===== Errors =====

_SING = [[1.0, 2.0], [2.0, 4.0]]
_FUNCS = {
    "det": lambda T, a: T.linalg.det(a), "slogdet": lambda T, a: T.linalg.slogdet(a), "logdet": lambda T, a: T.logdet(a),
    "inv": lambda T, a: T.linalg.inv(a), "inv_ex": lambda T, a: T.linalg.inv_ex(a), "inverse": lambda T, a: T.inverse(a),
    "cholesky": lambda T, a: T.linalg.cholesky(a), "qr": lambda T, a: T.linalg.qr(a), "eigh": lambda T, a: T.linalg.eigh(a)[0],
    "eigvalsh": lambda T, a: T.linalg.eigvalsh(a), "svd": lambda T, a: T.linalg.svd(a)[1],
    "svdvals": lambda T, a: T.linalg.svdvals(a), "pinv": lambda T, a: T.linalg.pinv(a),
    "matrix_power": lambda T, a: T.linalg.matrix_power(a, 2), "matrix_power -1": lambda T, a: T.linalg.matrix_power(a, -1),
    "solve": lambda T, a: T.linalg.solve(a, a), "matrix_norm": lambda T, a: T.linalg.matrix_norm(a),
    "matrix_norm 2": lambda T, a: T.linalg.matrix_norm(a, 2), "vector_norm": lambda T, a: T.linalg.vector_norm(a),
    "norm": lambda T, a: T.linalg.norm(a), "torch.slogdet": lambda T, a: T.slogdet(a),
    "cholesky_ex": lambda T, a: T.linalg.cholesky_ex(a), "cholesky_inverse": lambda T, a: T.cholesky_inverse(a),
    "solve_triangular A": lambda T, a: T.linalg.solve_triangular(a, T.ones(2, 2), upper=False),
    "solve_triangular B": lambda T, a: T.linalg.solve_triangular(T.eye(2), a, upper=False),
    "solve_triangular both": lambda T, a: T.linalg.solve_triangular(a, a, upper=True),
    "solve_triangular right": lambda T, a: T.linalg.solve_triangular(a, a, upper=True, left=False),
    "cholesky_solve": lambda T, a: T.cholesky_solve(a, a), "cholesky_solve A": lambda T, a: T.cholesky_solve(T.ones(2, 2), a),
    "triangular_solve": quiet(lambda T, a: T.triangular_solve(a, a)),
    "triangular_solve A": quiet(lambda T, a: T.triangular_solve(T.ones(2, 2), a)),
}
_BAD_INPUTS = {
    "half": lambda T: T.eye(2, dtype=T.float16) * 2,
    "long not square": lambda T: T.ones(2, 3, dtype=T.long),
    "long 1d": lambda T: T.ones(3, dtype=T.long),
    "0d": lambda T: T.tensor(1.0),
    "not square": lambda T: T.ones(2, 3),
    "bool": lambda T: T.ones(2, 2, dtype=T.bool),
}


@pytest.mark.torch
@pytest.mark.parametrize("bad", _BAD_INPUTS)
@pytest.mark.parametrize("fn", _FUNCS)
def test_input_checks(fn, bad, torch_ref, et):
    same(torch_ref, et, lambda T: _FUNCS[fn](T, _BAD_INPUTS[bad](T)))


def _batch2(T, bad):
    return T.stack([T.stack([T.eye(2), T.eye(2)]), T.stack([T.eye(2), bad])])


ERRORS = {
    "inv singular": lambda T: T.linalg.inv(T_(T, _SING)),
    "inv zero": lambda T: T.linalg.inv(T.zeros(3, 3)),
    "inv singular batched": lambda T: T.linalg.inv(T.stack([T.eye(2), T_(T, _SING), T_(T, _SING)])),
    "inv singular batch of batches": lambda T: T.linalg.inv(_batch2(T, T.zeros(2, 2))),
    "inverse singular": lambda T: T.inverse(T_(T, _SING)),
    "inv_ex check_errors": lambda T: T.linalg.inv_ex(T.stack([T.eye(2), T.zeros(2, 2)]), check_errors=True),
    "matrix_power singular": lambda T: T.linalg.matrix_power(T.zeros(2, 2), -1),
    "solve singular": lambda T: T.linalg.solve(T_(T, _SING), T.ones(2)),
    "solve singular batched": lambda T: T.linalg.solve(_batch2(T, T.zeros(2, 2)), T.ones(2)),
    "solve_ex check_errors": lambda T: T.linalg.solve_ex(T_(T, _SING), T.ones(2, 3), check_errors=True),
    "solve shapes": lambda T: T.linalg.solve(T.eye(3), T.ones(2)),
    "solve shapes matrix": lambda T: T.linalg.solve(T.eye(3), T.ones(2, 2)),
    "solve left=False vector": lambda T: T.linalg.solve(T.eye(3), T.ones(3), left=False),
    "solve left=False shapes": lambda T: T.linalg.solve(T.eye(3), T.ones(3, 2), left=False),
    "solve dtypes": lambda T: T.linalg.solve(T.eye(3), T.ones(3, dtype=T.float64)),
    "solve dtypes 2": lambda T: T.linalg.solve(T.eye(2, dtype=T.float64), T.ones(2)),
    "solve long B": lambda T: T.linalg.solve(T.eye(3), T.ones(3, dtype=T.long)),
    "solve long A": lambda T: T.linalg.solve(T.eye(3, dtype=T.long), T.ones(3)),
    "solve batch shapes": lambda T: T.linalg.solve(T.eye(3).expand(4, 3, 3), T.ones(2, 3, 1)),
    "solve 0d B": lambda T: T.linalg.solve(T.eye(3), T.tensor(1.0)),
    "solve 1d A": lambda T: T.linalg.solve(T.ones(3), T.ones(3)),
    "cholesky not positive-definite": lambda T: T.linalg.cholesky(-T.eye(3)),
    "cholesky second minor": lambda T: T.linalg.cholesky(T_(T, [[1.0, 2.0], [2.0, 1.0]])),
    "cholesky batched": lambda T: T.linalg.cholesky(_batch2(T, -T.eye(2))),
    "cholesky upper": lambda T: T.linalg.cholesky(T_(T, [[1.0, 2.0], [0.0, 1.0]]), upper=True),
    "cholesky nan": lambda T: T.linalg.cholesky(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
    "cholesky_ex check_errors": lambda T: T.linalg.cholesky_ex(_batch2(T, -T.eye(2)), check_errors=True),
    "cholesky_ex check_errors matrix": lambda T: T.linalg.cholesky_ex(T_(T, [[1.0, 2.0], [2.0, 1.0]]), check_errors=True),
    "solve_triangular upper missing": lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(2, 2)),
    "solve_triangular vector B": lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(2), upper=False),
    "solve_triangular shapes": lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(3, 3), upper=False),
    "solve_triangular shapes right": lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(2, 3), upper=False, left=False),
    "solve_triangular batch shapes": lambda T: T.linalg.solve_triangular(T.ones(3, 2, 2), T.ones(2, 2, 2), upper=False),
    "solve_triangular long A": lambda T: T.linalg.solve_triangular(T.eye(2, dtype=T.long), T.ones(2, 2), upper=False),
    "cholesky_inverse singular": lambda T: T.cholesky_inverse(T_(T, [[0.0, 0.0], [1.0, 3.0]])),
    "cholesky_inverse singular batched": lambda T: T.cholesky_inverse(T.stack([T.eye(2), T.zeros(2, 2)])),
    "cholesky_inverse singular upper": lambda T: T.cholesky_inverse(T_(T, [[1.0, 5.0], [0.0, 0.0]]), upper=True),
    "cholesky_solve vector": lambda T: T.cholesky_solve(T.ones(2), T.eye(2)),
    "cholesky_solve vector A": lambda T: T.cholesky_solve(T.ones(2, 2), T.ones(2)),
    "cholesky_solve shapes": lambda T: T.cholesky_solve(T.ones(3, 2), T.eye(2)),
    "cholesky_solve dtypes": lambda T: T.cholesky_solve(T.ones(2, 2, dtype=T.float64), T.eye(2)),
    "cholesky_solve batch shapes": lambda T: T.cholesky_solve(T.ones(3, 2, 2), T.eye(2).expand(2, 2, 2)),
    "cholesky_solve long": lambda T: T.cholesky_solve(T.ones(2, 2, dtype=T.long), T.eye(2, dtype=T.long)),
    "triangular_solve vector": quiet(lambda T: T.triangular_solve(T.ones(2), T.eye(2))),
    "triangular_solve vector A": quiet(lambda T: T.triangular_solve(T.ones(2, 2), T.ones(2))),
    "triangular_solve shapes": quiet(lambda T: T.triangular_solve(T.ones(3, 2), T.eye(2))),
    "triangular_solve dtypes": quiet(lambda T: T.triangular_solve(T.ones(2, 2, dtype=T.float64), T.eye(2))),
    "triangular_solve batch shapes": quiet(lambda T: T.triangular_solve(T.ones(3, 2, 2), T.eye(2).expand(2, 2, 2))),
    "qr mode": lambda T: T.linalg.qr(T.ones(2, 3), mode="bad"),
    "qr r backward": lambda T: T.linalg.qr(T.ones(3, 2, requires_grad=True), mode="r")[1].sum().backward(),
    "qr complete tall backward": lambda T: T.linalg.qr(T_(T, general(3, 2), grad=True), mode="complete")[0].sum().backward(),
    "eigh UPLO": lambda T: T.linalg.eigh(T.eye(2), UPLO="X"),
    "eigvalsh UPLO": lambda T: T.linalg.eigvalsh(T.eye(2), UPLO="UL"),
    "svd nan": lambda T: T.linalg.svd(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
    "svdvals inf": lambda T: T.linalg.svdvals(T_(T, [[_INF, 1.0], [1.0, 1.0]])),
    "svd inf": lambda T: T.linalg.svd(T_(T, [[_INF, 1.0], [1.0, 1.0]]))[1],
    "svd driver": lambda T: T.linalg.svd(T.eye(2), driver="gesvd"),
    "pinv hermitian not square": lambda T: T.linalg.pinv(T.ones(2, 3), hermitian=True),
    "matrix_power float n": lambda T: T.linalg.matrix_power(T.eye(3), 2.0),
    "matrix_power long inverse": lambda T: T.linalg.matrix_power(T.eye(3, dtype=T.long), -1),
    "matrix_power bool": lambda T: T.linalg.matrix_power(T.ones(2, 2, dtype=T.bool), 3),
    "cross length": lambda T: T.linalg.cross(T.ones(2), T.ones(2)),
    "cross lengths": lambda T: T.linalg.cross(T.ones(3), T.ones(4)),
    "cross ndims": lambda T: T.linalg.cross(T.ones(2, 3), T.ones(3)),
    "cross dim": lambda T: T.linalg.cross(T.ones(3, 2), T.ones(3, 2)),
    "cross 0d": lambda T: T.linalg.cross(T.tensor(1.0), T.tensor(1.0)),
    "cross dim out of range": lambda T: T.linalg.cross(T.ones(3), T.ones(3), dim=1),
    "cross dtypes": lambda T: T.linalg.cross(T.tensor([1.0, 0, 0]), T.tensor([0, 1, 0])),
    "cross bool": lambda T: T.linalg.cross(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)),
    "torch.cross no dim": quiet(lambda T: T.cross(T.ones(2, 3), T.ones(2, 3))),
    "torch.cross no size 3": quiet(lambda T: T.cross(T.ones(2, 4), T.ones(2, 4))),
    "vector_norm dtype long": lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.long),
    "vector_norm narrowing": lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.float64), dtype=T.float32),
    "vector_norm long input with dtype": lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.long), dtype=T.float64),
    "vector_norm inf of nothing": lambda T: T.linalg.vector_norm(T.zeros(0), _INF),
    "vector_norm str ord": lambda T: T.linalg.vector_norm(T.ones(3), "fro"),
    "vector_norm dim out of range": lambda T: T.linalg.vector_norm(T.ones(3, 3), dim=3),
    "matrix_norm narrowing": lambda T: T.linalg.matrix_norm(T.ones(3, 3, dtype=T.float64), dtype=T.float32),
    "matrix_norm ord": lambda T: T.linalg.matrix_norm(T.ones(3, 3), 3),
    "matrix_norm ord float": lambda T: T.linalg.matrix_norm(T.ones(3, 3), 3.0),
    "matrix_norm ord 0": lambda T: T.linalg.matrix_norm(T.ones(3, 3), 0),
    "matrix_norm ord str": lambda T: T.linalg.matrix_norm(T.ones(3, 3), "abc"),
    "matrix_norm 1d": lambda T: T.linalg.matrix_norm(T.ones(3)),
    "matrix_norm one dim": lambda T: T.linalg.matrix_norm(T.ones(3, 3), dim=(0,)),
    "matrix_norm same dims": lambda T: T.linalg.matrix_norm(T.ones(3, 3), dim=(0, -2)),
    "matrix_norm dim out of range": lambda T: T.linalg.matrix_norm(T.ones(3, 3), 2, dim=(0, 3)),
    "matrix_norm half svd": lambda T: T.linalg.matrix_norm(T.eye(2, dtype=T.float16), "nuc"),
    "norm 3d with ord": lambda T: T.linalg.norm(T.ones(2, 3, 3), 2),
    "norm 3d with fro": lambda T: T.linalg.norm(T.ones(2, 3, 3), "fro"),
    "norm 3d with nuc": lambda T: T.linalg.norm(T.ones(2, 3, 3), "nuc"),
    "matrix_norm amin of nothing": lambda T: T.linalg.matrix_norm(T.zeros(2, 0, 3), -2),
    "matrix_norm amin of nothing -inf": lambda T: T.linalg.matrix_norm(T.zeros(2, 0, 3), -_INF),
    "matrix_norm amin of nothing -1": lambda T: T.linalg.matrix_norm(T.zeros(3, 0), -1),
    "matrix_norm 2 nan": lambda T: T.linalg.matrix_norm(T_(T, [[_NAN, 1.0], [1.0, 1.0]]), 2),
    "svdvals nan": lambda T: T.linalg.svdvals(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
    "pinv nan": lambda T: T.linalg.pinv(T_(T, [[_NAN, 1.0], [1.0, 1.0]])),
    "eigh UPLO not str": lambda T: T.linalg.eigh(T.eye(2), UPLO=1),
    "eigvalsh UPLO not str": lambda T: T.linalg.eigvalsh(T.eye(2), UPLO=None),
    "qr long with bad mode": lambda T: T.linalg.qr(T.eye(2, dtype=T.long), mode="bad"),
    "cross broadcast": lambda T: T.linalg.cross(T.ones(2, 3), T.ones(4, 3)),
    "norm 1d nuc": lambda T: T.linalg.norm(T.ones(3), "nuc"),
    "norm 1d fro": lambda T: T.linalg.norm(T.ones(3), "fro"),
    "norm bad str": lambda T: T.linalg.norm(T.ones(3, 3), "abc"),
    "norm three dims": lambda T: T.linalg.norm(T.ones(3, 3, 3), dim=(0, 1, 2)),
    "norm ord 0 matrix": lambda T: T.linalg.norm(T.ones(3, 3), 0),
    "norm nuc one dim": lambda T: T.linalg.norm(T.ones(3, 3), "nuc", dim=1),
    "norm dim out of range": lambda T: T.linalg.norm(T.ones(3, 3), dim=(0, 3)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", ERRORS)
def test_errors(name, torch_ref, et):
    same(torch_ref, et, ERRORS[name])


def test_linalg_error_is_a_runtime_error(et):
    with pytest.raises(RuntimeError, match="singular"):
        et.linalg.inv(et.zeros(2, 2))
    with pytest.raises(et.linalg.LinAlgError):
        et.linalg.cholesky(-et.eye(2))


_WARNINGS = """
import json, warnings
import {module} as torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(2):
        torch.cholesky(torch.eye(2))
        torch.cross(torch.ones(3), torch.ones(3))
        torch.triangular_solve(torch.eye(2), torch.eye(2))
print(json.dumps([(w.category.__name__, str(w.message)) for w in caught]))
"""


@pytest.mark.torch
def test_deprecation_warnings(torch_ref):
    """torch.cholesky, torch.triangular_solve and torch.cross without dim warn once per process: fresh
    interpreters for both."""
    def run(module):
        code = _WARNINGS.format(module=module)
        if module == "engine":  # (until engine/__init__.py exports them)
            code = code.replace("import engine as torch", "import engine as torch, engine.linalg as L\n"
                                "torch.cholesky, torch.cross = L._torch_cholesky, L._torch_cross\n"
                                "torch.triangular_solve = L._torch_triangular_solve")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return json.loads(done.stdout)
    ours, ref = run("engine"), run("torch")
    assert len(ref) == 3 and ours == ref


def test_torch_norm_nuc_is_the_matrix_norm(torch_ref, et):
    def run(t):
        x = t.tensor([[1., 2.], [3., 4.], [0.5, -1.]], requires_grad=True)
        n = t.norm(x, "nuc")
        n.backward()
        return n, n.grad_fn.name(), x.grad
    same(torch_ref, et, run)
