"""NumPy's parameter names, which PyTorch's argument parser takes for its bound functions and
methods: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input`` and
``x2`` for ``other`` (not in what PyTorch writes in Python: ``split``, ``unique``, ``norm``)."""
import pytest

from tests.engine.opinfo import same


def _x(t):
    return t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)


CALLS = {
    "sum(axis)": lambda x, t: t.sum(x, axis=0),
    "x.sum(axis, keepdims)": lambda x, t: x.sum(axis=1, keepdims=True),
    "x.sum(0, keepdims)": lambda x, t: x.sum(0, keepdims=True),
    "mean(axis)": lambda x, t: t.mean(x, axis=0),
    "x.max(axis)": lambda x, t: x.max(axis=0),
    "max(axis, keepdims)": lambda x, t: t.max(x, axis=1, keepdims=True),
    "x.argmax(axis)": lambda x, t: x.argmax(axis=1),
    "x.std(axis)": lambda x, t: x.std(axis=0),
    "x.var(axis, keepdims)": lambda x, t: x.var(axis=1, keepdims=True),
    "x.prod(axis)": lambda x, t: x.prod(axis=0),
    "x.cumsum(axis)": lambda x, t: x.cumsum(axis=0),
    "cat(axis)": lambda x, t: t.cat([x, x], axis=0),
    "stack(axis)": lambda x, t: t.stack([x, x], axis=1),
    "softmax(axis)": lambda x, t: t.softmax(x, axis=0),
    "x.log_softmax(axis)": lambda x, t: x.log_softmax(axis=1),
    "x.logsumexp(axis)": lambda x, t: x.logsumexp(axis=1),
    "x.amin(axis, keepdims)": lambda x, t: x.amin(axis=1, keepdims=True),
    "x.squeeze(axis)": lambda x, t: x[None].squeeze(axis=0),
    "x.unsqueeze(axis)": lambda x, t: x.unsqueeze(axis=0),
    "x.sort(axis)": lambda x, t: x.sort(axis=1),
    "x.median(axis)": lambda x, t: x.median(axis=1),
    "x.topk(1, axis)": lambda x, t: x.topk(1, axis=1),
    "x.gather(axis, index)": lambda x, t: x.gather(axis=1, index=t.tensor([[0], [1]])),
    "x.index_select(axis)": lambda x, t: x.index_select(axis=1, index=t.tensor([0])),
    "x.cumsum_(axis)": lambda x, t: (x * 1).cumsum_(axis=0),
    "std_mean(axis)": lambda x, t: t.std_mean(x, axis=0),
    "add(x, x2)": lambda x, t: t.add(x=x, x2=x),
    "sum(a)": lambda x, t: t.sum(a=x),
    "exp(x1)": lambda x, t: t.exp(x1=x),
    # errors: both names, a keyword the function lacks, and what PyTorch writes in Python
    "x.sum(dim, axis)": lambda x, t: x.sum(dim=0, axis=1),
    "x.sum(axis, out)": lambda x, t: x.sum(axis=0, out=None),
    "x.sum(0, foo)": lambda x, t: x.sum(0, foo=1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_numpy_names_as_pytorchs(torch_ref, et, name):
    same(torch_ref, et, lambda t: CALLS[name](_x(t), t))


def test_numpy_names_keep_the_graph(torch_ref, et):
    same(torch_ref, et, lambda t: (lambda x: (x.sum(axis=1, keepdims=True).grad_fn.name(),
                                              t.autograd.grad(x.logsumexp(axis=0).sum(), x)))(_x(t)))


@pytest.mark.parametrize("call", [lambda x: x.split(1, axis=1), lambda x: x.unique(axis=0)], ids=["split", "unique"])
def test_python_methods_take_no_numpy_names(et, call):
    # (PyTorch's message names them Tensor.split and Tensor.unique, its Python methods)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        call(_x(et))
