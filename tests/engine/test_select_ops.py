"""Sorting and selecting (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, cummax,
cummin), take and take_along_dim, scatter and the index_* ops with their in-place forms, and
embedding (F.embedding, nn.Embedding), against real PyTorch: values and return types (ties and
nan included: PyTorch's unstable kernels give the indices they give), grads, grad_fn and
next_functions, saved attributes, a second backward, errors, version counters; and against
finite differences, first and second order."""
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import outcome, same
from tests.engine.test_nn_modules import close
from tests.engine.test_ops import graph_structure

NAN = float("nan")
# Distinct values (no ties: every op here is differentiable at them), and a rows-of-ties input.
X = ((np.random.default_rng(0).permutation(12) - 5.5) / 2).reshape(3, 4).tolist()
X3 = ((np.random.default_rng(1).permutation(24) - 11.5) / 4).reshape(2, 3, 4).tolist()
TIES = [[3.0, 1.0, 2.0, 1.0], [3.0, 3.0, 0.0, 3.0], [2.0, 2.0, 2.0, 2.0]]
SRC = (np.arange(12.0).reshape(3, 4) / 4 - 1).tolist()


def names(fn):
    """A node's name and the names down its next_functions."""
    return None if fn is None else (fn.name(), [None if f is None else f.name() for f, _ in fn.next_functions])


