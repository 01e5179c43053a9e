"""The shared table of differentiable op cases, run against the engine and against real PyTorch.

Each ``OpCase`` holds a callable ``fn(torch, *inputs)`` that works with either module bound as
``torch``, and how to make its inputs: one shape per tensor input and a value domain (or a
``values(rng)`` function for inputs that need exact values). Non-tensor arguments (dims,
indices, targets) live inside the callable, so one case is one call site users could write.

>>> case = CASES_BY_NAME["exp"]
>>> [a.shape for a in case.inputs()]
[(3, 4)]

It also holds ``same(torch_ref, engine, fn)``, which runs one snippet with both modules and compares
results, exceptions and warnings (used by test_autograd, test_tensor and test_errors).
"""
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

# ----- Value domains -----
REAL = (-2.0, 2.0)
SMALL = (-1.0, 1.0)
POS = (0.2, 2.0)
UNIT = (0.05, 0.95)
NONZERO = "nonzero"  # |x| in [0.2, 2]: away from the kinks of abs, relu, clamp at 0, ...


def _draw(rng, shape, domain):
    if domain == NONZERO:
        mag = rng.uniform(0.2, 2.0, shape)
        return np.where(rng.random(shape) < 0.5, -mag, mag)
    lo, hi = domain
    return rng.uniform(lo, hi, shape)


@dataclass(frozen=True)
class OpCase:
    name: str
    fn: Callable
    shapes: tuple = ((3, 4),)
    domain: object = NONZERO  # one domain for every input, or a list with one per input
    requires_grad: tuple = None  # one flag per input; None means every input
    values: Callable = None  # rng -> list of float64 arrays; replaces shapes and domain
    fd: bool = True  # first-order finite differences in float64
    fd2: bool = True  # second-order finite differences in float64
    rtol: float = 1e-5
    atol: float = 1e-6

    def inputs(self, seed=0):
        """The inputs as float64 NumPy arrays, the same for every call with the same seed."""
        rng = np.random.default_rng(seed)
        if self.values is not None:
            return [np.asarray(v, dtype=np.float64) for v in self.values(rng)]
        domains = self.domain if isinstance(self.domain, list) else [self.domain] * len(self.shapes)
        return [np.asarray(_draw(rng, s, d), dtype=np.float64) for s, d in zip(self.shapes, domains)]

    def grad_flags(self):
        n = len(self.values(np.random.default_rng(0))) if self.values is not None else len(self.shapes)
        return tuple(self.requires_grad) if self.requires_grad is not None else (True,) * n


def F(torch):
    return torch.nn.functional


CASES = []


def case(name, fn, shapes=((3, 4),), **kw):
    CASES.append(OpCase(name, fn, tuple(tuple(s) for s in shapes), **kw))


S34 = ((3, 4),)
S34x2 = ((3, 4), (3, 4))
S234 = ((2, 3, 4),)

# ----- Binary arithmetic: tensors, broadcasting, Python scalars both ways -----
case("add", lambda torch, a, b: a + b, S34x2)
case("add_broadcast", lambda torch, a, b: a + b, ((3, 1, 4), (2, 4)))
case("add_broadcast_scalar_tensor", lambda torch, a, b: a + b, ((3, 4), ()))
case("add_scalar", lambda torch, a: a + 2)
case("add_float_scalar", lambda torch, a: a + 2.5)
case("radd_scalar", lambda torch, a: 2 + a)
case("add_alpha", lambda torch, a, b: torch.add(a, b, alpha=2), S34x2)
case("add_method", lambda torch, a, b: a.add(b), ((3, 4), (4,)))
case("sub", lambda torch, a, b: a - b, S34x2)
case("sub_broadcast", lambda torch, a, b: a - b, ((4,), (3, 1)))
case("sub_scalar", lambda torch, a: a - 2)
case("rsub_scalar", lambda torch, a: 2 - a)
case("rsub_float_scalar", lambda torch, a: 1.5 - a)
case("sub_alpha", lambda torch, a, b: torch.sub(a, b, alpha=3), S34x2)
case("mul", lambda torch, a, b: a * b, S34x2)
case("mul_broadcast", lambda torch, a, b: a * b, ((2, 3, 1), (1, 4)))
case("mul_self", lambda torch, a: a * a)
case("mul_scalar", lambda torch, a: a * 3)
case("rmul_scalar", lambda torch, a: 3 * a)
case("div", lambda torch, a, b: a / b, S34x2)
case("div_broadcast", lambda torch, a, b: a / b, ((3, 4), (4,)))
case("div_scalar", lambda torch, a: a / 2)
case("rdiv_scalar", lambda torch, a: 10 / a)
case("div_method", lambda torch, a, b: torch.div(a, b), ((2, 3), (2, 1)))
case("pow_2", lambda torch, a: a ** 2)
case("pow_3", lambda torch, a: a ** 3)
case("pow_half", lambda torch, a: a ** 0.5, domain=POS)
case("pow_neg_float", lambda torch, a: a ** -1.5, domain=POS)
case("pow_zero", lambda torch, a: a ** 0)
case("pow_fn", lambda torch, a: torch.pow(a, 3))
case("rpow_scalar", lambda torch, a: 2 ** a)
case("rpow_float_scalar", lambda torch, a: 0.5 ** a)
case("pow_tensor", lambda torch, a, b: a ** b, S34x2, domain=[POS, REAL])
case("pow_tensor_broadcast", lambda torch, a, b: a ** b, ((3, 4), (4,)), domain=[POS, REAL])
case("square", lambda torch, a: torch.square(a))
case("maximum", lambda torch, a, b: torch.maximum(a, b), S34x2)
case("maximum_broadcast", lambda torch, a, b: torch.maximum(a, b), ((3, 4), (3, 1)))
case("minimum", lambda torch, a, b: torch.minimum(a, b), S34x2)
case("remainder", lambda torch, a, b: torch.remainder(a, b), S34x2,
     values=lambda rng: [rng.uniform(0.1, 0.9, (3, 4)) + rng.integers(-3, 3, (3, 4)), rng.choice([-1.5, 1.5, 2.5], (3, 4))])
case("fmod", lambda torch, a, b: torch.fmod(a, b), S34x2,
     values=lambda rng: [rng.uniform(0.1, 0.9, (3, 4)) + rng.integers(-3, 3, (3, 4)), rng.choice([-1.5, 1.5, 2.5], (3, 4))])
case("remainder_scalar", lambda torch, a: a % 1.5)
case("fmod_scalar", lambda torch, a: torch.fmod(a, 1.5))
case("add_then_mul_shared", lambda torch, a, b: (a + b) * (a - b), S34x2)

