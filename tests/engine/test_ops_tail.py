"""More of torch's long tail against real PyTorch: scatter_reduce and index_reduce (every reduction, with and
without self, ties, zeros, nan), slice_scatter, select_scatter, diagonal_scatter, put, narrow_copy and the
*_copy views, quantile and nanquantile (every interpolation), frexp, ldexp, nextafter, histogram,
unravel_index, fill, range, gradient, and Tensor.apply_ / map_ / map2_: values and dtypes, errors and
warnings, grads, grad_fn and next_functions (composites show PyTorch's nodes), saved attributes, in-place
forms, out=; and against finite differences, first and second order."""
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import check_grads, graded, grads_with_graph, names, outcome, same

NAN, INF = float("nan"), float("inf")
X = [[0.5, -1.0, 2.0, 3.5], [1.0, 4.0, -2.0, 0.0], [2.5, 1.5, 1.75, -0.5]]  # no two alike
S = [[1.25, 0.5, 2.0], [3.0, 4.25, 5.0]]  # (none equal to an element of A that it meets: no ties)
V = [1.5, -2.5, 1.25, 3.0, 2.5]  # (no power of two: frexp's mantissa jumps there)
M = [[1.0, 2, 4, 7], [2, 5, 9, 10], [0.5, -1, 3, 2]]
REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def saved(node):
    """A node's ``_saved_*`` attributes, as (name, value) pairs that ``same`` compares."""
    return [(a, getattr(node, a)) for a in dir(node) if a.startswith("_saved_")]


def errors(t, *fns):
    return [outcome(f, t)[0] for f in fns]


def _x(t):
    return t.tensor(X)


def _i(t):  # scatter's index into a (2, 3)
    return t.tensor([[0, 1, 0], [1, 0, 0]])


@pytest.fixture(autouse=True, scope="module")
def _index_reduce_warned():
    """index_reduce warns once a process (TORCH_WARN_ONCE): spent on both sides before the comparisons
    (test_index_reduce_beta_warning checks it in a process of its own)."""
    import importlib

    for name in ("torch", "engine"):
        try:
            t = importlib.import_module(name)
        except ImportError:  # (no PyTorch locally: its comparisons skip)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t.index_reduce(t.ones(2), 0, t.tensor([0]), t.ones(1), "prod")


# ----- Values, dtypes and errors -----

