"""The ops beyond the tutorials' core (erf, atan2, lerp, gelu, kl_div, einsum, cumprod, ...): their
errors, special values and in-place forms against real PyTorch, dropout's statistics, and erf's
accuracy. Values, grads and graphs of ordinary inputs are the OpCases of opinfo.py."""
import math

import numpy as np
import pytest

import engine
from tests.engine.opinfo import same

_INF, _NAN = float("inf"), float("nan")
_PAST = [_NAN, _INF, -_INF, 0.0, -0.0, -1.0, 3e38, -3e38, 2.5]  # (3e38 * 2 is past float32's range)
_OVERFLOWING = [3e38, 2.0, _NAN, 1.0, 3e38, 1.0, -1.0, 0.0, 3e38]  # (no inf - inf, which FMA can change)


def _grad(t, fn, *values, **kw):
    """The grads of ``fn(*leaves).sum()`` (or of its output with a grad of ones, for a tuple)."""
    xs = [t.tensor(v, requires_grad=True, **kw) for v in values]
    fn(*xs).sum().backward()
    return [x.grad for x in xs]


def _double(t, fn, *values):
    xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    gs = t.autograd.grad(fn(*xs).sum(), xs, create_graph=True)
    return t.autograd.grad(sum(g.sum() for g in gs), xs, allow_unused=True)


F = lambda t: t.nn.functional  # noqa: E731