# ----- Unary math -----
case("neg", lambda torch, a: -a)
case("neg_fn", lambda torch, a: torch.neg(a))
case("abs", lambda torch, a: a.abs())
case("exp", lambda torch, a: torch.exp(a))
case("log", lambda torch, a: torch.log(a), domain=POS)
case("log2", lambda torch, a: torch.log2(a), domain=POS)
case("log10", lambda torch, a: a.log10(), domain=POS)
case("log1p", lambda torch, a: torch.log1p(a), domain=(-0.8, 2.0))
case("expm1", lambda torch, a: torch.expm1(a))
case("sqrt", lambda torch, a: torch.sqrt(a), domain=POS)
case("rsqrt", lambda torch, a: torch.rsqrt(a), domain=POS)
case("sin", lambda torch, a: torch.sin(a))
case("cos", lambda torch, a: a.cos())
case("tan", lambda torch, a: torch.tan(a), domain=SMALL)
case("tanh", lambda torch, a: torch.tanh(a))
case("sinh", lambda torch, a: torch.sinh(a))
case("cosh", lambda torch, a: torch.cosh(a))
case("atan", lambda torch, a: torch.atan(a))
case("sigmoid", lambda torch, a: torch.sigmoid(a))
case("relu", lambda torch, a: torch.relu(a))
case("reciprocal", lambda torch, a: torch.reciprocal(a))
case("clamp", lambda torch, a: torch.clamp(a, -1.0, 1.0))
case("clamp_min_only", lambda torch, a: a.clamp(min=0.5))
case("clamp_max_only", lambda torch, a: a.clamp(max=0.5))
case("clamp_tensor_bounds", lambda torch, a, lo: torch.clamp(a, min=lo), S34x2)
case("clamp_tensor_min_max", lambda torch, a, lo, hi: torch.clamp(a, lo, hi), ((3, 4), (3, 4), (4,)),
     values=lambda rng: [rng.uniform(-2, 2, (3, 4)), rng.uniform(-1.5, -0.1, (3, 4)), np.array([0.3, 1.0, -1.7, 0.8])])
case("clip", lambda torch, a: torch.clip(a, -1.0, 1.0))
case("clamp_min", lambda torch, a: torch.clamp_min(a, 0.5))
case("clamp_max", lambda torch, a: torch.clamp_max(a, -0.5))
case("clamp_min_tensor", lambda torch, a, lo: torch.clamp_min(a, lo), ((3, 4), (4,)))
case("clamp_max_tensor", lambda torch, a, hi: a.clamp_max(hi), ((3, 4), (3, 1)))
case("floor", lambda torch, a: torch.floor(a), values=lambda rng: [rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))])
case("ceil", lambda torch, a: a.ceil(), values=lambda rng: [rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))])
case("round", lambda torch, a: torch.round(a), values=lambda rng: [rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.4, (3, 4))])
case("trunc", lambda torch, a: torch.trunc(a), values=lambda rng: [rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))])
case("frac", lambda torch, a: torch.frac(a), values=lambda rng: [rng.integers(-3, 3, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))])
case("round_decimals", lambda torch, a: torch.round(a, decimals=1),
     values=lambda rng: [np.round(rng.uniform(-2, 2, (3, 4)), 1) + 0.02])
case("sign", lambda torch, a: torch.sign(a))
case("sign_inplace", lambda torch, a: (a * 1).sign_())
case("sgn", lambda torch, a: torch.sgn(a) * a)  # (alone, PyTorch's grad is a ZeroTensor)
case("sgn_method", lambda torch, a: a.sgn() + a)
case("sgn_inplace", lambda torch, a: (a * 1).sgn_() * a)

# ----- More elementwise math -----
_ERF_POINTS = [-7.0, -5.5, -3.1, -2.0, -1.3, -0.9, -0.3, 0.1, 0.5, 0.9, 1.3, 2.0, 3.1, 4.4, 5.9, 30.0]  # every interval
case("erf", lambda torch, a: torch.erf(a), domain=REAL)
case("erf_intervals", lambda torch, a: a.erf(), values=lambda rng: [np.array(_ERF_POINTS)])
case("erfc", lambda torch, a: a.erfc(), domain=REAL)
case("erfc_intervals", lambda torch, a: torch.erfc(a), values=lambda rng: [np.array(_ERF_POINTS)])
case("asin", lambda torch, a: torch.asin(a), domain=(-0.9, 0.9))
case("acos", lambda torch, a: a.acos(), domain=(-0.9, 0.9))
case("arcsin", lambda torch, a: torch.arcsin(a), domain=(-0.9, 0.9))
case("asinh", lambda torch, a: torch.asinh(a), domain=REAL)
case("acosh", lambda torch, a: torch.acosh(a), domain=(1.2, 3.0))
case("atanh", lambda torch, a: a.atanh(), domain=(-0.9, 0.9))
case("exp2", lambda torch, a: torch.exp2(a), domain=REAL)
case("logit", lambda torch, a: torch.logit(a), domain=UNIT)
case("logit_eps", lambda torch, a: a.logit(eps=0.2),
     values=lambda rng: [np.array([[0.05, 0.15, 0.3, 0.45], [0.55, 0.7, 0.85, 0.95]])])
case("sinc", lambda torch, a: torch.sinc(a), domain=REAL)
# PyTorch's rule gives 0 at x = 0 without a graph, so its second derivative there is 0, not -pi**2 / 3
case("sinc_at_zero", lambda torch, a: torch.sinc(a), values=lambda rng: [np.array([0.0, 0.5, -1.5])], fd2=False)
case("deg2rad", lambda torch, a: torch.deg2rad(a), domain=REAL)
case("rad2deg", lambda torch, a: a.rad2deg(), domain=REAL)
case("nan_to_num", lambda torch, a: torch.nan_to_num(a), domain=REAL)
case("nan_to_num_special", lambda torch, a: a.nan_to_num(nan=1.0, posinf=2.0) * a.nan_to_num(),
     values=lambda rng: [np.array([np.nan, np.inf, -np.inf, 1.5])], fd=False, fd2=False)
case("atan2", lambda torch, a, b: torch.atan2(a, b), S34x2)
case("atan2_broadcast", lambda torch, a, b: a.atan2(b), ((3, 4), (4,)))
case("arctan2", lambda torch, a, b: torch.arctan2(a, b), S34x2)
case("hypot", lambda torch, a, b: torch.hypot(a, b), S34x2)
case("hypot_broadcast", lambda torch, a, b: a.hypot(b), ((3, 1), (4,)))
case("xlogy", lambda torch, a, b: torch.xlogy(a, b), S34x2, domain=[REAL, POS])
case("xlogy_broadcast", lambda torch, a, b: a.xlogy(b), ((3, 4), (3, 1)), domain=[REAL, POS])
case("xlogy_scalar_self", lambda torch, b: torch.xlogy(2.5, b), domain=POS)
case("xlogy_scalar_other", lambda torch, a: torch.xlogy(a, 3.0), domain=REAL)
case("logaddexp", lambda torch, a, b: torch.logaddexp(a, b), S34x2, domain=REAL)
case("logaddexp_broadcast", lambda torch, a, b: a.logaddexp(b), ((3, 4), (4,)), domain=REAL)
case("lerp", lambda torch, a, b: torch.lerp(a, b, 0.3), S34x2)
case("lerp_high_weight", lambda torch, a, b: a.lerp(b, 0.8), S34x2)
case("lerp_tensor_weight", lambda torch, a, b, w: torch.lerp(a, b, w), ((3, 4), (3, 4), (4,)),
     domain=[REAL, REAL, (0.0, 1.0)])
case("lerp_tensor_weight_broadcast", lambda torch, a, b, w: a.lerp(b, w), ((4,), (3, 1), (3, 4)),
     domain=[REAL, REAL, (-0.5, 1.5)])
case("addcmul", lambda torch, a, b, c: torch.addcmul(a, b, c), ((3, 4), (3, 4), (3, 4)))
case("addcmul_value_broadcast", lambda torch, a, b, c: a.addcmul(b, c, value=0.5), ((4,), (3, 4), (3, 1)))
case("addcdiv", lambda torch, a, b, c: torch.addcdiv(a, b, c), ((3, 4), (3, 4), (3, 4)))
case("addcdiv_value_broadcast", lambda torch, a, b, c: a.addcdiv(b, c, value=-2), ((3, 4), (4,), (3, 1)))

