"""The long tail of torch's functions (diff, tensordot, meshgrid, cdist, the stacking and splitting
helpers, addmv and its kin, unique, bincount, searchsorted, cov, logcumsumexp, erfinv, lgamma, digamma,
...) and their Tensor methods, against real PyTorch: values and dtypes, errors, grads, grad_fn and
next_functions (composites show PyTorch's nodes); and against finite differences, first and second order."""
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import check_grads, graded, grads_with_graph, names, outcome, same

NAN, INF = float("nan"), float("inf")
X = ((np.random.default_rng(0).permutation(12) - 5.5) / 2).reshape(3, 4).tolist()
Y = ((np.random.default_rng(1).permutation(20) - 9.5) / 4).reshape(4, 5).tolist()
X3 = ((np.random.default_rng(2).permutation(24) - 11.5) / 4).reshape(2, 3, 4).tolist()
Y3 = ((np.random.default_rng(3).permutation(40) - 19.5) / 8).reshape(2, 4, 5).tolist()
V = [0.5, -1.25, 2.0, 0.75]
W = [1.5, -0.5, 0.25]
U = [[0.5, 1.0, -2.0, 0.0], [1.5, -1.0, 0.25, 2.0]]  # rows for cdist against X


# ----- Values, dtypes and errors -----