EDGE_CASES = {
    # ----- special values -----
    "erf special": lambda t: (t.erf(t.tensor([0.0, -0.0, _INF, -_INF, _NAN, 1e-300, 6.0, -30.0])),
                              t.erfc(t.tensor([0.0, _INF, -_INF, _NAN, 27.0, 30.0, -7.0]))),
    "erf float64 intervals": lambda t: t.erf(t.tensor([0.2, 0.9, 1.2, 2.0, 3.5, 5.5], dtype=t.float64)),
    "erf int": lambda t: t.erf(t.tensor([1, 2])),
    "erf 0d": lambda t: t.erf(t.tensor(0.5)),
    "inverse trig outside": lambda t: (t.asin(t.tensor([1.5, 1.0])), t.acosh(t.tensor([0.5, 1.0])),
                                       t.atanh(t.tensor([1.0, -1.0, 2.0]))),
    "logit values": lambda t: (t.logit(t.tensor([0.0, 0.5, 1.0, 1.5])), t.logit(t.tensor([0.0, 0.1, 0.95]), eps=0.2)),
    "logit grads": lambda t: (_grad(t, t.logit, [0.0, 0.5, 1.0, 1.5, -0.5]),
                              _grad(t, lambda x: t.logit(x, eps=0.2), [0.0, 0.5, 1.0, 0.2, 0.8])),
    "sinc values and grad at 0": lambda t: (t.sinc(t.tensor([0.0, 1.0, -2.0, 0.5])), _grad(t, t.sinc, [0.0, 1.0])),
    "atan2 grad at origin": lambda t: _grad(t, t.atan2, [0.0, 1e-200, 1.0], [0.0, 1e-200, 0.0], dtype=t.float64),
    "atan2 int": lambda t: t.atan2(t.tensor([1, 2]), t.tensor([1, 1])),
    "hypot grad at origin": lambda t: _grad(t, t.hypot, [0.0, 3.0], [0.0, 4.0]),
    "xlogy zeros and nan": lambda t: t.xlogy(t.tensor([0.0, 0.0, 1.0, 0.0, 2.0]), t.tensor([0.0, _NAN, 0.0, -1.0, 3.0])),
    "xlogy grads at zero": lambda t: _grad(t, t.xlogy, [0.0, 0.5, 1.0], [0.0, 0.0, 2.0]),
    "xlogy scalar nodes": lambda t: ((t.xlogy(2.0, t.ones(2, requires_grad=True))).grad_fn.name(),
                                     (t.xlogy(t.ones(2, requires_grad=True), 3)).grad_fn.name()),
    "xlogy int": lambda t: t.xlogy(t.tensor([1, 2]), t.tensor([1, 2])),
    "logaddexp large": lambda t: t.logaddexp(t.tensor([1000.0, -1000.0, -_INF]), t.tensor([1000.0, -1000.0, -_INF])),
    "lerp exact ends": lambda t: (t.lerp(t.tensor([1.0, 3.3]), t.tensor([2.0, -0.7]), 1.0),
                                  t.lerp(t.tensor([1.0, 3.3]), t.tensor([2.0, -0.7]), t.tensor([0.0, 1.0]))),
    "lerp 0d weight of another dtype": lambda t: t.lerp(t.ones(2), t.zeros(2), t.tensor(0.25, dtype=t.float64)),
    "addcmul promotion": lambda t: t.addcmul(t.ones(2), t.ones(2, dtype=t.float64), t.ones(2), value=2),
    "addcmul int": lambda t: t.addcmul(t.tensor([1, 2]), t.tensor([1, 1]), t.tensor([3, 3])),
    "nan_to_num": lambda t: (t.nan_to_num(t.tensor([_NAN, _INF, -_INF, 1.0])),
                             t.nan_to_num(t.tensor([_NAN, _INF, -_INF], dtype=t.float64), 1.0, 2.0, -2.0),
                             t.nan_to_num(t.tensor([1, 2]))),
    "nan_to_num grad": lambda t: _grad(t, t.nan_to_num, [_NAN, _INF, 1.0]),
    "deg2rad int": lambda t: (t.deg2rad(t.tensor([180])), t.rad2deg(t.tensor([1]))),
    "exp2 int": lambda t: t.exp2(t.tensor([0, 3])),
    "heaviside": lambda t: (t.heaviside(t.tensor([-1.0, 0.0, 2.0]), t.tensor([0.5])),
                            t.heaviside(t.tensor([-1, 0, 2]), t.tensor([7]))),
    "heaviside node": lambda t: [(n.name(), len(n.next_functions)) for n in (
        t.heaviside(t.ones(2, requires_grad=True), t.ones(2)).grad_fn,
        t.heaviside(t.ones(2), t.ones(2, requires_grad=True)).grad_fn,
        t.heaviside(t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)).grad_fn)],
    "floor_divide node edges": lambda t: [len(n.next_functions) for n in (
        (t.ones(2, requires_grad=True) // t.ones(2)).grad_fn, (t.ones(2) // t.ones(2, requires_grad=True)).grad_fn)],
    "hardtanh grads at bounds": lambda t: _grad(t, F(t).hardtanh, [-1.0, 1.0, 0.5, _NAN]),
    "relu6 grads at kinks": lambda t: _grad(t, F(t).relu6, [0.0, 6.0, 3.0]),
    "hardsigmoid hardswish at kinks": lambda t: (_grad(t, F(t).hardsigmoid, [-3.0, 3.0, 0.0]),
                                                 _grad(t, F(t).hardswish, [-3.0, 3.0, 0.0])),
    "threshold values": lambda t: F(t).threshold(t.tensor([0.5, 1.0, 2.0, _NAN]), 1.0, 7.0),
    "gelu extremes": lambda t: (F(t).gelu(t.tensor([-10.0, 10.0, 0.0, -_INF])), _grad(t, F(t).gelu, [-3.0, 10.0, 0.0])),
    "logsigmoid extremes": lambda t: (F(t).logsigmoid(t.tensor([-1000.0, 1000.0, 0.0])),
                                      _grad(t, F(t).logsigmoid, [-1000.0, 1000.0, 0.0])),
    "mish extremes": lambda t: (F(t).mish(t.tensor([-100.0, 100.0])), _grad(t, F(t).mish, [-100.0, 100.0])),
    "selu celu values": lambda t: (F(t).selu(t.tensor([-1.0, 2.0])), F(t).celu(t.tensor([-1.0, 2.0]), 0.5)),
    "elu saved scales": lambda t: [(n._saved_alpha, n._saved_scale, n._saved_input_scale) for n in (
        F(t).elu(t.ones(2, requires_grad=True)).grad_fn, F(t).selu(t.ones(2, requires_grad=True)).grad_fn)],
    "softmin implicit dim": lambda t: F(t).softmin(t.tensor([[1.0, 2.0, 3.0]])),
    "glu values": lambda t: F(t).glu(t.tensor([[1.0, 2.0, 3.0, 4.0]]), -1),
    "smooth_l1 and huber broadcast": lambda t: (F(t).smooth_l1_loss(t.ones(2, 1), t.tensor([0.0, 3.0])),
                                                F(t).huber_loss(t.ones(2, 1), t.tensor([0.0, 3.0]))),
    "smooth_l1 at beta": lambda t: _grad(t, lambda x: F(t).smooth_l1_loss(x, t.zeros(3), reduction="none", beta=0.5),
                                         [0.5, -0.5, 0.0]),
    "kl_div mean warns": lambda t: F(t).kl_div(t.tensor([[-1.0, -2.0]]), t.tensor([[0.3, 0.7]])),
    "kl_div legacy args": lambda t: (F(t).kl_div(t.tensor([[-1.0, -2.0]]), t.tensor([[0.5, 0.25]]), reduce=False),
                                     F(t).kl_div(t.tensor([[-1.0, -2.0]]), t.tensor([[0.5, 0.25]]), size_average=False)),
    "kl_div zero target": lambda t: _grad(t, lambda x, y: F(t).kl_div(x, y, reduction="sum"),
                                          [-1.0, -2.0], [0.0, 1.0]),
    "kl_div batchmean 0d": lambda t: F(t).kl_div(t.tensor(-1.0), t.tensor(0.5), reduction="batchmean"),
    "normalize zero row": lambda t: (F(t).normalize(t.zeros(2, 3)), _grad(t, F(t).normalize, [[0.0, 0.0], [3.0, 4.0]])),
    "cosine_similarity zero vector": lambda t: F(t).cosine_similarity(t.zeros(2, 3), t.ones(2, 3)),
    "pairwise_distance 1d": lambda t: F(t).pairwise_distance(t.tensor([1.0, 2.0]), t.tensor([4.0, 6.0])),
    "one_hot": lambda t: (F(t).one_hot(t.tensor([0, 2, 1])), F(t).one_hot(t.tensor([[0, 2], [1, 0]]), 4),
                          F(t).one_hot(t.tensor([], dtype=t.int64), 3)),
    "tril triu int and offsets": lambda t: (t.arange(9).view(3, 3).tril(-1), t.arange(9).view(3, 3).triu(5),
                                            t.ones(2, 3, 3).triu(1)),
    "diag diagonal trace int": lambda t: (t.diag(t.tensor([1, 2]), 1), t.diag(t.arange(6).view(2, 3), -1),
                                          t.arange(6).view(2, 3).diagonal(), t.arange(6).view(2, 3).trace()),
    "diagonal writes through": lambda t: (lambda x: (x.diagonal().add_(10), x)[1])(t.zeros(2, 3)),
    "diagonal is a view": lambda t: (lambda x: (x.diagonal()._base is x, x.diagonal(1).is_contiguous()))(t.zeros(3, 3)),
    "roll": lambda t: (t.roll(t.arange(6).view(2, 3), 1), t.roll(t.arange(6).view(2, 3), -1, 1),
                       t.roll(t.arange(6).view(2, 3), (1, 1), (0, -1))),
    "cumprod dtypes": lambda t: (t.cumprod(t.tensor([1, 2, 3], dtype=t.int32), 0), t.cumprod(t.tensor([True, True]), 0),
                                 t.tensor([1, 2]).cumprod(0, dtype=t.float64)),
    "cumprod grads with zeros": lambda t: _grad(t, lambda x: x.cumprod(-1), [[0.0, 2.0, 3.0], [2.0, 0.0, 0.0]]),
    "cumprod second order with zeros": lambda t: _double(t, lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 0.5]),
    # (with a zero anywhere, PyTorch's O(n) form: nan for inf / inf before the zero, 0 after it, not 0 * inf)
    "cumprod grads with inf and zeros": lambda t: _grad(t, lambda x: x.cumprod(-1),
                                                        [[_INF, 0.0, 3.0], [2.0, 0.0, 0.0], [_INF, 2.0, 0.5]]),
    # (PyTorch's kernel: grad * inf at either zero and at 1; building a graph, its formula: -inf at -0.)
    "logit grads at 0 and 1": lambda t: [t.autograd.grad(t.logit(x, eps), x, t.tensor([1.0, 1.0, -2.0, 0.0, 1.0, 1.0]),
                                                         create_graph=graph)
                                         for x in [t.tensor([-0.0, 0.0, 1.0, 0.0, 0.05, _NAN], requires_grad=True)]
                                         for eps in (None, 0.1) for graph in (False, True)],
    "vander grads at inf": lambda t: _grad(t, t.linalg.vander, [_INF, 0.0, 2.0, -1.0]),
    # ----- past the dtype's range: inf and nan as PyTorch gives them, and no NumPy RuntimeWarning -----
    "norms past float32": lambda t: [_grad(t, f, _PAST) for f in (
        lambda x: x.norm(), lambda x: x.norm(p=1), lambda x: x.norm(p=3), t.linalg.vector_norm,
        lambda x: t.linalg.matrix_norm(x.view(3, 3)), lambda x: F(t).normalize(x.view(3, 3)),
        lambda x: F(t).cosine_similarity(x.view(3, 3), x.view(3, 3).flip(0)),
        lambda x: F(t).pairwise_distance(x.view(3, 3), x.view(3, 3).flip(0)))],
    "products past float32": lambda t: [_grad(t, f, _OVERFLOWING) for f in (
        lambda x: t.dot(x, x.flip(0)), lambda x: t.inner(x, x.flip(0)), lambda x: x.view(3, 3) @ x.view(3, 3),
        lambda x: t.mv(x.view(3, 3), x[:3]), lambda x: t.bmm(x.view(1, 3, 3), x.view(1, 3, 3)),
        lambda x: x.view(1, 3, 3) @ x.view(3, 3), lambda x: F(t).linear(x.view(3, 3), x.view(3, 3), x[:3]),
        lambda x: t.addmm(x[:3], x.view(3, 3), x.view(3, 3)))],
    "sums past float32": lambda t: [_grad(t, f, _PAST) for f in (
        lambda x: x.cumsum(0), lambda x: x.nansum(), lambda x: x.nanmean(), lambda x: F(t).leaky_relu(x, 2.0),
        lambda x: F(t).softplus(x, beta=2.0))],
    "softmax family at inf": lambda t: [t.tensor([_INF, 1.0]).softmax(0), t.tensor([-_INF, -_INF]).log_softmax(0),
                                        F(t).cross_entropy(t.tensor([[_INF, 1.0]]), t.tensor([0]))],
    "prod and round past float32": lambda t: [t.tensor([1e30, 1e30]).prod(), t.tensor([[1e30, 1e30]]).prod(1),
                                              t.tensor([3e38, _NAN]).round(decimals=2)],
    "casts of inf and nan": lambda t: [getattr(t.tensor(_PAST), c)() for c in ("long", "int", "half", "bool")],
    "kron int": lambda t: t.kron(t.tensor([[1, 2]]), t.tensor([[1], [10]])),
    "masked_select broadcast": lambda t: t.arange(3.0).masked_select(t.tensor([[True], [False]])),
    "repeat_interleave": lambda t: (t.repeat_interleave(t.tensor([1, 2])), t.tensor([[1, 2], [3, 4]]).repeat_interleave(2),
                                    t.tensor([[1, 2], [3, 4]]).repeat_interleave(t.tensor([1, 2]), dim=0),
                                    t.tensor([1, 2]).repeat_interleave(t.tensor([3]))),
    "tile and stacks": lambda t: (t.tile(t.tensor([1, 2]), (2, 2)), t.vstack([t.tensor(1.0), t.tensor(2.0)]),
                                  t.hstack([t.tensor(1.0), t.tensor([2.0, 3.0])]), t.row_stack((t.ones(2), t.zeros(2)))),
    "var_mean forms": lambda t: (t.var_mean(t.ones(3, 2), unbiased=False), t.std_mean(t.ones(3), 0, keepdim=True,
                                 correction=0), t.var_mean(t.tensor([[1.0, 2.0], [4.0, 8.0]]), 0, True)),
    "var_mean dof warning": lambda t: t.var_mean(t.ones(1)),
    "std_mean grad": lambda t: _grad(t, lambda x: t.stack(t.std_mean(x)), [1.0, 2.0, 4.0]),
    "einsum forms": lambda t: (t.einsum("i j,jk->ik", t.ones(2, 2), t.ones(2, 2)), t.einsum("ba", t.ones(2, 3)).shape,
                               t.einsum("bA,Ab", t.ones(2, 3), t.ones(3, 2))),
    # ----- errors -----
    "dropout p out of range": lambda t: F(t).dropout(t.ones(2), 1.5),
    "dropout negative p": lambda t: F(t).dropout(t.ones(2), -0.1),
    "one_hot float": lambda t: F(t).one_hot(t.tensor([0.0, 2.0])),
    "one_hot int32": lambda t: F(t).one_hot(t.tensor([0, 1], dtype=t.int32)),
    "one_hot too big": lambda t: F(t).one_hot(t.tensor([0, 5]), 3),
    "one_hot negative": lambda t: F(t).one_hot(t.tensor([0, -1]), 3),
    "one_hot empty": lambda t: F(t).one_hot(t.tensor([], dtype=t.int64)),
    "glu odd": lambda t: F(t).glu(t.ones(3)),
    "glu 0d": lambda t: F(t).glu(t.tensor(1.0)),
    "hardtanh min above max": lambda t: F(t).hardtanh(t.ones(2), 2.0, 1.0),
    "gelu approximate": lambda t: F(t).gelu(t.ones(2), approximate="foo"),
    "smooth_l1 negative beta": lambda t: F(t).smooth_l1_loss(t.ones(2), t.ones(2), beta=-1.0),
    "smooth_l1 bad reduction": lambda t: F(t).smooth_l1_loss(t.ones(2), t.ones(2), reduction="x"),
    "huber delta": lambda t: F(t).huber_loss(t.ones(2), t.ones(2), delta=0.0),
    "kl_div bad reduction": lambda t: F(t).kl_div(t.ones(2), t.ones(2), reduction="foo"),
    "kl_div int": lambda t: F(t).kl_div(t.tensor([1, 2]), t.tensor([1, 2]), reduction="sum"),
    "hardsigmoid double backward": lambda t: _double(t, F(t).hardsigmoid, [0.5, -1.0]),
    "heaviside backward": lambda t: t.heaviside(t.ones(2, requires_grad=True), t.ones(2)).sum().backward(),
    "heaviside dtypes": lambda t: t.heaviside(t.ones(2), t.tensor([1, 2])),
    "heaviside number": lambda t: t.heaviside(t.ones(2), 0.5),
    "atan2 number": lambda t: t.atan2(t.ones(2), 2.0),
    "hypot number": lambda t: t.hypot(t.ones(2), 2.0),
    "logaddexp number": lambda t: t.logaddexp(t.ones(2), 2.0),
    "hypot int": lambda t: t.hypot(t.tensor([1, 2]), t.tensor([1, 1])),
    "logaddexp int": lambda t: t.logaddexp(t.tensor([1, 2]), t.tensor([1, 1])),
    "lerp end dtype": lambda t: t.lerp(t.ones(2), t.ones(2, dtype=t.float64), 0.3),
    "lerp int": lambda t: t.lerp(t.tensor([1, 2]), t.tensor([1, 1]), 0.5),
    "addcdiv int": lambda t: t.addcdiv(t.tensor([1, 2]), t.tensor([1, 1]), t.tensor([1, 1])),
    "addcmul broadcast": lambda t: t.addcmul(t.ones(2, 3), t.ones(3), t.ones(4)),
    "atan2 broadcast": lambda t: t.atan2(t.ones(2, 3), t.ones(3, 2)),
    "tril 1d": lambda t: t.tril(t.ones(3)),
    "trace 1d": lambda t: t.trace(t.ones(3)),
    "diag 3d": lambda t: t.diag(t.ones(3, 3, 3)),
    "diagonal same dims": lambda t: t.ones(3, 3).diagonal(0, 1, 1),
    "masked_select int mask": lambda t: t.masked_select(t.ones(3), t.tensor([1, 0, 1])),
    "roll mismatched": lambda t: t.roll(t.ones(3, 3), (1, 2), 0),
    "repeat_interleave negative": lambda t: t.ones(2).repeat_interleave(-1),
    "einsum wrong rank": lambda t: t.einsum("i,i", t.ones(2, 2)),
    "einsum unknown output": lambda t: t.einsum("ij,jk->ikx", t.ones(2, 2), t.ones(2, 2)),
    "einsum repeated output": lambda t: t.einsum("ij,jk->ii", t.ones(2, 2), t.ones(2, 2)),
    "einsum diagonal sizes": lambda t: t.einsum("ii->i", t.ones(2, 3)),
    "einsum sizes": lambda t: t.einsum("ij,jk->ik", t.ones(2, 3), t.ones(4, 2)),
    "einsum too many operands": lambda t: t.einsum("ij", t.ones(2, 2), t.ones(2, 2)),
    "einsum bad subscript": lambda t: t.einsum("i1", t.ones(2, 2)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_case_matches_torch(torch_ref, name):
    same(torch_ref, engine, EDGE_CASES[name])


# ----- In-place forms: the node, the values, the version counter -----

INPLACE = {
    "erf_": lambda y: y.erf_(), "erfc_": lambda y: y.erfc_(), "asin_": lambda y: (y / 4).asin_(),
    "acos_": lambda y: (y / 4).acos_(), "asinh_": lambda y: y.asinh_(), "acosh_": lambda y: (y + 3).acosh_(),
    "atanh_": lambda y: (y / 4).atanh_(), "arcsin_": lambda y: (y / 4).arcsin_(), "exp2_": lambda y: y.exp2_(),
    "logit_": lambda y: (y / 8 + 0.5).logit_(eps=0.1), "sinc_": lambda y: y.sinc_(), "deg2rad_": lambda y: y.deg2rad_(),
    "rad2deg_": lambda y: y.rad2deg_(), "nan_to_num_": lambda y: y.nan_to_num_(),
    "atan2_": lambda y: y.atan2_(y + 1), "arctan2_": lambda y: y.arctan2_(y + 1), "hypot_": lambda y: y.hypot_(y * 2),
    "xlogy_": lambda y: y.xlogy_(y.abs() + 1), "lerp_": lambda y: y.lerp_(y * 3, 0.25),
    "lerp_tensor_": lambda y: y.lerp_(y * 3, y.sigmoid()), "addcmul_": lambda y: y.addcmul_(y, y, value=0.5),
    "addcdiv_": lambda y: y.addcdiv_(y, y.abs() + 1), "tril_": lambda y: y.view(2, 2).tril_() * 1,
    "triu_": lambda y: y.reshape(2, 2).triu_(1), "cumprod_": lambda y: y.cumprod_(0),
    "F.hardtanh inplace": lambda y: engine_or_torch(y).nn.functional.hardtanh(y, inplace=True),
    "F.relu6 inplace": lambda y: engine_or_torch(y).nn.functional.relu6(y, inplace=True),
    "F.mish inplace": lambda y: engine_or_torch(y).nn.functional.mish(y, inplace=True),
    "F.hardsigmoid inplace": lambda y: engine_or_torch(y).nn.functional.hardsigmoid(y, inplace=True),
    "F.hardswish inplace": lambda y: engine_or_torch(y).nn.functional.hardswish(y, inplace=True),
}


def engine_or_torch(t):
    return engine if isinstance(t, engine.Tensor) else __import__("torch")


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_forms_match_torch(torch_ref, name):
    def run(t):
        x = t.tensor([0.3, -0.7, 1.2, 0.1], dtype=t.float64, requires_grad=True)
        y = x * 1
        out = INPLACE[name](y)
        (out * t.arange(1.0, out.numel() + 1, dtype=t.float64).view(out.shape)).sum().backward()
        return out.grad_fn.name(), y._version, out, x.grad

    same(torch_ref, engine, run)


@pytest.mark.torch
def test_inplace_on_a_leaf_is_an_error_as_in_torch(torch_ref):
    same(torch_ref, engine, lambda t: t.ones(2, requires_grad=True).erf_())


@pytest.mark.torch
@pytest.mark.parametrize("name", ["asinh_", "arccosh_", "atanh_"])
def test_inplace_inverse_hyperbolics_have_no_derivative_as_in_torch(torch_ref, name):
    def run(t):
        x = t.tensor([1.3, 1.5], requires_grad=True)
        y = getattr(x / 2 if "cosh" not in name else x * 1, name)()
        no_grad = getattr(t.tensor([1.3, 1.5]) / 2, name)()
        return y.grad_fn.name(), y, no_grad, y.sum().backward()

    same(torch_ref, engine, run)


@pytest.mark.torch
def test_methods_and_functions_exist_where_torch_has_them(torch_ref):
    names = ("erf erfc asin acos asinh acosh atanh arcsin arccos arcsinh arccosh arctanh arctan exp2 logit atan2 "
             "arctan2 hypot xlogy lerp addcmul addcdiv logaddexp nan_to_num heaviside deg2rad rad2deg sinc tril triu "
             "diag diagonal trace roll cumprod kron masked_select repeat_interleave tile").split()
    for n in names:
        assert hasattr(torch_ref.Tensor, n) and hasattr(engine.Tensor, n), n
        assert hasattr(torch_ref, n) and hasattr(engine, n), n
        assert hasattr(torch_ref.Tensor, n + "_") == hasattr(engine.Tensor, n + "_"), n + "_"
    for n in ("std_mean", "var_mean", "vstack", "hstack", "row_stack", "einsum"):
        assert hasattr(engine, n) and hasattr(engine.Tensor, n) == hasattr(torch_ref.Tensor, n), n
    functional = ("gelu hardtanh relu6 softsign logsigmoid selu celu mish hardsigmoid hardswish softmin glu threshold "
                  "smooth_l1_loss huber_loss kl_div normalize cosine_similarity pairwise_distance one_hot dropout").split()
    for n in functional:
        assert hasattr(engine.nn.functional, n), n


# ----- dropout: a random mask from the engine's generator -----

def test_dropout_scales_the_kept_elements_and_drops_about_p():
    engine.manual_seed(0)
    x = engine.ones(200, 100, requires_grad=True)
    y = engine.nn.functional.dropout(x, 0.3)
    values = y.detach().numpy()
    kept = values != 0
    assert y.shape == x.shape and y.dtype == engine.float32
    assert np.allclose(values[kept], np.float32(1) / np.float32(0.7))
    assert abs(kept.mean() - 0.7) < 0.01
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the grad is the same scaled mask


def test_dropout_draws_from_the_engine_generator():
    x = engine.ones(50)
    engine.manual_seed(3)
    a = engine.nn.functional.dropout(x, 0.5)
    b = engine.nn.functional.dropout(x, 0.5)
    engine.manual_seed(3)
    np.testing.assert_array_equal(engine.nn.functional.dropout(x, 0.5).numpy(), a.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("case", ["p0", "p1", "eval", "empty", "inplace", "double", "p1 grad"])
def test_dropout_edge_cases_match_torch(torch_ref, case):
    def run(t):
        x = t.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        f = t.nn.functional.dropout
        if case == "p0":
            return f(x, 0.0) is x
        if case == "p1":
            out = f(x, 1.0)
            return out, out.grad_fn.name(), out.grad_fn.next_functions[1]
        if case == "eval":
            return f(x, 0.5, training=False) is x, f(x, 0.5, False) is x
        if case == "empty":
            e = t.ones(0, 3)
            return f(e, 0.5) is e
        if case == "inplace":
            y = x * 1
            return f(y, 1.0, inplace=True) is y, y, y.grad_fn.name(), y._version
        if case == "double":
            return f(x.double(), 1.0).dtype
        out = f(x, 1.0)
        out.sum().backward()
        return x.grad

    same(torch_ref, engine, run)


# ----- erf: accurate to an ulp or so of float64, as glibc's -----

def test_erf_and_erfc_are_within_a_few_ulps_of_the_c_library():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-7, 7, 20000), rng.standard_normal(20000) * 2, rng.uniform(-30, 30, 5000),
                         10.0 ** rng.uniform(-300, 0, 5000) * rng.choice([-1, 1], 5000)])
    for fn, ref, ulps in ((engine.erf, math.erf, 1), (engine.erfc, math.erfc, 4)):
        ours = fn(engine.tensor(xs, dtype=engine.float64)).numpy()
        theirs = np.array([ref(v) for v in xs])
        err = np.abs(ours - theirs) / np.spacing(np.abs(theirs))
        assert err.max() <= ulps, (fn.__name__, xs[err.argmax()], err.max())


# ----- grad_fn._saved_*: the same names and values as PyTorch's -----

SAVED = {
    "erf": lambda T, x, y: x.erf(), "erfc": lambda T, x, y: x.erfc(), "asin": lambda T, x, y: x.asin(),
    "acos": lambda T, x, y: x.acos(), "asinh": lambda T, x, y: x.asinh(), "acosh": lambda T, x, y: (y + 1).acosh(),
    "atanh": lambda T, x, y: x.atanh(), "exp2": lambda T, x, y: x.exp2(), "sinc": lambda T, x, y: x.sinc(),
    "logit": lambda T, x, y: x.logit(), "logit_eps": lambda T, x, y: x.logit(0.2), "atan2": lambda T, x, y: x.atan2(y),
    "hypot": lambda T, x, y: x.hypot(y), "xlogy": lambda T, x, y: x.xlogy(y), "xlogy_number_self": lambda T, x, y:
    T.xlogy(2, y), "xlogy_number_other": lambda T, x, y: T.xlogy(x, 2), "logaddexp": lambda T, x, y: x.logaddexp(y),
    "lerp": lambda T, x, y: x.lerp(y, 0.3), "lerp_tensor": lambda T, x, y: x.lerp(y, x),
    "addcmul": lambda T, x, y: x.addcmul(x, y, value=2), "addcdiv": lambda T, x, y: x.addcdiv(x, y),
    "nan_to_num": lambda T, x, y: x.nan_to_num(), "deg2rad": lambda T, x, y: x.deg2rad(),
    "gelu": lambda T, x, y: T.nn.functional.gelu(x, approximate="tanh"),
    "hardtanh": lambda T, x, y: T.nn.functional.hardtanh(x), "selu": lambda T, x, y: T.nn.functional.selu(x),
    "celu": lambda T, x, y: T.nn.functional.celu(x, 0.5), "mish": lambda T, x, y: T.nn.functional.mish(x),
    "hardsigmoid": lambda T, x, y: T.nn.functional.hardsigmoid(x),
    "hardswish": lambda T, x, y: T.nn.functional.hardswish(x), "glu": lambda T, x, y: T.nn.functional.glu(x, 0),
    "glu_negative": lambda T, x, y: T.nn.functional.glu(y[:, 1:]),
    "threshold": lambda T, x, y: T.nn.functional.threshold(x, 0.2, 1.0),
    "smooth_l1": lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y),
    "huber": lambda T, x, y: T.nn.functional.huber_loss(x, y, reduction="sum", delta=0.5),
    "tril": lambda T, x, y: x.tril(1), "triu": lambda T, x, y: x.triu(), "tril_negative": lambda T, x, y: x.tril(-1),
    "diag_embed_negative": lambda T, x, y: T.diag(x[0], -1), "roll_negative_shift": lambda T, x, y: x.roll(-1, 1), "diag_embed": lambda T, x, y: T.diag(x[0]),
    "diag": lambda T, x, y: T.diag(x, -1), "diagonal": lambda T, x, y: x.diagonal(1),
    "diagonal_negative": lambda T, x, y: x.diagonal(0, -1, 0), "trace": lambda T, x, y: x.trace(),
    "roll": lambda T, x, y: x.roll(1, 0), "roll_flat": lambda T, x, y: x.roll(1),
    "roll_negative": lambda T, x, y: x.roll((1, 2), (-1, 0)), "cumprod": lambda T, x, y: x.cumprod(-1),
    "var_mean": lambda T, x, y: T.var_mean(x, 1)[0], "var_mean_all": lambda T, x, y: T.var_mean(x)[1],
    "std_mean": lambda T, x, y: T.std_mean(x)[0], "std_mean_correction": lambda T, x, y: T.std_mean(x, -1, correction=0)[0],
    "pairwise_distance": lambda T, x, y: T.nn.functional.pairwise_distance(x, y),
}


def _saved(T, case):
    x = T.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
    y = T.tensor([[0.5, 1.5, 2.5], [1.0, 2.0, 3.0]], requires_grad=True)
    fn = SAVED[case](T, x, y).grad_fn

    def described(v):
        if not isinstance(v, T.Tensor):
            return v
        return str(v.dtype), v.detach().numpy().round(4).tolist(), v is x, v is y, v.grad_fn is fn

    out = [type(fn).__name__]
    for name in sorted(a for a in dir(fn) if a.startswith("_saved_")):
        v = getattr(fn, name)
        out.append((name, tuple(map(described, v)) if type(v) is tuple else described(v)))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(SAVED))
def test_saved_attributes_match_torch(torch_ref, case):
    assert _saved(engine, case) == _saved(torch_ref, case)