# ----- Reductions -----
case("sum", lambda torch, a: a.sum(), S234)
case("sum_dim", lambda torch, a: a.sum(1), S234)
case("sum_neg_dim_keepdim", lambda torch, a: a.sum(-1, keepdim=True), S234)
case("sum_dims_keepdim", lambda torch, a: torch.sum(a, (0, 2), keepdim=True), S234)
case("sum_dims", lambda torch, a: a.sum(dim=(0, 2)), S234)
case("sum_0d", lambda torch, a: a.sum(), ((),))
case("mean", lambda torch, a: a.mean(), S234)
case("mean_dim", lambda torch, a: a.mean(1), S234)
case("mean_dims_keepdim", lambda torch, a: torch.mean(a, (0, 1), keepdim=True), S234)
case("prod", lambda torch, a: a.prod(), S34)
case("prod_dim", lambda torch, a: a.prod(1), S34)
case("prod_dim_keepdim", lambda torch, a: torch.prod(a, 0, keepdim=True), S34)
case("prod_with_zero", lambda torch, a: a.prod(), values=lambda rng: [np.array([[1.5, 0.0, -2.0], [0.5, 1.2, -0.7]])])
case("prod_dim_with_zero", lambda torch, a: a.prod(1), values=lambda rng: [np.array([[1.5, 0.0, -2.0], [0.5, 1.2, -0.7]])])
case("var", lambda torch, a: a.var(), S234)
case("var_dim", lambda torch, a: a.var(1), S234)
case("var_dim_keepdim", lambda torch, a: torch.var(a, -1, keepdim=True), S234)
case("var_unbiased_false", lambda torch, a: a.var(unbiased=False), S34)
case("var_correction0", lambda torch, a: a.var(1, correction=0), S34)
case("std", lambda torch, a: a.std(), S234)
case("std_dim", lambda torch, a: torch.std(a, 1), S234)
case("std_dims_keepdim", lambda torch, a: a.std((0, 2), keepdim=True), S234)
case("max", lambda torch, a: a.max(), S34)
case("max_dim", lambda torch, a: a.max(1).values, S34)
case("max_dim_keepdim", lambda torch, a: torch.max(a, 0, keepdim=True)[0], S34)
case("max_dim_tuple", lambda torch, a: a.max(dim=1), S34)
case("max_binary", lambda torch, a, b: torch.max(a, b), S34x2)
case("min", lambda torch, a: torch.min(a), S34)
case("min_dim", lambda torch, a: a.min(-1).values, S234)
case("max_with_ties", lambda torch, a: a.max(), values=lambda rng: [np.array([[1.0, 3.0, 3.0], [-1.0, 3.0, 0.5]])],
     fd=False, fd2=False)
case("amax", lambda torch, a: torch.amax(a, 1), S34)
case("amax_all", lambda torch, a: a.amax(), S34)
case("amin", lambda torch, a: torch.amin(a, (0, 1)), S234)
case("amax_with_ties", lambda torch, a: torch.amax(a, 1, keepdim=True),
     values=lambda rng: [np.array([[1.0, 3.0, 3.0], [-1.0, 3.0, 0.5]])], fd=False, fd2=False)
case("amin_with_ties", lambda torch, a: a.amin(),
     values=lambda rng: [np.array([[1.0, -3.0, 3.0], [-3.0, 3.0, -3.0]])], fd=False, fd2=False)
case("norm_inf_with_ties", lambda torch, a: a.norm(p=float("inf"), dim=1),
     values=lambda rng: [np.array([[1.0, -3.0, 3.0], [-1.0, 2.0, 0.5]])], fd=False, fd2=False)
case("logsumexp", lambda torch, a: torch.logsumexp(a, 1), S234)
case("logsumexp_dims_keepdim", lambda torch, a: a.logsumexp((0, 2), keepdim=True), S234)
case("norm", lambda torch, a: a.norm(), S34)
case("norm_dim", lambda torch, a: torch.norm(a, dim=1), S34)
case("norm_dim_keepdim", lambda torch, a: a.norm(dim=-1, keepdim=True), S234)
case("norm_p1", lambda torch, a: a.norm(p=1), S34)
case("norm_p3_dim", lambda torch, a: a.norm(p=3, dim=0), S34)
case("norm_p1_5", lambda torch, a: torch.norm(a, 1.5, dim=(0, 2)), S234)
case("norm_p_half", lambda torch, a: a.norm(p=0.5, dim=1), S34)
case("norm_inf", lambda torch, a: a.norm(p=float("inf")), S34)
case("norm_neg_inf_dim", lambda torch, a: a.norm(p=-float("inf"), dim=1), S34)
case("norm_p0", lambda torch, a: a.norm(p=0), S34)
case("norm_fro_dims", lambda torch, a: torch.norm(a, "fro", dim=(0, 1)), S234)
case("cumsum", lambda torch, a: torch.cumsum(a, 0), S34)
case("cumsum_last", lambda torch, a: a.cumsum(-1), S234)

# ----- Softmax family -----
case("softmax", lambda torch, a: torch.softmax(a, 1), S34)
case("softmax_dim0", lambda torch, a: a.softmax(0), S34)
case("softmax_3d", lambda torch, a: torch.softmax(a, -1), S234)
case("log_softmax", lambda torch, a: torch.log_softmax(a, 1), S34)
case("log_softmax_3d", lambda torch, a: a.log_softmax(dim=0), S234)

# ----- Linear algebra -----
case("matmul_1d_1d", lambda torch, a, b: a @ b, ((4,), (4,)))
case("matmul_2d_1d", lambda torch, a, b: a @ b, ((3, 4), (4,)))
case("matmul_1d_2d", lambda torch, a, b: a @ b, ((3,), (3, 4)))
case("matmul_2d_2d", lambda torch, a, b: a @ b, ((2, 3), (3, 4)))
case("matmul_3d_3d", lambda torch, a, b: torch.matmul(a, b), ((2, 3, 4), (2, 4, 5)))
case("matmul_3d_2d", lambda torch, a, b: a @ b, ((2, 3, 4), (4, 5)))
case("matmul_2d_3d", lambda torch, a, b: a @ b, ((3, 4), (2, 4, 5)))
case("matmul_3d_1d", lambda torch, a, b: a @ b, ((2, 3, 4), (4,)))
case("matmul_1d_3d", lambda torch, a, b: a @ b, ((4,), (2, 4, 5)))
case("matmul_broadcast_batch", lambda torch, a, b: a @ b, ((2, 1, 3, 4), (5, 4, 2)))
case("matmul_4d_4d", lambda torch, a, b: a @ b, ((2, 2, 3, 4), (2, 2, 4, 3)))
case("matmul_3d_2d_noncontiguous", lambda torch, a, b: a.transpose(0, 1) @ b, ((3, 2, 4), (4, 5)),
     requires_grad=(True, False))
case("matmul_3d_2d_nograd_rhs", lambda torch, a, b: a @ b, ((2, 3, 4), (4, 5)), requires_grad=(True, False))
case("matmul_2d_3d_nograd_lhs", lambda torch, a, b: a @ b, ((3, 4), (2, 4, 5)), requires_grad=(False, True))
case("matmul_1d_4d", lambda torch, a, b: a @ b, ((4,), (2, 2, 4, 3)))
case("matmul_4d_1d", lambda torch, a, b: a @ b, ((2, 2, 3, 4), (4,)), requires_grad=(True, False))
case("matmul_3d_3d_batch_of_one_lhs", lambda torch, a, b: a @ b, ((1, 2, 3), (2, 3, 4)))
case("matmul_3d_3d_batch_of_one_rhs", lambda torch, a, b: a @ b, ((2, 2, 3), (1, 3, 4)))
case("matmul_3d_3d_batch_of_one_no_grad", lambda torch, a, b: a @ b, ((1, 2, 3), (2, 3, 4)),
     requires_grad=(False, True))