VALUES = {
    "scatter_reduce": lambda t: [t.scatter_reduce(t.tensor([[1., 2, 3], [4, 5, 6]]), 0, _i(t), t.tensor(S), r,
                                                  include_self=i) for r in REDUCTIONS for i in (True, False)],
    "scatter_reduce dim -1, index smaller than src": lambda t: [
        t.scatter_reduce(t.arange(12.).reshape(3, 4), -1, t.tensor([[3, 3], [0, 3], [1, 1]]), t.arange(9.).reshape(3, 3) - 2,
                         r, include_self=i) for r in REDUCTIONS for i in (True, False)],
    "scatter_reduce integers (mean floors)": lambda t: [
        t.scatter_reduce(s * t.tensor([[1, 2, 3], [4, 5, 6]], dtype=dt), 0, _i(t),
                         s * t.tensor([[1, 0, 2], [3, 4, 7]], dtype=dt), r, include_self=i)
        for dt in (t.int64, t.int32) for s in (1, -1) for r in REDUCTIONS for i in (True, False)],
    "scatter_reduce bool, nan, 0-d, empty": lambda t: [
        t.scatter_reduce(t.tensor([True, False]), 0, t.tensor([0, 1]), t.tensor([True, True]), r)
        for r in ("sum", "prod", "amax", "amin")] + [
        t.scatter_reduce(t.tensor([1., NAN]), 0, t.tensor([0, 1, 0]), t.tensor([NAN, 1, 2]), "amax"),
        t.scatter_reduce(t.tensor([1., NAN]), 0, t.tensor([0, 1, 0]), t.tensor([NAN, 1, 2]), "amin", include_self=False),
        t.scatter_reduce(t.tensor(1.), 0, t.tensor(0), t.tensor(3.), "sum"),
        t.scatter_reduce(t.tensor([1.]), 0, t.tensor([], dtype=t.long), t.tensor([]), "mean", include_self=False),
        t.scatter_reduce(_x(t), 0, t.tensor([[0, 1, 0, 1]]).int(), t.ones(1, 4), "max"),
        _x(t).scatter_reduce(1, t.tensor([[0], [0], [3]]), t.ones(3, 1), reduce="min")],
    "scatter_reduce errors": lambda t: errors(
        t, lambda t: t.scatter_reduce(_x(t), 0, _i(t).float(), t.ones(2, 3), "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, _i(t), t.ones(2, 3, dtype=t.float64), "sum"),
        lambda t: t.scatter_reduce(_x(t), 2, _i(t), t.ones(2, 3), "sum"),
        lambda t: t.scatter_reduce(t.ones(2, 3), 0, _i(t), t.ones(2, 2), "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, t.tensor([[3]]), t.ones(2, 3), "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, t.tensor([[-1]]), t.ones(2, 3), "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, t.tensor([0]), t.ones(2, 3), "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, _i(t), 2.0, "sum"),
        lambda t: _x(t).scatter_reduce(0, _i(t), 2.0, "sum"),
        lambda t: _x(t).scatter_reduce_(0, _i(t), 2.0, "sum"),
        lambda t: t.scatter_reduce(_x(t), 0, _i(t), t.ones(2, 3)),
        lambda t: t.scatter_reduce(_x(t), 0, _i(t), t.ones(2, 3), "add"),
        lambda t: t.scatter_reduce(_x(t), 0, _i(t), t.ones(2, 3), "foo"),
        lambda t: t.scatter_reduce(t.tensor([True]), 0, t.tensor([0]), t.tensor([True]), "mean")),
    "index_reduce": lambda t: [t.index_reduce(_x(t), d, idx, s, r, include_self=i)
                               for d, idx,
                               s in ((1, t.tensor([2, 0, 2]), t.tensor([[1., 0, 2], [3, 4, 5], [0.5, 6, 1]])),
                                                 (0, t.tensor([1, 1]), t.tensor([[1., 0, 2, 5], [3, 4, 5, -1]])))
                               for r in ("prod", "mean", "amax", "amin") for i in (True, False)],
    "index_reduce integers, 0-d, nan, int32 index": lambda t: [
        t.index_reduce(t.tensor([[1, 2], [3, 4]]), 1, t.tensor([1, 1]), t.tensor([[5, 6], [-7, 8]]), r, include_self=i)
        for r in ("prod", "mean", "amax", "amin") for i in (True, False)] + [
        t.index_reduce(t.tensor(2.), 0, t.tensor([0]), t.tensor(3.), "prod"),
        t.index_reduce(t.tensor([[1., NAN], [2, 3]]), 0, t.tensor([1, 1, 0]), t.tensor([[NAN, 1], [2, 0], [5, 5]]), "amax"),
        t.index_reduce(_x(t), -1, t.tensor([1, 0, 0], dtype=t.int32), t.ones(3, 3), "amin")],
    "index_reduce errors": lambda t: errors(
        t, lambda t: t.index_reduce(_x(t), 0, t.tensor([1, 0, 2]), t.ones(3, 4), "sum"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([1, 0]), t.ones(3, 4), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([1, 0.]), t.ones(2, 4), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([[1, 0]]), t.ones(2, 4), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([1, 3]), t.ones(2, 4), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([1, -1]), t.ones(2, 4), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([1, 0]), t.ones(2, 4, dtype=t.float64), "prod"),
        lambda t: t.index_reduce(_x(t), 1, t.tensor([1, 0, 0]), t.ones(2, 3), "prod"),
        lambda t: t.index_reduce(t.tensor(2.), 0, t.tensor(0), t.tensor([3.]), "prod"),
        lambda t: t.index_reduce(_x(t), 0, t.tensor([0]), 1.0, "prod"),
        lambda t: _x(t).index_reduce(0, t.tensor([0]), 1.0, "prod"),
        lambda t: _x(t).index_reduce(0, t.tensor([0]), t.ones(1, 4), "max")),
    "slice_scatter": lambda t: (
        t.slice_scatter(_x(t), t.ones(3, 2), 1, 1, 3), t.slice_scatter(_x(t), t.ones(3, 2), 1, 0, 4, 2),
        t.slice_scatter(_x(t), t.ones(3, 2, dtype=t.float64), 1, 1, 3),
        t.slice_scatter(_x(t), t.ones(3, 2, dtype=t.int64), -1, -2),
        t.slice_scatter(_x(t), t.ones(3, 0), 1, 5, 9), _x(t).slice_scatter(t.ones(1, 4), start=2),
        t.slice_scatter(_x(t), t.ones(3, 0), 1, 3, 1), t.slice_scatter(_x(t), t.ones(3, 2), 1, None, None, 3),
        t.slice_scatter(t.arange(6).reshape(2, 3), t.ones(2, 1), 1, 2)) + tuple(errors(
            t, lambda t: t.slice_scatter(_x(t), t.ones(3, 3), 1, 1, 3),
            lambda t: t.slice_scatter(_x(t), t.ones(3, 2), 1, step=0),
            lambda t: t.slice_scatter(_x(t), t.ones(3, 2), 1, step=-1),
            lambda t: t.slice_scatter(_x(t), t.ones(3, 2), 2),
            lambda t: t.slice_scatter(_x(t), 1.0, 1), lambda t: _x(t).slice_scatter(1.0),
            lambda t: t.slice_scatter(_x(t), t.ones(3, 4, 1)), lambda t: t.slice_scatter(t.tensor(3.), t.tensor(1.)))),
    "select_scatter": lambda t: (
        t.select_scatter(_x(t), t.ones(4), 0, 1), t.select_scatter(_x(t), t.ones(3), 1, -1),
        _x(t).select_scatter(t.ones(3), -1, 2),
        t.select_scatter(_x(t), t.ones(3, dtype=t.int64), 1, 0),
        t.select_scatter(t.tensor([1., 2]), t.tensor(5.), 0, 1),
        t.select_scatter(_x(t), t.ones(4), 0, t.tensor(1))) + tuple(errors(
            t, lambda t: t.select_scatter(_x(t), t.ones(3), 1, 4), lambda t: t.select_scatter(_x(t), t.ones(3), 1, -5),
            lambda t: t.select_scatter(_x(t), t.ones(4), 1, 0), lambda t: t.select_scatter(_x(t), t.ones(3, 1), 1, 0),
            lambda t: t.select_scatter(t.tensor(3.), t.tensor(1.), 0, 0), lambda t: _x(t).select_scatter(1., 0, 0))),
    "diagonal_scatter": lambda t: (
        t.diagonal_scatter(_x(t), t.ones(3)), t.diagonal_scatter(_x(t), t.ones(3), 1),
        t.diagonal_scatter(_x(t), t.ones(2), -1),
        _x(t).diagonal_scatter(t.ones(2), 2, 1, 0), t.diagonal_scatter(_x(t), t.ones(3, dtype=t.int64)),
        t.diagonal_scatter(_x(t), t.ones(0), 5),
        t.diagonal_scatter(t.ones(2, 3, 4), t.zeros(4, 2), 0, 0, 1)) + tuple(errors(
            t, lambda t: t.diagonal_scatter(_x(t), t.ones(3), 0, 0, 0), lambda t: t.diagonal_scatter(_x(t), t.ones(2)),
            lambda t: t.diagonal_scatter(t.ones(3), t.tensor(1.)), lambda t: _x(t).diagonal_scatter(1.))),
    "put": lambda t: (
        _x(t).put(t.tensor([1, -1]), t.tensor([9., 8.])), _x(t).put(t.tensor([[1], [2]]), t.tensor([9., 8.])),
        _x(t).put(t.tensor([1, 1, 2]), t.tensor([9., 8., 1]), accumulate=True),
        _x(t).put(t.tensor([1, 1, 2]), t.tensor([9., 8., 1])),
        t.put(_x(t), t.tensor([1, 2]), t.tensor([9., 8.]), True), t.tensor(3.).put(t.tensor([0]), t.tensor([9.])),
        t.zeros(0).put(t.tensor([], dtype=t.long), t.tensor([])),
        t.put(t.tensor([1, 2, 3]), t.tensor([0]), t.tensor([7])),
        (lambda a: (a.put_(t.tensor([0, 3]), t.tensor([7., 6.]), accumulate=True), a, a._version))(_x(t))) + tuple(errors(
            t, lambda t: _x(t).put(t.tensor([1, 12]), t.tensor([9., 8.])),
            lambda t: _x(t).put(t.tensor([1, -13]), t.tensor([9., 8.])),
            lambda t: _x(t).put(t.tensor([1, 2]), t.tensor([9., 8., 7])),
            lambda t: _x(t).put(t.tensor([1., 2]), t.tensor([9., 8.])),
            lambda t: _x(t).put(t.tensor([1, 2], dtype=t.int32), t.tensor([9., 8.])),
            lambda t: _x(t).put(t.tensor([1, 2]), t.tensor([9., 8.], dtype=t.float64)),
            lambda t: t.zeros(0).put(t.tensor([0]), t.tensor([9.])), lambda t: t.put(_x(t), t.tensor([0]), 7.),
            lambda t: _x(t).put_(t.tensor([0]), 7.), lambda t: t.put(1., t.tensor([0]), t.ones(1)))),
    "narrow_copy": lambda t: (
        t.narrow_copy(_x(t), 1, 1, 2), t.narrow_copy(_x(t), 1, -2, 2), _x(t).narrow_copy(0, t.tensor(1), 1),
        t.narrow_copy(_x(t), -1, 4, 0)) + tuple(errors(
            t, lambda t: t.narrow_copy(_x(t), 1, 3, 2), lambda t: t.narrow_copy(_x(t), 1, 5, 0),
            lambda t: t.narrow_copy(_x(t), 1, -5, 0), lambda t: t.narrow_copy(_x(t), 1, 1, -1),
            lambda t: t.narrow_copy(_x(t), 2, 1, 1), lambda t: t.narrow_copy(t.tensor(3.), 0, 0, 1))),
    "the *_copy views": lambda t: (
        t.view_copy(_x(t), (2, -1)), t.view_copy(_x(t).t(), (12,)), t.t_copy(_x(t)), t.permute_copy(_x(t), (1, 0)),
        t.transpose_copy(_x(t), 0, 1), t.expand_copy(t.ones(3, 1), (3, 4)),
        t.expand_copy(t.ones(3, 1), (2, -1, 4), implicit=True),
        t.squeeze_copy(t.ones(3, 1, 2)), t.squeeze_copy(t.ones(3, 1, 2), 1), t.squeeze_copy(t.ones(3, 1, 1), (1, 2)),
        t.unsqueeze_copy(_x(t), -1), t.select_copy(_x(t), 1, 2), t.slice_copy(_x(t)),
        t.slice_copy(_x(t), 1, 1, None, 2),
        t.diagonal_copy(_x(t), 1), t.diagonal_copy(_x(t), 0, 1, 0), t.alias_copy(_x(t)), t.unbind_copy(_x(t), 1),
        t.split_copy(_x(t), 3, 1), t.split_copy(_x(t), 5), t.split_with_sizes_copy(_x(t), [1, 3], 1),
        t.unfold_copy(_x(t), 1, 2, 2), t.detach_copy(_x(t)), type(t.split_copy(_x(t), 2)).__name__,
        t.t_copy(_x(t)).is_contiguous(), t.narrow_copy(_x(t), 1, 1, 2).is_contiguous()) + tuple(errors(
            t, lambda t: t.view_copy(_x(t), (5, -1)), lambda t: t.t_copy(t.ones(2, 2, 2)),
            lambda t: t.permute_copy(_x(t), (1, 1)),
            lambda t: t.expand_copy(t.ones(3, 2), (3, 4)), lambda t: t.unsqueeze_copy(_x(t), 5),
            lambda t: t.select_copy(_x(t), 1, 9),
            lambda t: t.slice_copy(_x(t), 1, step=0), lambda t: t.split_with_sizes_copy(_x(t), [1, 1]),
            lambda t: t.unfold_copy(_x(t), 1, 5, 2), lambda t: t.t_copy(1.0))),
    "copies are no views": lambda t: (
        (lambda a: (t.view_copy(a, (12,)).add_(1), a))(_x(t)), (lambda a: (t.t_copy(a).add_(1), a))(_x(t)),
        (lambda a: [p.add_(1) for p in t.unbind_copy(a)] + [a])(_x(t)),
        (lambda a: (t.narrow_copy(a, 0, 0, 1).add_(1), a))(_x(t)),
        (lambda a: (t.diagonal_copy(a).add_(1), a))(_x(t)),
        t.t_copy(_x(t).requires_grad_()).add_(1)),
    "detach_copy's grad is not implemented": lambda t: errors(
        t, lambda t: t.detach_copy(_x(t).requires_grad_()).sum().backward(),
        lambda t: t.detach_copy(_x(t).requires_grad_()).grad_fn.name()),
    "quantile": lambda t: [t.quantile(_x(t), q, d, k, interpolation=m)
                           for q in (0.0, 0.4, 0.5, 0.9, 1.0, t.tensor([0.1, 0.75, 0.33]))
                           for d in (None, 0, 1, -1) for k in (False, True)
                           for m in ("linear", "lower", "higher", "midpoint", "nearest")],
    "quantile 3-d, float64, 0-d, empty q": lambda t: [
        t.quantile(t.arange(24.).reshape(2, 3, 4).sin(), q, d, k, interpolation=m) for q in (0.3, t.tensor([0.1, 0.75]))
        for d in (None, 0, 1, 2) for k in (False, True) for m in ("linear", "nearest")] + [
        t.quantile(_x(t).double(), 0.4), _x(t).quantile(0.5, 1, True, interpolation="nearest"), t.quantile(_x(t), True),
        t.quantile(_x(t), t.tensor(0.3)), t.quantile(t.tensor(3.), 0.3),
        t.quantile(t.tensor(3.), 0.3, dim=0, keepdim=True),
        t.quantile(t.tensor(3.), t.tensor([0.3, 0.6]), dim=-1, keepdim=True), t.quantile(_x(t), 1e-7),
        t.quantile(t.tensor([0., 1, 2, 3, 4]), t.tensor([0.125, 0.375, 0.625]), interpolation="nearest")] + [
        t.quantile(_x(t), t.tensor([]), dim=0, interpolation=m) for m in ("linear", "lower", "higher", "midpoint", "nearest")],
    "quantile nan, nanquantile": lambda t: [
        t.quantile(t.tensor([1., NAN, 3]), 0.5), t.nanquantile(t.tensor([1., NAN, 3]), 0.5),
        t.quantile(t.tensor([[NAN, 1, 2], [1., 0, 3]]), t.tensor([0.2, 0.5]), dim=1, interpolation="lower")] + [
        t.nanquantile(t.tensor([[NAN, 1, 2, 5], [1., 0, 3, NAN], [NAN, NAN, NAN, NAN]]), q, d, k, interpolation=m)
        for q in (0.0, 0.4, 1.0, t.tensor([0.1, 0.75])) for d in (None, 0, 1) for k in (False, True)
        for m in ("linear", "lower", "higher", "midpoint", "nearest")],
    "quantile errors": lambda t: errors(
        t, lambda t: t.quantile(_x(t), 1.5), lambda t: t.quantile(_x(t), -0.1), lambda t: t.nanquantile(_x(t), 1.5),
        lambda t: t.quantile(_x(t), 2), lambda t: t.quantile(_x(t), NAN), lambda t: t.quantile(_x(t), 123456789.0),
        lambda t: t.quantile(t.zeros(0), 0.5), lambda t: t.quantile(t.zeros(0), 1.5),
        lambda t: t.quantile(_x(t), t.tensor([[0.5]])),
        lambda t: t.quantile(_x(t).long(), 0.5), lambda t: t.quantile(_x(t), t.tensor([0.5], dtype=t.float64)),
        lambda t: t.quantile(_x(t), 0.5, interpolation="foo"), lambda t: t.quantile(_x(t), t.tensor([0.5, 1.5])),
        lambda t: t.nanquantile(_x(t), t.tensor([0.5, 1.5])), lambda t: t.quantile(_x(t), t.tensor(NAN)),
        lambda t: t.quantile(_x(t), 0.5, dim=2), lambda t: t.quantile(_x(t), 0.5, dim=-3),
        lambda t: t.quantile(t.zeros(2, 0), 0.5, dim=1),
        lambda t: t.quantile(t.zeros(1, dtype=t.long), t.tensor([[2.]], dtype=t.float64), dim=5, interpolation="foo"),
        lambda t: t.quantile(t.zeros(1), t.tensor([2.]), dim=5), lambda t: t.quantile(t.zeros(0), 0.5, dim=5),
        lambda t: t.quantile(t.zeros(1), t.tensor([2.], dtype=t.float64), dim=5)),
    "frexp": lambda t: (
        t.frexp(t.tensor([0.0, -1.5, 3.0, 1e-40, INF, NAN, 8.0, -0.0])),
        t.frexp(t.tensor([0.0, -1.5, 3.0, 1e-300, INF, NAN], dtype=t.float64)),
        t.frexp(t.tensor([1., 2], dtype=t.float16)),
        t.tensor([3.]).frexp(), t.frexp(t.tensor(-0.)), type(t.frexp(t.tensor([3.]))).__name__,
        repr(t.frexp(t.tensor([3.]))),
        t.frexp(t.tensor([3.])).exponent, outcome(lambda t: t.frexp(t.tensor([1, 2])), t)[0]),
    "ldexp": lambda t: (
        t.ldexp(t.tensor([1., 2]), t.tensor([1.5, -1])), t.ldexp(t.tensor([1, 2]), t.tensor([1, 2], dtype=t.int32)),
        t.ldexp(t.tensor([1., 2], dtype=t.float64), t.tensor([1, 2])),
        t.ldexp(t.tensor([1., 2]), t.tensor([1, 2.], dtype=t.float64)),
        t.ldexp(t.tensor([True]), t.tensor([2])), t.ldexp(t.tensor([1., 2], dtype=t.float16), t.tensor([1, 2])),
        t.ldexp(t.tensor([1., 2]), t.tensor([[1], [2]])), t.ldexp(t.tensor([3.]), t.tensor([200])),
        t.ldexp(t.tensor([3.]), t.tensor([-160])), t.ldexp(t.tensor([3.]), t.tensor([-149])),
        t.tensor([1., 2]).ldexp(t.tensor([3])),
        t.tensor([1., 2]).ldexp_(t.tensor([1.5, 2])),
        t.tensor([1., 2]).ldexp_(t.tensor([1, 2.], dtype=t.float64))) + tuple(errors(
            t, lambda t: t.ldexp(t.tensor([1., 2]), 3), lambda t: t.tensor([1, 2]).ldexp_(t.tensor([1, 2])))),
    "nextafter": lambda t: (
        t.nextafter(t.tensor([0., -0.]), t.tensor([1., -1])), t.nextafter(t.tensor([1., INF]), t.tensor([NAN, 0])),
        t.nextafter(t.tensor([1., 2]), t.tensor([1])),
        t.nextafter(t.tensor([1., 2]), t.tensor([2., 1], dtype=t.float64)),
        t.nextafter(t.tensor([1., 2], dtype=t.float64), t.tensor([2., 1], dtype=t.float64)) - t.tensor([1., 2], dtype=t.float64),
        t.nextafter(t.tensor([1., 2], dtype=t.float16), t.tensor([2., 1], dtype=t.float16)),
        t.tensor([1., 2]).nextafter_(t.tensor([0., 3])) - t.tensor([1., 2]),
        t.tensor([1., 2]).nextafter_(t.tensor([2., 1], dtype=t.float64)),
        t.tensor([1., 2]).nextafter(t.tensor([3.])) - 1) + tuple(errors(
            t, lambda t: t.nextafter(t.tensor([1.]), 2.), lambda t: t.nextafter(t.tensor([1, 2]), t.tensor([2, 1])))),
    "histogram": lambda t: (
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), 4),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), bins=t.tensor([0., 1.5, 3, 5])),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), bins=3, range=(0., 3.), weight=t.tensor([1., 2, 3, 4, 5]), density=True),
        type(t.histogram(t.ones(2), 2)).__name__, repr(t.histogram(t.tensor([1., 2]), 2)),
        t.histogram(t.tensor([]), 3), t.histogram(t.tensor([]), 3, density=True), t.histogram(t.tensor([2., 2.]), 2),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), t.tensor([3., 1, 5])),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), 3, range=[1, 3]),
        t.histogram(t.tensor([[1., 2, 1], [4, 2.5, 0]]), 3, weight=t.ones(6, 1)),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), t.tensor([1., 2, 4]), weight=t.tensor([1., 2, 3, 4, 5]), density=True),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5], dtype=t.float64), 4, density=True),
        t.histogram(t.tensor([0.1, 0.2, 0.3, 0.7, 1.0]), 10), t.histogram(t.tensor(3.), 2),
        t.histogram(t.tensor([1., 2, 1, 4, 2.5]), 3, weight=t.zeros(5), density=True),
        t.tensor([1., 2, 1, 4, 2.5]).histogram(3),
        t.histogram(t.linspace(-3, 3, 1001).sin(), 100), t.histogram(t.arange(100.) / 10, 100, range=(0, 10)),
        t.histogram(t.arange(100., dtype=t.float64) / 7, 13)) + tuple(errors(
            t, lambda t: t.histogram(t.ones(3), 0), lambda t: t.histogram(t.ones(3), 3, range=(2., 1.)),
            lambda t: t.histogram(t.ones(3), 3, range=(0., INF)), lambda t: t.histogram(t.tensor([1., NAN]), 3),
            lambda t: t.histogram(t.ones(3), 3, weight=t.ones(3, dtype=t.float64)),
            lambda t: t.histogram(t.ones(3), 3, weight=t.ones(4)),
            lambda t: t.histogram(t.ones(3), t.tensor([0., 1], dtype=t.float64)),
            lambda t: t.histogram(t.ones(3), t.tensor([[0., 1]])),
            lambda t: t.histogram(t.ones(3), t.tensor([0.])), lambda t: t.histogram(t.ones(3), t.tensor([])),
            lambda t: t.histogram(t.ones(3), 3, range=(1, 2, 3)), lambda t: t.histogram(t.tensor([1, 2]), 3),
            lambda t: t.histogram(t.ones(3).half(), 2))),
    "histogram's grad is not implemented": lambda t: (
        (lambda h: (h, h.hist.grad_fn.name(), [f is None for f, _ in h.hist.grad_fn.next_functions],
                    h.bin_edges.grad_fn is h.hist.grad_fn))(
            t.histogram(t.tensor([1., 2, 1, 4]).requires_grad_(), 2, weight=t.ones(4, requires_grad=True))),
        outcome(lambda t: t.histogram(t.tensor([1., 2, 1, 4]).requires_grad_(), 2).hist.sum().backward(), t)[0]),
    "unravel_index": lambda t: (
        t.unravel_index(t.tensor([4, 1, 7]), (3, 3)), t.unravel_index(t.tensor(4), (3, 3)),
        t.unravel_index(t.tensor([10, -1]), (3, 3)),
        t.unravel_index(t.tensor([1]), 5), t.unravel_index(t.tensor([1], dtype=t.int32), (2, 3)),
        t.unravel_index(t.tensor([[1234], [5678]]), (10, 10, 10, 10)), t.unravel_index(t.tensor([3]), ()),
        t.unravel_index(t.tensor([3, 4]), t.Size([2, 3])), t.unravel_index(t.tensor([3]), [True, 4])) + tuple(errors(
            t, lambda t: t.unravel_index(5, (2, 3)), lambda t: t.unravel_index(t.tensor([1.]), (3, 3)),
            lambda t: t.unravel_index(t.tensor([True]), (2,)), lambda t: t.unravel_index(t.tensor([1]), (3, -3)),
            lambda t: t.unravel_index(t.tensor([1]), (2.0, 3)), lambda t: t.unravel_index(t.tensor([1]), "ab"),
            lambda t: t.unravel_index(t.tensor([1]), 2.0))),
    "fill": lambda t: (
        t.fill(t.zeros(2), 3.0), t.fill(t.tensor([1, 2]), True), t.fill(t.tensor([True, False]), 2),
        t.fill(t.tensor([1, 2]), 2.7),
        t.fill(t.ones(2), t.tensor(3, dtype=t.int64)), t.fill(t.ones(2, dtype=t.int64), t.tensor(3.7)),
        t.fill(t.ones(2), value=3.),
        (lambda a: (t.fill(a, 3.0), a))(t.ones(2)),
        outcome(lambda t: t.fill(t.ones(2), t.tensor([3.7])), t)[0]),
    "range (deprecated: warns each call)": lambda t: (
        t.range(1, 4), t.range(1, 4, 0.5), t.range(0, 1, 0.3), t.range(1, 4, dtype=t.int64),
        t.range(1.7, 4.2, dtype=t.int64),
        t.range(0, 1, 0.1), t.range(0, 1, 0.1, dtype=t.float64), t.range(5, 1, -1.5), t.range(1, 4, requires_grad=True),
        t.range(t.tensor(1.), t.tensor(3)), t.range(1, 1), t.range(0, 10, 3, dtype=t.int32), t.range(True, 3),
        t.range(end=3, start=1), t.range(0, 1, dtype=t.float16, step=0.25), t.range(-1, 1, 0.1)) + tuple(errors(
            t, lambda t: t.range(4, 1), lambda t: t.range(1, 4, 0), lambda t: t.range(0, INF),
            lambda t: t.range(1, 4, dtype=t.int64, requires_grad=True), lambda t: t.range(1),
            lambda t: t.range(1, 4, dtype=t.bool))),
    "gradient": lambda t: (
        t.gradient(t.tensor([1., 4, 9, 16, 25])), t.gradient(t.tensor(M), spacing=2.0, dim=1, edge_order=2),
        t.gradient(t.tensor([1., 4, 9, 16, 25]), spacing=(t.tensor([0., 1, 3, 4, 7]),)),
        t.gradient(t.tensor([1., 4, 9, 16, 25]), spacing=(t.tensor([0., 1, 3, 4, 7]),), edge_order=2),
        t.gradient(t.tensor([1., 4, 9, 16, 25]), spacing=(t.tensor([0, 1, 3, 4, 7]),), edge_order=2),
        t.gradient(t.tensor(M)), t.gradient(t.tensor([[1, 2, 4], [2, 5, 9]])),
        t.gradient(t.tensor([[1, 2, 4], [2, 5, 9]]), spacing=2),
        t.gradient(t.tensor([[1, 2, 4], [2, 5, 9]]), spacing=2, edge_order=2, dim=1),
        t.gradient(t.tensor(M), spacing=[1.0, 2.0]),
        t.gradient(t.tensor(M), dim=(1, 0)), t.gradient(t.tensor(M), edge_order=2),
        t.gradient(t.tensor(M), dim=1, edge_order=2, spacing=[t.tensor([0., 0.5, 2, 2.5])]), t.gradient(t.tensor(3.)),
        t.gradient(t.arange(24.).reshape(2, 3, 4).cos(),
                   spacing=[t.tensor([0., 1]), t.tensor([1., 1.5, 3]), t.tensor([-1, 0, 2, 3])]),
        t.gradient(t.arange(24.).reshape(2, 3, 4).cos(), spacing=[t.tensor([1., 1.5, 3]), t.tensor([-1., 0, 2, 3.5])],
                   dim=[1, 2], edge_order=2),
        t.gradient(t.arange(24, dtype=t.float64).reshape(2, 3, 4).cos(), spacing=[0.5, 3], dim=[-1, 1],
                   edge_order=2)) + tuple(errors(
            t, lambda t: t.gradient(t.tensor(M), spacing=[1.0]),
            lambda t: t.gradient(t.tensor(M), spacing=[1.0], dim=(0, 1)),
            lambda t: t.gradient(t.tensor(M), dim=(1, -1)), lambda t: t.gradient(t.tensor(M), dim=2),
            lambda t: t.gradient(t.tensor(M), edge_order=3), lambda t: t.gradient(t.tensor([[1., 2]]), edge_order=2),
            lambda t: t.gradient(t.tensor(M), dim=1, spacing=[t.tensor([[0., 0.5, 2, 3]])]),
            lambda t: t.gradient(t.tensor([1, 2, 3], dtype=t.uint8)))),
    "apply_ map_ map2_": lambda t: (
        t.tensor([1., 2, 3]).apply_(lambda v: v * 2),
        t.tensor([1., 2, 3]).map_(t.tensor([1., 1, 1]), lambda u, v: u + v),
        t.tensor([1., 2, 3]).map2_(t.tensor([1., 1, 1]), t.tensor([2., 2, 2]), lambda a, b, c: a + b * c),
        t.tensor([[1., 2], [3, 4]]).map2_(t.tensor([[1.], [2]]), t.tensor([5., 6]), lambda u, v, w: u * 100 + v * 10 + w),
        t.tensor([1, 2]).apply_(lambda v: v * 1.7), t.tensor([True, False]).apply_(lambda v: not v),
        t.tensor([1, 2]).apply_(lambda v: type(v).__name__ == "int" and 5),
        t.tensor([1.5, 2]).apply_(lambda v: type(v).__name__ == "float" and v),
        t.tensor([True, False]).apply_(lambda v: type(v).__name__ == "bool"),
        t.tensor([True, False]).apply_(lambda v: 2),
        t.tensor([1., 2]).apply_(lambda v: True), t.tensor([[1., 2], [3, 4]]).t().apply_(lambda v: v + 1),
        t.tensor([[1., 2], [3, 4]]).t().map_(t.tensor([10., 20]), lambda u, v: u + v),
        t.tensor(3.).apply_(lambda v: v * 2),
        t.zeros(0).apply_(lambda v: v * 2), t.tensor([1, 2], dtype=t.uint8).apply_(lambda v: v - 3),
        t.tensor([1., 2]).apply_(lambda v: 10 ** 40), t.tensor([1., 2], dtype=t.float16).apply_(lambda v: v / 3),
        t.tensor([1], dtype=t.int64).apply_(lambda v: True), t.tensor([True]).apply_(lambda v: 0.0),
        t.tensor([1.]).apply_(lambda v: NAN), t.tensor([1.]).apply_(lambda v: t.tensor(5.)),
        t.tensor([1]).apply_(lambda v: t.tensor(5)),
        t.tensor([1.]).apply_(lambda v: np.float32(2.5)), t.tensor([1]).apply_(lambda v: np.int64(7)),
        (lambda a: (a.apply_(lambda v: v + 1) is a, a, a._version))(t.tensor([1., 2.]))) + tuple(errors(
            t, lambda t: t.tensor([1., 2], requires_grad=True).apply_(lambda v: v),
            lambda t: t.tensor([1, 2]).map_(t.tensor([1., 2]), lambda u, v: u + v),
            lambda t: t.tensor([[1, 2]]).map_(t.tensor([[1], [2]]), lambda u, v: u + v),
            lambda t: t.tensor([1, 2]).map_(t.tensor([[1], [2]]), lambda u, v: u + v),
            lambda t: t.tensor([1., 2]).apply_(lambda v: "x"), lambda t: t.tensor([1, 2]).apply_(lambda v: "x"),
            lambda t: t.tensor([1, 2]).apply_(lambda v: None), lambda t: t.tensor([1., 2]).apply_(lambda v: None),
            lambda t: t.tensor([1., 2]).apply_(lambda v: 1 / 0), lambda t: t.tensor([1., 2]).apply_(5),
            lambda t: t.tensor([1., 2]).map_(t.tensor([1., 2]), 5),
            lambda t: t.tensor([1., 2]).map_([1, 2], lambda u, v: u),
            lambda t: t.tensor([1., 2, 3]).map2_(t.tensor([1, 2, 3]), t.tensor([1., 2, 3]), lambda *v: 1.0),
            lambda t: t.tensor([1., 2, 3]).map2_(t.tensor([1., 2, 3]), t.tensor([1, 2, 3]), lambda *v: 1.0),
            lambda t: t.tensor([1., 2, 3]).requires_grad_().map_(t.tensor([1., 2, 3]), lambda *v: 1.0),
            lambda t: t.tensor([1., 2, 3]).map_(t.tensor([1., 2, 3]).requires_grad_(), lambda u, v: u + v),
            lambda t: t.tensor([1., 2, 3]).map2_(t.tensor([1., 2, 3]).requires_grad_(), t.tensor([1., 2, 3]), lambda *v: 1.0),
            lambda t: t.tensor([1., 2, 3]).map2_(t.tensor([[1.], [2]]), t.tensor([1., 2, 3]), lambda *v: 1.0),
            lambda t: t.tensor([[1., 2]]).map_(t.tensor([1., 2, 3]), lambda u, v: u),
            lambda t: t.tensor([1, 2], dtype=t.int8).apply_(lambda v: v + 200),
            lambda t: t.tensor([1, 2]).apply_(lambda v: 10 ** 40),
            lambda t: t.tensor([1], dtype=t.uint8).apply_(lambda v: 300),
            lambda t: t.tensor([1], dtype=t.uint8).apply_(lambda v: -300),
            lambda t: t.tensor([1], dtype=t.int32).apply_(lambda v: 2 ** 31),
            lambda t: t.tensor([1]).apply_(lambda v: 2 ** 63),
            lambda t: t.tensor([True]).apply_(lambda v: "x"),
            lambda t: t.tensor([1.], dtype=t.float64).apply_(lambda v: 10 ** 400),
            lambda t: t.tensor([1]).apply_(lambda v: 3 + 0j))),
    "out=": lambda t: (
        (lambda o: (t.unbind_copy(_x(t), out=o), o))([t.zeros(4), t.zeros(4), t.zeros(4)]),
        (lambda o: (t.split_copy(_x(t), 2, out=o), o))([t.zeros(2, 4, dtype=t.float64), t.zeros(1, 4, dtype=t.int64)]),
        (lambda o: (t.quantile(_x(t).requires_grad_(), 0.5, out=o), o.grad_fn.name()))(t.zeros(())),
        (lambda o: (t.t_copy(_x(t).requires_grad_(), out=o), o.grad_fn.name()))(t.zeros(0)),
        (lambda o: (t.histogram(_x(t).requires_grad_(), 3, out=o), o[0].grad_fn is o[1].grad_fn))((t.zeros(0), t.zeros(0))),
        t.frexp(_x(t), out=(t.zeros(0), t.zeros(0, dtype=t.int32)))) + tuple(errors(
            t, lambda t: t.unbind_copy(_x(t), out=[t.zeros(4)] * 2),
            lambda t: t.split_copy(_x(t), 2, out=[t.zeros(2, 4)]),
            lambda t: t.split_copy(_x(t), 2, out=[t.zeros(1), t.zeros(1)]),
            lambda t: t.split_copy(_x(t), 2, out=[t.zeros(0), t.zeros(0)]),
            lambda t: t.unbind_copy(_x(t), out=[t.zeros(4, dtype=t.float64)] * 3),
            lambda t: t.frexp(_x(t), out=(t.zeros(0, dtype=t.float64), t.zeros(0, dtype=t.int32))),
            lambda t: t.frexp(_x(t), out=(t.zeros(0), t.zeros(0))),
            lambda t: t.histogram(_x(t), 3, out=(t.zeros(0), t.zeros(0, dtype=t.float64))),
            lambda t: t.t_copy(_x(t).requires_grad_(), out=t.zeros(0)).sum().backward(),
            lambda t: t.nextafter(_x(t).requires_grad_(), _x(t), out=t.zeros(0)))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_torch(torch_ref, et, name):
    same(torch_ref, et, VALUES[name])


def test_index_reduce_beta_warning():
    """index_reduce's beta warning, once a process, on each side (each in a process of its own)."""
    code = ("import warnings, {m} as t\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(2): t.ones(2).index_reduce(0, t.tensor([0]), t.ones(1), 'prod')\n"
            "print([str(x.message) for x in w])\n")

    def run(module):
        return subprocess.run([sys.executable, "-c", code.format(m=module)], capture_output=True, text=True,
                              cwd=str(pathlib.Path(__file__).parents[2])).stdout

    ours = run("engine")
    assert ours.count("index_reduce() is in beta and the API may change at any time.") == 1
    ref = run("torch")
    if ref:  # (PyTorch's, when it is installed)
        assert ours == ref


# ----- Grads, nodes and saved attributes -----

def _scatter(r, include_self=True, index=((0, 1, 0), (1, 0, 0))):
    return lambda t, x, s: t.scatter_reduce(x, 0, t.tensor(index), s, r, include_self=include_self)


def _index(r, include_self=True):
    return lambda t, x, s: x.index_reduce(1, t.tensor([2, 0, 2]), s, r, include_self=include_self)


A = [[1.0, 2.5, 3.0], [4.0, 5.5, 6.0]]
TIES = [[2.0, 2.0, 3.0], [4.0, 5.0, 5.0]], [[2.0, 0.0, 5.0], [2.0, 1.0, 0.0]]
ZEROS = [[0.0, 2.0, 0.0], [4.0, 0.0, 5.0]], [[0.0, 0.0, 2.0], [3.0, 4.0, 0.0]]
GRADS = {
    **{f"scatter_reduce {r}": (_scatter(r), A, S) for r in REDUCTIONS},
    **{f"scatter_reduce {r} without self": (_scatter(r, False), A, S) for r in REDUCTIONS},
    **{f"scatter_reduce {r} ties": (_scatter(r), *TIES) for r in ("amax", "amin", "mean")},
    **{f"scatter_reduce {r} ties without self": (_scatter(r, False), *TIES) for r in ("amax", "amin")},
    "scatter_reduce prod zeros": (_scatter("prod"), *ZEROS),
    "scatter_reduce prod zeros without self": (_scatter("prod", False), *ZEROS),
    "scatter_reduce dim -1": (lambda t, x, s: x.scatter_reduce(-1, t.tensor([[3, 3], [0, 3], [1, 1]]), s, "amax"), X,
                              [[1.0, 5.0], [2.0, -3.0], [0.25, 2.0]]),
    **{f"index_reduce {r}": (_index(r), A, S) for r in ("prod", "mean", "amax", "amin")},
    **{f"index_reduce {r} without self": (_index(r, False), A, S) for r in ("prod", "mean", "amax", "amin")},
    **{f"index_reduce {r} ties": (_index(r), [[2.0, 2.0, 3.0], [4.0, 5.0, 5.0]], [[3.0, 2.0, 3.0], [5.0, 4.0, 1.0]])
       for r in ("amax", "amin")},
    "index_reduce prod zeros": (_index("prod"), [[0.0, 2.0, 3.0], [4.0, 0.0, 5.0]], [[1.0, 2.0, 0.0], [0.0, 4.0, 1.0]]),
    "slice_scatter": (lambda t, x, s: t.slice_scatter(x, s, 1, 1, 3), X, [[1.0, 2], [3, 4], [5, 6]]),
    "slice_scatter step": (lambda t, x, s: x.slice_scatter(s, -1, None, None, 2), X, [[1.0, 2], [3, 4], [5, 6]]),
    "select_scatter": (lambda t, x, s: t.select_scatter(x, s, 0, 1), X, [1.0, 2, 3, 4]),
    "select_scatter negative": (lambda t, x, s: x.select_scatter(s, -1, -2), X, [1.0, 2, 3]),
    "diagonal_scatter": (lambda t, x, s: t.diagonal_scatter(x, s, 1), X, [1.0, 2, 3]),
    "diagonal_scatter dims": (lambda t, x, s: x.diagonal_scatter(s, -1, -1, 0), X, [1.0, 2, 3]),
    "put": (lambda t, x, s: x.put(t.tensor([1, 5]), s), X, [1.0, 2]),
    "put 2-d index": (lambda t, x, s: t.put(x, t.tensor([[1, -1]]), s), X, [[1.0, 2]]),
    "put accumulate": (lambda t, x, s: x.put(t.tensor([1, 5, 1]), s, accumulate=True), X, [1.0, 2, 3]),
    "narrow_copy": (lambda t, x: t.narrow_copy(x, 1, 1, 2), X),
    "narrow_copy negative": (lambda t, x: x.narrow_copy(-1, -3, 2), X),
    **{name: ((lambda name, args: lambda t, x: getattr(t, name)(x, *args))(name, args), X) for name, args in (
        ("view_copy", ((4, 3),)), ("t_copy", ()), ("permute_copy", ((1, 0),)), ("transpose_copy", (0, -1)),
        ("expand_copy", ((2, 3, 4),)), ("squeeze_copy", ()), ("unsqueeze_copy", (0,)), ("select_copy", (0, 1)),
        ("slice_copy", (1, 1, 3)), ("diagonal_copy", ()), ("alias_copy", ()), ("unbind_copy", ()), ("split_copy", (2,)),
        ("split_with_sizes_copy", ([1, 2],)), ("unfold_copy", (0, 2, 1)))},
    "squeeze_copy dim": (lambda t, x: t.squeeze_copy(x.reshape(3, 1, 4), 1), X),
    "squeeze_copy dims": (lambda t, x: t.squeeze_copy(x.reshape(3, 1, 4, 1), (1, -1)), X),
    "unbind_copy dim 1": (lambda t, x: t.unbind_copy(x, 1), X),
    "quantile": (lambda t, a: t.quantile(a, 0.4, dim=1), X),
    "quantile all": (lambda t, a: t.quantile(a, 0.4), X),
    "quantile dim 0 keepdim": (lambda t, a: a.quantile(0.3, 0, True), X),
    "quantile tensor q": (lambda t, a: t.quantile(a, t.tensor([0.25, 0.5], dtype=t.float64), dim=0, keepdim=True), X),
    "quantile lower": (lambda t, a: t.quantile(a, 0.4, dim=1, interpolation="lower"), X),
    "quantile higher": (lambda t, a: t.quantile(a, 0.4, dim=-1, interpolation="higher"), X),
    "quantile midpoint": (lambda t, a: t.quantile(a, t.tensor([0.4, 0.9], dtype=t.float64), interpolation="midpoint"), X),
    "quantile nearest": (lambda t, a: t.quantile(a, 0.4, dim=0, interpolation="nearest"), X),
    "quantile 0-d": (lambda t, a: t.quantile(a, 0.4, 0), 2.5),
    "nanquantile": (lambda t, a: t.nanquantile(a, 0.4, dim=1),
                    [[0.5, NAN, 2.0, 3.5], [1.0, 4.0, -2.0, 0.0], [NAN, 1.5, 1.75, NAN]]),
    "nanquantile all": (lambda t, a: a.nanquantile(t.tensor([0.2, 0.9], dtype=t.float64)), [[0.5, NAN], [-1.0, 3.0]]),
    "frexp": (lambda t, a: t.frexp(a), V),
    "frexp mantissa": (lambda t, a: a.frexp().mantissa * 2, V),
    "ldexp": (lambda t, a, o: t.ldexp(a, o), V, [1.0, 2, -3, 0.5, 1]),
    "ldexp integer other": (lambda t, a: t.ldexp(a, t.tensor([1, 2, 3, 0, 1])), V),
    # (PyTorch's grad is grad * 2 ** other in integers: 0 where other is negative)
    "ldexp negative integer other": (lambda t, a: t.ldexp(a, t.tensor([1, 2, -3, 0, -1])), V),
    "ldexp broadcast": (lambda t, a, o: a.ldexp(o), [[1.5], [2.0]], [1.0, -1, 2]),
    "nextafter": (lambda t, a, o: t.nextafter(a, o), V, [1.5, 0, 2, 4, 3]),  # (a zero grad where a == o)
    "nextafter constant other": (lambda t, a: a.nextafter(t.tensor([1.0, 0, 2, 4, 3], dtype=t.float64)), V),
    "fill": (lambda t, a: t.fill(a, 2.5), V),
    "fill tensor": (lambda t, a, v: t.fill(a, v), V, 2.0),
    "gradient": (lambda t, a: t.gradient(a), M),
    "gradient dim spacing": (lambda t, a: t.gradient(a, spacing=2.0, dim=1), M),
    "gradient edge_order 2": (lambda t, a: t.gradient(a, edge_order=2, spacing=[0.5, 3]), M),
    "gradient dims": (lambda t, a: t.gradient(a, dim=[1, 0], edge_order=2), M),
    "gradient coordinates": (lambda t, a, c: t.gradient(a, spacing=(c,), dim=1), M, [0.0, 1, 3, 4.5]),
    "gradient coordinates edge_order 2": (lambda t, a, c, d: t.gradient(a, spacing=(c, d), edge_order=2), M,
                                          [0.0, 1, 3], [0.0, 1, 3, 4.5]),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_grads_match_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, graded(op, *values))


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_rule_graphs_match_torch(torch_ref, et, name):
    """The grads from an upstream grad that requires grad (what a double backward draws): values and
    three levels of nodes below each input's grad."""
    op, *values = GRADS[name]

    def run(t):
        xs, us, gs = grads_with_graph(t, op, values)
        return [None if g is None else (g, g.requires_grad, names(g.grad_fn)) for g in gs]

    same(torch_ref, et, run)


# ----- Against finite differences -----

NOT_SMOOTH = {name for name in GRADS if "ties" in name} | {
    "nanquantile", "nanquantile all",  # (nan in the input)
    "ldexp negative integer other",  # (PyTorch's integer 2 ** other: not the derivative)
    "nextafter", "nextafter constant other",  # (PyTorch's zero grad where input == other)
}
NO_GRADGRAD = {"scatter_reduce prod zeros", "scatter_reduce prod zeros without self"}  # (a place with two zeros)


@pytest.mark.parametrize("name", [n for n in GRADS if n not in NOT_SMOOTH])
def test_gradcheck(et, name):
    op, *values = GRADS[name]
    check_grads(et, op, values, gradgrad=name not in NO_GRADGRAD)


@pytest.mark.torch
def test_double_backward_of_prod_with_two_zeros_in_a_place(torch_ref, et):
    """PyTorch's DelayedError: the first backward works, a second through src raises."""
    def run(t, fn):
        a = t.tensor([[1.0, 2, 3], [4, 5, 6]], requires_grad=True)
        s = t.tensor([[0.0, 0, 2], [0, 4, 5]], requires_grad=True)
        y = fn(t, a, s)
        gs = t.autograd.grad(y.sum(), (a, s), create_graph=True)
        node = gs[1].grad_fn
        return (gs, node.name(), type(node).__name__, names(node, 2), outcome(lambda t: t.autograd.grad(gs[1].sum(), s), t)[0],
                t.autograd.grad(fn(t, a, s).sum(), (a, s)))

    same(torch_ref, et, lambda t: run(t, lambda t, a, s: t.scatter_reduce(a, 0, t.zeros(2, 3, dtype=t.long), s, "prod")))
    same(torch_ref, et, lambda t: run(t, lambda t, a, s: t.index_reduce(a, 1, t.tensor([1, 1, 1]), s, "prod")))


@pytest.mark.torch
def test_saved_attributes(torch_ref, et):
    def run(t):
        x = t.tensor(X, requires_grad=True)
        s = t.tensor(S, requires_grad=True)
        nodes = [t.scatter_reduce(x[:2, :3], -2, _i(t), s, "mean", include_self=False).grad_fn,
                 t.scatter_reduce(x[:2, :3], 1, _i(t), s.detach(), "amax").grad_fn,
                 t.index_reduce(x[:2, :3], -1, t.tensor([0, 0, 2]), s, "amax").grad_fn,
                 t.slice_scatter(x, t.ones(3, 2), 1, 1, 3).grad_fn, t.slice_scatter(x, t.ones(3, 4)).grad_fn,
                 t.slice_scatter(x, t.ones(3, 2), -1, start=-2).grad_fn,
                 t.slice_scatter(x, t.ones(3, 2), 1, 1, -1).grad_fn,
                 t.select_scatter(x, t.ones(4), -2, -1).grad_fn, t.diagonal_scatter(x, t.ones(3), -1, -1, 0).grad_fn,
                 x.put(t.tensor([1, 5]), t.tensor([1.0, 2], requires_grad=True)).grad_fn,
                 x.put(t.tensor([1, 5]), t.tensor([1.0, 2]), True).grad_fn,
                 t.narrow_copy(x, -1, -3, 2).grad_fn, t.frexp(x).mantissa.grad_fn,
                 t.ldexp(x, t.ones(3, 4, requires_grad=True)).grad_fn, t.ldexp(x, t.ones(3, 4, dtype=t.long)).grad_fn,
                 t.nextafter(x, t.zeros(3, 4)).grad_fn]
        for name, args in (("view_copy", ((4, 3),)), ("t_copy", ()), ("permute_copy", ((1, 0),)), ("transpose_copy", (0, -1)),
                           ("expand_copy", ((2, 3, 4),)), ("squeeze_copy", ()), ("squeeze_copy", (0,)),
                           ("unsqueeze_copy", (0,)),
                           ("select_copy", (0, 1)), ("slice_copy", (1, 1, 3)), ("diagonal_copy", ()),
                           ("alias_copy", ()),
                           ("unbind_copy", ()), ("split_copy", (2,)), ("split_with_sizes_copy", ([1, 2],)),
                           ("unfold_copy", (0, 2, 1))):
            y = getattr(t, name)(x, *args)
            nodes.append((y[0] if isinstance(y, tuple) else y).grad_fn)
        return [(node.name(), saved(node)) for node in nodes]

    same(torch_ref, et, run)


@pytest.mark.torch
def test_in_place_forms(torch_ref, et):
    """scatter_reduce_, index_reduce_, put_, ldexp_, nextafter_: the tensor itself, written, its version
    bumped, its node PyTorch's; refused on a leaf that requires grad."""
    def run(t):
        out = []
        for f in (lambda a, s: a.scatter_reduce_(0, _i(t), s, "prod"),
                  lambda a, s: a.index_reduce_(1, t.tensor([2, 0, 2]), s, "amax"),
                  lambda a, s: a.put_(t.tensor([0, 4]), s[0, :2], accumulate=True), lambda a, s: a.ldexp_(s),
                  lambda a, s: a.nextafter_(s)):
            leaf = t.tensor(A, requires_grad=True)
            s = t.tensor(S, requires_grad=True)
            a = leaf * 1
            r = f(a, s)
            r.sum().backward()
            out += [r is a, a, a._version, names(a.grad_fn), leaf.grad, s.grad,
                    outcome(lambda t: f(t.tensor(A, requires_grad=True), t.tensor(S)), t)[0],
                    f(t.tensor(A), t.tensor(S))]
        return out

    same(torch_ref, et, run)


@pytest.mark.torch
def test_forward_ad(torch_ref, et):
    """Tangents through the new ops, PyTorch's where it has no formula: none for scatter_reduce's prod,
    index_reduce's and histogram's errors."""
    def run(t):
        fw = t.autograd.forward_ad
        x = t.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=t.float64)
        s = t.tensor([[1.25, 0.5, 2.0], [3.0, 4.25, 5.0]], dtype=t.float64)
        out = []
        with fw.dual_level():
            d = fw.make_dual(x, t.arange(6.0, dtype=t.float64).reshape(2, 3))
            for f in (lambda: t.scatter_reduce(d, 0, _i(t), s, "prod"), lambda: t.scatter_reduce(d, 0, _i(t), s, "amax"),
                      lambda: t.scatter_reduce(d, 0, _i(t), s, "mean", include_self=False),
                      lambda: t.index_reduce(d, 1, t.tensor([2, 0, 2]), s, "amax"),
                      lambda: t.diagonal_scatter(d, s[0, :2]),
                      lambda: t.select_scatter(d, s[0], 0, 1), lambda: t.slice_scatter(d, s[:, :1], 1, 2),
                      lambda: t.put(d, t.tensor([1, 4]), s[0, :2]), lambda: t.narrow_copy(d, 1, 1, 2),
                      lambda: t.t_copy(d),
                      lambda: t.unbind_copy(d)[1], lambda: t.ldexp(d, s), lambda: t.frexp(d).mantissa,
                      lambda: t.nextafter(d, s), lambda: t.fill(d, 2.0), lambda: t.quantile(d, 0.3, 1),
                      lambda: t.quantile(d, t.tensor([0.3, 0.9], dtype=t.float64), 0), lambda: t.gradient(d)[1],
                      lambda: t.histogram(d, 2)[0]):
                out.append(outcome(lambda t: fw.unpack_dual(f()).tangent, t)[0])
        return out

    run(torch_ref)  # (PyTorch's first use of forward AD warns of torch.jit.script)
    same(torch_ref, et, run)
