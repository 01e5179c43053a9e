"""Indexing as PyTorch does it: ints, slices, None and ``...`` make views first (Select, Slice and
Unsqueeze nodes), then tensor indices address the view (IndexBackward0). Values, shapes, the node
chain, the grads, the saved indices, the errors and the warnings, each against PyTorch."""
import pytest

from tests.engine.opinfo import same


def chain(fn):
    """The names down the first edge of each node, from ``fn`` to the leaf."""
    names = []
    while fn is not None:
        names.append(fn.name())
        fn = next((f for f, _ in fn.next_functions if f is not None), None)
    return names


def indexed(index):
    """``x[index(t, x)]`` of a (2, 3, 4) leaf: its value, node chain, the grad of its sum and the
    saved indices of its IndexBackward0 (when it has one)."""
    def run(t):
        x = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        y = index(t, x)
        saved = y.grad_fn._saved_indices if y.grad_fn.name() == "IndexBackward0" else None
        y.sum().backward()
        return y, chain(y.grad_fn), x.grad, saved
    return run


MASK = [[True, False, True], [False, True, True]]

INDEXING = {
    # a view, then the tensor index: the shape is the view's (NumPy moves x[0, :, [1, 2]]'s dims first)
    "int then list": lambda t, x: x[0, [1, 2]],
    "int, slice, list": lambda t, x: x[0, :, [1, 2]],
    "int, ellipsis, list": lambda t, x: x[0, ..., [1, 2]],
    "slice then list": lambda t, x: x[1:, [0, 2]],
    "list then slice": lambda t, x: x[[0, 1], 1:],
    "list, full slice, int": lambda t, x: x[[0, 1], :, 0],
    "none then list": lambda t, x: x[None, [0, 1]],
    "list, none (apart)": lambda t, x: x[:, [0, 1], None, [2, 3]],
    "slice, list, none": lambda t, x: x[1:2, [0], None],
    "int between lists": lambda t, x: x[[0, 1], 0, [2, 3]],
    "int, list, ellipsis, list": lambda t, x: x[1, [0, 1], ..., [2, 3]],
    "list then int": lambda t, x: x[[1], 0],
    "0-d tensor and list": lambda t, x: x[t.tensor(1), [0, 2]],
    "2-d index after int": lambda t, x: x[0, t.tensor([[0, 1], [1, 2]])],
    # no view first: one IndexBackward0
    "full slice then list": lambda t, x: x[:, [0, 2]],
    "ellipsis then list": lambda t, x: x[..., [0]],
    "two lists": lambda t, x: x[[0, 1], [1, 2]],
    "repeated rows": lambda t, x: x[[0, 0, 1]],
    # masks: a k-dim mask covers k dims
    "mask": lambda t, x: x[x > 5],
    "2-d mask then int": lambda t, x: x[t.tensor(MASK), 0],
    "2-d mask then slice": lambda t, x: x[t.tensor(MASK), 1:],
    "2-d mask then none": lambda t, x: x[t.tensor(MASK), None],
    "none then 2-d mask": lambda t, x: x[None, t.tensor(MASK)],
    "int then 2-d mask": lambda t, x: x[0, x[0] > 5],
    "1-d mask, int": lambda t, x: x[:, t.tensor(MASK[0]), 0],
    "list, mask, slice": lambda t, x: x[[0, 1], t.tensor(MASK[0]), 1:],
    # True and False: a new dim, indexed by [0] or []
    "true": lambda t, x: x[True],
    "int, true": lambda t, x: x[0, True],
    "false, int": lambda t, x: x[False, 0],
    # lists read as tuples (deprecated), float lists read as long
    "list of 0-d tensors": lambda t, x: x[[t.tensor(0), t.tensor(1)]],
    "list with a slice": lambda t, x: x[[0, slice(None)]],
    "list with none": lambda t, x: x[[0, None]],
    "nested list": lambda t, x: x[[[1, 0]]],
    "float list": lambda t, x: x[[1.7, 0]],
    # nothing indexed: a slice for x[:], an alias otherwise
    "bare full slice": lambda t, x: x[:],
    "tuple of full slices": lambda t, x: x[:, :],
    "ellipsis": lambda t, x: x[...],
    "two ellipses": lambda t, x: x[..., ...],
    "0-d ellipsis": lambda t, x: x.sum()[...],
}


@pytest.mark.parametrize("name", list(INDEXING))
def test_indexing_matches_torch(torch_ref, et, name):
    same(torch_ref, et, indexed(INDEXING[name]))


def test_uint8_index_is_a_mask(torch_ref, et):
    # (PyTorch warns again at backward, where it meets the byte mask a second time; the engine warns once)
    same(torch_ref, et, lambda t: t.arange(6.).reshape(2, 3)[:, t.tensor([1, 0, 1], dtype=t.uint8)])