case("matmul_4d_3d_batch_of_ones", lambda torch, a, b: a @ b, ((1, 1, 2, 3), (2, 3, 4)))
case("mm", lambda torch, a, b: torch.mm(a, b), ((2, 3), (3, 4)))
case("mv", lambda torch, a, b: torch.mv(a, b), ((2, 3), (3,)))
case("dot", lambda torch, a, b: torch.dot(a, b), ((5,), (5,)))
case("vdot", lambda torch, a, b: torch.vdot(a, b), ((5,), (5,)))
case("hardshrink", lambda torch, a: F(torch).hardshrink(a, 0.3))
case("trapezoid", lambda torch, a: torch.trapezoid(a))
case("trapezoid_dx_dim0", lambda torch, a: torch.trapezoid(a, dx=0.5, dim=0))
case("trapezoid_x", lambda torch, a, x: torch.trapezoid(a, x), ((3, 4), (4,)))
case("trapz_x_2d", lambda torch, a, x: torch.trapz(a, x), ((3, 4), (3, 4)))
case("cumulative_trapezoid", lambda torch, a: torch.cumulative_trapezoid(a, dx=2.0))
case("cumulative_trapezoid_x", lambda torch, a, x: torch.cumulative_trapezoid(a, x, dim=0), ((3, 4), (3,)))
case("softshrink", lambda torch, a: F(torch).softshrink(a, 0.3))
case("prelu", lambda torch, a, w: F(torch).prelu(a, w), ((3, 4), (1,)))
case("prelu_per_channel", lambda torch, a, w: F(torch).prelu(a, w), ((2, 4, 3), (4,)))
case("soft_margin_loss", lambda torch, a: F(torch).soft_margin_loss(a, torch.tensor([[1.0, -1.0, 1.0, -1.0]] * 3,
                                                                                     dtype=a.dtype)))
case("margin_ranking_loss", lambda torch, a, b: F(torch).margin_ranking_loss(a, b, torch.tensor([1.0, -1.0, 1.0, -1.0],
                                                                                                 dtype=a.dtype), margin=0.2),
     ((4,), (4,)))
case("hinge_embedding_loss", lambda torch, a: F(torch).hinge_embedding_loss(a, torch.tensor([[1.0, -1.0, 1.0, -1.0]] * 3,
                                                                                            dtype=a.dtype)))
case("poisson_nll_loss", lambda torch, a: F(torch).poisson_nll_loss(a, torch.tensor([[1.0, 0.0, 2.0, 3.0]] * 3,
                                                                                     dtype=a.dtype)))
case("multiply", lambda torch, a, b: torch.multiply(a, b), S34x2)
case("subtract_alpha", lambda torch, a, b: torch.subtract(a, b, alpha=2), S34x2)
case("divide", lambda torch, a, b: torch.divide(a, b), S34x2)
case("ravel_transposed", lambda torch, a: a.t().ravel())
case("float_power", lambda torch, a: torch.float_power(a, 3))
case("float_power_tensors", lambda torch, a, b: torch.float_power(a.abs() + 0.5, b), S34x2)
case("bmm", lambda torch, a, b: torch.bmm(a, b), ((2, 3, 4), (2, 4, 2)))
case("addmm", lambda torch, c, a, b: torch.addmm(c, a, b), ((2, 4), (2, 3), (3, 4)))
case("addmm_broadcast_bias", lambda torch, c, a, b: torch.addmm(c, a, b), ((4,), (2, 3), (3, 4)))
case("addmm_beta_alpha", lambda torch, c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), ((2, 4), (2, 3), (3, 4)))
case("linear", lambda torch, x, w, b: F(torch).linear(x, w, b), ((2, 3), (4, 3), (4,)))
case("linear_no_bias", lambda torch, x, w: F(torch).linear(x, w), ((2, 3), (4, 3)))
case("linear_3d", lambda torch, x, w, b: F(torch).linear(x, w, b), ((2, 5, 3), (4, 3), (4,)))
case("outer", lambda torch, a, b: torch.outer(a, b), ((3,), (4,)))
case("einsum_mm", lambda torch, a, b: torch.einsum("ij,jk->ik", a, b), ((2, 3), (3, 4)))
case("einsum_implicit", lambda torch, a, b: torch.einsum("ij,jk", [a, b]), ((2, 3), (3, 4)))
case("einsum_bmm", lambda torch, a, b: torch.einsum("bij,bjk->bik", a, b), ((2, 3, 4), (2, 4, 5)))
case("einsum_trace", lambda torch, a: torch.einsum("ii->", a), ((3, 3),))
case("einsum_diagonal", lambda torch, a: torch.einsum("ii->i", a), ((3, 3),))
case("einsum_outer", lambda torch, a, b: torch.einsum("i,j->ij", a, b), ((2,), (3,)))
case("einsum_dot", lambda torch, a, b: torch.einsum("i,i->", a, b), ((3,), (3,)))
case("einsum_sum_transpose", lambda torch, a: torch.einsum("ijk->kj", a), S234)
case("einsum_elementwise", lambda torch, a, b: torch.einsum("ij,ij->ij", a, b), S34x2)
case("einsum_ellipsis_broadcast", lambda torch, a, b: torch.einsum("...ij,...jk->...ik", a, b), ((2, 2, 3), (3, 4)))
case("einsum_three_operands", lambda torch, a, b, c: torch.einsum("bn,anm,bm->ba", a, b, c), ((2, 3), (4, 3, 5), (2, 5)))
case("einsum_chain", lambda torch, a, b, c: torch.einsum("ab,cd,bc->ad", a, b, c), ((2, 3), (4, 5), (3, 4)))

