"""More of linear algebra, against real PyTorch: torch.linalg's lu_factor(_ex), lu, lu_solve, lstsq,
matrix_rank, cond, multi_dot, vecdot, vander, tensorinv, tensorsolve; the legacy torch.svd, qr, lu,
lu_unpack, lu_solve, pinverse, chain_matmul (and their Tensor methods); and the functions PyTorch
keeps only to raise (torch.solve, lstsq, eig, symeig, matrix_rank). Values, dtypes, return types,
errors and warnings; grads, grad_fn names with their next_functions, the graphs a double backward
draws, saved attributes; and grads against finite differences, first and second order."""
import math
import os
import subprocess
import sys

import pytest

from tests.engine.opinfo import check_grads, graded, grads_with_graph, names, outcome, same

INF = math.inf
A = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.1, 2.0]]
P3 = [[0.5, 2.0, 1.0], [3.0, 1.0, -1.0], [1.0, -2.0, 0.5]]  # (LU needs row swaps)
TALL = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.1, 2.0], [4.0, 1.0, 1.0]]
WIDE = [list(r) for r in zip(*TALL)]
B = [[1.0, 2.0], [3.0, -4.0], [0.5, 6.0]]
B4 = [[1.0, 2.0], [3.0, -4.0], [0.5, 6.0], [-1.0, 0.25]]
BATCH = [P3, A]
SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
ZERO_COLUMN = [[1.0, 0.0, 2.0], [2.0, 0.0, 1.0], [3.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
T22 = [[4.0, 1.0, 0.5, 0.0], [1.0, 3.0, 0.25, 0.5], [0.5, 0.25, 2.0, 1.0], [0.0, 0.5, 1.0, 5.0]]  # (2, 2) x (2, 2)


def kind(r):
    """The class of a result as PyTorch names it (``torch.return_types.linalg_lu``, ``tuple``)."""
    return f"{type(r).__module__}.{type(r).__name__}"


def errors(t, *fns):
    """What each call raised, to the first line (the engine leaves out the overloads PyTorch lists)."""
    return [r[:2] + (r[2].split("\n")[0],) if r[0] == "raised" and r[1] == "TypeError" else r
            for r, _ in (outcome(f, t) for f in fns)]


def strides(r):
    return [x.stride() if x.numel() else None for x in r]


def f64(t, v):
    return t.tensor(v, dtype=t.float64)


# ----- Values, dtypes, return types and errors -----

def each(*calls, show=None):
    """One entry per call: its result (through ``show``) or what it raised, and its warnings, so that
    no call's error hides the others' results. (The deprecation warnings come once a process, so
    they depend on what ran before: test_deprecation_warnings_once checks them.)"""
    def run(t):
        out = []
        for f in calls:
            result, caught = outcome(lambda t, f=f: show(f(t)) if show else f(t), t)
            out.append((result, [w for w in caught if " is deprecated" not in w[1]]))
        return out
    return run


def typed(r):
    return kind(r), r


VALUES = {
    "linalg.lu_factor": each(
        lambda t: t.linalg.lu_factor(t.tensor(P3)), lambda t: t.linalg.lu_factor(t.tensor(TALL)),
        lambda t: t.linalg.lu_factor(t.tensor(WIDE)), lambda t: t.linalg.lu_factor(t.tensor(BATCH)),
        lambda t: t.linalg.lu_factor(f64(t, P3)), lambda t: t.linalg.lu_factor(t.zeros(0, 3)),
        lambda t: t.linalg.lu_factor(t.zeros(2, 3, 0)),
        lambda t: t.linalg.lu_factor(t.tensor([[1.0, math.nan], [1.0, 2.0]])),
        show=typed),
    "linalg.lu_factor strides": each(*(lambda t, x=x: t.linalg.lu_factor(t.tensor(x)).LU.stride()
                                       for x in (P3, TALL, BATCH))),
    "linalg.lu_factor_ex": each(
        lambda t: t.linalg.lu_factor_ex(t.tensor(P3)), lambda t: t.linalg.lu_factor_ex(t.zeros(3, 3)),
        lambda t: t.linalg.lu_factor_ex(t.tensor([SINGULAR, P3])),
        lambda t: t.linalg.lu_factor_ex(t.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])),
        lambda t: t.linalg.lu_factor_ex(t.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])),
        lambda t: t.linalg.lu_factor_ex(t.zeros(2, 0, 3)), show=typed),
    "lu_factor errors": each(
        lambda t: t.linalg.lu_factor(t.ones(3)), lambda t: t.linalg.lu_factor(t.ones(3, 3, dtype=t.long)),
        lambda t: t.linalg.lu_factor(t.ones(3, 3, dtype=t.half)), lambda t: t.linalg.lu_factor(t.zeros(3, 3)),
        lambda t: t.linalg.lu_factor(t.tensor([P3, SINGULAR])), lambda t: t.linalg.lu_factor(t.tensor(P3), pivot=False),
        lambda t: t.linalg.lu_factor_ex(t.tensor(SINGULAR), check_errors=True),
        lambda t: t.linalg.lu_factor_ex(t.ones(3)), lambda t: t.linalg.lu_factor([[1.0]]),
        lambda t: t.linalg.lu_factor(t.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]))),
    "linalg.lu": each(
        lambda t: t.linalg.lu(t.tensor(P3)), lambda t: t.linalg.lu(t.tensor(TALL)),
        lambda t: t.linalg.lu(t.tensor(WIDE)),
        lambda t: t.linalg.lu(t.tensor(BATCH)), lambda t: t.linalg.lu(t.tensor(SINGULAR)),
        lambda t: t.linalg.lu(t.zeros(0, 3)), lambda t: t.linalg.lu(t.zeros(2, 3, 0)),
        show=lambda r: (kind(r), r, strides(r))),
    "linalg.lu errors": each(
        lambda t: t.linalg.lu(t.ones(3)), lambda t: t.linalg.lu(t.ones(2, 2, dtype=t.long)),
        lambda t: t.linalg.lu(t.tensor(P3), pivot=False)),
    "lu_unpack": each(
        lambda t: t.lu_unpack(*t.linalg.lu_factor(t.tensor(P3))),
        lambda t: t.lu_unpack(*t.linalg.lu_factor(t.tensor(TALL))),
        lambda t: t.lu_unpack(*t.linalg.lu_factor(t.tensor(WIDE))),
        lambda t: t.lu_unpack(*t.linalg.lu_factor(t.tensor(BATCH))),
        lambda t: t.lu_unpack(t.ones(3, 3), t.tensor([3, 2, 3], dtype=t.int32), unpack_data=False),
        lambda t: t.lu_unpack(t.ones(3, 3), t.tensor([1, 1, 1], dtype=t.int32), unpack_pivots=False),
        lambda t: t.lu_unpack(t.arange(6).reshape(3, 2), t.tensor([3, 2], dtype=t.int32)),
        lambda t: t.lu_unpack(t.ones(3, 3), t.ones(3), unpack_pivots=False), show=typed),
    "lu_unpack errors": each(
        lambda t: t.lu_unpack(t.ones(3), t.ones(3, dtype=t.int32)),
        lambda t: t.lu_unpack(t.ones(3, 3), t.ones(3, dtype=t.long)),
        lambda t: t.lu_unpack(t.ones(3, 3), t.tensor([4, 1, 1], dtype=t.int32)),
        lambda t: t.lu_unpack(t.ones(3, 3), t.tensor([0, 1, 1], dtype=t.int32))),
    "linalg.lu_solve": each(
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B)),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B).T, left=False),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B), adjoint=True),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B).T, left=False, adjoint=True),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(BATCH)), t.tensor(B)),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor([B, B, B])),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor([[P3], [A]])), t.tensor([B, B, B])),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(f64(t, BATCH)), f64(t, B).T, left=False),
        lambda t: t.linalg.lu_solve(t.zeros(3, 3), t.tensor([1, 2, 3], dtype=t.int32), t.ones(3, 2)),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.zeros(3, 0)),
        show=lambda r: (r, strides([r]))),
    "linalg.lu_solve errors": each(
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B)[:, 0]),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B)[:2]),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B).double()),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(P3)), t.tensor(B), left=False),
        lambda t: t.linalg.lu_solve(*t.linalg.lu_factor(t.tensor(BATCH)), t.ones(3, 3, 2)),
        lambda t: t.linalg.lu_solve(t.tensor(P3), t.tensor([1, 2, 3]), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.tensor(P3)[:2], t.tensor([1, 2], dtype=t.int32), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.tensor(P3), t.tensor([1, 2], dtype=t.int32), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.tensor(BATCH), t.tensor([1, 2, 3], dtype=t.int32), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.tensor(P3), t.tensor([4, 2, 3], dtype=t.int32), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.ones(3, 3, dtype=t.long), t.tensor([1, 2, 3], dtype=t.int32),
                                    t.ones(3, 2, dtype=t.long)),
        lambda t: t.linalg.lu_solve(t.ones(3), t.tensor([1, 2, 3], dtype=t.int32), t.tensor(B)),
        lambda t: t.linalg.lu_solve(t.eye(3).half(), t.tensor([1, 2, 3], dtype=t.int32), t.ones(3, 2).half())),
    "torch.lu": each(
        lambda t: t.lu(t.tensor(P3)), lambda t: t.lu(t.tensor(TALL), get_infos=True),
        lambda t: t.lu(t.zeros(2, 3, 3), get_infos=True), lambda t: t.lu(t.zeros(3, 3)), lambda t: t.tensor(P3).lu(),
        lambda t: t.tensor(BATCH).lu(get_infos=True), lambda t: t.lu(t.ones(3)), show=typed),
    "torch.lu out": each(
        lambda t: (lambda out: (t.lu(t.tensor(P3), out=out) is out, out))((t.empty(0), t.empty(0, dtype=t.int32))),
        lambda t: t.lu(t.tensor(P3), out=(t.empty(0),)),
        lambda t: (lambda out: (t.lu(t.tensor(P3), get_infos=True, out=out) is out, out))(
            [t.empty(0), t.empty(0, dtype=t.int32), t.empty(0, dtype=t.int32)])),
    "torch.lu_solve": each(
        lambda t: t.lu_solve(t.tensor(B), *t.linalg.lu_factor(t.tensor(P3))),
        lambda t: t.tensor(B).lu_solve(*t.linalg.lu_factor(t.tensor(BATCH))),
        lambda t: t.lu_solve(t.tensor(B)[:, 0], *t.linalg.lu_factor(t.tensor(P3))),
        lambda t: t.lu_solve(t.tensor(B), t.linalg.lu_factor(t.tensor(P3)).LU, t.tensor([1, 2, 3]))),
    "lstsq default (gelsy)": each(
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4)),
        lambda t: t.linalg.lstsq(t.tensor(A), t.tensor(B)),
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4)[:, 0]),
        lambda t: t.linalg.lstsq(t.tensor([TALL, TALL]), t.tensor([B4, B4])),
        lambda t: t.linalg.lstsq(t.tensor([TALL]), t.tensor([B4, B4, B4])),
        lambda t: t.linalg.lstsq(t.tensor([TALL, TALL]), t.tensor(B4).T),
        # (not rank-deficient ones: PyTorch's gelsy then pivots by memory it did not fill; see NOT_TORCH)
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4), 0.2), lambda t: t.linalg.lstsq(t.zeros(4, 3), t.tensor(B4)),
        lambda t: t.linalg.lstsq(t.zeros(0, 3), t.zeros(0, 2)), lambda t: t.linalg.lstsq(t.zeros(2, 0, 3), t.zeros(2, 0, 2)),
        lambda t: t.linalg.lstsq(f64(t, TALL), f64(t, B4)),
        show=lambda r: (kind(r), r, strides(r[:1]))),
    "lstsq drivers": each(*(
        lambda t, d=d, f=f: f(t, d) for d in ("gels", "gelsd", "gelss", "GELSD") for f in (
            lambda t, d: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4), driver=d),
            lambda t, d: t.linalg.lstsq(t.tensor(WIDE), t.tensor(B), driver=d),
            lambda t, d: t.linalg.lstsq(t.tensor(A), t.tensor(B), driver=d),
            lambda t, d: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4)[:, 0], driver=d),
            lambda t, d: t.linalg.lstsq(t.tensor([TALL, TALL]), t.tensor(B4).T, driver=d),
            lambda t, d: t.linalg.lstsq(t.tensor([TALL]), t.tensor([B4, B4, B4]), driver=d),
            lambda t, d: t.linalg.lstsq(t.zeros(0, 4, 3), t.zeros(0, 4, 2), driver=d),
            lambda t, d: t.linalg.lstsq(t.zeros(2, 0, 3), t.zeros(2, 0, 2), driver=d))),
        show=lambda r: (r, strides(r[:1]))),
    "lstsq rank-deficient (gelsd, gelss)": each(*(
        lambda t, d=d, x=x, rc=rc: t.linalg.lstsq(x(t), t.tensor(B4), driver=d, rcond=rc) for d in ("gelsd", "gelss")
        for x, rc in ((lambda t: t.ones(4, 3), None), (lambda t: t.tensor(TALL), 0.5),
                      (lambda t: t.tensor([TALL, [[1.0] * 3] * 4]), None), (lambda t: t.zeros(4, 3), None))),
        lambda t: t.linalg.lstsq(t.zeros(4, 0), t.zeros(4, 2), driver="gelsd"),
        lambda t: t.linalg.lstsq(t.zeros(4, 3), t.zeros(4, 0), driver="gelsd")),
    "lstsq errors": each(
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B4), driver="foo"),
        lambda t: t.linalg.lstsq(t.tensor(TALL), f64(t, B4)),
        lambda t: t.linalg.lstsq(t.tensor(TALL).long(), t.tensor(B4).long()),
        lambda t: t.linalg.lstsq(t.tensor(TALL).half(), t.tensor(B4).half()),
        lambda t: t.linalg.lstsq(t.tensor(TALL)[0], t.tensor(B4)),
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(1.0)),
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B)),
        lambda t: t.linalg.lstsq(t.tensor(TALL), t.tensor(B)[:, 0]),
        lambda t: t.linalg.lstsq(t.tensor([TALL, TALL]), t.tensor(B4)),
        lambda t: t.linalg.lstsq(t.tensor([TALL, TALL]), t.ones(3, 4, 2)),
        lambda t: t.linalg.lstsq(t.ones(2, 1, 4, 3), t.ones(3, 4, 2)),
        lambda t: t.linalg.lstsq(t.ones(3, 4, 3), t.ones(4, 2)),
        lambda t: t.linalg.lstsq(t.ones(2, 4, 3), t.ones(4)),
        lambda t: t.linalg.lstsq(t.ones(2, 4, 3), t.ones(1, 4)),
        lambda t: t.linalg.lstsq(t.tensor(ZERO_COLUMN), t.tensor(B4), driver="gels"),
        lambda t: t.linalg.lstsq(t.tensor(ZERO_COLUMN).T, t.tensor(B), driver="gels"),
        lambda t: t.linalg.lstsq(t.tensor([TALL, ZERO_COLUMN]), t.tensor(B4), driver="gels")),
    "matrix_rank": each(
        lambda t: t.linalg.matrix_rank(t.tensor(A)), lambda t: t.linalg.matrix_rank(t.tensor(SINGULAR)),
        lambda t: t.linalg.matrix_rank(t.ones(3, 4)), lambda t: t.linalg.matrix_rank(t.tensor(A), tol=2.0),
        lambda t: t.linalg.matrix_rank(t.tensor(A), 2.0), lambda t: t.linalg.matrix_rank(t.tensor(A), t.tensor(2.0)),
        lambda t: t.linalg.matrix_rank(t.tensor(A), atol=2.0), lambda t: t.linalg.matrix_rank(t.tensor(A), rtol=0.5),
        lambda t: t.linalg.matrix_rank(t.tensor(A), atol=1.0, rtol=0.5),
        lambda t: t.linalg.matrix_rank(t.tensor(A), atol=t.tensor([1.0, 2.0]), rtol=t.tensor(0.5)),
        lambda t: t.linalg.matrix_rank(t.tensor(A), hermitian=True), lambda t: t.linalg.matrix_rank(t.tensor(P3), 1.5, True),
        lambda t: t.linalg.matrix_rank(t.tensor(BATCH), atol=t.tensor([1.0, 2.0])),
        lambda t: t.linalg.matrix_rank(t.ones(3, 0)), lambda t: t.linalg.matrix_rank(t.ones(2, 3, 0)),
        lambda t: t.linalg.matrix_rank(t.tensor([[1.0, 0.0], [0.0, 1e-7]])),
        lambda t: t.linalg.matrix_rank(f64(t, [[1.0, 0.0], [0.0, 1e-7]])),
        lambda t: t.linalg.matrix_rank(t.tensor(A), atol=-1.0), lambda t: t.linalg.matrix_rank(t.tensor(A), atol=t.tensor(1))),
    "matrix_rank errors": lambda t: errors(
        t, lambda t: t.linalg.matrix_rank(t.ones(3)), lambda t: t.linalg.matrix_rank(t.ones(3, 3, dtype=t.long)),
        lambda t: t.linalg.matrix_rank(t.ones(3, 3, dtype=t.half)),
        lambda t: t.linalg.matrix_rank(t.tensor(A), 1.0, atol=1.0)),
    "cond": each(*(lambda t, x=x, p=p: t.linalg.cond(x(t), p)
                   for x in (lambda t: t.tensor(A), lambda t: t.tensor(P3), lambda t: t.tensor(BATCH), lambda t: f64(t, P3))
                   for p in (None, "fro", "nuc", INF, -INF, 1, -1, 2, -2, 1.0, -2.0))),
    "cond singular and empty": each(*(
        lambda t, x=x, p=p: t.linalg.cond(x(t), p) for p in ("fro", INF, 1, -1)
        for x in (lambda t: t.tensor([SINGULAR, A]), lambda t: t.zeros(0, 0), lambda t: t.zeros(2, 0, 0))),
        *(lambda t, p=p: t.linalg.cond(t.zeros(2, 3, 0), p) for p in (None, 1, INF))),
    "cond errors": each(*(
        lambda t, p=p, x=x: t.linalg.cond(x(t), p) for p in (None, "fro", "nuc", INF, 1, 1.0, -1.0, -INF, 3, 1.5, 0, "abc")
        for x in (lambda t: t.tensor(WIDE), lambda t: t.ones(3), lambda t: t.ones(2, 2, dtype=t.long),
                  lambda t: t.zeros(3, 0)))),
    "multi_dot": each(
        lambda t: t.linalg.multi_dot([t.tensor(A), t.tensor(P3)]),
        lambda t: t.linalg.multi_dot([t.tensor(TALL), t.tensor(WIDE), t.tensor(B4)]),
        lambda t: t.linalg.multi_dot((t.tensor(WIDE), t.tensor(TALL), t.tensor(A), t.tensor(B))),
        lambda t: t.linalg.multi_dot([t.tensor(TALL), t.tensor(A), t.tensor(P3), t.tensor(WIDE), t.tensor(B4)]),
        lambda t: t.linalg.multi_dot([t.tensor(B)[:, 0], t.tensor(A), t.tensor(B)[:, 1]]),
        lambda t: t.linalg.multi_dot([t.tensor(B)[:, 0], t.tensor(B)[:, 1]]),
        lambda t: t.linalg.multi_dot([t.tensor(A), t.tensor(B)[:, 0]]),
        lambda t: t.linalg.multi_dot([t.tensor([[1, 2], [3, 4]]), t.tensor([[1, 0], [2, 1]])])),
    "multi_dot errors": each(
        lambda t: t.linalg.multi_dot([t.tensor(A)]), lambda t: t.linalg.multi_dot([]),
        lambda t: t.linalg.multi_dot([t.tensor(B), t.tensor(B)]),
        lambda t: t.linalg.multi_dot([t.ones(1, 3, 3), t.tensor(A)]),
        lambda t: t.linalg.multi_dot([t.tensor(A), t.ones(1, 3, 3)]),
        lambda t: t.linalg.multi_dot([t.tensor(A), t.ones(3), t.tensor(A)]),
        lambda t: t.linalg.multi_dot([t.tensor(A), f64(t, A)]),
        lambda t: t.linalg.multi_dot([t.tensor(A), t.tensor([[1, 2, 3]] * 3)])),
    "chain_matmul": each(
        lambda t: t.chain_matmul(t.tensor(A), t.tensor(P3), t.tensor(B)), lambda t: t.chain_matmul(t.tensor(A)),
        lambda t: t.chain_matmul(t.tensor(TALL), t.tensor(WIDE)), lambda t: t.chain_matmul(),
        lambda t: t.chain_matmul(t.tensor(A), t.ones(3)), lambda t: t.chain_matmul(t.ones(3), t.ones(3))),
    "vecdot": each(
        lambda t: t.linalg.vecdot(t.tensor(A), t.tensor(P3)), lambda t: t.linalg.vecdot(t.tensor(A), t.tensor(P3), dim=0),
        lambda t: t.linalg.vecdot(t.tensor(B)[:, 0], t.tensor(B)[:, 1]),
        lambda t: t.linalg.vecdot(t.tensor(BATCH), t.tensor(A)[0]), lambda t: t.linalg.vecdot(t.tensor(1.5), t.tensor(2.0)),
        lambda t: t.linalg.vecdot(f64(t, A), f64(t, A), dim=-2), lambda t: t.linalg.vecdot(t.tensor(A), f64(t, A)),
        lambda t: t.linalg.vecdot(t.ones(3).long(), t.ones(3).long()), lambda t: t.linalg.vecdot(t.tensor(A), t.ones(2)),
        lambda t: t.linalg.vecdot(t.tensor(A), t.tensor(A), dim=2)),
    "vander": each(
        lambda t: t.linalg.vander(t.tensor([1.0, 2.0, 3.0])), lambda t: t.linalg.vander(t.tensor([1.0, -2.0, 0.5]), N=5),
        lambda t: t.linalg.vander(t.tensor(A), N=2), lambda t: t.linalg.vander(t.tensor([1, 2, 3])),
        lambda t: t.linalg.vander(t.tensor([1, 2, 3], dtype=t.int32)), lambda t: t.linalg.vander(t.zeros(0), N=3),
        lambda t: t.linalg.vander(t.tensor(1.0)), lambda t: t.linalg.vander(t.ones(3), N=1),
        lambda t: t.linalg.vander(t.ones(1)), lambda t: t.linalg.vander(t.tensor([True, False])),
        lambda t: t.linalg.vander(t.zeros(0))),
    "tensorinv": each(
        lambda t: t.linalg.tensorinv(t.tensor(T22).reshape(2, 2, 2, 2)),
        lambda t: t.linalg.tensorinv(t.tensor(T22).reshape(4, 2, 2), ind=1),
        lambda t: t.linalg.tensorinv(t.tensor(T22).reshape(2, 2, 4)).shape, lambda t: t.linalg.tensorinv(t.zeros(0, 0), ind=1),
        lambda t: t.linalg.tensorinv(t.eye(2), ind=1).stride(), lambda t: t.linalg.tensorinv(t.tensor(T22), ind=0),
        lambda t: t.linalg.tensorinv(t.tensor(T22), ind=3), lambda t: t.linalg.tensorinv(t.ones(2, 3, 4)),
        lambda t: t.linalg.tensorinv(t.tensor(T22), ind=2), lambda t: t.linalg.tensorinv(t.zeros(2, 2), ind=1),
        lambda t: t.linalg.tensorinv(t.ones(2, 2).long(), ind=1)),
    "tensorsolve": each(
        lambda t: t.linalg.tensorsolve(t.tensor(T22).reshape(2, 2, 4), t.tensor([[1.0, 2.0], [3.0, 4.0]])),
        lambda t: t.linalg.tensorsolve(t.tensor(T22).reshape(4, 2, 2), t.tensor([1.0, 2.0, 3.0, 4.0])),
        lambda t: t.linalg.tensorsolve(t.tensor(T22).reshape(2, 2, 2, 2), t.tensor([[1.0, 2.0], [3.0, 4.0]]), dims=(0,)),
        lambda t: t.linalg.tensorsolve(t.tensor(T22).reshape(2, 2, 2, 2), t.tensor([[1.0, 2.0], [3.0, 4.0]]), dims=[0, 2]),
        lambda t: t.linalg.tensorsolve(t.tensor(T22).reshape(2, 2, 4), t.ones(4)),
        lambda t: t.linalg.tensorsolve(t.ones(2, 3, 4), t.ones(2, 3)),
        lambda t: t.linalg.tensorsolve(t.tensor(T22), f64(t, [1.0] * 4)),
        lambda t: t.linalg.tensorsolve(t.zeros(2, 2), t.ones(2)),
        lambda t: t.linalg.tensorsolve(t.zeros(2, 2).long(), t.ones(2).long())),
    "torch.svd": each(
        lambda t: t.svd(t.tensor(A)), lambda t: t.svd(t.tensor(WIDE)), lambda t: t.svd(t.tensor(WIDE), some=False),
        lambda t: t.svd(t.tensor(A), compute_uv=False), lambda t: t.svd(t.tensor(TALL), compute_uv=False),
        lambda t: t.tensor(A).svd(), lambda t: t.svd(t.tensor(BATCH)), lambda t: t.svd(t.zeros(0, 3)),
        lambda t: t.svd(t.zeros(2, 0, 3), compute_uv=False), lambda t: t.svd(t.ones(3)),
        lambda t: t.svd(t.ones(3, 3, dtype=t.long)), lambda t: t.svd(t.ones(3, 3, dtype=t.half)),
        lambda t: t.svd(t.tensor([[1.0, math.nan], [1.0, 2.0]])),
        show=lambda r: (kind(r), r, strides(r), r.V.grad_fn is None)),
    "torch.qr": each(
        lambda t: t.qr(t.tensor(TALL)), lambda t: t.qr(t.tensor(TALL), some=False), lambda t: t.tensor(WIDE).qr(),
        lambda t: t.qr(t.tensor(BATCH), True), lambda t: t.qr(t.ones(3)), lambda t: t.qr(t.ones(2, 2, dtype=t.long)),
        show=typed),
    "pinverse": each(
        lambda t: t.pinverse(t.tensor(TALL)), lambda t: t.tensor(WIDE).pinverse(),
        lambda t: t.tensor(SINGULAR).pinverse(rcond=0.1), lambda t: t.pinverse(t.tensor(BATCH)),
        lambda t: t.tensor([1.0, 2.0]).pinverse()),
    "removed functions": lambda t: errors(
        t, lambda t: t.solve(t.tensor(B), t.tensor(A)), lambda t: t.lstsq(t.tensor(B), t.tensor(A)),
        lambda t: t.eig(t.tensor(A)), lambda t: t.eig(t.tensor(A), True), lambda t: t.symeig(t.tensor(A)),
        lambda t: t.symeig(t.tensor(A), eigenvectors=True, upper=False), lambda t: t.matrix_rank(t.tensor(A)),
        lambda t: t.matrix_rank(t.tensor(A), 0.5, True), lambda t: t.tensor(B).solve(t.tensor(A)),
        lambda t: t.tensor(B).lstsq(t.tensor(A)), lambda t: t.tensor(A).eig(), lambda t: t.tensor(A).symeig(True),
        lambda t: t.solve(t.tensor(B)), lambda t: t.solve(), lambda t: t.lstsq(t.tensor(B)), lambda t: t.eig(),
        lambda t: t.symeig(), lambda t: t.matrix_rank(), lambda t: t.tensor(B).solve(),
        lambda t: t.tensor(B).lstsq()),
}