ERRORS = {
    "mask of the wrong shape": "x[1:, t.tensor(MASK)[:1]]",
    "mask of the wrong shape first": "x[t.tensor(MASK)[:1]]",
    "1-d mask of the wrong size": "x[:, t.tensor([True, False])]",
    "indices that do not broadcast": "x[[0, 1], [0, 1, 2]]",
    "mask and list that do not broadcast": "x[t.tensor(MASK), [0, 1, 2]]",
    "out of bounds": "x[[5]]",
    "out of bounds, negative": "x[[-3]]",
    "out of bounds after a full slice": "x[:, [0, 7]]",
    "second index out of bounds": "x[[0, 1], [1, 9]]",
    "first bad element wins": "x[[0, 9], [1, 9]]",
    "out of bounds, broadcast": "x[[[0], [1]], [[5, 1]]]",
    "too many with masks": "x[t.tensor(MASK), t.tensor(MASK)]",
    "too many with a list": "x[0, 0, 0, [0]]",
    "too many with a mask and ints": "x[t.tensor(MASK), 0, 0]",
    "float tensor": "x[t.tensor([1.0])]",
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_indexing_errors_match_torch(torch_ref, et, name):
    def run(t):
        x = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        return eval(ERRORS[name], {"t": t, "x": x, "MASK": MASK})
    ref = same(torch_ref, et, run)
    assert ref[0][0] == "raised"


SETITEM = {
    "int then list": lambda x: x.__setitem__((0, [1, 2]), 5.0),
    "slice then mask": lambda x: x.__setitem__((slice(1, None), x[1] > 15), -1.0),
    "2-d mask then int": lambda x: x.__setitem__((x[:, :, 0] > 5, 0), 7.0),
    "true": lambda x: x.__setitem__(True, 2.0),
}


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem_matches_torch(torch_ref, et, name):
    def run(t):
        leaf = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        x = leaf * 1
        SETITEM[name](x)
        x.sum().backward()
        return x, chain(x.grad_fn), leaf.grad
    same(torch_ref, et, run)


SAVED_AFTER_BACKWARD = {  # tensors a node keeps are freed by backward; numbers and None stay readable
    "index": lambda t, x: (x[[0, 1]], "_saved_indices"),
    "mask": lambda t, x: (x[x > 5], "_saved_indices"),
    "max indices": lambda t, x: (x.max(1)[0], "_saved_indices"),
    "nll target": lambda t, x: (t.nn.functional.nll_loss(x[:, :, 0], t.tensor([0, 2])), "_saved_target"),
    "nll total weight": lambda t, x: (t.nn.functional.nll_loss(x[:, :, 0], t.tensor([0, 2])), "_saved_total_weight"),
    "nll weight": lambda t, x: (t.nn.functional.nll_loss(x[:, :, 0], t.tensor([0, 2])), "_saved_weight"),
    "nll reduction": lambda t, x: (t.nn.functional.nll_loss(x[:, :, 0], t.tensor([0, 2])), "_saved_reduction"),
    "where condition": lambda t, x: (t.where(x > 5, x, 0.0), "_saved_condition"),
    "gather index": lambda t, x: (x.gather(0, t.tensor([[[1]]])), "_saved_index"),
    "bce weight": lambda t, x: (t.nn.functional.binary_cross_entropy(x.sigmoid(), t.ones(2, 3, 4), weight=t.ones(4)),
                                "_saved_weight"),
}


@pytest.mark.parametrize("name", list(SAVED_AFTER_BACKWARD))
def test_saved_tensors_are_freed_by_backward(torch_ref, et, name):
    def run(t):
        x = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        y, attr = SAVED_AFTER_BACKWARD[name](t, x)
        y.sum().backward()
        return getattr(y.grad_fn, attr)
    same(torch_ref, et, run)


SECOND_BACKWARD = {  # nodes that keep an index or a mask: a second backward raises, as in PyTorch
    "index": lambda t, x: x[[0, 1]],
    "mask": lambda t, x: x[x > 5],
    "index after int": lambda t, x: x[0, [1]],
    "index_select": lambda t, x: x.index_select(0, t.tensor([1])),
    "repeat_interleave": lambda t, x: x.repeat_interleave(t.tensor([1, 2]), dim=0),
    "where": lambda t, x: t.where(x > 5, x, 0.0),
    "masked_fill": lambda t, x: x.masked_fill(x > 5, 0.0),
    "masked_select": lambda t, x: x.masked_select(x > 5),
    "max dim": lambda t, x: x.max(1)[0],
    "min dim": lambda t, x: x.min(1).values,
    "gather": lambda t, x: x.gather(0, t.tensor([[[1]]])),
    # and nodes that keep nothing run again
    "select": lambda t, x: x[0],
    "slice": lambda t, x: x[:, 1:],
    "sum": lambda t, x: x.sum(0),
}


@pytest.mark.parametrize("name", list(SECOND_BACKWARD))
def test_second_backward_matches_torch(torch_ref, et, name):
    def run(t):
        x = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        y = SECOND_BACKWARD[name](t, x).sum()
        y.backward()
        y.backward()
        return x.grad
    same(torch_ref, et, run)


GATHER = {
    "index smaller than the input": "x.gather(0, t.tensor([[[1]], [[0]], [[1]]]))",
    "int32 index": "x.gather(1, t.tensor([[[1]]], dtype=t.int32))",
    "0-d": "t.tensor(5., requires_grad=True).gather(0, t.tensor(0))",
    "index larger than the input": "x.gather(0, t.tensor([[[1, 0, 1, 1, 1]]]))",
    "index of another rank": "x.gather(0, t.tensor([[1]]))",
    "float index": "x.gather(0, t.tensor([[[1.]]]))",
    "out of bounds": "x.gather(0, t.tensor([[[2]]]))",
    "negative": "x.gather(0, t.tensor([[[-1]]]))",
}


@pytest.mark.parametrize("name", list(GATHER))
def test_gather_matches_torch(torch_ref, et, name):
    def run(t):
        x = t.arange(24.).reshape(2, 3, 4).requires_grad_()
        y = eval(GATHER[name], {"t": t, "x": x})
        leaf = y.grad_fn.next_functions[0][0].variable
        y.sum().backward()
        return y, leaf.grad
    same(torch_ref, et, run)