# ----- Shape and view ops -----
case("reshape", lambda torch, a: a.reshape(4, 6), S234)
case("reshape_infer", lambda torch, a: torch.reshape(a, (-1, 4)), S234)
case("reshape_noncontiguous", lambda torch, a: a.t().reshape(12), S34)
case("reshape_alias", lambda torch, a: a.t().reshape(4, 3, 1), S34)
case("reshape_alias_same_shape", lambda torch, a: a.t().reshape(4, 3), S34)
case("reshape_of_expand", lambda torch, a: a.expand(2, 3, 4).reshape(2, 12), S34)
case("reshape_of_expand_copy", lambda torch, a: a[:, None].expand(3, 2, 4).reshape(6, 4), S34)
case("view", lambda torch, a: a.view(6, 4), S234)
case("view_infer", lambda torch, a: a.view(-1), S234)
case("view_as", lambda torch, a, b: a.view_as(b), ((2, 3, 4), (6, 4)), requires_grad=(True, False))
case("flatten", lambda torch, a: a.flatten(), S234)
case("flatten_start", lambda torch, a: torch.flatten(a, 1), S234)
case("unflatten", lambda torch, a: a.unflatten(1, (2, 2)), S34)
case("transpose", lambda torch, a: a.transpose(0, 1), S234)
case("transpose_neg", lambda torch, a: torch.transpose(a, -1, 0), S234)
case("swapaxes", lambda torch, a: torch.swapaxes(a, 0, 2), S234)
case("t", lambda torch, a: a.t(), S34)
case("t_fn", lambda torch, a: torch.t(a), S34)
case("T_2d", lambda torch, a: a.T, S34)
case("mT", lambda torch, a: a.mT, S234)
case("mH", lambda torch, a: a.mH, S234)
case("mH_2d", lambda torch, a: a.mH, S34)
case("adjoint", lambda torch, a: a.adjoint(), S234)
case("adjoint_fn", lambda torch, a: torch.adjoint(a), S34)
case("H", lambda torch, a: a.H, S34)
case("permute", lambda torch, a: a.permute(2, 0, 1), S234)
case("permute_tuple", lambda torch, a: torch.permute(a, (1, 2, 0)), S234)
case("squeeze", lambda torch, a: a.squeeze(), ((3, 1, 4, 1),))
case("squeeze_dim", lambda torch, a: a.squeeze(1), ((3, 1, 4),))
case("squeeze_dims", lambda torch, a: torch.squeeze(a, (0, 2)), ((1, 3, 1, 4),))
case("unsqueeze", lambda torch, a: a.unsqueeze(0), S34)
case("unsqueeze_neg", lambda torch, a: torch.unsqueeze(a, -1), S34)
case("expand", lambda torch, a: a.expand(2, 3, 4), ((3, 1),))
case("expand_minus1", lambda torch, a: a.expand(-1, 4), ((3, 1),))
case("expand_as", lambda torch, a, b: a.expand_as(b), ((1, 4), (3, 4)), requires_grad=(True, False))
case("broadcast_to", lambda torch, a: torch.broadcast_to(a, (2, 3, 4)), ((4,),))
case("repeat", lambda torch, a: a.repeat(2, 3), ((2, 3),))
case("repeat_new_dims", lambda torch, a: a.repeat(2, 1, 2), ((2, 3),))
case("flip", lambda torch, a: torch.flip(a, (0,)), S34)
case("flip_dims", lambda torch, a: a.flip((0, 2)), S234)
case("narrow", lambda torch, a: torch.narrow(a, 1, 1, 2), S34)
case("select", lambda torch, a: torch.select(a, 1, 2), S234)
case("select_neg", lambda torch, a: a.select(0, -1), S34)
case("index_select", lambda torch, a: torch.index_select(a, 0, torch.tensor([2, 0, 2])), S34)
case("index_select_dim1", lambda torch, a: a.index_select(1, torch.tensor([3, 1])), S34)
case("gather", lambda torch, a: torch.gather(a, 1, torch.tensor([[0, 0], [1, 3], [2, 2]])), S34)
case("gather_dim0", lambda torch, a: a.gather(0, torch.tensor([[2, 1, 0, 0]])), S34)
case("masked_fill", lambda torch, a: a.masked_fill(a > 0, 0.0), S34)
case("masked_fill_fn", lambda torch, a: torch.masked_fill(a, torch.tensor([True, False, True, False]), -1.0), S34)
case("unfold", lambda torch, a: a.unfold(1, 2, 1), S34)
case("unfold_step_neg_dim", lambda torch, a: a.unfold(-2, 2, 2) * 2, S234)
case("unfold_whole_dim", lambda torch, a: a.unfold(0, 3, 1), S34)
case("sum_to_size", lambda torch, a: a.sum_to_size(1, 4), S34)
case("sum_to_size_leading", lambda torch, a: a.sum_to_size((3, 1)), S234)
case("masked_fill_tensor_value", lambda torch, a, v: a.masked_fill(a > 0, v), ((3, 4), ()))
case("masked_fill_tensor_value_broadcast", lambda torch, a, v: a.masked_fill(torch.tensor([[True], [False], [True]]), v * 2),
     ((3, 4), ()))
case("where", lambda torch, a, b: torch.where(a > 0, a, b), S34x2)
case("where_broadcast", lambda torch, a, b: torch.where(a > 0, a, b), ((3, 4), (4,)))
case("where_scalar", lambda torch, a: torch.where(a > 0, a, 0.0), S34)
case("cat", lambda torch, a, b: torch.cat([a, b]), ((2, 3), (1, 3)))
case("cat_dim1", lambda torch, a, b, c: torch.cat((a, b, c), dim=1), ((2, 3), (2, 1), (2, 2)))
case("cat_neg_dim", lambda torch, a, b: torch.cat([a, b], -1), ((2, 2, 3), (2, 2, 1)))
case("stack", lambda torch, a, b: torch.stack([a, b]), S34x2)
case("stack_dim1", lambda torch, a, b, c: torch.stack((a, b, c), 1), ((3, 4), (3, 4), (3, 4)))
case("unbind", lambda torch, a: a.unbind(), S34)
case("unbind_dim1", lambda torch, a: torch.unbind(a, 1), S34)
case("unbind_partial_use", lambda torch, a: a.unbind(1)[2], S34)
case("split", lambda torch, a: a.split(2), ((5, 3),))
case("split_sizes", lambda torch, a: torch.split(a, [1, 3], dim=1), S34)
case("split_partial_use", lambda torch, a: a.split(2)[1] * 2, ((5, 3),))
case("chunk", lambda torch, a: a.chunk(2, 1), S34)
case("chunk_uneven", lambda torch, a: torch.chunk(a, 3), ((5, 2),))
case("clone", lambda torch, a: a.clone())
case("contiguous_of_transpose", lambda torch, a: a.t().contiguous())
case("sum_builtin_iteration", lambda torch, a: sum(a))
case("tril", lambda torch, a: torch.tril(a), S34)
case("tril_diagonal_3d", lambda torch, a: a.tril(-1), S234)
case("triu", lambda torch, a: a.triu(1), S34)
case("diag_1d", lambda torch, a: torch.diag(a), ((4,),))
case("diag_1d_offset", lambda torch, a: torch.diag(a, -1), ((3,),))
case("diag_2d", lambda torch, a: torch.diag(a), S34)
case("diag_2d_offset", lambda torch, a: a.diag(1), S34)
case("diagonal", lambda torch, a: torch.diagonal(a), S34)
case("diagonal_offset_dims", lambda torch, a: a.diagonal(-1, 0, 2), ((3, 2, 4),))
case("diagonal_neg_dims", lambda torch, a: a.diagonal(1, dim1=-1, dim2=-2), S234)
case("trace", lambda torch, a: torch.trace(a), S34)
case("roll", lambda torch, a: torch.roll(a, 1, 0), S34)
case("roll_dims", lambda torch, a: a.roll((1, -2), (0, 1)), S34)
case("roll_flat", lambda torch, a: a.roll(5), S34)
case("cumprod", lambda torch, a: torch.cumprod(a, 1), S34)
case("cumprod_3d", lambda torch, a: a.cumprod(-1), S234)
_WITH_ZEROS = lambda rng: [np.array([[1.5, 0.0, -2.0, 0.7], [0.0, 0.0, 1.2, -0.5], [0.5, 1.1, -0.9, 0.0]])]  # noqa: E731
case("cumprod_with_zeros", lambda torch, a: a.cumprod(1), values=_WITH_ZEROS)
case("cumprod_with_zeros_dim0", lambda torch, a: torch.cumprod(a, 0), values=_WITH_ZEROS)
case("kron", lambda torch, a, b: torch.kron(a, b), ((2, 3), (3, 2)))
case("kron_ranks", lambda torch, a, b: torch.kron(a, b), ((3,), (2, 2)))
case("masked_select", lambda torch, a: torch.masked_select(a, a > 0), S34)
case("masked_select_broadcast", lambda torch, a: a.masked_select(torch.tensor([[True], [False], [True]])), ((4,),))
case("repeat_interleave", lambda torch, a: a.repeat_interleave(2, dim=0), S34)
case("repeat_interleave_flat", lambda torch, a: torch.repeat_interleave(a, 3), S34)
case("repeat_interleave_tensor", lambda torch, a: a.repeat_interleave(torch.tensor([1, 0, 2, 1]), dim=1), S34)
case("tile", lambda torch, a: torch.tile(a, (2,)), S34)
case("tile_more_dims", lambda torch, a: a.tile((2, 1, 2)), S34)
case("vstack", lambda torch, a, b: torch.vstack([a, b]), ((4,), (2, 4)))
case("hstack", lambda torch, a, b: torch.hstack((a, b)), ((3,), (2,)))
case("hstack_2d", lambda torch, a, b: torch.hstack([a, b]), ((3, 2), (3, 4)))
case("var_mean", lambda torch, a: torch.var_mean(a, 1), S234)
case("var_mean_all", lambda torch, a: torch.var_mean(a), S34)
case("var_mean_mean_only", lambda torch, a: torch.var_mean(a, -1)[1] * 2, S34)
case("std_mean", lambda torch, a: torch.std_mean(a, (0, 2), keepdim=True), S234)
case("std_mean_correction", lambda torch, a: torch.std_mean(a, dim=1, correction=0), S34)