@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_torch(torch_ref, et, name):
    same(torch_ref, et, VALUES[name])


def test_which_names_exist(torch_ref, et):
    """The Tensor methods PyTorch has for these (and those it has not), and no linalg.* extra."""
    methods = ("svd", "qr", "pinverse", "lu", "lu_solve", "lu_unpack", "chain_matmul", "solve", "lstsq", "eig",
               "symeig", "matrix_rank")
    assert [hasattr(et.Tensor, m) for m in methods] == [hasattr(torch_ref.Tensor, m) for m in methods] == [
        True, True, True, True, True, False, False, True, True, True, True, False]
    assert [n for n in et.linalg.__all__ if not hasattr(torch_ref.linalg, n)] == []
    assert [n for n in ("lu_unpack", "lu_solve", "chain_matmul", "pinverse", "svd", "qr", "lu") if hasattr(et.linalg, n)
            ] == [n for n in ("lu_unpack", "lu_solve", "chain_matmul", "pinverse", "svd", "qr", "lu")
                  if hasattr(torch_ref.linalg, n)] == ["lu_solve", "svd", "qr", "lu"]


# ----- Deprecation warnings: once a process, so each side runs in a fresh one -----

_WARNED = """
import sys, warnings
sys.path.insert(0, {root!r})
t = __import__(sys.argv[1])
A = t.tensor([[0.5, 2.0, 1.0], [3.0, 1.0, -1.0], [1.0, -2.0, 0.5]])
calls = [lambda: t.qr(A), lambda: A.qr(), lambda: t.lu(A), lambda: A.lu(), lambda: t.lu_solve(A, *t.linalg.lu_factor(A)),
         lambda: A.lu_solve(*t.linalg.lu_factor(A)), lambda: t.chain_matmul(A, A), lambda: t.chain_matmul(A, A),
         lambda: t.svd(A), lambda: A.svd(), lambda: t.pinverse(A), lambda: t.linalg.lu_factor(A)]
for call in calls:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    print(repr([(w.category.__name__, str(w.message)) for w in caught]))
"""