VALUES = {
    "diff": lambda t: (t.diff(t.tensor(X)), t.tensor(X).diff(n=2, dim=0), t.diff(t.tensor(X), n=9),
                       t.diff(t.tensor([1, 5, 2], dtype=t.int32)), t.diff(t.tensor([True, False, False])),
                       t.diff(t.tensor(X), prepend=t.tensor(X)[:, :1], append=t.ones(3, 2)),
                       t.diff(t.tensor(X), n=0), t.diff(t.tensor(V), 2, append=t.tensor([1.0]))),
    "diff errors": lambda t: [outcome(f, t)[0] for f in (
        lambda t: t.diff(t.tensor(1.0)), lambda t: t.diff(t.tensor(V), n=-1),
        lambda t: t.diff(t.tensor(X), prepend=t.tensor(0.0)))],
    "tensordot": lambda t: (t.tensordot(t.tensor(X), t.tensor(Y), 1), t.tensordot(t.tensor(X3), t.tensor(X), 2),
                            t.tensordot(t.tensor(X3), t.tensor(Y3), ([0, 2], [0, 1])),
                            t.tensordot(t.tensor(V), t.tensor(W), 0), t.tensordot(t.tensor(X), t.tensor(X), ([0], [0])),
                            t.tensordot(t.tensor(X), t.ones(1, 5), ([1], [0])),
                            t.tensordot(t.tensor([[1, 2], [3, 4]]), t.tensor([[1, 0], [2, 1]]), dims=1)),
    "tensordot errors": lambda t: [outcome(f, t)[0] for f in (
        lambda t: t.tensordot(t.tensor(X), t.tensor(X), -1), lambda t: t.tensordot(t.tensor(X), t.tensor(X), ([0], [1])),
        lambda t: t.tensordot(t.tensor(X), t.tensor(X), ([0, 1], [0])),
        lambda t: t.tensordot(t.tensor(X), t.tensor(X, dtype=t.float64), 2))],
    "inner": lambda t: (t.inner(t.tensor(X), t.tensor(Y).T), t.inner(t.tensor(V), t.tensor(V)),
                        t.tensor(X3).inner(t.tensor(X)), t.inner(t.tensor(X), t.tensor(2.0)),
                        outcome(lambda t: t.inner(t.tensor(X), t.tensor(W)), t)[0]),
    "meshgrid": lambda t: (t.meshgrid(t.tensor(V), t.tensor(W), indexing="ij"),
                           t.meshgrid([t.tensor(V), t.tensor(W), t.tensor([1.0, 2.0])], indexing="xy"),
                           t.meshgrid(t.tensor(V), t.tensor(3.0), indexing="xy"),
                           t.meshgrid(t.tensor([1, 2]), indexing="xy"),
                           outcome(lambda t: t.meshgrid(t.tensor(V), indexing="yx"), t)[0],
                           outcome(lambda t: t.meshgrid(t.tensor(V), t.tensor([1, 2]), indexing="ij"), t)[0]),
    "cdist": lambda t: [t.cdist(t.tensor(X), t.tensor(U), p=p) for p in (2.0, 1.0, 0.0, 3.0, 0.5, INF)] + [
        t.cdist(t.tensor(X3)[:, :, :3], t.tensor(X3)[1:, 1:, 1:]), t.cdist(t.tensor(X3), t.tensor(U)),
        t.cdist(t.tensor(X, dtype=t.float64), t.tensor(U, dtype=t.float64), 1.5)],
    "cdist errors": lambda t: [outcome(f, t)[0] for f in (
        lambda t: t.cdist(t.tensor(V), t.tensor(V)), lambda t: t.cdist(t.tensor(X), t.tensor(X), p=-1),
        lambda t: t.cdist(t.tensor(X), t.tensor(Y)), lambda t: t.cdist(t.ones(2, 2, dtype=t.long), t.ones(2, 2)))],
    "column_stack dstack": lambda t: (t.column_stack([t.tensor(V), t.tensor(V)]),
                                      t.column_stack((t.tensor(X), t.tensor(W), t.tensor(X))),
                                      t.column_stack([t.tensor(2.0), t.tensor([3])]),
                                      t.dstack([t.tensor(X), t.tensor(X)]), t.dstack([t.tensor(V), t.tensor(V)]),
                                      t.dstack((t.tensor(1.0), t.tensor(2))), t.dstack([t.tensor(X3), t.tensor(X3)])),
    "atleast": lambda t: (t.atleast_1d(t.tensor(2.0)), t.atleast_1d(t.tensor(V)), t.atleast_2d(t.tensor(2.0)),
                          t.atleast_2d(t.tensor(V)), t.atleast_2d(t.tensor(X)), t.atleast_3d(t.tensor(2.0)),
                          t.atleast_3d(t.tensor(V)), t.atleast_3d(t.tensor(X)), t.atleast_3d(t.tensor(X3)),
                          t.atleast_1d(t.tensor(1.0), t.tensor(V)), t.atleast_2d([t.tensor(1.0), t.tensor(V)]),
                          t.atleast_3d((t.tensor(V),))),
    "movedim swapdims": lambda t: (t.movedim(t.tensor(X3), 0, 2), t.tensor(X3).movedim(-1, 0),
                                   t.moveaxis(t.tensor(X3), (0, 1), (2, 0)), t.tensor(X3).moveaxis([0], [-1]),
                                   t.swapdims(t.tensor(X3), 0, 2), t.tensor(X3).swapdims(-1, 1),
                                   t.movedim(t.tensor(2.0), 0, 0),
                                   outcome(lambda t: t.movedim(t.tensor(X), (0, 0), (1, 0)), t)[0],
                                   outcome(lambda t: t.movedim(t.tensor(X), (0, 1), (1, 1)), t)[0],
                                   outcome(lambda t: t.movedim(t.tensor(X), (0, 1), (1,)), t)[0]),
    "tensor_split": lambda t: (t.tensor_split(t.tensor(X), 3, dim=1), t.tensor(X).tensor_split([1, 3], 1),
                               t.tensor_split(t.arange(7), 3), t.tensor_split(t.arange(7), [2, 9, 1]),
                               t.tensor_split(t.arange(7), (-2,)), t.tensor_split(t.arange(7), t.tensor(2)),
                               t.tensor_split(t.arange(7), t.tensor([1, 5])), t.tensor_split(t.arange(3), 5),
                               outcome(lambda t: t.tensor_split(t.tensor(X), 0), t)[0]),
    "hsplit vsplit dsplit": lambda t: (t.hsplit(t.tensor(X), 2), t.tensor(X).hsplit([1, 2]), t.hsplit(t.tensor(V), 2),
                                       t.vsplit(t.tensor(X), [1]), t.tensor(X3).vsplit(2), t.dsplit(t.tensor(X3), 2),
                                       t.tensor(X3).dsplit([3])) + tuple(outcome(f, t)[0] for f in (
        lambda t: t.hsplit(t.tensor(X), 3), lambda t: t.vsplit(t.tensor(V), 2), lambda t: t.dsplit(t.tensor(X), 2),
        lambda t: t.hsplit(t.tensor(1.0), 1), lambda t: t.vsplit(t.tensor(X), 2))),
    "fliplr flipud rot90": lambda t: (t.fliplr(t.tensor(X)), t.tensor(X3).flipud(), t.rot90(t.tensor(X)),
                                      t.rot90(t.tensor(X), 2), t.tensor(X).rot90(-1), t.rot90(t.tensor(X), 7),
                                      t.rot90(t.tensor(X3), 1, [2, 0]), t.rot90(t.tensor(X), 0)) + tuple(
        outcome(f, t)[0] for f in (lambda t: t.fliplr(t.tensor(V)), lambda t: t.flipud(t.tensor(1.0)),
                                   lambda t: t.rot90(t.tensor(X), 1, [0]), lambda t: t.rot90(t.tensor(X), 1, [0, 0]),
                                   lambda t: t.rot90(t.tensor(X), 1, [0, -2]), lambda t: t.rot90(t.tensor(V)))),
    "addmv addr baddbmm addbmm": lambda t: (
        t.addmv(t.tensor(W), t.tensor(X), t.tensor(V)), t.tensor(W).addmv(t.tensor(X), t.tensor(V), beta=0.5, alpha=2),
        t.addmv(t.tensor(1.0), t.tensor(X), t.tensor(V)),
        t.addmv(t.tensor([NAN, 1.0, 2.0]), t.tensor(X), t.tensor(V), beta=0),
        t.addr(t.tensor(X), t.tensor(W), t.tensor(V)), t.tensor(X).addr(t.tensor(W), t.tensor(V), beta=2, alpha=-1),
        t.addr(t.zeros(1, 4), t.tensor(W), t.tensor(V)),
        t.addr(t.zeros(3, 4, dtype=t.long), t.tensor([1, 2, 3]), t.tensor([1, 0, 2, 1])),
        t.baddbmm(t.ones(3, 5), t.tensor(X3), t.tensor(Y3)),
        t.tensor(X3).baddbmm(t.tensor(X3), t.tensor(Y3)[:, :, :4], beta=0.5, alpha=0.25),
        t.addbmm(t.ones(5), t.tensor(X3), t.tensor(Y3), alpha=2)) + tuple(outcome(f, t)[0] for f in (
        lambda t: t.addmv(t.tensor(V), t.tensor(X), t.tensor(V)), lambda t: t.addr(t.tensor(X), t.tensor(V), t.tensor(V)),
        lambda t: t.baddbmm(t.ones(3, 5), t.tensor(X), t.tensor(Y3)))),
    "diag_embed diagflat block_diag": lambda t: (
        t.diag_embed(t.tensor(X)), t.tensor(X).diag_embed(1), t.diag_embed(t.tensor(X), -1, 0, 2),
        t.diag_embed(t.tensor(X3), 0, -1, 1), t.diagflat(t.tensor(X)), t.tensor(V).diagflat(-2),
        t.diagflat(t.tensor(X).T, 1), t.block_diag(t.tensor(X), t.tensor(V)),
        t.block_diag(t.tensor(2), t.tensor([1, 2]), t.tensor([[1.5]])), t.block_diag(t.zeros(0, 2), t.ones(2, 0)),
        outcome(lambda t: t.block_diag(t.zeros(2, 2, 2)), t)[0],
        outcome(lambda t: t.diag_embed(t.tensor(X), 0, 1, -2), t)[0]),
    "cartesian_prod combinations": lambda t: (
        t.cartesian_prod(t.tensor(V), t.tensor(W)), t.cartesian_prod(t.tensor([1, 2]), t.tensor([3]), t.tensor([4, 5])),
        t.cartesian_prod(t.tensor(V)), t.combinations(t.tensor(V)), t.combinations(t.tensor(V), 3),
        t.combinations(t.tensor(W), with_replacement=True), t.combinations(t.tensor([1, 2, 3]), 3, True),
        t.combinations(t.tensor(V), 0), t.combinations(t.tensor(W), 5),
        outcome(lambda t: t.combinations(t.tensor(X)), t)[0],
        outcome(lambda t: t.cartesian_prod(t.tensor(X)), t)[0]),
    "tril_indices triu_indices": lambda t: (t.tril_indices(3, 4), t.tril_indices(3, 4, -1), t.triu_indices(4, 3, 1),
                                            t.triu_indices(3, 3, dtype=t.int32), t.tril_indices(0, 3),
                                            t.tril_indices(4, 2, 5), t.triu_indices(3, 5, -1)),
    "logaddexp2 fmax fmin copysign": lambda t: (
        t.logaddexp2(t.tensor(X), t.tensor(V)), t.tensor(X).logaddexp2(t.tensor(0.5)),
        t.fmax(t.tensor([1.0, NAN, NAN, 2.0]), t.tensor([NAN, 1.0, NAN, 3.0])),
        t.fmin(t.tensor([1.0, NAN, NAN, 2.0]), t.tensor([NAN, 1.0, NAN, 3.0])),
        t.fmax(t.tensor([1, 5]), t.tensor([1.5, NAN])), t.tensor([3, 1]).fmin(t.tensor([2, 2])),
        t.copysign(t.tensor(X), t.tensor(V)), t.copysign(t.tensor([1.0, -2.0, 0.0]), -1.0),
        t.copysign(t.tensor([1, -2]), 1), t.tensor([1.0, 2.0]).copysign(t.tensor([-0.0, 0.0])),
        t.copysign(t.tensor([1, -2]), t.tensor([-1, 1])),
        outcome(lambda t: t.logaddexp2(t.tensor([1, 2]), t.tensor([1, 2])), t)[0]),
    "signbit is_nonzero": lambda t: (t.signbit(t.tensor([-0.0, 0.0, -1.0, 2.0, -INF, NAN])), t.tensor([-1, 2]).signbit(),
                                     t.is_nonzero(t.tensor([1.5])), t.tensor(0).is_nonzero(), t.tensor([False]).is_nonzero(),
                                     outcome(lambda t: t.is_nonzero(t.tensor([1, 2])), t)[0],
                                     outcome(lambda t: t.tensor([]).is_nonzero(), t)[0]),
    "nansum nanmean": lambda t: (
        t.nansum(t.tensor([[1.0, NAN], [NAN, NAN], [2.0, 3.0]])), t.tensor([[1.0, NAN], [NAN, NAN]]).nansum(1),
        t.nansum(t.tensor([[1.0, NAN], [NAN, 2.0]]), 0, keepdim=True), t.nansum(t.tensor([[1, 2], [3, 4]])),
        t.nansum(t.tensor([[1.0, NAN]]), dtype=t.float64), t.nansum(t.tensor(X), (0, 1)),
        t.nanmean(t.tensor([[1.0, NAN], [NAN, NAN], [2.0, 3.0]])), t.tensor([[1.0, NAN], [NAN, NAN]]).nanmean(1),
        t.nanmean(t.tensor(X), -1, True), outcome(lambda t: t.nanmean(t.tensor([1, 2])), t)[0]),
    "aminmax count_nonzero argwhere": lambda t: (
        t.aminmax(t.tensor(X)), t.tensor(X).aminmax(dim=1), t.aminmax(t.tensor(X3), dim=-2, keepdim=True),
        t.aminmax(t.tensor([3, 1, 2])), t.aminmax(t.tensor(X), keepdim=True), t.aminmax(t.tensor(2.0)),
        outcome(lambda t: t.aminmax(t.zeros(0)), t)[0],
        t.count_nonzero(t.tensor([[0, 1, 2], [0, 0, 3]])), t.tensor([[0, 1, 2], [0, 0, 3]]).count_nonzero(1),
        t.count_nonzero(t.tensor(X3) > 0, (0, 2)), t.argwhere(t.tensor([[0, 1], [2, 0]])),
        t.tensor([0.0, 1.0]).argwhere(), t.argwhere(t.tensor(3.0))),
    "isin": lambda t: (t.isin(t.tensor([[1, 2], [3, 4]]), t.tensor([2, 3])), t.isin(t.tensor([1, 2, 3]), 2),
                       t.isin(2, t.tensor([1, 2])), t.isin(t.tensor([1.0, 2.0]), t.tensor([2]), invert=True)),
    "unique": lambda t: (t.unique(t.tensor([3, 1, 2, 1, 3, 5])), t.tensor([3, 1, 2, 1]).unique(return_inverse=True),
                         t.unique(t.tensor([[3, 1], [1, 5]]), return_inverse=True, return_counts=True),
                         t.unique(t.tensor([3, 1, 2, 1, 3, 5]), sorted=False, return_counts=True),
                         t.unique(t.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True, return_counts=True),
                         t.tensor([[1, 2, 1], [0, 3, 0]]).unique(dim=1), t.unique(t.tensor([2.5, -1.0, 2.5])),
                         t.unique(t.tensor([True, False, True]), return_counts=True), t.unique(t.tensor([]))),
    "unique_consecutive": lambda t: (
        t.unique_consecutive(t.tensor([1, 1, 2, 2, 3, 1, 1])),
        t.tensor([1, 1, 2, 2, 3, 1, 1]).unique_consecutive(return_inverse=True, return_counts=True),
        t.unique_consecutive(t.tensor([[1, 1], [1, 1], [2, 0], [1, 1]]), dim=0, return_counts=True),
        t.unique_consecutive(t.tensor([[1, 1, 2], [3, 3, 3]]), return_inverse=True),
        t.unique_consecutive(t.tensor([[1, 1, 2], [3, 3, 3]]), return_inverse=True, dim=1)),
    "bincount histc": lambda t: (
        t.bincount(t.tensor([1, 1, 3, 0])), t.tensor([1, 1, 3]).bincount(minlength=6),
        t.bincount(t.tensor([1, 1, 3]), t.tensor([0.5, 1.0, 2.0])),
        t.bincount(t.tensor([1, 1, 3]), t.tensor([0.5, 1.0, 2.0], dtype=t.float64)),
        t.bincount(t.tensor([1, 2]), t.tensor([1, 2])), t.bincount(t.tensor([], dtype=t.long)),
        t.histc(t.tensor([1.0, 2, 1, 4, 2.5]), bins=4, min=0, max=3), t.tensor([1.0, 2, 3, 4, 4]).histc(4),
        t.histc(t.tensor(X, dtype=t.float64), 5, -1, 1), t.histc(t.tensor([2.0, 2.0]), 3)) + tuple(
        outcome(f, t)[0] for f in (lambda t: t.bincount(t.tensor([-1])), lambda t: t.bincount(t.tensor([[1]])),
                                   lambda t: t.bincount(t.tensor([1.0])), lambda t: t.histc(t.tensor([1, 2])),
                                   lambda t: t.histc(t.tensor([1.0]), 4, 3, 1))),
    "searchsorted bucketize": lambda t: (
        t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([[3, 6], [0, 9]])),
        t.searchsorted(t.tensor([1, 3, 5, 7]), t.tensor([3, 6]), right=True),
        t.searchsorted(t.tensor([1.0, 3.0, 5.0]), 3.0), t.searchsorted(t.tensor([1, 3, 3, 5]), t.tensor([3]), side="right"),
        t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]), t.tensor([[3, 4], [4, 7]]), out_int32=True),
        t.searchsorted(t.tensor([5, 1, 3]), t.tensor([2, 4]), sorter=t.tensor([1, 2, 0])),
        t.bucketize(t.tensor([[3, 6], [0, 9]]), t.tensor([1, 3, 5, 7])),
        t.bucketize(t.tensor([3.0, 6.0]), t.tensor([1, 3, 5]), right=True, out_int32=True),
        t.bucketize(3, t.tensor([1, 3, 5]))) + tuple(outcome(f, t)[0] for f in (
        lambda t: t.searchsorted(t.tensor([1, 3]), t.tensor([1]), right=True, side="left"),
        lambda t: t.bucketize(t.tensor([1]), t.tensor([[1, 3]])))),
    "cov corrcoef": lambda t: (
        t.cov(t.tensor(X)), t.tensor(X).cov(correction=0), t.cov(t.tensor(V)), t.cov(t.tensor([[1, 2, 3]])),
        t.cov(t.tensor(X, dtype=t.float64), fweights=t.tensor([1, 2, 1, 1]),
              aweights=t.tensor([0.5, 1.0, 1.0, 2.0], dtype=t.float64)),
        t.cov(t.tensor(X), aweights=t.tensor([0.5, 1.0, 1.0, 2.0]), correction=2),
        t.corrcoef(t.tensor(X)), t.tensor([[1, 2, 3], [1, 1, 1]]).corrcoef(), t.corrcoef(t.tensor(V))) + tuple(
        outcome(f, t)[0] for f in (lambda t: t.cov(t.zeros(2, 2, 2)), lambda t: t.cov(t.tensor([True])),
                                   lambda t: t.cov(t.tensor(X), fweights=t.tensor([1.0, 2, 1, 1])),
                                   lambda t: t.cov(t.tensor(X), aweights=t.tensor([1, 2, 1, 1])),
                                   lambda t: t.cov(t.tensor(X), fweights=t.tensor([1, 2])),
                                   lambda t: t.cov(t.tensor(X), fweights=t.tensor([1, -2, 1, 1])),
                                   lambda t: t.corrcoef(t.zeros(1, 1, 1)))),
    "logcumsumexp dist renorm vander": lambda t: (
        t.logcumsumexp(t.tensor(X), 1), t.tensor(X3).logcumsumexp(-2), t.logcumsumexp(t.tensor([-INF, 0.0, 800.0]), 0),
        t.logcumsumexp(t.tensor(2.0), 0), outcome(lambda t: t.logcumsumexp(t.tensor([1, 2]), 0), t)[0],
        t.dist(t.tensor(X), t.tensor(V)), t.tensor(X).dist(t.tensor(V), 1), t.dist(t.tensor(X), t.tensor(V), 0),
        t.dist(t.tensor(X), t.tensor(V), INF), t.dist(t.tensor(X), t.tensor(V), 3.5),
        t.renorm(t.tensor(X), 2, 0, 1.0), t.tensor(X3).renorm(1, -1, 2.5), t.renorm(t.tensor(X), INF, 1, 1.5),
        t.vander(t.tensor(V)), t.vander(t.tensor([1, 2, 3]), 4, True), t.tensor(V).new_tensor(V),
        t.vander(t.tensor([1, 2, 3], dtype=t.int8)), t.vander(t.tensor([1.0, 2.0]), 0), t.vander(t.tensor([2.0]), 1),
        ) + tuple(outcome(f, t)[0] for f in (lambda t: t.renorm(t.tensor(X), 2, 0, -1), lambda t: t.renorm(t.tensor(X), 0, 0, 1),
                                             lambda t: t.renorm(t.tensor(V), 2, 0, 1), lambda t: t.vander(t.tensor(X)),
                                             lambda t: t.vander(t.tensor(V), -1))),
    "erfinv lgamma digamma polygamma": lambda t: (
        t.erfinv(t.tensor([-1.0, -0.999999, -0.9, -0.5, 0.0, 1e-10, 0.3, 0.7, 0.99, 0.9999999, 1.0, 1.5, NAN])),
        t.erfinv(t.tensor(np.linspace(-0.999, 0.999, 41).tolist(), dtype=t.float64)), t.tensor([0, 1]).erfinv(),
        t.lgamma(t.tensor([0.0, -1.0, -1.5, 1e-300, 171.6, 2.0, 0.5, -INF, INF, NAN, 1e10], dtype=t.float64)),
        t.tensor(X).lgamma(), t.lgamma(t.tensor([1, 5])),  # (digamma in float64: float32 differs in the last bit)
        t.digamma(t.tensor([0.0, -0.0, -1.0, -1.5, 1e-8, 1.0, 10.0, 30.0, 1e20, -INF, INF, NAN], dtype=t.float64)),
        t.tensor(X, dtype=t.float64).digamma(), t.tensor(np.linspace(-4.9, 12.3, 37).tolist(), dtype=t.float64).digamma(),
        t.polygamma(1, t.tensor([0.5, 1.0, 2.5, 10.0, 40.0, -1.5], dtype=t.float64)),
        t.tensor([0.5, 1.0, 2.5, 10.0, -0.5], dtype=t.float64).polygamma(2), t.polygamma(3, t.tensor([0.25, 4.0])),
        t.polygamma(0, t.tensor([0.25, 4.0])), t.polygamma(1, t.tensor([0.0]))),
    "masked_scatter": lambda t: (
        t.masked_scatter(t.tensor(X), t.tensor(X) > 0, t.arange(12.0)),
        t.tensor(X).masked_scatter(t.tensor([True, False, False, True]), t.arange(20.0).reshape(4, 5)),
        t.zeros(2, 1).masked_scatter(t.tensor([[True, False, True]]), t.tensor([1.0, 2, 3, 4, 5, 6]))) + tuple(
        outcome(f, t)[0] for f in (lambda t: t.masked_scatter(t.tensor(X), t.ones(3, 4, dtype=t.long), t.tensor(X)),
                                   lambda t: t.masked_scatter(t.tensor(X), t.tensor(X) > 0, t.ones(12, dtype=t.float64)))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_torch(torch_ref, et, name):
    same(torch_ref, et, VALUES[name])


@pytest.mark.torch
def test_special_functions_to_the_last_bits(torch_ref, et):
    # (values above are compared to 6 decimals: here, relative to float64 precision)
    xs = np.concatenate([np.linspace(-7.9, 30, 301), np.geomspace(1e-6, 1e6, 60)])
    ys = np.concatenate([np.linspace(-0.9999, 0.9999, 201), 1 - np.geomspace(1e-15, 1e-2, 20)])
    for name, vals in (("lgamma", xs), ("digamma", xs), ("erfinv", ys)):
        ours = getattr(et, name)(et.tensor(vals, dtype=et.float64)).numpy()
        ref = getattr(torch_ref, name)(torch_ref.tensor(vals, dtype=torch_ref.float64)).numpy()
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-13, err_msg=name)
    for n in (1, 2, 3):
        ours = et.polygamma(n, et.tensor(xs, dtype=et.float64)).numpy()
        ref = torch_ref.polygamma(n, torch_ref.tensor(xs, dtype=torch_ref.float64)).numpy()
        np.testing.assert_allclose(ours, ref, rtol=1e-10, err_msg=f"polygamma {n}")