# ----- Indexing -----
case("index_int", lambda torch, a: a[0], S34)
case("index_neg_int", lambda torch, a: a[-1], S34)
case("index_int_int", lambda torch, a: a[1, 2], S34)
case("index_col", lambda torch, a: a[:, 1], S34)
case("index_slices", lambda torch, a: a[0:1, 1:], S34)
case("index_step", lambda torch, a: a[::2], ((5, 3),))
case("index_none", lambda torch, a: a[None], S34)
case("index_ellipsis", lambda torch, a: a[..., 0], S234)
case("index_mixed_basic", lambda torch, a: a[1:, None, 0], S234)
case("index_full_slice", lambda torch, a: a[:], S34)
case("index_list", lambda torch, a: a[[0, 2]], S34)
case("index_list_repeated", lambda torch, a: a[[0, 0, 2]], S34)
case("index_tensor", lambda torch, a: a[torch.tensor([2, 1])], S34)
case("index_col_list", lambda torch, a: a[:, [0, 3]], S34)
case("index_two_lists", lambda torch, a: a[[0, 2], [1, 3]], S34)
case("index_mask", lambda torch, a: a[a > 0], S34)
case("index_row_mask", lambda torch, a: a[torch.tensor([True, False, True])], S34)

# ----- dtype conversion -----
case("double", lambda torch, a: a.double())
case("to_float64", lambda torch, a: a.to(torch.float64))
case("to_float64_kwarg", lambda torch, a: a.to(dtype=torch.float64) * 2)
case("float_roundtrip", lambda torch, a: a.double().float(), fd=False, fd2=False)
case("type_as", lambda torch, a, b: a.type_as(b), S34x2, requires_grad=(True, False), fd=False, fd2=False)

# ----- torch.nn.functional: activations -----
case("F.relu", lambda torch, a: F(torch).relu(a))
case("F.leaky_relu", lambda torch, a: F(torch).leaky_relu(a))
case("F.leaky_relu_slope", lambda torch, a: F(torch).leaky_relu(a, 0.2))
case("F.softplus", lambda torch, a: F(torch).softplus(a))
case("F.softplus_beta", lambda torch, a: F(torch).softplus(a, beta=2.0, threshold=3.0),
     values=lambda rng: [np.array([[-2.0, -0.5, 0.3, 1.2], [1.7, 2.5, -1.1, 0.9]])])
case("F.silu", lambda torch, a: F(torch).silu(a))
case("F.elu", lambda torch, a: F(torch).elu(a))
case("F.elu_alpha", lambda torch, a: F(torch).elu(a, alpha=0.5))
case("F.sigmoid", lambda torch, a: F(torch).sigmoid(a))
case("F.tanh", lambda torch, a: F(torch).tanh(a))
case("F.softmax", lambda torch, a: F(torch).softmax(a, dim=1))
case("F.log_softmax", lambda torch, a: F(torch).log_softmax(a, dim=-1))
case("F.gelu", lambda torch, a: F(torch).gelu(a), domain=REAL)
case("F.gelu_tanh", lambda torch, a: F(torch).gelu(a, approximate="tanh"), domain=REAL)
_AWAY_FROM_1 = lambda rng: [np.array([[-2.0, -0.5, 0.3, 1.2], [1.7, 0.9, -1.1, 0.1]])]  # noqa: E731
_AWAY_FROM_3 = lambda rng: [np.array([[-4.0, -2.5, -0.3, 0.4], [1.2, 2.9, 3.3, -3.2]])]  # noqa: E731
case("F.hardtanh", lambda torch, a: F(torch).hardtanh(a), values=_AWAY_FROM_1)
case("F.hardtanh_bounds", lambda torch, a: F(torch).hardtanh(a, -0.4, 1.5), values=_AWAY_FROM_1)
case("F.relu6", lambda torch, a: F(torch).relu6(a * 4), values=_AWAY_FROM_1)
case("F.softsign", lambda torch, a: F(torch).softsign(a))
case("F.logsigmoid", lambda torch, a: F(torch).logsigmoid(a), domain=REAL)
case("F.logsigmoid_large", lambda torch, a: F(torch).logsigmoid(a),
     values=lambda rng: [np.array([-100.0, -30.0, 30.0, 100.0])], fd=False, fd2=False)
case("F.selu", lambda torch, a: F(torch).selu(a))
case("F.celu", lambda torch, a: F(torch).celu(a))
case("F.celu_alpha", lambda torch, a: F(torch).celu(a, alpha=0.5))
case("F.mish", lambda torch, a: F(torch).mish(a), domain=REAL)
# PyTorch has no derivative for hardsigmoid_backward: a second derivative raises there
case("F.hardsigmoid", lambda torch, a: F(torch).hardsigmoid(a), values=_AWAY_FROM_3, fd2=False)
case("F.hardswish", lambda torch, a: F(torch).hardswish(a), values=_AWAY_FROM_3)
case("F.softmin", lambda torch, a: F(torch).softmin(a, dim=1), domain=REAL)
case("F.softmin_dim0", lambda torch, a: F(torch).softmin(a, 0), S234, domain=REAL)
case("F.glu", lambda torch, a: F(torch).glu(a), domain=REAL)
case("F.glu_dim0", lambda torch, a: F(torch).glu(a, 0), ((4, 3),), domain=REAL)
case("F.threshold", lambda torch, a: F(torch).threshold(a, 0.5, -3.0), values=_AWAY_FROM_1)

# ----- torch.nn.functional: losses -----
case("F.mse_loss", lambda torch, a, b: F(torch).mse_loss(a, b), S34x2, domain=REAL)
case("F.mse_loss_sum", lambda torch, a, b: F(torch).mse_loss(a, b, reduction="sum"), S34x2, domain=REAL)
case("F.mse_loss_none", lambda torch, a, b: F(torch).mse_loss(a, b, reduction="none"), S34x2, domain=REAL)
case("F.l1_loss", lambda torch, a, b: F(torch).l1_loss(a, b), S34x2, domain=REAL)
case("F.smooth_l1_loss", lambda torch, a, b: F(torch).smooth_l1_loss(a, b), S34x2, domain=REAL)
case("F.smooth_l1_loss_sum_beta",
     lambda torch, a, b: F(torch).smooth_l1_loss(a, b, reduction="sum", beta=0.5), S34x2, domain=REAL)