def _warnings_of(module):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = subprocess.run([sys.executable, "-c", _WARNED.format(root=root), module], capture_output=True, text=True,
                         check=True)
    return run.stdout.splitlines()


def test_deprecation_warnings_once(torch_ref):
    """torch.qr, torch.lu, torch.lu_solve and torch.chain_matmul warn once a process (their Tensor
    methods share the flag); torch.svd and pinverse do not."""
    ours = _warnings_of("engine")
    assert ours == _warnings_of("torch")
    assert [bool(eval(line)) for line in ours] == [True, False, True, False, True, False, True, False, False, False,
                                                  False, False]


# ----- Grads, nodes and the graphs of a double backward -----

PIV = [2, 2, 3]  # (pivots of P3, for a packed LU leaf)

GRADS = {
    "lu_factor": (lambda t, a: t.linalg.lu_factor(a).LU, P3),
    "lu_factor tall": (lambda t, a: t.linalg.lu_factor(a).LU, TALL),
    "lu_factor wide": (lambda t, a: t.linalg.lu_factor_ex(a).LU, WIDE),
    "lu_factor batch": (lambda t, a: t.linalg.lu_factor(a).LU, BATCH),
    "torch.lu": (lambda t, a: t.lu(a)[0], P3),
    "linalg.lu": (lambda t, a: tuple(t.linalg.lu(a))[1:], P3),
    "linalg.lu L only": (lambda t, a: t.linalg.lu(a).L, P3),
    "linalg.lu U only": (lambda t, a: t.linalg.lu(a).U, P3),
    "linalg.lu tall": (lambda t, a: tuple(t.linalg.lu(a))[1:], TALL),
    "linalg.lu tall U only": (lambda t, a: t.linalg.lu(a).U, TALL),
    "linalg.lu tall L only": (lambda t, a: t.linalg.lu(a).L, TALL),
    "linalg.lu wide": (lambda t, a: tuple(t.linalg.lu(a))[1:], WIDE),
    "linalg.lu wide U only": (lambda t, a: t.linalg.lu(a).U, WIDE),
    "linalg.lu wide L only": (lambda t, a: t.linalg.lu(a).L, WIDE),
    "linalg.lu batch": (lambda t, a: tuple(t.linalg.lu(a))[1:], BATCH),
    "lu_unpack": (lambda t, lu: tuple(t.lu_unpack(lu, t.tensor(PIV, dtype=t.int32)))[1:], P3),
    "lu_unpack tall": (lambda t, lu: tuple(t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)))[1:], TALL),
    "lu_unpack wide": (lambda t, lu: tuple(t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)))[1:], WIDE),
    "lu_unpack tall L only": (lambda t, lu: t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)).L, TALL),
    "lu_unpack wide L only": (lambda t, lu: t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)).L, WIDE),
    "lu_unpack tall U only": (lambda t, lu: t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)).U, TALL),
    "lu_unpack wide U only": (lambda t, lu: t.lu_unpack(lu, t.tensor([2, 2, 3], dtype=t.int32)).U, WIDE),
    "lu_unpack of lu_factor": (lambda t, a: tuple(t.lu_unpack(*t.linalg.lu_factor(a)))[1:], P3),
    "lu_solve": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b), P3, B),
    "lu_solve packed leaf": (lambda t, lu, b: t.linalg.lu_solve(lu, t.tensor(PIV, dtype=t.int32), b), P3, B),
    "lu_solve left=False": (lambda t, lu, b: t.linalg.lu_solve(lu, t.tensor(PIV, dtype=t.int32), b, left=False),
                            P3, [list(r) for r in zip(*B)]),
    "lu_solve adjoint": (lambda t, lu, b: t.linalg.lu_solve(lu, t.tensor(PIV, dtype=t.int32), b, adjoint=True), P3, B),
    "lu_solve left=False adjoint": (
        lambda t, lu, b: t.linalg.lu_solve(lu, t.tensor(PIV, dtype=t.int32), b, left=False, adjoint=True),
        P3, [list(r) for r in zip(*B)]),
    "lu_solve broadcast": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b), P3, [B, B]),
    "torch.lu_solve": (lambda t, b, a: t.lu_solve(b, *t.linalg.lu_factor(a)), B, P3),
    "lstsq": (lambda t, a, b: t.linalg.lstsq(a, b).solution, TALL, B4),
    "lstsq with residuals": (lambda t, a, b: tuple(t.linalg.lstsq(a, b, driver="gelsd"))[:2], TALL, B4),
    "lstsq residuals only": (lambda t, a, b: t.linalg.lstsq(a, b, driver="gels").residuals, TALL, B4),
    "lstsq vector": (lambda t, a, b: tuple(t.linalg.lstsq(a, b, driver="gelss"))[:2], TALL, B4[0] + [1.5, 2.0]),
    "lstsq wide": (lambda t, a, b: t.linalg.lstsq(a, b).solution, WIDE, B),
    "lstsq batch": (lambda t, a, b: tuple(t.linalg.lstsq(a, b, driver="gels"))[:2], [TALL, TALL], [B4, B4]),
    "lstsq batch broadcast": (lambda t, a, b: tuple(t.linalg.lstsq(a, b, driver="gelsd"))[:2], [TALL], [B4, B4]),
    "cond": (lambda t, a: t.linalg.cond(a), A),
    "cond -2": (lambda t, a: t.linalg.cond(a, -2), P3),
    "cond fro": (lambda t, a: t.linalg.cond(a, "fro"), A),
    "cond nuc": (lambda t, a: t.linalg.cond(a, "nuc"), P3),
    "cond 1": (lambda t, a: t.linalg.cond(a, 1), P3),
    "cond -inf": (lambda t, a: t.linalg.cond(a, -INF), A),
    "cond batch": (lambda t, a: t.linalg.cond(a, INF), BATCH),
    "multi_dot 2": (lambda t, a, b: t.linalg.multi_dot([a, b]), A, B),
    "multi_dot 3": (lambda t, a, b, c: t.linalg.multi_dot([a, b, c]), TALL, WIDE, B4),
    "multi_dot 5 vectors": (lambda t, v, a, b, c, w: t.linalg.multi_dot([v, a, b, c, w]),
                            [1.0, -2.0, 0.5], A, P3, B, [0.25, 2.0]),
    "chain_matmul": (lambda t, a, b: t.chain_matmul(a, b, a), A, P3),
    "chain_matmul one": (lambda t, a: t.chain_matmul(a), A),
    "vecdot": (lambda t, a, b: t.linalg.vecdot(a, b), A, P3),
    "vecdot vectors": (lambda t, a, b: t.linalg.vecdot(a, b), [1.0, 2.0, 3.0], [0.5, -1.0, 2.0]),
    "vander": (lambda t, x: t.linalg.vander(x), [1.5, -2.0, 0.5]),
    "vander N": (lambda t, x: t.linalg.vander(x, N=4), A),
    "tensorinv": (lambda t, a: t.linalg.tensorinv(a.reshape(2, 2, 2, 2)), T22),
    "tensorinv ind=1": (lambda t, a: t.linalg.tensorinv(a.reshape(4, 2, 2), ind=1), T22),
    "tensorsolve": (lambda t, a, b: t.linalg.tensorsolve(a.reshape(2, 2, 4), b), T22, [[1.0, 2.0], [3.0, 4.0]]),
    "tensorsolve dims": (lambda t, a, b: t.linalg.tensorsolve(a.reshape(2, 2, 2, 2), b, dims=(0,)), T22,
                         [[1.0, 2.0], [3.0, 4.0]]),
    "torch.svd": (lambda t, a: tuple(t.svd(a)), WIDE),
    # (V's last column completes a basis, any unit vector would do: its grad is left out, as PyTorch leaves it)
    "torch.svd some=False": (lambda t, a: (lambda r: (r.U, r.S, r.V[:, :3]))(t.svd(a, some=False)), WIDE),
    "torch.svd compute_uv=False": (lambda t, a: tuple(t.svd(a, compute_uv=False)), TALL),
    "torch.svd V only": (lambda t, a: a.svd().V, A),
    "torch.qr": (lambda t, a: tuple(t.qr(a)), TALL),
    "torch.qr wide": (lambda t, a: tuple(a.qr()), WIDE),
    "pinverse": (lambda t, a: t.pinverse(a), TALL),
    "pinverse method": (lambda t, a: a.pinverse(rcond=1e-10), WIDE),
}