@pytest.mark.torch
def test_meshgrid_warns_once_without_indexing(torch_ref, et):
    def warned(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grids = t.meshgrid(t.tensor(V), t.tensor(W))
        return [str(w.message) for w in caught], [g.shape for g in grids]

    ref_first, ours_first = warned(torch_ref), warned(et)
    assert ours_first[1] == ref_first[1]
    if ref_first[0]:  # (the first call in this process: both warn)
        assert ours_first[0] == ref_first[0]
    assert warned(et)[0] == warned(torch_ref)[0] == []


# ----- Grads and nodes -----

GRADS = {
    "diff": (lambda t, x: t.diff(x), X),
    "diff n=2 dim 0": (lambda t, x: x.diff(n=2, dim=0), X),
    "diff prepend append": (lambda t, x, p: t.diff(x, prepend=p, append=x[:, :2]), X, [[1.0], [2.0], [3.0]]),
    "diff n=0": (lambda t, x: t.diff(x, 0), X),
    "tensordot": (lambda t, a, b: t.tensordot(a, b, 1), X, Y),
    "tensordot dims 2 (dot)": (lambda t, a, b: t.tensordot(a, b, 2), X, X),
    "tensordot transposed": (lambda t, a, b: t.tensordot(a, b, ([0], [0])), X, X),
    "tensordot 3-d": (lambda t, a, b: t.tensordot(a, b, ([1], [0])), X3, X),
    "tensordot size-1 dim": (lambda t, a, b: t.tensordot(a, b, ([1], [0])), X, [[1.0, 2.0]]),
    "tensordot outer": (lambda t, a, b: t.tensordot(a, b, 0), V, W),
    "inner": (lambda t, a, b: t.inner(a, b), X3, X),
    "inner vectors": (lambda t, a, b: a.inner(b), V, V),
    "inner 0-d": (lambda t, a, b: t.inner(a, b), X, 2.0),
    "meshgrid ij": (lambda t, a, b: t.meshgrid(a, b, indexing="ij"), V, W),
    "meshgrid xy": (lambda t, a, b, c: t.meshgrid(a, b, c, indexing="xy"), V, W, [1.0, 2.0]),
    "cdist": (lambda t, a, b: t.cdist(a, b), X, U),
    "cdist p=1": (lambda t, a, b: t.cdist(a, b, 1), X, U),
    "cdist p=3": (lambda t, a, b: t.cdist(a, b, 3), X, U),
    "cdist p=0.5": (lambda t, a, b: t.cdist(a, b, 0.5), X, U),
    "cdist p=inf": (lambda t, a, b: t.cdist(a, b, INF), X, U),
    "cdist batched": (lambda t, a, b: t.cdist(a, b), X3, U),
    "cdist zero distance": (lambda t, a, b: t.cdist(a, b), [[1.0, 2.0], [0.0, 1.0]], [[1.0, 2.0]]),
    "column_stack": (lambda t, a, b: t.column_stack([a, b, a * 2]), W, X[:3]),
    "column_stack 0-d": (lambda t, a, b: t.column_stack([a.sum(), b]), W, [2.0]),
    "dstack": (lambda t, a, b: t.dstack([a, b, a.sum()]), [[1.0]], [[2.0]]),
    "atleast_1d": (lambda t, a: t.atleast_1d(a.sum()), X),
    "atleast_2d": (lambda t, a: t.atleast_2d(a), V),
    "atleast_3d": (lambda t, a, b, c: t.atleast_3d(a, b, c.sum()), X, V, X),
    "movedim": (lambda t, a: t.movedim(a, (0, 1), (2, 0)), X3),
    "swapdims": (lambda t, a: a.swapdims(0, 2), X3),
    "tensor_split": (lambda t, a: t.tensor_split(a, 3, dim=1), X),
    "tensor_split indices": (lambda t, a: a.tensor_split([1, 3], 1), X),
    "hsplit": (lambda t, a: t.hsplit(a, 2), X),
    "vsplit dsplit": (lambda t, a: t.vsplit(a, [1]) + t.dsplit(a, 2), X3),
    "fliplr flipud": (lambda t, a: (t.fliplr(a), a.flipud()), X),
    "rot90": (lambda t, a: (t.rot90(a), a.rot90(2), t.rot90(a, -1, [1, 0])), X),
    "rot90 3-d": (lambda t, a: t.rot90(a, 3, [0, 2]), X3),
    "addmv": (lambda t, c, m, v: t.addmv(c, m, v), W, X, V),
    "addmv beta alpha broadcast": (lambda t, c, m, v: t.addmv(c, m, v, beta=0.5, alpha=2), 1.5, X, V),
    "addr": (lambda t, c, a, b: t.addr(c, a, b), X, W, V),
    "addr beta alpha": (lambda t, c, a, b: c.addr(a, b, beta=2, alpha=-0.5), [1.0, 2.0, 3.0, 4.0], W, V),
    "baddbmm": (lambda t, c, a, b: t.baddbmm(c, a, b), [[1.0] * 5] * 3, X3, Y3),
    "baddbmm beta alpha": (lambda t, c, a, b: t.baddbmm(c, a, b, beta=0.5, alpha=3), [[[1.0] * 5] * 3] * 2, X3, Y3),
    "addbmm": (lambda t, c, a, b: t.addbmm(c, a, b), [[1.0] * 5] * 3, X3, Y3),
    "addbmm beta alpha": (lambda t, c, a, b: c.addbmm(a, b, beta=2, alpha=0.5), [1.0] * 5, X3, Y3),
    "diag_embed": (lambda t, a: t.diag_embed(a), X),
    "diag_embed dims offset": (lambda t, a: a.diag_embed(1, 0, 2), X),
    "diagflat": (lambda t, a: t.diagflat(a, -1), X),
    "diagflat vector": (lambda t, a: a.diagflat(1), V),
    "block_diag": (lambda t, a, b, c: t.block_diag(a, b, c), X, V, 2.0),
    "cartesian_prod": (lambda t, a, b: t.cartesian_prod(a, b), V, W),
    "combinations": (lambda t, a: t.combinations(a), V),
    "combinations with replacement": (lambda t, a: t.combinations(a, 3, with_replacement=True), W),
    "logaddexp2": (lambda t, a, b: t.logaddexp2(a, b), X, V),
    "fmax": (lambda t, a, b: t.fmax(a, b), [1.0, NAN, 2.0, 3.0, 1.0], [NAN, 1.0, 2.0, 1.0, 4.0]),
    "fmin": (lambda t, a, b: a.fmin(b), [1.0, NAN, 2.0, 3.0, 1.0], [NAN, 1.0, 2.0, 1.0, 4.0]),
    "copysign": (lambda t, a, b: t.copysign(a, b), [1.0, -2.0, 0.0, 3.0], [-1.0, -1.0, 1.0, 0.0]),
    "copysign scalar": (lambda t, a: a.copysign(-2.0), [1.0, -2.0, 0.0, 3.0]),
    "nansum": (lambda t, a: t.nansum(a), [[1.0, NAN], [2.0, 3.0]]),
    "nansum dim": (lambda t, a: a.nansum(-1, keepdim=True), [[1.0, NAN], [2.0, 3.0]]),
    "nanmean": (lambda t, a: t.nanmean(a), [[1.0, NAN], [2.0, 3.0]]),
    "nanmean dim": (lambda t, a: a.nanmean(0), [[1.0, NAN], [2.0, 3.0]]),
    "aminmax": (lambda t, a: t.aminmax(a), [[1.0, 3.0], [3.0, 1.0]]),
    "aminmax dim": (lambda t, a: a.aminmax(dim=1), X),
    "aminmax min only": (lambda t, a: (a.aminmax(dim=0, keepdim=True).min,), X),
    "cov": (lambda t, a: t.cov(a), X),
    "cov vector": (lambda t, a: t.cov(a), V),
    "cov weights": (lambda t, a: t.cov(a, fweights=t.tensor([1, 2, 1, 1]),
                                      aweights=t.tensor([0.5, 1.0, 1.0, 2.0], dtype=t.float64)), X),
    "corrcoef": (lambda t, a: t.corrcoef(a), X),
    "logcumsumexp": (lambda t, a: t.logcumsumexp(a, 1), X),
    "logcumsumexp 3-d": (lambda t, a: a.logcumsumexp(0), X3),
    "dist": (lambda t, a, b: t.dist(a, b), X, V),
    "dist p": (lambda t, a, b: (a.dist(b, 1), a.dist(b, 3), a.dist(b, INF)), X, V),
    "renorm": (lambda t, a: t.renorm(a, 2, 0, 2.0), X),
    "renorm p=1 dim 1": (lambda t, a: a.renorm(1, 1, 1.5), X),
    "vander": (lambda t, a: t.vander(a), V),
    "vander N increasing": (lambda t, a: t.vander(a, 3, increasing=True), V),
    "erfinv": (lambda t, a: t.erfinv(a), [[-0.9, -0.3, 0.0, 0.5, 0.99]]),
    "lgamma": (lambda t, a: t.lgamma(a), [[0.5, 1.5, 3.0, -1.5, 10.0]]),
    "digamma": (lambda t, a: a.digamma(), [[0.5, 1.5, 3.0, -1.5, 10.0]]),
    "polygamma": (lambda t, a: (t.polygamma(1, a), a.polygamma(2)), [[0.5, 1.5, 3.0, -1.5, 10.0]]),
    "masked_scatter": (lambda t, a, s: t.masked_scatter(a, t.tensor(X) > 0, s), X, list(range(8))),
    "masked_scatter broadcast": (lambda t, a, s: a.masked_scatter(t.tensor([[True], [False], [True]]), s), V,
                                 [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_grads_match_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, graded(op, *values))


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_rule_graphs_match_torch(torch_ref, et, name):
    """The graph each rule builds from an upstream grad that requires grad (what a double backward
    draws): three levels of nodes below each input's grad."""
    op, *values = GRADS[name]

    def run(t):
        xs, us, gs = grads_with_graph(t, op, values)
        return [None if g is None else (g.requires_grad, names(g.grad_fn)) for g in gs]

    same(torch_ref, et, run)


# ----- Against finite differences -----

NO_GRADGRAD = {"cdist", "cdist p=1", "cdist p=3", "cdist p=0.5", "cdist p=inf", "cdist batched",
               "cdist zero distance"}  # (PyTorch's _cdist_backward has no derivative: neither checks it)
NOT_SMOOTH = {"vander", "vander N increasing",  # (PyTorch's own backward through vander fails: see GRADS)
              "fmax", "fmin", "copysign", "copysign scalar", "nansum", "nansum dim", "nanmean", "nanmean dim", "aminmax",
              "cdist zero distance", "cdist p=inf", "dist p", "cdist p=1", "renorm p=1 dim 1"}


@pytest.mark.parametrize("name", [n for n in GRADS if n not in NOT_SMOOTH])
def test_gradcheck(et, name):
    op, *values = GRADS[name]
    check_grads(et, op, values, gradgrad=name not in NO_GRADGRAD)


@pytest.mark.torch
def test_in_place_methods(torch_ref, et):
    def run(t):
        x = t.tensor(X, dtype=t.float64)
        c = t.tensor(W, dtype=t.float64).requires_grad_()
        y = c * 1
        y.addmv_(t.tensor(X, dtype=t.float64), t.tensor(V, dtype=t.float64), alpha=2)
        y.sum().backward()
        z = t.tensor([[0.5, 0.25]]).erfinv_().lgamma_().digamma_()
        return (y, names(y.grad_fn), c.grad, x.clone().copysign_(-1.0), x.clone().renorm_(2, 0, 1.0),
                x.clone().masked_scatter_(x > 0, t.zeros(12, dtype=t.float64)), x.clone().swapdims_(0, 1), z,
                t.tensor([0.5, 2.0]).polygamma_(1), t.zeros(3, 5).addbmm_(t.tensor(X3), t.tensor(Y3)))

    same(torch_ref, et, run)


BIG = np.random.default_rng(4).uniform(-1, 1, (28, 3)).round(3).tolist()  # (more than 25 rows, no two alike)
CDIST_MM = {
    "cdist by mm (rows > 25)": (lambda t, a, b: t.cdist(a, b), BIG, [r[:3] for r in U]),
    "cdist by mm forced": (lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), X, U),
    "cdist not by mm": (lambda t, a, b: t.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), BIG, BIG[:4]),
    "cdist by mm batched": (lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), X3, U),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CDIST_MM))