case("F.smooth_l1_loss_none", lambda torch, a, b: F(torch).smooth_l1_loss(a, b, reduction="none"), S34x2, domain=REAL)
case("F.smooth_l1_loss_beta0", lambda torch, a, b: F(torch).smooth_l1_loss(a, b, beta=0.0), S34x2, domain=REAL)
case("F.smooth_l1_loss_target_no_grad", lambda torch, a, b: F(torch).smooth_l1_loss(a, b), S34x2, domain=REAL,
     requires_grad=(True, False))
case("F.huber_loss", lambda torch, a, b: F(torch).huber_loss(a, b), S34x2, domain=REAL)
case("F.huber_loss_sum_delta", lambda torch, a, b: F(torch).huber_loss(a, b, reduction="sum", delta=0.5), S34x2,
     domain=REAL)
case("F.huber_loss_none", lambda torch, a, b: F(torch).huber_loss(a, b, reduction="none", delta=1.5), S34x2, domain=REAL)
case("F.kl_div_batchmean", lambda torch, x, y: F(torch).kl_div(x, y, reduction="batchmean"), S34x2, domain=[REAL, UNIT])
case("F.kl_div_sum", lambda torch, x, y: F(torch).kl_div(x, y, reduction="sum"), S34x2, domain=[REAL, UNIT])
case("F.kl_div_none", lambda torch, x, y: F(torch).kl_div(x, y, reduction="none"), S34x2, domain=[REAL, UNIT])
case("F.kl_div_log_target", lambda torch, x, y: F(torch).kl_div(x, y, reduction="batchmean", log_target=True), S34x2,
     domain=[REAL, (-3.0, 0.0)])
case("F.kl_div_target_no_grad", lambda torch, x, y: F(torch).kl_div(x, y, reduction="sum"), S34x2, domain=[REAL, UNIT],
     requires_grad=(True, False))
case("F.normalize", lambda torch, a: F(torch).normalize(a))
case("F.normalize_p1_dim0", lambda torch, a: F(torch).normalize(a, p=1, dim=0), S234)
case("F.cosine_similarity", lambda torch, a, b: F(torch).cosine_similarity(a, b), S34x2)
case("F.cosine_similarity_dim0", lambda torch, a, b: F(torch).cosine_similarity(a, b, dim=0), S34x2)
case("F.cosine_similarity_broadcast", lambda torch, a, b: F(torch).cosine_similarity(a, b, dim=-1), ((3, 4), (4,)))
case("F.pairwise_distance", lambda torch, a, b: F(torch).pairwise_distance(a, b), S34x2)
case("F.pairwise_distance_p1_keepdim", lambda torch, a, b: F(torch).pairwise_distance(a, b, p=1.0, keepdim=True), S34x2)
case("F.pairwise_distance_p3", lambda torch, a, b: F(torch).pairwise_distance(a, b, p=3), S34x2)
case("F.l1_loss_sum", lambda torch, a, b: F(torch).l1_loss(a, b, reduction="sum"), S34x2, domain=REAL)
case("F.l1_loss_none", lambda torch, a, b: F(torch).l1_loss(a, b, reduction="none"), S34x2, domain=REAL)
case("F.binary_cross_entropy", lambda torch, p, y: F(torch).binary_cross_entropy(p, y), S34x2, domain=UNIT)
case("F.binary_cross_entropy_sum",
     lambda torch, p, y: F(torch).binary_cross_entropy(p, y, reduction="sum"), S34x2, domain=UNIT)
case("F.binary_cross_entropy_none",
     lambda torch, p, y: F(torch).binary_cross_entropy(p, y, reduction="none"), S34x2, domain=UNIT)
case("F.binary_cross_entropy_weight",
     lambda torch, p, y, w: F(torch).binary_cross_entropy(p, y, weight=w), ((3, 4), (3, 4), (4,)),
     domain=[UNIT, UNIT, POS], requires_grad=(True, True, False))
case("F.binary_cross_entropy_target_no_grad",
     lambda torch, p, y: F(torch).binary_cross_entropy(p, y), S34x2, domain=UNIT, requires_grad=(True, False))
case("F.bce_with_logits", lambda torch, x, y: F(torch).binary_cross_entropy_with_logits(x, y), S34x2,
     domain=[REAL, UNIT])
case("F.bce_with_logits_sum",
     lambda torch, x, y: F(torch).binary_cross_entropy_with_logits(x, y, reduction="sum"), S34x2, domain=[REAL, UNIT])
case("F.bce_with_logits_none",
     lambda torch, x, y: F(torch).binary_cross_entropy_with_logits(x, y, reduction="none"), S34x2,
     domain=[REAL, UNIT])
case("F.bce_with_logits_weight",
     lambda torch, x, y, w: F(torch).binary_cross_entropy_with_logits(x, y, weight=w), ((3, 4), (3, 4), (4,)),
     domain=[REAL, UNIT, POS], requires_grad=(True, True, False))
case("F.bce_with_logits_pos_weight",
     lambda torch, x, y, pw: F(torch).binary_cross_entropy_with_logits(x, y, pos_weight=pw), ((3, 4), (3, 4), (4,)),
     domain=[REAL, UNIT, POS], requires_grad=(True, True, False))
case("F.bce_with_logits_weight_pos_weight_sum",
     lambda torch, x, y, w, pw: F(torch).binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw,
                                                                        reduction="sum"),
     ((3, 4), (3, 4), (3, 1), (4,)), domain=[REAL, UNIT, POS, POS], requires_grad=(True, True, False, False))
case("F.bce_with_logits_large",
     lambda torch, x, y: F(torch).binary_cross_entropy_with_logits(x, y, reduction="none"),
     values=lambda rng: [np.array([100.0, -100.0, 50.0, -50.0, 100.0, -100.0]), np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0])],
     requires_grad=(True, False), fd=False, fd2=False)
case("F.bce_with_logits_large_pos_weight",
     lambda torch, x, y, pw: F(torch).binary_cross_entropy_with_logits(x, y, pos_weight=pw),
     values=lambda rng: [np.array([100.0, -100.0, 50.0, -50.0]), np.array([0.0, 1.0, 0.5, 1.0]),
                         np.array([2.0, 3.0, 0.5, 1.5])],
     requires_grad=(True, False, False), fd=False, fd2=False)
case("F.cross_entropy", lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, 0, 3])), S34, domain=REAL)
case("F.cross_entropy_sum",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, 0, 3]), reduction="sum"), S34, domain=REAL)
case("F.cross_entropy_none",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, 0, 3]), reduction="none"), S34, domain=REAL)
case("F.cross_entropy_weight",
     lambda torch, x, w: F(torch).cross_entropy(x, torch.tensor([1, 0, 3]), weight=w), ((3, 4), (4,)),
     domain=[REAL, POS], requires_grad=(True, False))