# PyTorch's gelsy solution of a wide system is at times not a solution at all (it reads memory it
# did not fill: the same call gives another answer in another process); the engine's is the
# minimum-norm one (test_wide_lstsq_is_the_minimum_norm_solution), checked by finite differences.
NOT_TORCH = {"lstsq wide"}


@pytest.mark.parametrize("name", [n for n in GRADS if n not in NOT_TORCH])
def test_grads_match_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, graded(op, *values))


@pytest.mark.parametrize("name", [n for n in GRADS if n not in NOT_TORCH])
def test_rule_graphs_match_torch(torch_ref, et, name):
    """The graph each rule builds from an upstream grad that requires grad (what a double backward
    draws): three levels of nodes below each input's grad, and its values."""
    op, *values = GRADS[name]

    def run(t):
        xs, us, gs = grads_with_graph(t, op, values)
        return [None if g is None else (g, names(g.grad_fn)) for g in gs]

    same(torch_ref, et, run)


def test_double_backward_values(torch_ref, et):
    """Second derivatives through the LU nodes, lstsq and lu_solve, against PyTorch's."""
    def run(t):
        out = []
        for op, vals in ((lambda a: t.linalg.lu_factor(a).LU, P3), (lambda a: t.linalg.lu(a).U, TALL),
                         (lambda a: t.linalg.lstsq(a, f64(t, B4), driver="gelsd").residuals, TALL),
                         (lambda a: t.linalg.lstsq(a, f64(t, B4)).solution, TALL),
                         (lambda a: t.linalg.lu_solve(*t.linalg.lu_factor(a), f64(t, B)), P3),
                         (lambda a: t.linalg.cond(a, "nuc"), A)):
            a = f64(t, vals).requires_grad_()
            y = op(a)
            (g,) = t.autograd.grad((y * y).sum(), a, create_graph=True)
            (h,) = t.autograd.grad((g * g).sum(), a)
            out.append((g, h))
        return out

    same(torch_ref, et, run)