def test_cdist_by_matrix_products(torch_ref, et, name):
    op, *values = CDIST_MM[name]
    same(torch_ref, et, graded(op, *values))
    xs = [et.tensor(v, dtype=et.float64, requires_grad=True) for v in values]
    assert et.autograd.gradcheck(lambda *xs: op(et, *xs), xs)
    assert outcome(lambda t: t.cdist(t.tensor(X), t.tensor(U), compute_mode="fast"), et) == \
        outcome(lambda t: t.cdist(t.tensor(X), t.tensor(U), compute_mode="fast"), torch_ref)


def test_unsafe_split_and_empty_unbind(torch_ref, et):
    def run(T):
        x = T.arange(6.0, requires_grad=True)
        parts = T.unsafe_chunk(x, 3)
        sized = x.unsafe_split(4)
        (parts[0] * 2 + parts[2]).sum().backward()
        return (type(parts[0].grad_fn).__name__, parts[0]._base is None, parts[0].grad_fn._saved_split_size,
                type(sized[1].grad_fn).__name__, [p.shape[0] for p in sized], x.grad.tolist(),
                T.zeros(2, 0, requires_grad=True).unbind(1))

    assert run(et) == run(torch_ref) == ("UnsafeSplitBackward0", True, 2, "UnsafeSplitBackward0", [4, 2],
                                         [2.0, 2.0, 0.0, 0.0, 1.0, 1.0], ())