def tie_rows(seed, rows, n, high, nans=0):
    """Rows of small integers (many ties), with ``nans`` nans per row: what replays PyTorch's algorithms."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, high, size=(rows, n)).astype(float)
    for r in range(rows):
        a[r, rng.choice(n, nans, replace=False)] = NAN
    return a.tolist()


# ----- Values and return types -----

VALUES = {
    # sort: ties keep PyTorch's order, nan sorts as the largest value
    "sort": lambda t: t.tensor(X).sort(),
    "sort dim 0 descending": lambda t: t.tensor(X).sort(0, True),
    "sort ties and nan": lambda t: t.tensor([3.0, 1.0, 2.0, 1.0, 3.0, NAN, 2.0, 0.0, NAN]).sort(),
    "sort ties descending": lambda t: t.tensor([3.0, 1.0, 2.0, 1.0, 3.0, NAN, 2.0, 0.0, NAN]).sort(descending=True),
    "sort stable kw": lambda t: t.sort(t.tensor(TIES), stable=True, dim=1, descending=True),
    "sort long ties (unstable)": lambda t: t.tensor(tie_rows(0, 6, 40, 4, nans=2)).sort(),
    "sort long ties descending": lambda t: t.tensor(tie_rows(1, 6, 40, 4, nans=2)).sort(1, descending=True),
    "sort long ties stable": lambda t: t.tensor(tie_rows(2, 6, 40, 4, nans=2)).sort(stable=True),
    "sort long ties dim 0": lambda t: t.tensor(tie_rows(3, 40, 3, 3)).sort(0),
    "sort 300 ties": lambda t: t.tensor(tie_rows(4, 2, 300, 5)).sort(),
    "sort stable false and none": lambda t: (t.sort(t.tensor(tie_rows(5, 2, 30, 3)), stable=False),
                                             t.sort(t.tensor(tie_rows(5, 2, 30, 3)), stable=None)),
    "sort int and bool": lambda t: (t.tensor([3, 1, 2, 1] * 6).sort(), t.tensor([True, False, True] * 7).sort(),
                                    t.tensor([True, False, True] * 7).sort(descending=True)),
    "sort 3-d negative dim": lambda t: t.tensor(X3).sort(-2),
    "sort 0-d and empty": lambda t: (t.tensor(5.0).sort(), t.tensor(5.0).sort(-1), t.zeros(0).sort(),
                                     t.zeros(2, 0).sort(1), t.zeros(0, 3).sort(0)),
    "sort repr": lambda t: repr(t.tensor([[2.0, 1.0], [0.0, 3.0]]).sort()),
    "sort fields": lambda t: (lambda r: (r.values, r.indices, r[0], r[1], len(r), tuple(r)))(t.tensor(X).sort()),
    "argsort": lambda t: (t.tensor(X).argsort(), t.argsort(t.tensor(X), 0, True), t.tensor(TIES).argsort(stable=True),
                          t.argsort(t.tensor(tie_rows(6, 3, 30, 3, nans=1)), dim=1, descending=True),
                          t.tensor(tie_rows(7, 3, 30, 3)).argsort(stable=True, descending=True)),
    "msort": lambda t: (t.msort(t.tensor(X)), t.tensor(TIES).msort(), t.msort(t.tensor(3.0))),
    # topk: sorted or not, largest or smallest; PyTorch selects with nth_element or partial_sort
    "topk": lambda t: (t.tensor(X).topk(2), t.topk(t.tensor(X), 2, 0), t.tensor(X).topk(3, largest=False)),
    "topk unsorted": lambda t: (t.tensor(X3).topk(3, sorted=False), t.tensor(X3).topk(2, 1, False, False)),
    "topk ties": lambda t: (t.tensor(TIES).topk(2), t.tensor(TIES).topk(3, sorted=False),
                            t.tensor(TIES).topk(2, largest=False)),
    "topk nan": lambda t: (t.tensor([1.0, NAN, 3.0, NAN]).topk(2),
                           t.tensor([1.0, NAN, 3.0, NAN]).topk(3, largest=False)),
    "topk long ties": lambda t: [t.tensor(tie_rows(8, 4, 50, 4, nans=1)).topk(k, largest=big, sorted=s)
                                 for k in (1, 5, 30, 50) for big in (True, False) for s in (True, False)],
    "topk partial sort": lambda t: [t.tensor(tie_rows(9, 3, 200, 6, nans=2)).topk(k, largest=big)
                                    for k in (1, 3) for big in (True, False)],
    "topk k=0, 0-d, int": lambda t: (t.tensor(X).topk(0), t.tensor(5.0).topk(1), t.tensor(5.0).topk(0),
                                     t.tensor([3, 1, 2]).topk(2), t.zeros(0).topk(0)),
    # kthvalue: a quickselect; a tie at the k-th place gives the index that selection lands on
    "kthvalue": lambda t: (t.tensor(X).kthvalue(2), t.tensor(X).kthvalue(3, 0, True), t.kthvalue(t.tensor(X), 4, -1)),
    "kthvalue ties": lambda t: (t.tensor(TIES).kthvalue(2), t.tensor(TIES).kthvalue(1, 0),
                                t.tensor([1.0, NAN, NAN, 0.0]).kthvalue(3)),
    "kthvalue long ties": lambda t: [t.tensor(tie_rows(10, 5, 37, 4, nans=2)).kthvalue(k) for k in (1, 9, 18, 36, 37)],
    "kthvalue 0-d, int, empty rows": lambda t: (t.tensor(5.0).kthvalue(1), t.tensor([3, 1, 2]).kthvalue(2),
                                                t.zeros(0, 2).kthvalue(1, 1)),
    # median: the lower of the two middle values; with a nan, the first nan
    "median": lambda t: (t.tensor(X).median(), t.tensor(TIES).median(), t.tensor(X).median(1),
                         t.median(t.tensor(X), 0, True)),
    "median ties and nan": lambda t: (t.tensor(TIES).median(1), t.tensor(TIES).median(0),
                                      t.tensor([1.0, NAN, 2.0]).median(), t.tensor([[1.0, NAN, 3.0, NAN]]).median(1)),
    "median long ties": lambda t: (t.tensor(tie_rows(11, 4, 30, 3, nans=0)).median(1),
                                   t.tensor(tie_rows(12, 31, 3, 4)).median(0)),
    "median 0-d, int, empty": lambda t: (t.tensor(5.0).median(), t.tensor(5.0).median(0), t.tensor([3, 1, 2]).median(),
                                         t.tensor([3, 1, 2]).median(0), t.zeros(0).median(), t.zeros(0, 2).median(1)),
    "nanmedian": lambda t: (t.tensor([1.0, NAN, 2.0]).nanmedian(),
                            t.tensor([[1.0, NAN, NAN, 2.0], [NAN, NAN, 5.0, 4.0]]).nanmedian(1),
                            t.tensor([NAN, NAN]).nanmedian(), t.tensor([[NAN, NAN]]).nanmedian(1, keepdim=True),
                            t.tensor(tie_rows(13, 4, 25, 3, nans=5)).nanmedian(-1), t.tensor([3, 1, 2]).nanmedian()),
    # mode: the smallest of the commonest values, at the index PyTorch's sort leaves it
    "mode": lambda t: (t.tensor(X).mode(), t.tensor(TIES).mode(1), t.tensor(TIES).mode(0, True),
                       t.tensor([1, 2, 2, 1, 3, 3]).mode(), t.tensor([True, False, True]).mode()),
    "mode nan": lambda t: (t.tensor([1.0, NAN, 1.0]).mode(), t.tensor([NAN, NAN, 1.0]).mode(),
                           t.tensor(tie_rows(14, 4, 12, 3, nans=3)).mode()),
    "mode long ties": lambda t: (t.tensor(tie_rows(15, 6, 40, 5)).mode(),
                                 t.tensor(tie_rows(16, 6, 17, 4, nans=2)).mode(),
                                 t.tensor(np.arange(40.0)[::-1].tolist()).mode()),
    "mode 0-d and empty rows": lambda t: (t.tensor(5.0).mode(), t.tensor(5.0).mode(0), t.zeros(2, 0).mode(0)),
    # cummax and cummin: a tie or a nan takes over the index
    "cummax cummin": lambda t: (t.tensor(X).cummax(1), t.tensor(X).cummin(0), t.cummax(t.tensor(TIES), -1),
                                t.cummin(t.tensor(TIES), dim=1)),
    "cummax nan": lambda t: (t.tensor([1.0, NAN, 2.0, 3.0, NAN, 0.0]).cummax(0), t.tensor([1.0, NAN, 2.0]).cummin(0)),
    "cummax int bool 0-d empty": lambda t: (t.tensor([3, 1, 5]).cummax(0), t.tensor([True, False]).cummin(0),
                                            t.tensor(5.0).cummax(-1), t.zeros(2, 0).cummax(1), t.zeros(0).cummin(0)),
    # take and take_along_dim
    "take": lambda t: (t.tensor(X).take(t.tensor([[0, 5], [11, -1]])), t.take(t.tensor(X), t.tensor(3)),
                       t.zeros(2, 3).take(t.tensor([-6]))),
    "take_along_dim": lambda t: (t.tensor(X).take_along_dim(t.tensor([[0], [2], [1]]), 1),
                                 t.take_along_dim(t.tensor(X), t.tensor(X).argsort(0), 0),
                                 t.tensor(X).take_along_dim(t.tensor([[1, 2]]), dim=-1),
                                 t.tensor(X).take_along_dim(t.tensor([5, 0])),
                                 t.tensor(X).take_along_dim(t.tensor([[5, 0]]))),
    # scatter and the index_* ops
    "scatter": lambda t: (t.zeros(3, 4).scatter(0, t.tensor([[0, 1, 2, 0]]), t.tensor(SRC)),
                          t.zeros(3, 4).scatter(1, t.tensor([[3], [0], [1]]), t.tensor(SRC)),
                          t.scatter(t.zeros(3, 4), 0, t.tensor([[0, 1, 2, 0]]), 2.5),
                          t.zeros(3, 4).scatter(-1, t.tensor([[0, 1]]), value=-1.0),
                          t.zeros(3, 4, dtype=t.long).scatter(0, t.tensor([[2]]), 2.7),
                          t.zeros(3, 4).scatter(0, t.tensor([[0, 1]]).int(), t.tensor(SRC)),
                          t.zeros(3, 4).scatter(0, t.zeros(0, 1, dtype=t.long), t.tensor(SRC))),
    "scatter duplicates": lambda t: t.zeros(3, 4).scatter(0, t.tensor([[0, 0, 1, 1], [0, 0, 1, 1]]), t.tensor(SRC)),
    "scatter 0-d": lambda t: t.tensor(1.0).scatter(0, t.tensor(0), t.tensor(5.0)),
    "scatter reduce value": lambda t: (t.ones(3, 4).scatter(0, t.tensor([[0, 1, 2, 0]]), 2.0, reduce="add"),
                                       t.ones(3, 4).scatter(0, t.tensor([[0, 0, 2, 0]]), 3.0, reduce="multiply")),
    "scatter_add": lambda t: (t.ones(3, 4).scatter_add(0, t.tensor([[0, 1, 2, 0], [0, 0, 2, 2]]), t.tensor(SRC)),
                              t.scatter_add(t.ones(3, 4), -1, t.tensor([[3, 3], [0, 1]]), t.tensor(SRC))),
    "index_add": lambda t: (t.zeros(5).index_add(0, t.tensor([0, 0, 2]), t.tensor([1.0, 2.0, 3.0])),
                            t.zeros(5).index_add(0, t.tensor([0, 0, 2]), t.tensor([1.0, 2.0, 3.0]), alpha=2),
                            t.index_add(t.ones(3, 4), 1, t.tensor([3, 0, 3]).int(), t.tensor(SRC)[:, :3]),
                            t.zeros(2, 3, 4).index_add(1, t.tensor([0]), t.ones(2, 1, 4)),
                            t.zeros(4, dtype=t.long).index_add(0, t.tensor([1, 1]), t.tensor([2, 3]), alpha=3)),
    "index_copy": lambda t: (t.zeros(3, 4).index_copy(0, t.tensor([0, 2]), t.ones(2, 4)),
                             t.zeros(3, 4).index_copy(0, t.tensor([0, 0]), t.tensor(SRC)[:2]),
                             t.index_copy(t.zeros(3, 4), -1, t.tensor([3, 1]), t.tensor(SRC)[:, :2]),
                             t.zeros(2, 3, 4).index_copy(1, t.tensor(0), t.ones(2, 1, 4))),
    "index_fill": lambda t: (t.zeros(3, 4).index_fill(1, t.tensor([0, 2]), 5),
                             t.zeros(3, 4).index_fill(1, t.tensor([0, -1]), t.tensor(5.0)),
                             t.index_fill(t.zeros(3, 4), 0, t.tensor(2), -1.5),
                             t.zeros(3, 4, dtype=t.long).index_fill(1, t.tensor([2]), 5.5),
                             t.zeros(3, 4).index_fill(1, t.tensor([2]), t.tensor(5, dtype=t.float64))),
    "index_put": lambda t: (t.zeros(3, 4).index_put((t.tensor([0, 2]),), t.tensor(1.0)),
                            t.zeros(3, 4).index_put((t.tensor([0, 2]), t.tensor([1, 3])), t.tensor([1.0, 2.0])),
                            t.zeros(3, 4).index_put([t.tensor([0, 0]), t.tensor([1, 1])], t.tensor([1.0, 2.0]), True),
                            t.zeros(3, 4).index_put((t.tensor([True, False, True]),), t.tensor([1.0, 2, 3, 4])),
                            t.zeros(3, 4).index_put((t.tensor([0, 1]), t.tensor([-1, -4])), t.tensor([5.0, 6.0])),
                            t.zeros(3, 4).index_put((t.tensor([[0], [1]]), t.tensor([1, 2])), t.tensor([5.0, 6.0])),
                            t.index_put(t.zeros(3, 4), (t.tensor([0, 1]).int(),), t.ones(2, 1), accumulate=True)),
    "index_put byte mask, 0-d bools": lambda t: (
        t.zeros(3, 4).index_put((t.tensor([1, 0, 1], dtype=t.uint8),), t.ones(4)),
        t.zeros(3, 4).index_put((t.tensor(True), t.tensor([1])), t.ones(4)),
        t.zeros(3, 4).index_put((t.tensor(False),), t.tensor(1.0))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_torch(torch_ref, et, name):
    same(torch_ref, et, VALUES[name])


@pytest.mark.torch
def test_scatter_reduce_with_src_values(torch_ref, et):
    # (PyTorch warns once per process that this form is deprecated: the values, not the warnings)
    def fn(t):
        x, i = t.ones(3, 4), t.tensor([[0, 1, 2, 0], [0, 0, 2, 2]])
        return x.scatter(0, i, t.tensor(SRC), reduce="add"), x.scatter(0, i, t.tensor(SRC), reduce="multiply")

    assert outcome(fn, et)[0] == outcome(fn, torch_ref)[0]


# ----- Grads, nodes, second backward -----

def graded(op, *values):
    """``op`` on leaves made of ``values``: its output, its node (and the next ones), each leaf's grad
    after a backward with an upstream grad of 1, 2, 3, ..."""
    def run(t):
        xs = [t.tensor(v, requires_grad=True) for v in values]
        out = op(t, *xs)
        y = out[0] if isinstance(out, tuple) else out
        (y * t.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        return out, names(y.grad_fn), [x.grad for x in xs]
    return run


IDX = [[0, 1, 2, 0], [1, 2, 0, 1], [2, 0, 1, 2]]  # as large as SRC: src gets a grad
PERM = [[1, 0, 3, 2], [2, 3, 0, 1], [0, 1, 2, 3]]  # no target twice along dim 1

GRADS = {
    "sort": (lambda t, x: x.sort(), X),
    # max and min with a dim pick values as these do (their grads are the same scatter into zeros)
    "max dim": (lambda t, x: x.max(1), X),
    "min dim keepdim": (lambda t, x: x.min(0, keepdim=True), X),
    "sort dim 0 descending stable": (lambda t, x: x.sort(dim=0, descending=True, stable=True), X),
    "sort ties": (lambda t, x: x.sort(1), TIES),
    "sort 3-d": (lambda t, x: t.sort(x, 1), X3),
    "sort 0-d": (lambda t, x: x.sort(), 2.0),
    "msort": (lambda t, x: t.msort(x), X),
    "topk": (lambda t, x: x.topk(2), X),
    "topk dim 0 smallest unsorted": (lambda t, x: x.topk(2, 0, largest=False, sorted=False), X3),
    "topk ties": (lambda t, x: x.topk(3), TIES),
    "kthvalue": (lambda t, x: x.kthvalue(2), X),
    "kthvalue keepdim": (lambda t, x: x.kthvalue(2, 0, keepdim=True), X3),
    "kthvalue 0-d": (lambda t, x: x.kthvalue(1), 2.0),
    "median": (lambda t, x: x.median(), X),
    "median ties": (lambda t, x: x.median(), TIES),
    "median nan": (lambda t, x: x.median(), [1.0, NAN, 2.0, NAN]),
    "median dim": (lambda t, x: x.median(1), X),
    "median dim keepdim ties": (lambda t, x: x.median(0, True), TIES),
    "nanmedian": (lambda t, x: x.nanmedian(), [1.0, NAN, 2.0, 3.0]),
    "nanmedian all nan": (lambda t, x: x.nanmedian(), [NAN, NAN]),
    "nanmedian dim": (lambda t, x: x.nanmedian(-1), [[1.0, NAN, 2.0, 3.0], [NAN, NAN, NAN, 4.0]]),
    "mode": (lambda t, x: x.mode(), TIES),
    "mode keepdim": (lambda t, x: x.mode(0, keepdim=True), X),
    "cummax": (lambda t, x: x.cummax(1), X),
    "cummax ties": (lambda t, x: x.cummax(-1), TIES),
    "cummin": (lambda t, x: t.cummin(x, 0), X3),
    "cummin 0-d": (lambda t, x: x.cummin(0), 2.0),
    "take": (lambda t, x: x.take(t.tensor([[0, 5], [5, -1]])), X),
    "take 0-d index": (lambda t, x: t.take(x, t.tensor(7)), X),
    "take_along_dim": (lambda t, x: x.take_along_dim(t.tensor([[0], [2], [1]]), 1), X),
    "take_along_dim broadcast": (lambda t, x: t.take_along_dim(x, t.tensor([[2], [0]]), 0), X),
    "take_along_dim flat": (lambda t, x: x.take_along_dim(t.tensor([5, 0, 5])), X),
    "scatter value": (lambda t, x: x.scatter(0, t.tensor([[2, 1, 0, 0]]), 7.0), X),
    "scatter src": (lambda t, x, s: x.scatter(1, t.tensor(IDX), s), X, SRC),
    "scatter src duplicates": (lambda t, x, s: x.scatter(0, t.tensor(IDX), s), X, SRC),
    "scatter_add": (lambda t, x, s: x.scatter_add(0, t.tensor(IDX), s), X, SRC),
    "index_add": (lambda t, x, s: x.index_add(1, t.tensor([0, 2, 2, 1]), s), X, SRC),
    "index_add alpha": (lambda t, x, s: t.index_add(x, 0, t.tensor([2, 0, 2]), s, alpha=-2), X, SRC),
    "index_copy": (lambda t, x, s: x.index_copy(0, t.tensor([2, 0, 1]), s), X, SRC),
    "index_copy duplicates": (lambda t, x, s: x.index_copy(1, t.tensor([3, 3, 0, 0]), s), X, SRC),
    "index_fill": (lambda t, x: x.index_fill(1, t.tensor([0, 2]), -1.0), X),
    "index_fill tensor": (lambda t, x, v: x.index_fill(1, t.tensor([0, 2, 0]), v), X, 4.0),
    "index_put": (lambda t, x, s: x.index_put((t.tensor([0, 2]),), s[1]), X, SRC),
    "index_put rows": (lambda t, x, s: x.index_put((t.tensor([2, 0, 1]),), s), X, SRC),
    "index_put duplicates": (lambda t, x, s: x.index_put((t.tensor([0, 0]), t.tensor([1, 1])), s[0, :2]), X, SRC),
    "index_put accumulate": (lambda t, x, s: x.index_put((t.tensor([0, 0, 2]),), s, accumulate=True), X, SRC),
    "index_put mask broadcast": (lambda t, x, s: x.index_put((t.tensor(X) > 0,), s[0, 0]), X, SRC),
    "embedding": (lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 1]]), w), X),
    "embedding padding_idx": (lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 1]]), w, padding_idx=2), X),
    "embedding negative padding_idx": (lambda t, w: t.nn.functional.embedding(t.tensor([0, 2, 1]), w, padding_idx=-3),
                                       X),
    "embedding scale_grad_by_freq": (lambda t, w: t.nn.functional.embedding(
        t.tensor([[0, 2], [2, 2]]), w, scale_grad_by_freq=True), X),
    "embedding int32 0-d": (lambda t, w: t.embedding(w, t.tensor(1, dtype=t.int32)), X),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_grads_match_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, graded(op, *values))


@pytest.mark.torch
def test_argsort_has_no_grad(torch_ref, et):
    def run(t):
        i = t.tensor(X, requires_grad=True).argsort()
        return i.requires_grad, i.grad_fn, i.dtype

    same(torch_ref, et, run)


def twice(op, *values, needs=None):
    """Two backward passes through ``op`` (no retain_graph): whether the second raises, and the grads."""
    def run(t):
        xs = [t.tensor(v, requires_grad=n) for v, n in zip(values, needs or [True] * len(values))]
        out = op(t, *xs)
        y = out[0] if isinstance(out, tuple) else out
        y.sum().backward()
        y.sum().backward()
        return [x.grad for x in xs]
    return run


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_second_backward_matches_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, twice(op, *values))


@pytest.mark.torch
@pytest.mark.parametrize("op", ["scatter_add", "index_add", "index_copy", "scatter src", "index_put",
                                "index_fill tensor"])
@pytest.mark.parametrize("needs", [(True, False), (False, True)])
def test_second_backward_with_one_side_needing_grad(torch_ref, et, op, needs):
    # scatter_add and index_add keep their index only for the source's grad: with only self's,
    # a second backward goes through in PyTorch
    fn, *values = GRADS[op]
    same(torch_ref, et, twice(fn, *values, needs=needs))


@pytest.mark.torch
def test_scatter_src_larger_than_index_fails_at_backward(torch_ref, et):
    def run(t, op):
        x, s = t.zeros(3, 4, requires_grad=True), t.ones(3, 4, requires_grad=True)
        getattr(x, op)(0, t.tensor([[0, 1, 2, 0]]), s).sum().backward()

    for op in ("scatter", "scatter_add"):
        ref = same(torch_ref, et, lambda t: run(t, op))
        assert ref[0][0] == "raised"


@pytest.mark.torch
def test_scatter_reduce_has_no_derivative(torch_ref, et):
    def run(t, form):
        x, s = t.zeros(3, 4, requires_grad=True), t.ones(3, 4, requires_grad=True)
        i = t.tensor([[0, 1, 2, 0]])
        y = x.scatter(0, i, 2.0, reduce="add") if form == "value" else t.ones(3, 4).scatter(0, i, s, reduce="add")
        node = names(y.grad_fn)
        y.sum().backward()
        return node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the once-per-process deprecation of the src form)
        for form in ("value", "src"):
            ours, ref = outcome(lambda t: run(t, form), et)[0], outcome(lambda t: run(t, form), torch_ref)[0]
            assert ours == ref and ref[0] == "raised"


# ----- The graph a double backward builds -----

# Not here: median() and nanmedian(), whose grad PyTorch writes with masked_fill_ and a tensor value
# (MaskedFillBackward1), and values taken by x[i] or x[a:b], whose double backward the engine names
# IndexPutBackward0 where PyTorch has SelectBackwardBackward0 and SliceBackwardBackward0.
DOUBLE = [name for name in GRADS if not name.startswith(("median", "nanmedian")) or " dim" in name]
DOUBLE = [name for name in DOUBLE if name not in ("index_put", "index_put duplicates", "index_put mask broadcast")]


def double_backward_graph(t, name):
    op, *values = GRADS[name]
    xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    out = op(t, *xs)
    y = out[0] if isinstance(out, tuple) else out
    w = t.arange(1.0, y.numel() + 1, dtype=t.float64).reshape(y.shape).requires_grad_()
    grads = t.autograd.grad((y * w).sum(), xs, create_graph=True)
    return [graph_structure(g.grad_fn, xs + [w], 2) for g in grads]


@pytest.mark.torch
@pytest.mark.parametrize("name", DOUBLE)
def test_double_backward_graph_matches_torch(torch_ref, et, name):
    assert double_backward_graph(et, name) == double_backward_graph(torch_ref, name)


# ----- Saved attributes -----

def saved(node, inputs):
    """``grad_fn._saved_*`` by name; a tensor as (dtype, values, which input it is)."""
    def described(v):
        if type(v).__name__ in ("Tensor", "Parameter"):
            a = v.detach().numpy()
            which = [i for i, x in enumerate(inputs) if v is x]
            return str(v.dtype), (a.round(4) if a.dtype.kind == "f" else a).tolist(), which
        return tuple(map(described, v)) if type(v) is tuple else v

    attrs = sorted(n for n in dir(node) if n.startswith("_saved_"))
    return [type(node).__name__] + [(n, described(getattr(node, n))) for n in attrs]


SAVED = {
    "sort": lambda t, x, s: x.sort(),
    "sort stable dim 0": lambda t, x, s: x.sort(dim=0, stable=True),
    "msort": lambda t, x, s: t.msort(x),
    "topk": lambda t, x, s: x.topk(2, -2),
    "kthvalue": lambda t, x, s: x.kthvalue(2, 0, True),
    "median": lambda t, x, s: x.median(),
    "median dim": lambda t, x, s: x.median(-1),
    "nanmedian": lambda t, x, s: x.nanmedian(),
    "nanmedian dim": lambda t, x, s: x.nanmedian(0, keepdim=True),
    "mode": lambda t, x, s: x.mode(),
    "cummax": lambda t, x, s: x.cummax(-1),
    "cummin": lambda t, x, s: x.cummin(0),
    "take": lambda t, x, s: x.take(t.tensor([1, -1])),
    "take_along_dim": lambda t, x, s: x.take_along_dim(t.tensor([[0], [2], [1]]), -1),
    "scatter": lambda t, x, s: x.scatter(-1, t.tensor(IDX), s),
    "scatter value": lambda t, x, s: x.scatter(0, t.tensor([[1]]), 2.0),
    "scatter_add": lambda t, x, s: x.scatter_add(0, t.tensor(IDX), s),
    "scatter_add self only": lambda t, x, s: x.scatter_add(0, t.tensor(IDX), s.detach()),
    "index_add": lambda t, x, s: x.index_add(-1, t.tensor([0, 1, 0, 1]), s, alpha=2),
    "index_add self only": lambda t, x, s: x.index_add(0, t.tensor([0, 1, 2]), s.detach()),
    "index_add source only": lambda t, x, s: x.detach().index_add(0, t.tensor([0, 1, 2]), s),
    "index_copy": lambda t, x, s: x.index_copy(0, t.tensor([2, 1, 0]), s),
    "index_copy self only": lambda t, x, s: x.index_copy(0, t.tensor([2, 1, 0]), s.detach()),
    "index_fill": lambda t, x, s: x.index_fill(-1, t.tensor([1]), 2.0),
    "index_fill tensor": lambda t, x, s: x.index_fill(1, t.tensor(1), s[0, 0]),
    "index_put": lambda t, x, s: x.index_put((t.tensor([1]),), s[0]),
    "index_put accumulate": lambda t, x, s: x.index_put((t.tensor([1, 0]), t.tensor([2, 2])), s[0, :2],
                                                        accumulate=True),
    "index_put mask": lambda t, x, s: x.index_put((t.tensor([True, False, True]),), s[0]),
    "embedding": lambda t, x, s: t.nn.functional.embedding(t.tensor([[1, 1], [0, 2]]), x),
    "embedding padding scale": lambda t, x, s: t.nn.functional.embedding(t.tensor([1, 1]), x, padding_idx=-1,
                                                                          scale_grad_by_freq=True),
    "embedding padding none": lambda t, x, s: t.nn.functional.embedding(t.tensor([1, 1]), x, padding_idx=None),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(SAVED))
def test_saved_attributes_match_torch(torch_ref, et, name):
    def run(t):
        x, s = t.tensor(X, requires_grad=True), t.tensor(SRC, requires_grad=True)
        out = SAVED[name](t, x, s)
        node = (out[0] if isinstance(out, tuple) else out).grad_fn
        return saved(node, [x, s])

    assert run(et) == run(torch_ref)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["sort", "median", "cummax", "take", "scatter", "index_add", "embedding"])
def test_saved_tensors_after_backward_raise(torch_ref, et, name):
    def run(t):
        x, s = t.tensor(X, requires_grad=True), t.tensor(SRC, requires_grad=True)
        out = SAVED[name](t, x, s)
        y = out[0] if isinstance(out, tuple) else out
        y.sum().backward()
        return [getattr(y.grad_fn, n) for n in sorted(dir(y.grad_fn)) if n.startswith("_saved_")]

    ref = same(torch_ref, et, run)
    assert ref[0][0] == "raised"


# ----- Errors -----

ERRORS = {
    "sort dim": "x.sort(2)",
    "sort 0-d dim": "t.tensor(5.).sort(1)",
    "topk k too large": "x.topk(5)",
    "topk k negative": "x.topk(-1)",
    "topk k too large for dim 0": "x.topk(4, 0)",
    "topk 0-d": "t.tensor(1.).topk(2)",
    "topk empty": "t.zeros(2, 0).topk(1)",
    "topk bool": "t.tensor([True, False]).topk(1)",
    "kthvalue k 0": "x.kthvalue(0)",
    "kthvalue k too large": "x.kthvalue(5)",
    "kthvalue 0-d": "t.tensor(1.).kthvalue(2)",
    "kthvalue empty": "t.zeros(0).kthvalue(1)",
    "kthvalue empty dim": "t.zeros(2, 0).kthvalue(1, 1)",
    "kthvalue bool": "t.tensor([True, False]).kthvalue(1)",
    "median empty dim": "t.zeros(0, 3).median(0)",
    "nanmedian empty dim": "t.zeros(2, 0).nanmedian(1)",
    "median bool": "t.tensor([True, False]).median()",
    "median dim bool": "t.tensor([True, False]).median(0)",
    "nanmedian bool": "t.tensor([True, False]).nanmedian(0)",
    "median keepdim without dim": "x.median(keepdim=True)",
    "median dim None": "x.median(dim=None)",
    "mode empty": "t.zeros(0).mode()",
    "mode empty dim": "t.zeros(2, 0).mode(1)",
    "cummax dim": "x.cummax(2)",
    "cummax 0-d dim": "t.tensor(5.).cummax(1)",
    "cummin 0-d dim": "t.tensor(5.).cummin(-2)",
    "take out of range": "t.zeros(2, 3).take(t.tensor([6]))",
    "take out of range negative": "t.zeros(2, 3).take(t.tensor([0, -7]))",
    "take float index": "t.zeros(2, 3).take(t.tensor([1.]))",
    "take int32 index": "t.zeros(2, 3).take(t.tensor([1]).int())",
    "take from empty": "t.zeros(0).take(t.tensor([0]))",
    "take_along_dim sizes": "x.take_along_dim(t.tensor([[0, 1]]), 0)",
    "take_along_dim rank": "x.take_along_dim(t.tensor([0]), 1)",
    "take_along_dim dtype": "x.take_along_dim(t.tensor([[0.]]), 1)",
    "take_along_dim int32": "x.take_along_dim(t.tensor([[0]]).int(), 1)",
    "take_along_dim broadcast": "x.take_along_dim(t.tensor([[0], [1], [0], [1]]), 1)",
    "take_along_dim dim": "x.take_along_dim(t.tensor([[1], [0]]), 2)",
    "take_along_dim flat out of range": "x.take_along_dim(t.tensor([12]))",
    "take_along_dim flat not a view": "x.t().take_along_dim(t.tensor([0]))",
    "scatter out of bounds": "x.scatter(0, t.tensor([[3, 0]]), s)",
    "scatter negative": "x.scatter(0, t.tensor([[-1, 0]]), s)",
    "scatter out of bounds dim 1": "x.scatter(1, t.tensor([[0, 4]]), s)",
    "scatter first bad along dim": "x.scatter(0, t.tensor([[0, 7], [5, 0]]), s)",
    "scatter float index": "x.scatter(0, t.tensor([[0.]]), s)",
    "scatter index rank": "x.scatter(0, t.tensor([0, 1]), s)",
    "scatter index larger than self": "x.scatter(0, t.zeros(4, 4, dtype=t.long), s)",
    "scatter index wider": "x.scatter(0, t.zeros(1, 5, dtype=t.long), s)",
    "scatter index larger than src": "x.scatter(0, t.tensor([[0, 1, 2, 0]]), s[:, :2])",
    "scatter src dtype": "x.scatter(0, t.tensor([[0]]), s.double())",
    "scatter src dtype before rank": "x.scatter(0, t.tensor([0]), s.double())",
    "scatter src 0-d": "x.scatter(0, t.tensor([[0]]), t.tensor(3.))",
    "scatter src fewer dims": "x.scatter(0, t.tensor([[0]]), t.zeros(1))",
    "scatter value index too large": "x.scatter(0, t.zeros(4, 5, dtype=t.long), 1.0)",
    "scatter value out of bounds": "x.scatter(0, t.tensor([[5]]), 1.0)",
    "scatter dim": "x.scatter(2, t.tensor([[0]]), s)",
    "scatter bad reduce": "x.scatter(0, t.tensor([[0]]), 2.0, reduce='max')",
    "scatter_add out of bounds": "x.scatter_add(0, t.tensor([[3, 0]]), s)",
    "scatter_add float index": "x.scatter_add(0, t.tensor([[0.]]), s)",
    "scatter_add rank": "x.scatter_add(0, t.tensor([0]), s)",
    "scatter_add src dtype": "x.scatter_add(0, t.tensor([[0]]), s.double())",
    "index_add out of range": "t.zeros(5).index_add(0, t.tensor([0, 5]), t.tensor([1., 2.]))",
    "index_add negative": "t.zeros(5).index_add(0, t.tensor([0, -1]), t.tensor([1., 2.]))",
    "index_add count": "t.zeros(5).index_add(0, t.tensor([0, 1]), t.tensor([1., 2., 3.]))",
    "index_add shape": "t.zeros(3, 4).index_add(0, t.tensor([0, 1]), t.ones(2, 3))",
    "index_add count dim 1": "t.zeros(3, 4).index_add(1, t.tensor([0, 1]), t.ones(2, 3))",
    "index_add index rank": "t.zeros(3, 4).index_add(0, t.tensor([[0, 1]]), t.ones(2, 4))",
    "index_add float index": "t.zeros(3, 4).index_add(0, t.tensor([0., 1.]), t.ones(2, 4))",
    "index_add dtype": "t.zeros(3, 4).index_add(0, t.tensor([0, 1]), t.ones(2, 4).double())",
    "index_add 0-d source": "t.zeros(3).index_add(0, t.tensor([1]), t.tensor(5.))",
    "index_add rank of source": "t.zeros(2, 3, 4).index_add(1, t.tensor([0]), t.ones(2, 1))",
    "index_add dim": "t.zeros(3, 4).index_add(2, t.tensor([0, 1]), t.ones(2, 4))",
    "index_copy out of bounds": "t.zeros(3, 4).index_copy(0, t.tensor([0, 5]), t.ones(2, 4))",
    "index_copy negative": "t.zeros(3, 4).index_copy(0, t.tensor([-1, 0]), t.ones(2, 4))",
    "index_copy count": "t.zeros(3, 4).index_copy(0, t.tensor([0, 1]), t.ones(3, 4))",
    "index_copy slice shape": "t.zeros(3, 4).index_copy(0, t.tensor([0, 1]), t.ones(2, 3))",
    "index_copy slice shape 3-d": "t.zeros(2, 3, 4).index_copy(1, t.tensor([0, 1]), t.ones(2, 2, 5))",
    "index_copy dtype": "t.zeros(3, 4).index_copy(0, t.tensor([0, 1]), t.ones(2, 4).double())",
    "index_copy float index": "t.zeros(3, 4).index_copy(0, t.tensor([0., 1.]), t.ones(2, 4))",
    "index_copy int32 index": "t.zeros(3, 4).index_copy(0, t.tensor([0, 1]).int(), t.ones(2, 4))",
    "index_copy index rank": "t.zeros(2, 3, 4).index_copy(1, t.tensor([[0]]), t.ones(2, 1, 4))",
    "index_copy source rank": "t.zeros(2, 3, 4).index_copy(1, t.tensor(0), t.ones(2, 4))",
    "index_copy 0-d source": "t.zeros(3).index_copy(0, t.tensor([0, 1]), t.tensor(1.))",
    "index_fill value rank": "t.zeros(3, 4).index_fill(1, t.tensor([0, 2]), t.tensor([5.]))",
    "index_fill out of bounds": "t.zeros(3, 4).index_fill(1, t.tensor([0, 4]), 5)",
    "index_fill negative out of bounds": "t.zeros(3, 4).index_fill(1, t.tensor([-5]), 5)",
    "index_fill float index": "t.zeros(3, 4).index_fill(1, t.tensor([0., 2.]), 5)",
    "index_fill int32 index": "t.zeros(3, 4).index_fill(1, t.tensor([0]).int(), 5)",
    "index_fill index rank": "t.zeros(3, 4).index_fill(1, t.tensor([[0, 2]]), 5)",
    "index_fill dim": "t.zeros(3, 4).index_fill(2, t.tensor([0]), 5)",
    "index_put out of bounds": "t.zeros(3, 4).index_put((t.tensor([0, 5]),), t.tensor(1.))",
    "index_put first bad": "t.zeros(3, 4).index_put((t.tensor([0, 5]), t.tensor([7, 2])), t.tensor([5., 6.]))",
    "index_put value shape": "t.zeros(3, 4).index_put((t.tensor([0, 2]),), t.tensor([1., 2., 3.]))",
    "index_put value leading ones": "t.zeros(3, 4).index_put((t.tensor([0, 1]),), t.ones(1, 1, 4))",
    "index_put none": "t.zeros(3, 4).index_put((None, t.tensor([1, 2])), t.tensor(1.))",
    "index_put number": "t.zeros(3, 4).index_put((t.tensor([0, 2]),), 1.0)",
    "index_put tensor indices": "t.zeros(3, 4).index_put(t.tensor([0, 1]), t.tensor(1.))",
    "index_put dtype": "t.zeros(3, 4).index_put((t.tensor([0, 2]),), t.tensor(1).long())",
    "index_put float index": "t.zeros(3, 4).index_put((t.tensor([0., 2.]),), t.tensor(1.))",
    "index_put too many": "t.zeros(3, 4).index_put((t.tensor([0]),) * 3, t.tensor(1.))",
    "index_put broadcast": "t.zeros(3, 4).index_put((t.tensor([0, 1]), t.tensor([0, 1, 2])), t.tensor(1.))",
    "index_put mask shape": "t.zeros(3, 4).index_put((t.tensor([True]),), t.tensor(1.))",
    "index_put byte mask, one value": "t.zeros(3).index_put((t.tensor([1, 0, 1], dtype=t.uint8),), t.tensor(2.))",
    "index_put 0-d True, value shape": "t.zeros(3, 4).index_put((t.tensor(True),), t.ones(2, 4))",
    "embedding out of range": "F.embedding(t.tensor([5]), w)",
    "embedding negative": "F.embedding(t.tensor([-1]), w)",
    "embedding float indices": "F.embedding(t.tensor([1.]), w)",
    "embedding list": "F.embedding([1], w)",
    "embedding padding_idx too large": "F.embedding(t.tensor([1]), w, padding_idx=3)",
    "embedding padding_idx too small": "F.embedding(t.tensor([1]), w, padding_idx=-4)",
    "embedding 1-d weight": "F.embedding(t.tensor([1]), t.ones(3))",
    "embedding 3-d weight": "F.embedding(t.tensor([1]), t.ones(3, 2, 2))",
    "Embedding padding_idx": "t.nn.Embedding(5, 3, padding_idx=5)",
    "Embedding negative padding_idx": "t.nn.Embedding(5, 3, padding_idx=-6)",
    "Embedding weight shape": "t.nn.Embedding(2, 3, _weight=t.ones(3, 3))",
    "from_pretrained 1-d": "t.nn.Embedding.from_pretrained(t.ones(3))",
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(torch_ref, et, name):
    def run(t):
        env = {"t": t, "F": t.nn.functional, "x": t.tensor(X, requires_grad=True), "s": t.tensor(SRC),
               "w": t.tensor(X, requires_grad=True)}
        return eval(ERRORS[name], env)

    ref = same(torch_ref, et, run)
    assert ref[0][0] == "raised", ref


# ----- In place -----

INPLACE = {
    "scatter_": lambda t, y, s: y.scatter_(0, t.tensor(IDX), s),
    "scatter_ src keyword": lambda t, y, s: y.scatter_(1, t.tensor(IDX), src=s),
    "scatter_ value": lambda t, y, s: y.scatter_(0, t.tensor([[2, 0]]), 2.0),
    "scatter_add_": lambda t, y, s: y.scatter_add_(1, t.tensor(IDX), s),
    "index_add_": lambda t, y, s: y.index_add_(0, t.tensor([2, 2, 0]), s, alpha=3),
    "index_fill_": lambda t, y, s: y.index_fill_(1, t.tensor([0, 3]), -1.0),
    "index_fill_ tensor": lambda t, y, s: y.index_fill_(1, t.tensor([0, 3]), s[1, 1]),
    "index_copy_": lambda t, y, s: y.index_copy_(0, t.tensor([1, 2, 0]), s),
    "index_put_": lambda t, y, s: y.index_put_((t.tensor([0, 2]),), s[0]),
    "index_put_ accumulate": lambda t, y, s: y.index_put_((t.tensor([0, 0]),), s[:2], True),
    "torch.index_put_": lambda t, y, s: t.index_put_(y, (t.tensor([1]), t.tensor([1])), s[0, 0]),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_matches_torch(torch_ref, et, name):
    def run(t):
        x, s = t.tensor(X, requires_grad=True), t.tensor(SRC, requires_grad=True)
        y = x * 1
        r = INPLACE[name](t, y, s)
        info = (r is y, y._version, names(y.grad_fn))
        (y * t.arange(1.0, 13.0).reshape(3, 4)).sum().backward()
        return info, y, x.grad, s.grad

    same(torch_ref, et, run)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_a_leaf_raises(torch_ref, et, name):
    ref = same(torch_ref, et, lambda t: INPLACE[name](t, t.tensor(X, requires_grad=True), t.tensor(SRC)))
    assert ref[0][0] == "raised"


@pytest.mark.torch
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_without_grad_and_into_a_constant(torch_ref, et, name):
    # No grad anywhere: one version bump, no node. A constant written with a source that needs a
    # grad: the node's first edge is empty. Through a view of an intermediate: CopySlices.
    def run(t):
        c = t.zeros(3, 4)
        r = INPLACE[name](t, c, t.tensor(SRC))
        plain = (r is c, c._version, c.grad_fn, c)
        with t.no_grad():
            INPLACE[name](t, t.zeros(3, 4), t.tensor(SRC, requires_grad=True))
        c, s = t.zeros(3, 4), t.tensor(SRC, requires_grad=True)
        INPLACE[name](t, c, s)
        into = (c._version, names(c.grad_fn), c.requires_grad)
        if c.requires_grad:
            (c * t.arange(1.0, 13.0).reshape(3, 4)).sum().backward()
        x = t.tensor([X, X], requires_grad=True)
        v = (x * 1)[1]
        INPLACE[name](t, v, t.tensor(SRC))
        (v * t.arange(1.0, 13.0).reshape(3, 4)).sum().backward()
        return plain, into, s.grad, names(v.grad_fn), x.grad

    same(torch_ref, et, run)


# ----- Finite differences (float64), first and second order -----

GRADCHECK = {
    "sort": (lambda t, x: x.sort(1, descending=True).values, X),
    "sort 0-d": (lambda t, x: x.sort().values, 2.0),
    "topk": (lambda t, x: x.topk(2, 0, largest=False, sorted=False).values, X3),
    "kthvalue": (lambda t, x: x.kthvalue(3, -1).values, X3),
    "median": (lambda t, x: x.median(), X),
    "median dim": (lambda t, x: x.median(0, keepdim=True).values, X),
    "nanmedian": (lambda t, x: x.nanmedian(), [1.0, NAN, 2.0, 3.0]),
    "nanmedian dim": (lambda t, x: x.nanmedian(1).values, [[1.0, NAN, 2.0, 3.0], [NAN, 4.0, -1.0, 0.5]]),
    "mode": (lambda t, x: x.mode(1).values, X),
    "cummax": (lambda t, x: x.cummax(1).values, X),
    "cummin": (lambda t, x: x.cummin(0).values, X3),
    "take": (lambda t, x: x.take(t.tensor([[0, 5], [5, -1]])), X),
    "take_along_dim": (lambda t, x: x.take_along_dim(t.tensor([[2], [0]]), 0), X),
    "scatter": (lambda t, x, s: x.scatter(1, t.tensor(PERM), s), X, SRC),  # (a target written twice keeps one)
    "scatter value": (lambda t, x: x.scatter(0, t.tensor([[2, 1, 0, 0]]), 7.0), X),
    "scatter_add": (lambda t, x, s: x.scatter_add(0, t.tensor(IDX), s), X, SRC),
    "index_add": (lambda t, x, s: x.index_add(1, t.tensor([0, 2, 2, 1]), s, alpha=-2), X, SRC),
    "index_copy": (lambda t, x, s: x.index_copy(0, t.tensor([2, 0, 1]), s), X, SRC),
    "index_fill": (lambda t, x, v: x.index_fill(1, t.tensor([0, 2, 0]), v), X, 4.0),
    "index_put": (lambda t, x, s: x.index_put((t.tensor([0, 0]), t.tensor([1, 3])), s[0, :2]), X, SRC),
    "index_put accumulate": (lambda t, x, s: x.index_put((t.tensor([0, 0]),), s[:2], accumulate=True), X, SRC),
    "embedding": (lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 1]]), w), X),
    "embedding padding_idx": (lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 0]]), w, padding_idx=1), X),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_and_gradgradcheck(et, name):
    fn, *values = GRADCHECK[name]
    xs = tuple(et.tensor(v, dtype=et.float64, requires_grad=True) for v in values)
    assert et.autograd.gradcheck(lambda *a: fn(et, *a), xs)
    assert et.autograd.gradgradcheck(lambda *a: fn(et, *a), xs)


# ----- nn.Embedding -----

def seeded(t, seed, *args, **kwargs):
    t.manual_seed(seed)
    return t.nn.Embedding(*args, **kwargs)


def lookup_and_grad(t, m, indices, upstream=None):
    y = m(t.tensor(indices))
    (y if upstream is None else y * t.tensor(upstream)).sum().backward()
    return y, names(y.grad_fn), m.weight.grad


def renormed(t, rows, indices, **kw):
    w = t.tensor(rows, requires_grad=True)
    return t.nn.functional.embedding(t.tensor(indices), w, **kw), w, w._version


def described_module(m):
    return (repr(m), m.num_embeddings, m.embedding_dim, m.padding_idx, m.max_norm, m.norm_type, m.scale_grad_by_freq,
            m.sparse, m.__constants__, type(m).__name__, [n for n, _ in m.named_parameters()], list(m.state_dict()),
            m.weight, m.weight._version, m.weight.requires_grad, m.weight.is_leaf)


EMBEDDING = {
    "seeded weight": lambda t: repr(seeded(t, 0, 5, 3).weight),
    "seeded padding_idx": lambda t: repr(seeded(t, 0, 5, 3, padding_idx=1).weight),
    "seeded float64, then the generator": lambda t: (seeded(t, 3, 20, 7, dtype=t.float64).weight, t.rand(2)),
    "module": lambda t: described_module(seeded(t, 1, 4, 2, padding_idx=-2)),
    "repr": lambda t: [repr(t.nn.Embedding(5, 3, **kw)) for kw in (
        {}, {"padding_idx": -1}, {"max_norm": 1.0, "norm_type": 1.0}, {"scale_grad_by_freq": True, "max_norm": 2},
        {"norm_type": 2})],
    "forward and grads": lambda t: lookup_and_grad(t, seeded(t, 0, 4, 3, padding_idx=2), [[0, 2, 1], [2, 2, 3]]),
    "scale_grad_by_freq": lambda t: lookup_and_grad(t, seeded(t, 0, 3, 2, scale_grad_by_freq=True), [1, 1, 0],
                                                    [[1.0], [2.0], [4.0]]),
    "max_norm": lambda t: (lambda m: (m(t.tensor([0, 2, 0])), m.weight, m.weight._version))(
        seeded(t, 0, 4, 3, max_norm=1.0)),
    "max_norm p=1": lambda t: renormed(t, [[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], [0, 2], max_norm=2.0, norm_type=1.0),
    "max_norm nothing to scale": lambda t: renormed(t, [[0.3, 0.4]], [0], max_norm=5.0),
    "from_pretrained": lambda t: (lambda m: (described_module(m), m(t.tensor([1]))))(
        t.nn.Embedding.from_pretrained(t.tensor([[1.0, 2.0], [3.0, 4.0]]))),
    "from_pretrained unfrozen with padding": lambda t: described_module(
        t.nn.Embedding.from_pretrained(t.ones(2, 3), freeze=False, padding_idx=0)),
    "_weight and _freeze": lambda t: (t.nn.Embedding(2, 3, _weight=t.ones(2, 3)).weight,
                                      t.nn.Embedding(2, 3, _freeze=True).weight.requires_grad),
    "sparse lookup without grad": lambda t: t.nn.functional.embedding(t.tensor([0, 0]), t.ones(2, 2), sparse=True),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(EMBEDDING))
def test_embedding_matches_torch(torch_ref, et, name):
    # (max_norm's row norms: PyTorch's float32 reduction may round the last bit otherwise)
    (close if name.startswith("max_norm") else same)(torch_ref, et, EMBEDDING[name])


def test_embedding_padding_row_gets_no_grad(et):
    m = et.nn.Embedding(6, 4, padding_idx=3)
    assert m.weight[3].abs().sum().item() == 0
    m(et.tensor([[3, 1, 3], [0, 3, 5]])).pow(2).sum().backward()
    assert m.weight.grad[3].abs().sum().item() == 0
    assert m.weight.grad[1].abs().sum().item() > 0


def test_embedding_module_lives_where_pytorch_has_it(et):
    from engine.nn.modules import sparse

    assert et.nn.Embedding is sparse.Embedding and "Embedding" in et.nn.__all__
