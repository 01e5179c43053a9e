"""The graph a double backward builds (``create_graph=True``) against real PyTorch, for every op of
``opinfo.CASES``: whether each grad requires grad, and its ``grad_fn`` two levels deep. This is the
graph the playground draws for higher-order derivatives, so its node names must be PyTorch's
(``SigmoidBackwardBackward0``, ``MulBackward1`` for a product with a Python number, ...).

Two ways in: from a constant upstream grad (``(y * u).sum()``, the common case), and from an
upstream grad that itself requires grad, as when the op sits inside a function whose grad is taken
again (``x.mean() ** 2``). The second shows each rule's own nodes (``DivBackward1`` over
``ExpandBackward0`` for a mean, ``SelectBackwardBackward0`` for ``x[1]``), so it is compared
three levels deep."""
import warnings

import numpy as np
import pytest

import engine
from tests.engine import opinfo
from tests.engine.test_ops import as_outputs, graph_structure, make_inputs, upstream

CASES = [pytest.param(c, id=c.name) for c in opinfo.CASES]


def double_backward_graph(mod, case):
    """Per input that requires grad: None, or (requires_grad, grad_fn two levels deep) of its
    first-order grad taken with ``create_graph=True``."""
    inputs = make_inputs(mod, case, mod.float64)
    outs = [o for o in as_outputs(case.fn(mod, *inputs)) if o.requires_grad]
    if not outs:
        return None
    total = None
    for o, u in zip(outs, upstream(outs)):
        term = (o * mod.tensor(u, dtype=o.dtype)).sum()
        total = term if total is None else total + term
    wanted = [t for t in inputs if t.requires_grad]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the size-mismatch warnings of some loss cases
        grads = mod.autograd.grad(total, wanted, create_graph=True, allow_unused=True)
    return [None if g is None else (g.requires_grad, graph_structure(g.grad_fn, inputs, 2)) for g in grads]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_double_backward_graph_matches_torch(case, torch_ref):
    assert double_backward_graph(engine, case) == double_backward_graph(torch_ref, case)


def rule_graph(mod, case):
    """Per input that requires grad: None, or (requires_grad, grad_fn three levels deep) of its grad
    taken with ``create_graph=True`` from upstream grads that require grad."""
    inputs = make_inputs(mod, case, mod.float64)
    outs = [o for o in as_outputs(case.fn(mod, *inputs)) if o.requires_grad]
    if not outs:
        return None
    us = [mod.tensor(u, dtype=o.dtype, requires_grad=True) for o, u in zip(outs, upstream(outs))]
    wanted = [t for t in inputs if t.requires_grad]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads = mod.autograd.grad(outs, wanted, us, create_graph=True, allow_unused=True)
    return [None if g is None else (g.requires_grad, graph_structure(g.grad_fn, inputs + us, 3)) for g in grads]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_rule_graph_matches_torch(case, torch_ref):
    assert rule_graph(engine, case) == rule_graph(torch_ref, case)