case("F.cross_entropy_ignore_index",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, -100, 3])), S34, domain=REAL)
case("F.cross_entropy_1d", lambda torch, x: F(torch).cross_entropy(x, torch.tensor(2)), ((4,),), domain=REAL)
case("F.cross_entropy_3d",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([[0, 2], [1, 1]])), ((2, 3, 2),), domain=REAL)
case("F.cross_entropy_label_smoothing",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, 0, 3]), label_smoothing=0.1), S34, domain=REAL)
case("F.cross_entropy_label_smoothing_weight",
     lambda torch, x, w: F(torch).cross_entropy(x, torch.tensor([1, 0, 3]), weight=w, label_smoothing=0.2),
     ((3, 4), (4,)), domain=[REAL, POS], requires_grad=(True, False))
case("F.cross_entropy_label_smoothing_none_ignore",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([1, -100, 3]), reduction="none", label_smoothing=0.3),
     S34, domain=REAL)
case("F.cross_entropy_label_smoothing_sum_3d",
     lambda torch, x: F(torch).cross_entropy(x, torch.tensor([[0, 2], [1, 1]]), reduction="sum", label_smoothing=0.1),
     ((2, 3, 2),), domain=REAL)
case("F.cross_entropy_prob_target",
     lambda torch, x, y: F(torch).cross_entropy(x, y), S34x2, domain=[REAL, UNIT])
case("F.cross_entropy_prob_target_target_no_grad",
     lambda torch, x, y: F(torch).cross_entropy(x, y, reduction="none"), S34x2, domain=[REAL, UNIT],
     requires_grad=(True, False))
case("F.cross_entropy_prob_target_weight_smoothing",
     lambda torch, x, y, w: F(torch).cross_entropy(x, y, weight=w, label_smoothing=0.1, reduction="sum"),
     ((3, 4), (3, 4), (4,)), domain=[REAL, UNIT, POS], requires_grad=(True, True, False))
case("F.nll_loss",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([1, 0, 3])), S34, domain=REAL)
case("F.nll_loss_sum",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([1, 0, 3]), reduction="sum"), S34, domain=REAL)
case("F.nll_loss_none",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([1, 0, 3]), reduction="none"), S34, domain=REAL)
case("F.nll_loss_ignore_index",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([1, 2, 3]), ignore_index=2), S34, domain=REAL)
case("F.nll_loss_weight",
     lambda torch, x, w: F(torch).nll_loss(x, torch.tensor([1, 0, 3]), weight=w), ((3, 4), (4,)),
     domain=[REAL, POS], requires_grad=(True, False))
case("F.nll_loss_weight_ignore_none",
     lambda torch, x, w: F(torch).nll_loss(x, torch.tensor([1, 0, 3]), weight=w, ignore_index=0, reduction="none"),
     ((3, 4), (4,)), domain=[REAL, POS], requires_grad=(True, False))
case("F.nll_loss_3d",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([[0, 2], [1, 1]])), ((2, 3, 2),), domain=REAL)
case("F.nll_loss_3d_none",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([[0, 2], [1, 1]]), reduction="none"), ((2, 3, 2),),
     domain=REAL)
case("F.nll_loss_4d",
     lambda torch, x: F(torch).nll_loss(x, torch.tensor([[[0, 2], [1, 1]], [[2, 2], [0, 1]]]), reduction="sum"),
     ((2, 3, 2, 2),), domain=REAL)
case("F.nll_loss_1d", lambda torch, x: F(torch).nll_loss(x, torch.tensor(1)), ((4,),), domain=REAL)

CASES_BY_NAME = {c.name: c for c in CASES}
assert len(CASES_BY_NAME) == len(CASES), "case names must be unique"


# ----- Running the same code on both modules -----

def plain(x):
    """Tensors as (dtype, values, requires_grad); dtypes, devices and sizes as their repr; containers kept."""
    if type(x).__name__ in ("dtype", "device", "Size"):
        return (type(x).__name__, repr(x))
    if isinstance(x, list):
        return [plain(v) for v in x]
    if isinstance(x, tuple):  # also torch.return_types and other tuple subclasses
        return tuple(plain(v) for v in x)
    if hasattr(x, "detach") and hasattr(x, "dtype"):
        a = x.detach().numpy()
        values = _nan_safe(np.round(a.astype(np.float64), 6).tolist()) if a.dtype.kind == "f" else a.tolist()
        return ("tensor", str(x.dtype), values, x.requires_grad)
    return x


def _nan_safe(v):
    """nan as the string "nan", so that equal results compare equal."""
    if isinstance(v, list):
        return [_nan_safe(u) for u in v]
    return "nan" if v != v else v


def outcome(fn, mod):
    """What ``fn(mod)`` did: ("ok", result as plain data) or ("raised", class name, message), and its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", plain(fn(mod)))
        except Exception as e:  # noqa: BLE001 - the exception is the result being compared
            result = ("raised", type(e).__name__, str(e))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def _close(a, b):
    """``a == b``, floats to one unit in the 6th decimal (where ``plain`` rounds them) plus a few float32
    ulps: a value an ulp apart on another CPU's kernels can round to the next 6th decimal."""
    if type(a) is float and type(b) is float:
        return a == b or abs(a - b) <= 1.01e-6 + 5e-7 * abs(b)  # (a == b: infinities)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def same(torch_ref, et, fn):
    """Run ``fn`` with real PyTorch and with the engine; assert identical results, errors and warnings."""
    ours, ref = outcome(fn, et), outcome(fn, torch_ref)
    assert _close(ours, ref), f"\nengine: {ours}\ntorch:  {ref}"
    return ref


def names(fn, depth=3):
    """A node's name and, ``depth`` levels down, its next_functions' names."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return fn.name(), [None if f is None else names(f, depth - 1) for f, _ in fn.next_functions]


def check_grads(et, op, values, gradgrad=True):
    """Finite differences in float64 of ``op(et, *tensors)``'s outputs that require grad: first order,
    and second unless not ``gradgrad``."""
    xs = [et.tensor(v, dtype=et.float64, requires_grad=True) for v in values]

    def fn(*xs):
        out = op(et, *xs)
        return tuple(y for y in (out if isinstance(out, tuple) else (out,)) if y.requires_grad)

    assert et.autograd.gradcheck(fn, xs)
    if gradgrad:
        assert et.autograd.gradgradcheck(fn, xs)


def upstream(t, y, divisor=1):
    """1, 2, 3, ... (over ``divisor``) in ``y``'s shape: an upstream grad whose every element differs."""
    return t.arange(1.0, y.numel() + 1, dtype=t.float64).reshape(y.shape) / divisor


def graded(op, *values, divisor=1):
    """``op`` on float64 leaves made of ``values``, as ``fn(t)``: its output, its nodes three levels down,
    and each leaf's grad after a backward with ``upstream`` grads."""
    def run(t):
        xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
        out = op(t, *xs)
        ys = out if isinstance(out, tuple) else (out,)
        total = sum((y * upstream(t, y, divisor)).sum() for y in ys if y.requires_grad)
        total.backward()
        return out, [names(y.grad_fn) for y in ys], [x.grad for x in xs]
    return run


def grads_with_graph(t, op, values, divisor=1):
    """What a double backward draws: ``(xs, us, gs)``, the grads ``gs`` of ``op``'s outputs on float64
    leaves ``xs`` from ``upstream`` grads ``us`` that require grad, with create_graph."""
    xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    out = op(t, *xs)
    ys = [y for y in (out if isinstance(out, tuple) else (out,)) if y.requires_grad]
    us = [upstream(t, y, divisor).requires_grad_() for y in ys]
    return xs, us, t.autograd.grad(ys, xs, us, create_graph=True, allow_unused=True)