# ----- Against finite differences, first and second order (float64) -----

# PyTorch's own backward raises for these (cond fills inv_ex's saved output in place), as the engine's
# does: test_grads_match_torch compares the error.
RAISES = {"cond fro", "cond 1", "cond -inf", "cond batch"}


@pytest.mark.parametrize("name", [n for n in GRADS if n not in RAISES])
def test_gradcheck(et, name):
    op, *values = GRADS[name]
    check_grads(et, op, values)


@pytest.mark.parametrize("name", [n for n in GRADS if n not in RAISES | {"torch.svd compute_uv=False"}])
def test_forward_ad_against_finite_differences(et, name):
    """Tangents (forward AD) through the same functions. (torch.svd's U and V without compute_uv
    are zeros that take no tangent: left out.)"""
    op, *values = GRADS[name]
    xs = tuple(et.tensor(v, dtype=et.float64, requires_grad=True) for v in values)

    def fn(*xs):
        out = op(et, *xs)
        return tuple(y for y in (out if isinstance(out, tuple) else (out,)) if y.dtype.is_floating_point)

    assert et.autograd.gradcheck(fn, xs, check_forward_ad=True)


# ----- Saved attributes -----

SAVED = {
    "LinalgLuFactorExBackward0": (lambda t, a: t.linalg.lu_factor(a).LU, ("LU", "pivot", "pivots")),
    "LinalgLuBackward0": (lambda t, a: t.linalg.lu(a).L, ("L", "P", "U", "pivot")),
    "LuUnpackBackward0": (lambda t, a: t.lu_unpack(a, t.tensor(PIV, dtype=t.int32)).U,
                          ("LU_data_sym_argsize_minus_1", "LU_data_sym_argsize_minus_2")),
    "LinalgLuSolveBackward0": (lambda t, a: t.linalg.lu_solve(a, t.tensor(PIV, dtype=t.int32), f64(t, B), adjoint=True),
                               ("LU", "pivots", "result", "left", "adjoint")),
    "LinalgLstsqBackward0": (lambda t, a: t.linalg.lstsq(a, f64(t, B)).solution, ("self", "b", "solution")),
}


