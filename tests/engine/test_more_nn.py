"""Shrinkage activations, PReLU and the margin losses (functions, modules, in-place forms) against
PyTorch: values, nodes down the graph, grads, reprs and errors."""
import pytest

from tests.engine.opinfo import same


def _x(t):
    return t.tensor([[1.5, -0.2, 0.3], [-2.0, 0.6, 0.1]], requires_grad=True)


def _y(t):
    return t.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]])


def _chain(out, depth=8):
    """The node names down the first input's edges, as far as a leaf."""
    names, node = [], out.grad_fn
    while node is not None and depth:
        names.append(node.name())
        nxt = [f for f, _ in node.next_functions if f is not None and "AccumulateGrad" not in f.name()]
        node, depth = (nxt[0] if nxt else None), depth - 1
    return names


def _no_grad(t, fn):
    with t.no_grad():
        return fn()


def _seen(t, fn, *leaves):
    """``fn``'s value, its graph's node names and the leaves' grads."""
    out = fn(*leaves)
    return out, _chain(out), t.autograd.grad(out.sum(), leaves)


CASES = {
    "hardshrink": lambda t: _seen(t, lambda x: t.nn.functional.hardshrink(x, 0.5), _x(t)),
    "torch.hardshrink": lambda t: _seen(t, lambda x: t.hardshrink(x, 0.25), _x(t)),
    "t.hardshrink": lambda t: _seen(t, lambda x: x.hardshrink(), _x(t)),
    "softshrink": lambda t: _seen(t, lambda x: t.nn.functional.softshrink(x, 0.25), _x(t)),
    "tanhshrink": lambda t: _seen(t, t.nn.functional.tanhshrink, _x(t)),
    "prelu(1)": lambda t: _seen(t, t.nn.functional.prelu, _x(t), t.tensor([0.25], requires_grad=True)),
    "prelu(per channel)": lambda t: _seen(t, t.nn.functional.prelu, _x(t).reshape(2, 3, 1),
                                          t.tensor([0.1, 0.2, 0.3], requires_grad=True)),
    "torch.prelu(1-D)": lambda t: _seen(t, t.prelu, t.tensor([-1.0, 2.0], requires_grad=True),
                                        t.tensor([0.1], requires_grad=True)),
    "prelu weight node": lambda t: t.nn.functional.prelu(_x(t), t.tensor([0.1, 0.2, 0.3], requires_grad=True))
                                   .grad_fn.next_functions[1][0].name(),
    "PReLU module": lambda t: (lambda m: (repr(m), m(_x(t)), t.autograd.grad(m(_x(t)).sum(), m.weight)))(t.nn.PReLU(3)),
    "Hardshrink module": lambda t: (lambda m: (repr(m), m(_x(t))))(t.nn.Hardshrink(0.4)),
    "Softshrink module": lambda t: (lambda m: (repr(m), m(_x(t))))(t.nn.Softshrink()),
    "soft_margin_loss": lambda t: _seen(t, lambda x: t.nn.functional.soft_margin_loss(x, _y(t)), _x(t)),
    "soft_margin_loss(sum)": lambda t: _seen(t, lambda x: t.nn.functional.soft_margin_loss(x, _y(t), reduction="sum"), _x(t)),
    "soft_margin_loss(none)": lambda t: _seen(t, lambda x: t.nn.functional.soft_margin_loss(x, _y(t), reduction="none"), _x(t)),
    "SoftMarginLoss module": lambda t: (repr(t.nn.SoftMarginLoss()), t.nn.SoftMarginLoss()(_x(t), _y(t))),
    "margin_ranking_loss": lambda t: _seen(t, lambda a, b: t.nn.functional.margin_ranking_loss(
        a, b, t.tensor([1.0, -1.0, 1.0]), margin=0.1), t.tensor([1.5, -0.2, 0.3], requires_grad=True),
        t.tensor([0.5, 0.6, 0.9], requires_grad=True)),
    "MarginRankingLoss module": lambda t: (lambda m: (repr(m), m(t.ones(3), t.zeros(3), -t.ones(3))))(
        t.nn.MarginRankingLoss(margin=0.5)),
    "hinge_embedding_loss": lambda t: _seen(t, lambda x: t.nn.functional.hinge_embedding_loss(x, _y(t)), _x(t)),
    "hinge_embedding_loss(margin, none)": lambda t: _seen(t, lambda x: t.nn.functional.hinge_embedding_loss(
        x, _y(t), margin=0.5, reduction="none"), _x(t)),
    "HingeEmbeddingLoss module": lambda t: (repr(t.nn.HingeEmbeddingLoss()), t.nn.HingeEmbeddingLoss()(_x(t), _y(t))),
    "poisson_nll_loss": lambda t: _seen(t, lambda x: t.nn.functional.poisson_nll_loss(x, _y(t).abs() * 2), _x(t)),
    "poisson_nll_loss(rate, full)": lambda t: _seen(t, lambda x: t.nn.functional.poisson_nll_loss(
        x.abs(), _y(t).abs() * 3, log_input=False, full=True), _x(t)),
    "PoissonNLLLoss module": lambda t: (repr(t.nn.PoissonNLLLoss()), t.nn.PoissonNLLLoss(reduction="sum")(_x(t), _y(t).abs())),
    # the in-place functional forms (their nodes, after the multiply that made a non-leaf)
    **{f"F.{name}": (lambda name: lambda t: _chain(getattr(t.nn.functional, name)(_x(t) * 1)))(name)
       for name in ("relu_", "elu_", "leaky_relu_", "hardtanh_", "selu_", "celu_")},
    "F.threshold_": lambda t: _chain(t.nn.functional.threshold_(_x(t) * 1, 0.1, 2.0)),
    "torch.selu_": lambda t: t.selu_(t.tensor([-1.0, 1.0])),
    "torch.celu_": lambda t: t.celu_(t.tensor([-1.0, 1.0]), 0.5),
    "torch.threshold_": lambda t: t.threshold_(t.tensor([-1.0, 1.0]), 0.0, 5.0),
    # errors
    "prelu(channels)": lambda t: t.nn.functional.prelu(t.ones(2, 3), t.tensor([0.1, 0.2])),
    "prelu(1-D, 2 weights)": lambda t: t.nn.functional.prelu(t.ones(2), t.tensor([0.1, 0.2])),
    "prelu(t, 0.1)": lambda t: t.nn.functional.prelu(t.ones(2), 0.1),
    "softshrink(-1)": lambda t: t.nn.functional.softshrink(t.ones(2), -1.0),
    "hardshrink(1.0)": lambda t: t.nn.functional.hardshrink(1.0),
    "soft_margin_loss(target requires grad)": lambda t: t.nn.functional.soft_margin_loss(_x(t), _x(t)),
    # a weight (or running statistic) that requires grad: the formulas have no derivative for it
    "bce(weight requires grad)": lambda t: t.nn.functional.binary_cross_entropy(
        _x(t).sigmoid(), _y(t).abs().clamp(max=1), weight=_x(t)),
    "bce_with_logits(weight requires grad)": lambda t: t.nn.functional.binary_cross_entropy_with_logits(
        _x(t), _y(t), weight=_x(t)),
    "bce_with_logits(pos_weight requires grad)": lambda t: t.nn.functional.binary_cross_entropy_with_logits(
        _x(t), _y(t), pos_weight=_x(t)),
    "cross_entropy(weight requires grad)": lambda t: t.nn.functional.cross_entropy(
        _x(t).reshape(2, 3), t.tensor([0, 2]), weight=_x(t)[0, :3].detach().requires_grad_()),
    "cross_entropy(weight requires grad, no_grad)": lambda t: _no_grad(t, lambda: t.nn.functional.cross_entropy(
        _x(t).reshape(2, 3), t.tensor([0, 2]), weight=_x(t)[0, :3].detach().requires_grad_())),
    "nll_loss 3-D(weight requires grad)": lambda t: t.nn.functional.nll_loss(
        _x(t).reshape(2, 3, 1), t.tensor([[0], [2]]), weight=_x(t)[0, :3].detach().requires_grad_()),
    "batch_norm(running_var requires grad)": lambda t: t.nn.functional.batch_norm(
        _x(t).reshape(3, 2), t.zeros(2), t.ones(2, requires_grad=True), training=True),
    "margin_ranking_loss(dims)": lambda t: t.nn.functional.margin_ranking_loss(t.ones(2), t.ones(2, 1), t.ones(2)),
    "poisson_nll_loss(reduction)": lambda t: t.nn.functional.poisson_nll_loss(_x(t), _y(t), reduction="avg"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(torch_ref, et, name):
    same(torch_ref, et, CASES[name])


# Lazy modules (d2l builds its models from them): repr before and after, the parameters drawn at the
# first forward as the eager module draws them, an optimizer made before that forward.
def _lazy_step(t, make, x_shape, opt=None):
    t.manual_seed(0)
    m = make(t)
    before = (repr(m), [(n, repr(p), type(p).__name__) for n, p in m.named_parameters()])
    o = (opt or (lambda ps: t.optim.SGD(ps, lr=0.1)))(m.parameters())
    x = t.arange(float(t.tensor(x_shape).prod().item())).reshape(x_shape) / 10
    loss = m(x).square().sum()
    loss.backward()
    o.step()
    return before, repr(m), type(m).__name__, [(n, p) for n, p in m.named_parameters()], loss


LAZY = {
    "LazyLinear": lambda t: _lazy_step(t, lambda t: t.nn.LazyLinear(3), (2, 4)),
    "LazyLinear(bias=False)": lambda t: _lazy_step(t, lambda t: t.nn.LazyLinear(2, bias=False), (3,)),
    "Sequential of LazyLinear": lambda t: _lazy_step(
        t, lambda t: t.nn.Sequential(t.nn.LazyLinear(4), t.nn.ReLU(), t.nn.LazyLinear(1)), (5, 3),
        lambda ps: t.optim.Adam(ps, lr=0.01)),
    "LazyConv2d": lambda t: _lazy_step(t, lambda t: t.nn.LazyConv2d(2, 3, padding=1), (1, 2, 4, 4)),
    "LazyConv1d(groups)": lambda t: _lazy_step(t, lambda t: t.nn.LazyConv1d(4, 2, groups=2), (2, 4, 5)),
    "LazyConv2d(unbatched)": lambda t: _lazy_step(t, lambda t: t.nn.LazyConv2d(1, 2), (3, 4, 4)),
    "LazyConvTranspose2d": lambda t: _lazy_step(t, lambda t: t.nn.LazyConvTranspose2d(2, 3, stride=2), (1, 3, 2, 2)),
    "LazyBatchNorm2d": lambda t: _lazy_step(t, lambda t: t.nn.Sequential(t.nn.LazyBatchNorm2d(), t.nn.Flatten(),
                                                                         t.nn.LazyLinear(2)), (2, 3, 2, 2)),
    "LazyBatchNorm1d buffers": lambda t: (lambda m: (repr(m), repr(m.running_mean), m.num_batches_tracked,
                                                     list(m.state_dict())))(t.nn.LazyBatchNorm1d()),
    "LazyBatchNorm1d(affine=False, no stats)": lambda t: (lambda m: (m(t.arange(6.0).reshape(3, 2)), repr(m)))(
        t.nn.LazyBatchNorm1d(affine=False, track_running_stats=False)),
    "d2l LeNet, lazy": lambda t: _lazy_step(t, lambda t: t.nn.Sequential(
        t.nn.LazyConv2d(2, kernel_size=3, padding=1), t.nn.LazyBatchNorm2d(), t.nn.Sigmoid(),
        t.nn.AvgPool2d(kernel_size=2, stride=2), t.nn.Flatten(), t.nn.LazyLinear(4), t.nn.ReLU(), t.nn.LazyLinear(2)),
        (2, 1, 4, 4)),
    "uninitialized shape": lambda t: t.nn.LazyLinear(3).weight.shape,
    "uninitialized numel": lambda t: t.nn.LazyLinear(3).weight.numel(),
    "uninitialized repr": lambda t: (repr(t.nn.LazyLinear(3).bias), type(t.nn.LazyLinear(3).bias).__name__),
}


@pytest.mark.parametrize("name", list(LAZY))
def test_lazy_modules_match_torch(torch_ref, et, name):
    same(torch_ref, et, LAZY[name])