def test_sigmoid_double_backward_nodes():
    # Without PyTorch at hand too: the fused kernel's node, its inputs, and the value it yields.
    x = engine.tensor([0.5, -1.0], dtype=engine.float64, requires_grad=True)
    y = x.sigmoid()
    (g,) = engine.autograd.grad(y.sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "SigmoidBackwardBackward0"
    assert g.grad_fn.next_functions[0] == (None, 0)
    assert g.grad_fn.next_functions[1][0] is y.grad_fn
    (gg,) = engine.autograd.grad(g.sum(), x)
    s = y.detach().numpy()
    assert gg.numpy() == pytest.approx(s * (1 - s) * (1 - 2 * s))


def test_relu_grad_is_differentiable_as_in_pytorch():
    # ThresholdBackwardBackward0: the grad requires grad, and its own grad is zeros (not an error).
    x = engine.tensor([0.5, -1.0], requires_grad=True)
    (g,) = engine.autograd.grad(x.relu().sum(), x, create_graph=True)
    assert g.requires_grad and type(g.grad_fn).__name__ == "ThresholdBackwardBackward0"
    (gg,) = engine.autograd.grad(g.sum(), x)
    assert gg.tolist() == [0.0, 0.0]


# ----- Layers, losses and ops outside opinfo: the same comparison, four levels deep -----

def F(t):
    return t.nn.functional


MORE = {
    "lstm cell": (lambda t, x, h, c: t.nn.LSTMCell(3, 4).double()(x, (h, c)), [(2, 3), (2, 4), (2, 4)]),
    "gru cell": (lambda t, x, h: t.nn.GRUCell(3, 4).double()(x, h), [(2, 3), (2, 4)]),
    "rnn cell": (lambda t, x, h: t.nn.RNNCell(3, 4).double()(x, h), [(2, 3), (2, 4)]),
    "linear": (lambda t, x: t.nn.Linear(3, 4).double()(x), [(2, 3)]),
    "layer_norm": (lambda t, x: F(t).layer_norm(x, (3,)), [(2, 3)]),
    "batch_norm": (lambda t, x: F(t).batch_norm(x, None, None, training=True), [(4, 3)]),
    "dropout eval": (lambda t, x: F(t).dropout(x, 0.5, training=False), [(4, 3)]),
    "embedding": (lambda t, w: F(t).embedding(t.tensor([[0, 2], [1, 1]]), w), [(3, 4)]),
    "softmax": (lambda t, x: F(t).softmax(x, 1), [(2, 3)]),
    "cross_entropy": (lambda t, x: F(t).cross_entropy(x, t.tensor([0, 2])), [(2, 3)]),
    "cross_entropy ls": (lambda t, x: F(t).cross_entropy(x, t.tensor([0, 2]), label_smoothing=0.1), [(2, 3)]),
    "cross_entropy probs": (lambda t, x, y: F(t).cross_entropy(x, y.softmax(1)), [(2, 3), (2, 3)]),
    "normalize": (lambda t, x: F(t).normalize(x), [(2, 3)]),
    "cosine_similarity": (lambda t, x, y: F(t).cosine_similarity(x, y), [(2, 3), (2, 3)]),
    "gelu": (lambda t, x: F(t).gelu(x), [(2, 3)]),
    "gelu tanh": (lambda t, x: F(t).gelu(x, approximate="tanh"), [(2, 3)]),
    "mish": (lambda t, x: F(t).mish(x), [(2, 3)]),
    "elu": (lambda t, x: F(t).elu(x), [(2, 3)]),
    "softplus": (lambda t, x: F(t).softplus(x), [(2, 3)]),
    "leaky_relu": (lambda t, x: F(t).leaky_relu(x, 0.1), [(2, 3)]),
    "hardtanh": (lambda t, x: F(t).hardtanh(x), [(2, 3)]),
    "logsigmoid": (lambda t, x: F(t).logsigmoid(x), [(2, 3)]),
    "glu": (lambda t, x: F(t).glu(x), [(2, 4)]),
    "norm": (lambda t, x: x.norm(), [(2, 3)]),
    "norm dim": (lambda t, x: x.norm(dim=1), [(2, 3)]),
    "var": (lambda t, x: x.var(1), [(2, 3)]),
    "std": (lambda t, x: x.std(), [(2, 3)]),
    "cumsum": (lambda t, x: x.cumsum(1), [(2, 3)]),
    "cumprod": (lambda t, x: x.cumprod(1), [(2, 3)]),
    "sort": (lambda t, x: x.sort(1)[0], [(2, 3)]),
    "topk": (lambda t, x: x.topk(2)[0], [(2, 3)]),
    "max dim": (lambda t, x: x.max(1)[0], [(2, 3)]),
    "median": (lambda t, x: x.median(), [(2, 3)]),
    "kthvalue": (lambda t, x: x.kthvalue(2, 1)[0], [(2, 3)]),
    "gather": (lambda t, x: x.gather(1, t.tensor([[0, 0], [2, 1]])), [(2, 3)]),
    "scatter": (lambda t, x, s: x.scatter(1, t.tensor([[0], [2]]), s), [(2, 3), (2, 1)]),
    "scatter_add": (lambda t, x, s: x.scatter_add(1, t.tensor([[0], [2]]), s), [(2, 3), (2, 1)]),
    "index_add": (lambda t, x, s: x.index_add(0, t.tensor([1]), s), [(2, 3), (1, 3)]),
    "index_put acc": (lambda t, x, v: x.index_put((t.tensor([0, 0]),), v, accumulate=True), [(2, 3), (2, 3)]),
    "setitem": (lambda t, x, v: (lambda y: (y.__setitem__(0, v), y)[1])(x * 1), [(2, 3), (3,)]),
    "trace": (lambda t, x: x.trace(), [(3, 3)]),
    "diagonal": (lambda t, x: x.diagonal(), [(3, 3)]),
    "tril": (lambda t, x: x.tril(), [(3, 3)]),
    "roll": (lambda t, x: x.roll(1, 1), [(2, 3)]),
    "flip": (lambda t, x: x.flip(1), [(2, 3)]),
    "einsum": (lambda t, x, y: t.einsum("ij,jk->ik", x, y), [(2, 3), (3, 2)]),
    "bmm": (lambda t, x, y: t.bmm(x, y), [(2, 2, 3), (2, 3, 2)]),
    "inverse": (lambda t, x: t.linalg.inv(x + 3 * t.eye(3, dtype=t.float64)), [(3, 3)]),
    "det": (lambda t, x: t.linalg.det(x), [(3, 3)]),
    "clamp t": (lambda t, x, lo: x.clamp(min=lo), [(2, 3), (2, 3)]),
    "lerp": (lambda t, x, y: t.lerp(x, y, 0.3), [(2, 3), (2, 3)]),
    "atan2": (lambda t, x, y: t.atan2(x, y), [(2, 3), (2, 3)]),
    "hypot": (lambda t, x, y: t.hypot(x, y), [(2, 3), (2, 3)]),
    "expand_as": (lambda t, x, y: x.expand_as(y), [(1, 3), (2, 3)]),
    "sum_to_size": (lambda t, x: x.sum_to_size(1, 3), [(2, 3)]),
    "unfold": (lambda t, x: x.unfold(1, 2, 1), [(2, 4)]),
    "F.unfold": (lambda t, x: F(t).unfold(x, 2), [(1, 2, 3, 3)]),
    "kl_div": (lambda t, x, y: F(t).kl_div(x, y, reduction="batchmean"), [(2, 3), (2, 3)]),
    "huber": (lambda t, x, y: F(t).huber_loss(x, y), [(2, 3), (2, 3)]),
    "nll weight": (lambda t, x: F(t).nll_loss(x, t.tensor([0, 2]), weight=t.tensor([1., 2., 3.], dtype=t.float64)),
                   [(2, 3)]),
    "bce": (lambda t, x, y: F(t).binary_cross_entropy(x.sigmoid(), y.sigmoid()), [(2, 3), (2, 3)]),
}
# Graphs that still differ from PyTorch's (values agree). strict: fixing one fails here.
MORE_KNOWN = {
    "gru cell": "PyTorch's GRU cell shows a CloneBackward0 three levels down where the engine shows the gate split",
    "setitem": "PyTorch differentiates CopySlices through CopyBackwards and AsStridedBackward0; the engine masks "
               "and indexes",
    "det": "PyTorch's det backward solves (LinalgSolveExBackward0); the engine multiplies by the inverse",
}


def more_graph(t, name):
    fn, shapes = MORE[name]
    rng = np.random.default_rng(0)
    t.manual_seed(0)
    xs = [t.tensor(rng.standard_normal(s), dtype=t.float64, requires_grad=True) for s in shapes]
    out = fn(t, *xs)
    ys = [y for y in (out if isinstance(out, tuple) else (out,)) if y.requires_grad]
    us = [t.tensor(rng.standard_normal(tuple(y.shape)), dtype=t.float64, requires_grad=True) for y in ys]
    gs = t.autograd.grad(ys, xs, us, create_graph=True, allow_unused=True)
    return [None if g is None else (g.requires_grad, graph_structure(g.grad_fn, xs + us, 4)) for g in gs]


@pytest.mark.torch
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=MORE_KNOWN[n]))
                                  if n in MORE_KNOWN else n for n in MORE])
def test_more_rule_graphs_match_torch(torch_ref, name):
    assert more_graph(engine, name) == more_graph(torch_ref, name)