@pytest.mark.parametrize("name", list(SAVED))
def test_saved_attributes(torch_ref, et, name):
    op, attrs = SAVED[name]

    def run(t):
        a = f64(t, P3).requires_grad_()
        fn = op(t, a).grad_fn
        return fn.name(), [getattr(fn, "_saved_" + n) for n in attrs], [
            names(getattr(fn, "_saved_" + n).grad_fn, 1) if isinstance(getattr(fn, "_saved_" + n), t.Tensor) else None
            for n in attrs]

    same(torch_ref, et, run)


def test_saved_outputs_freed_and_checked(torch_ref, et):
    """The saved factors go with the first backward (a second raises), and an in-place change to
    one before it is caught, as PyTorch's saved variables are."""
    def run(t):
        a = f64(t, P3).requires_grad_()
        L = t.linalg.lu(a).L
        L.sum().backward(retain_graph=False)
        freed = outcome(lambda t: L.sum().backward(), t)[0]
        LU = t.linalg.lu_factor(a).LU
        LU.mul_(2)
        modified = outcome(lambda t: LU.sum().backward(), t)[0]
        return freed[:2], modified[:2]

    same(torch_ref, et, run)


# ----- What these functions give tutorial code -----

def test_solving_with_one_factorization(torch_ref, et):
    """Factor once, solve several right-hand sides, and check A = P L U: the usage the docs show."""
    def run(t):
        a = t.tensor(BATCH)
        LU, pivots = t.linalg.lu_factor(a)
        P, L, U = t.lu_unpack(LU, pivots)
        xs = [t.linalg.lu_solve(LU, pivots, t.tensor(B) * k) for k in (1.0, -2.0)]
        return (t.allclose(P @ L @ U, a, atol=1e-6), [t.allclose(a @ x, t.tensor(B) * k, atol=1e-5)
                                                      for x, k in zip(xs, (1.0, -2.0))],
                t.linalg.lstsq(t.tensor(TALL), t.tensor(B4)).solution, t.linalg.matrix_rank(a), t.linalg.cond(a))

    ref = same(torch_ref, et, run)
    assert ref[0][1][:2] == (True, [True, True])


