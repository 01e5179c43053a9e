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