def test_rank_deficient_gelsy(et):
    """gelsy's basic solution of a rank-deficient system (PyTorch's varies from run to run): it solves
    the least-squares problem, and the rank is the numerical one."""
    import numpy as np

    for a, rcond, rank in ((np.ones((4, 3)), None, 1), (np.array(TALL), 0.5, 1)):
        r = et.linalg.lstsq(et.tensor(a, dtype=et.float64), et.tensor(B4, dtype=et.float64), rcond=rcond)
        assert r.rank.item() == rank
        if rcond is None:
            x = r.solution.numpy()
            np.testing.assert_allclose(a.T @ (a @ x - np.array(B4)), 0, atol=1e-5)  # the normal equations


def test_wide_lstsq_is_the_minimum_norm_solution(et):
    import numpy as np

    a, b = np.array(WIDE), np.array(B)
    for driver in (None, "gelsy", "gelsd", "gelss"):
        x = et.linalg.lstsq(et.tensor(a), et.tensor(b), driver=driver).solution
        np.testing.assert_allclose(x.numpy(), np.linalg.pinv(a) @ b, rtol=1e-5, atol=1e-6)
    x = et.linalg.lstsq(et.tensor(a), et.tensor(b)).solution
    assert x.numpy()[:2].round(6).tolist() == [[0.140622, -0.039644], [0.975644, -1.602489]]
