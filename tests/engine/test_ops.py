"""Every op of ``opinfo.CASES`` against real PyTorch (values, ``grad_fn`` names, ``next_functions``,
grads) and against finite differences in float64 (first and second order, engine only)."""
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine
from tests.engine import opinfo
from tests.engine.opinfo import same

CASES = opinfo.CASES
FD_CASES = [c for c in CASES if c.fd]
FD2_CASES = [c for c in CASES if c.fd2]


def _ids(cases):
    return [c.name for c in cases]


# ----- Helpers shared by the torch comparison and the finite-difference checks -----

def make_inputs(mod, case, dtype, seed=0):
    return [mod.tensor(a, dtype=dtype, requires_grad=rg) for a, rg in zip(case.inputs(seed), case.grad_flags())]


def as_outputs(out):
    """A case may return one tensor or a tuple of them (unbind, split, max(dim))."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def graph_structure(fn, inputs, depth=3):
    """``grad_fn`` as nested (name, ((child, output_nr), ...)); an ``AccumulateGrad`` is named with
    the index of the input whose ``variable`` it is."""
    if fn is None:
        return None
    name = type(fn).__name__
    if name == "AccumulateGrad":
        idx = [i for i, t in enumerate(inputs) if t is fn.variable]
        return ("AccumulateGrad", idx)
    if depth == 0:
        return name
    return (name, tuple((graph_structure(c, inputs, depth - 1), nr) for c, nr in fn.next_functions))


def upstream(outs, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(o.shape)) for o in outs]


def assert_close(actual, expected, rtol, atol, what):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)


# ----- Against PyTorch: float32 values, grad_fn, next_functions, grads -----

@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_matches_torch(case, torch_ref):
    ours_in = make_inputs(engine, case, engine.float32)
    ref_in = make_inputs(torch_ref, case, torch_ref.float32)
    ours = as_outputs(case.fn(engine, *ours_in))
    ref = as_outputs(case.fn(torch_ref, *ref_in))
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        assert tuple(o.shape) == tuple(r.shape), f"output {k} shape"
        assert str(o.dtype) == str(r.dtype), f"output {k} dtype"
        assert o.requires_grad == r.requires_grad, f"output {k} requires_grad"
        assert_close(o.detach().numpy(), r.detach().numpy(), case.rtol, case.atol, f"output {k} values")
        assert graph_structure(o.grad_fn, ours_in) == graph_structure(r.grad_fn, ref_in), f"output {k} graph"

    pairs = [(o, r) for o, r in zip(ours, ref) if r.requires_grad]
    if not pairs:
        return
    us = upstream([r for _, r in pairs])
    engine.autograd.backward([o for o, _ in pairs], [engine.tensor(u, dtype=o.dtype) for (o, _), u in zip(pairs, us)])
    torch_ref.autograd.backward([r for _, r in pairs], [torch_ref.tensor(u, dtype=r.dtype) for (_, r), u in zip(pairs, us)])
    for i, (a, b) in enumerate(zip(ours_in, ref_in)):
        if b.grad is None:
            assert a.grad is None, f"input {i} grad should be None"
            continue
        assert a.grad is not None, f"input {i} grad missing"
        assert str(a.grad.dtype) == str(b.grad.dtype)
        assert_close(a.grad.numpy(), b.grad.numpy(), max(case.rtol, 1e-5), max(case.atol, 1e-5), f"input {i} grad")


# ----- A backward pass that builds no graph runs the rules on NumPy arrays (Op.array_vjps) -----

@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_rules_on_arrays_give_the_grads_of_rules_on_tensors(case):
    """``backward()`` runs each rule that can on the arrays; ``backward(create_graph=True)`` runs
    every rule on tensors. Same rule, same NumPy kernels: the same grads, to the last bits."""
    grads = []
    for create_graph in (False, True):
        inputs = make_inputs(engine, case, engine.float64)
        outs = [o for o in as_outputs(case.fn(engine, *inputs)) if o.requires_grad]
        if not outs:
            return
        us = upstream(outs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph=True's reference-cycle warning
            engine.autograd.backward(outs, [engine.tensor(u, dtype=o.dtype) for o, u in zip(outs, us)],
                                     create_graph=create_graph)
        grads.append([None if t.grad is None else (str(t.grad.dtype), t.grad.detach().numpy()) for t in inputs])
    for i, (on_arrays, on_tensors) in enumerate(zip(*grads)):
        assert (on_arrays is None) == (on_tensors is None), f"input {i}"
        if on_arrays is not None:
            assert on_arrays[0] == on_tensors[0], f"input {i} grad dtype"
            assert_close(on_arrays[1], on_tensors[1], 1e-12, 1e-12, f"input {i} grad")


def test_which_rules_run_on_arrays():
    from engine import _ops

    hot = (_ops.ADD, _ops.SUB, _ops.MUL, _ops.DIV, _ops.MUL_SCALAR, _ops.POW, _ops.NEG, _ops.RELU, _ops.SUM,
           _ops.SUM_DIM, _ops.MEAN, _ops.MEAN_DIM, _ops.MM, _ops.ADDMM, _ops.VIEW, _ops.T, _ops.EXPAND,
           _ops.LOG_SOFTMAX, _ops.SOFTMAX, _ops.NLL, _ops.MSE, _ops.WHERE)
    assert [op.node_cls.__name__ for op in hot if op.array_vjps is None] == []
    # A tensor method (``g.to``) or an op without an array counterpart (``flip``) keeps a rule on tensors.
    assert _ops.TO_COPY.array_vjps is None
    assert _ops._on_arrays(_ops.FLIP.vjps[0]) is None
    # The array version is the rule's own code, with the engine ops it calls rebound.
    rule = _ops.MUL.vjps[0]
    assert _ops.MUL.array_vjps[0].__code__ is rule.__code__
    twin = _ops.SIGMOID_BACKWARD.array_vjps[1]
    assert twin.__globals__["_add_scalar"] is np.add and rule.__globals__["_add_scalar"] is _ops._add_scalar


# ----- Finite differences in float64, engine only -----

EPS = 1e-6


def _scalar(case, inputs, us):
    """sum_k <out_k, u_k> as an engine tensor (differentiable)."""
    outs = [o for o in as_outputs(case.fn(engine, *inputs)) if o.requires_grad]
    total = None
    for o, u in zip(outs, us):
        term = (o * engine.tensor(u)).sum()
        total = term if total is None else total + term
    return total


def _grads(scalar, inputs, create_graph=False):
    wanted = [t for t in inputs if t.requires_grad]
    if scalar is None or not scalar.requires_grad:
        return [np.zeros(t.shape) for t in wanted], [None] * len(wanted)
    gs = engine.autograd.grad(scalar, wanted, allow_unused=True, create_graph=create_graph)
    return [np.zeros(t.shape) if g is None else g.detach().numpy().copy() for t, g in zip(wanted, gs)], list(gs)


def _numeric(f, arrays, flags):
    """Central differences of the scalar function ``f(arrays)`` for every input that requires grad."""
    out = []
    for i, (a, rg) in enumerate(zip(arrays, flags)):
        if not rg:
            continue
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][j] += EPS
            minus[i][j] -= EPS
            g[j] = (f(plus) - f(minus)) / (2 * EPS)
        out.append(g)
    return out


def _leaves(arrays, flags):
    return [engine.tensor(a, dtype=engine.float64, requires_grad=rg) for a, rg in zip(arrays, flags)]


def _out_shapes(case, arrays, flags):
    outs = as_outputs(case.fn(engine, *_leaves(arrays, flags)))
    return [o for o in outs if o.requires_grad]


@pytest.mark.parametrize("case", FD_CASES, ids=_ids(FD_CASES))
def test_first_order_finite_differences(case):
    arrays, flags = case.inputs(), case.grad_flags()
    us = upstream(_out_shapes(case, arrays, flags))

    def f(arrs):
        outs = [o for o in as_outputs(case.fn(engine, *_leaves(arrs, flags))) if o.requires_grad]
        return sum(float((o.detach().numpy() * u).sum()) for o, u in zip(outs, us))

    inputs = _leaves(arrays, flags)
    analytic, _ = _grads(_scalar(case, inputs, us), inputs)
    numeric = _numeric(f, arrays, flags)
    for k, (a, n) in enumerate(zip(analytic, numeric)):
        assert_close(a, n, 1e-4, 1e-5, f"grad of input {k}")


@pytest.mark.parametrize("case", FD2_CASES, ids=_ids(FD2_CASES))
def test_second_order_finite_differences(case):
    arrays, flags = case.inputs(), case.grad_flags()
    us = upstream(_out_shapes(case, arrays, flags))
    rng = np.random.default_rng(2)
    ws = [rng.standard_normal(a.shape) for a, rg in zip(arrays, flags) if rg]

    def first(arrs, create_graph):
        inputs = _leaves(arrs, flags)
        return inputs, _grads(_scalar(case, inputs, us), inputs, create_graph=create_graph)

    def f(arrs):
        (values, _) = first(arrs, False)[1]
        return sum(float((g * w).sum()) for g, w in zip(values, ws))

    inputs, (_, gs) = first(arrays, True)
    s2 = None
    for g, w in zip(gs, ws):
        if g is not None and g.requires_grad:
            term = (g * engine.tensor(w)).sum()
            s2 = term if s2 is None else s2 + term
    analytic, _ = _grads(s2, inputs)
    numeric = _numeric(f, arrays, flags)
    for k, (a, n) in enumerate(zip(analytic, numeric)):
        assert_close(a, n, 1e-4, 1e-5, f"second-order grad of input {k}")


# ----- Hypothesis: shapes and values on representative families -----

# ENGINE_HYPOTHESIS_EXAMPLES=500 for a deeper local search; the default keeps the file fast.
SETTINGS = settings(max_examples=int(os.environ.get("ENGINE_HYPOTHESIS_EXAMPLES", 25)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _compare_with_torch(torch_ref, fn, arrays, rtol=1e-5, atol=1e-5, flags=None):
    flags = flags or [True] * len(arrays)
    ours_in = [engine.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    ref_in = [torch_ref.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    o, r = fn(engine, *ours_in), fn(torch_ref, *ref_in)
    assert tuple(o.shape) == tuple(r.shape)
    assert graph_structure(o.grad_fn, ours_in) == graph_structure(r.grad_fn, ref_in)
    assert_close(o.detach().numpy(), r.detach().numpy(), rtol, atol, "values")
    u = np.random.default_rng(0).standard_normal(tuple(r.shape)).astype(np.float32)
    o.backward(engine.tensor(u))
    r.backward(torch_ref.tensor(u))
    for a, b in zip(ours_in, ref_in):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            assert_close(a.grad.numpy(), b.grad.numpy(), rtol, atol, "grads")


def _arrays(shapes, seed, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, s).astype(np.float32) for s in shapes]


BINARY = {
    "add": lambda torch, a, b: a + b,
    "sub": lambda torch, a, b: a - b,
    "mul": lambda torch, a, b: a * b,
    "div": lambda torch, a, b: a / (b.abs() + 0.5),
    "maximum": lambda torch, a, b: torch.maximum(a, b),
    "pow": lambda torch, a, b: (a.abs() + 0.5) ** b,
    "where": lambda torch, a, b: torch.where(a > b, a, b * 2),
}


@pytest.mark.torch
@SETTINGS
@given(op=st.sampled_from(sorted(BINARY)), shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
@pytest.mark.torch
def test_hypothesis_elementwise_broadcasting(torch_ref, op, shapes, seed):
    _compare_with_torch(torch_ref, BINARY[op], _arrays(shapes.input_shapes, seed))


REDUCTIONS = {
    "sum": lambda torch, x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda torch, x, dim, keepdim: x.mean(dim, keepdim=keepdim),
    "var": lambda torch, x, dim, keepdim: x.var(dim, keepdim=keepdim),
    "std": lambda torch, x, dim, keepdim: x.std(dim, keepdim=keepdim),
    "logsumexp": lambda torch, x, dim, keepdim: torch.logsumexp(x, dim, keepdim=keepdim),
    "amax": lambda torch, x, dim, keepdim: torch.amax(x, dim, keepdim=keepdim),
    "norm": lambda torch, x, dim, keepdim: x.norm(2, dim=dim, keepdim=keepdim),
    "norm_p3": lambda torch, x, dim, keepdim: torch.norm(x, 3, dim, keepdim),
    "prod": lambda torch, x, dim, keepdim: x.prod(dim[0], keepdim=keepdim),
}


@st.composite
def _reduction_args(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    nd = len(shape)
    dims = draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique_by=lambda d: d % nd))
    return shape, tuple(dims)


@pytest.mark.torch
@SETTINGS
@given(op=st.sampled_from(sorted(REDUCTIONS)), args=_reduction_args(), keepdim=st.booleans(), seed=st.integers(0, 2**16))
def test_hypothesis_reductions(torch_ref, op, args, keepdim, seed):
    shape, dims = args
    fn = REDUCTIONS[op]
    _compare_with_torch(torch_ref, lambda torch, x: fn(torch, x, dims, keepdim), _arrays([shape], seed, 0.5, 1.5),
                        rtol=1e-4, atol=1e-5)


@st.composite
def _matmul_shapes(draw):
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    ba, bb = batch.input_shapes
    a_1d, b_1d = draw(st.booleans()), draw(st.booleans())
    sa = (k,) if a_1d else ba + (n, k)
    sb = (k,) if b_1d else bb + (k, m)
    return sa, sb


@pytest.mark.torch
@SETTINGS
@given(shapes=_matmul_shapes(), seed=st.integers(0, 2**16),
       flags=st.sampled_from([(True, True), (True, False), (False, True)]), transpose_a=st.booleans())
@pytest.mark.torch
def test_hypothesis_matmul_shapes(torch_ref, shapes, seed, flags, transpose_a):
    """Every matmul form, with either operand requiring grad and a possibly non-contiguous lhs:
    values, grads and the whole graph (the folding decisions depend on all three)."""
    arrays = _arrays(shapes, seed)
    if transpose_a and arrays[0].ndim >= 2:
        arrays[0] = np.swapaxes(arrays[0], -1, -2).copy()  # fresh strides: torch.tensor keeps NumPy's

        def fn(torch, a, b):
            return a.transpose(-1, -2) @ b
    else:
        def fn(torch, a, b):
            return a @ b
    _compare_with_torch(torch_ref, fn, arrays, rtol=1e-4, atol=1e-5, flags=list(flags))


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3), seed=st.integers(0, 2**16))
def test_hypothesis_broadcast_grads_finite_differences(shapes, seed):
    case = opinfo.OpCase("mul_div", lambda torch, a, b: a * b / (b * b + 1), shapes.input_shapes, opinfo.REAL)
    arrays, flags = case.inputs(seed), case.grad_flags()
    us = upstream(_out_shapes(case, arrays, flags))
    inputs = _leaves(arrays, flags)
    analytic, _ = _grads(_scalar(case, inputs, us), inputs)

    def f(arrs):
        o = case.fn(engine, *_leaves(arrs, flags))
        return float((o.detach().numpy() * us[0]).sum())

    for a, n in zip(analytic, _numeric(f, arrays, flags)):
        assert a.shape == n.shape
        assert_close(a, n, 1e-4, 1e-5, "grad")


# ----- Edge cases: ties, nan, inf, empty tensors, integer dtypes, grads at kinks -----

EDGE_CASES = {
    'max ties idx': lambda t: t.tensor([[1., 3., 3.], [2., 2., 0.]]).max(1),
    'min ties idx': lambda t: t.tensor([[1., 1., 3.], [2., 0., 0.]]).min(1),
    'argmax ties': lambda t: (t.tensor([1., 3., 3.]).argmax(), t.tensor([[1., 3., 3.]]).argmax(1)),
    'max nan': lambda t: (t.tensor([1., float('nan'), 3.]).max(), t.tensor([[1., float('nan'), 3.]]).max(1)),
    'where scalar grads': lambda t: (lambda x: (t.where(x > 0, 2.0, x).sum().backward(), x.grad)[1])(t.tensor([1., -2.], requires_grad=True)),
    'cumsum int': lambda t: t.tensor([1, 2, 3]).cumsum(0),
    'cumsum bool': lambda t: t.tensor([True, True]).cumsum(0),
    'cumsum int32, int8, 0-d bool': lambda t: (t.tensor([1, 2], dtype=t.int32).cumsum(0),
                                              t.tensor([100, 100], dtype=t.int8).cumsum(0), t.tensor(True).cumsum(0)),
    'cumsum/cumprod dtype=': lambda t: (t.cumsum(t.tensor([1.5, 2.0]), 0, dtype=t.float64),
                                        t.tensor([1, 2], dtype=t.int32).cumsum(0, dtype=t.float32),
                                        t.tensor([3, 4], dtype=t.int32).cumsum(-1, dtype=t.int16),
                                        t.tensor([3, 4], dtype=t.int32).cumprod(-1, dtype=t.int16),
                                        t.tensor([100, 3], dtype=t.int8).cumprod(0)),
    'cumsum/cumprod dtype= grads': lambda t: (lambda x: [(y, y.grad_fn.next_functions[0][0].name(),
                                                          t.autograd.grad(y.sum(), x)) for y in (
        x.cumsum(0, dtype=t.float64), x.cumprod(0, dtype=t.float64))])(t.tensor([1.0, 2.0], requires_grad=True)),
    'softmax dtype': lambda t: t.softmax(t.tensor([1., 2.]), 0, dtype=t.float64),
    'softmax dtype graph': lambda t: [type(f).__name__ for x in [t.tensor([[1., 2.]], requires_grad=True)]
                                      for f in (t.softmax(x, 1, dtype=t.float64).grad_fn.next_functions[0][0],
                                                t.log_softmax(x, 0, dtype=t.float64).grad_fn.next_functions[0][0])],
    'softmax integer dtype': lambda t: t.softmax(t.tensor([1., 2.]), 0, dtype=t.long),
    'log_softmax integer dtype': lambda t: t.log_softmax(t.tensor([[1., 2.]]), 0, dtype=t.long),
    'softmax no dim': lambda t: t.nn.functional.softmax(t.tensor([[1., 2.]])),
    'var 1 elem': lambda t: t.tensor([1.]).var(),
    'std 1 elem': lambda t: t.tensor([1.]).std(),
    'var grad 1 elem': lambda t: (lambda x: (x.var().backward(), x.grad)[1])(t.tensor([1.], requires_grad=True)),
    'mean empty': lambda t: t.tensor([]).mean(),
    'sum empty': lambda t: t.tensor([]).sum(),
    'prod empty': lambda t: t.tensor([]).prod(),
    'max empty': lambda t: t.tensor([]).max(),
    'relu int': lambda t: t.relu(t.tensor([-1, 2])),
    'sign bool int': lambda t: (t.tensor([True, False]).sign(), t.tensor([1, -2, 0]).sign()),
    'round int and decimals': lambda t: (t.tensor([1, -2]).round(), t.tensor([1.26, -0.04]).round(decimals=1)),
    'floor divide and remainder promotion': lambda t: (t.tensor([3, 4]) // 2.5, 7 // t.tensor([2, 3]), 7.5 % t.tensor([2, 3]),
                                                        t.tensor([5, -7]).fmod(3), t.tensor([5., -7.]).remainder(t.tensor(3.))),
    'remainder and floor divide nodes': lambda t: ((t.tensor([5., -7.], requires_grad=True) % 3).grad_fn.name(),
                                                   (t.tensor([5., -7.], requires_grad=True) // 3).grad_fn.name()),
    'abs int': lambda t: t.tensor([-1, 2]).abs(),
    'exp int': lambda t: t.tensor([0, 1]).exp(),
    'sqrt int': lambda t: t.tensor([4]).sqrt(),
    'sigmoid int': lambda t: t.tensor([0]).sigmoid(),
    'clamp int': lambda t: t.tensor([-3, 5]).clamp(-1, 2),
    'clamp int float bound': lambda t: t.tensor([-3, 5]).clamp(-1.5, 2.5),
    'neg int': lambda t: -t.tensor([1, 2]),
    'sign int': lambda t: t.tensor([-3, 0, 2]).sign(),
    'sign sgn nan and zeros': lambda t: [f(t.tensor([float('nan'), -0.0, 0.0, -float('inf'), 2.5], dtype=dt))
                                         for f in (t.sign, t.sgn, t.Tensor.sgn) for dt in (t.float32, t.float64)],
    'abs grad at nan': lambda t: (lambda x: (x.abs().sum().backward(), x.grad)[1])(
        t.tensor([float('nan'), -1.0, 2.0], requires_grad=True)),
    'sgn int bool uint8': lambda t: [(d.sgn(), t.sgn(d), d.clone().sgn_(), d.clone().sign_())
                                     for d in (t.tensor([-3, 0, 2]), t.tensor([True, False]),
                                               t.tensor([3, 0], dtype=t.uint8))],
    'sign_ sgn_ in place': lambda t: [(r is y, r.grad_fn.name(), y._version, y, y._base is None)
                                      for f in ('sign_', 'sgn_') for x in [t.tensor([-2., 0., 3.], requires_grad=True)]
                                      for y in [x * 1] for r in [getattr(y, f)()]],
    'sign_ sgn_ on a view': lambda t: [(b, b._version, b.grad_fn.name() if b.grad_fn else None)
                                       for f in ('sign_', 'sgn_') for b in [t.tensor([-2., 5., -3.], requires_grad=True) * 1]
                                       if getattr(b[1:], f)() is not None],
    'sign_ on a leaf': lambda t: t.tensor([1.0], requires_grad=True).sign_(),
    'sgn_ on a leaf': lambda t: t.tensor([1.0], requires_grad=True).sgn_(),
    'sgn_ sign_ on a leaf under no_grad': lambda t: [(t.no_grad()(getattr(t.Tensor, f))(x), x._version, x.grad_fn)
                                                     for f in ('sgn_', 'sign_')
                                                     for x in [t.tensor([-1.5, 2.0], requires_grad=True)]],
    'sgn keyword input': lambda t: (t.sgn(input=t.tensor([-1.5])), t.sign(input=t.tensor([2.0])),
                                    t.adjoint(input=t.ones(2, 3)).shape),
    'mH adjoint views': lambda t: [(y.shape, y.stride(), y._base is x, y.is_contiguous(), y.grad_fn.name(),
                                    y.grad_fn._saved_dim0, y.grad_fn._saved_dim1)
                                   for x in [t.ones(2, 3, 4, requires_grad=True) * 1]
                                   for y in (x.mH, x.adjoint(), t.adjoint(x), x.mT, x[0].H)],
    'mH writes through': lambda t: (lambda x: (x.mH.mul_(2), x.adjoint()[0].fill_(7.0), x)[2])(
        t.arange(6.0).reshape(2, 3)),
    'mH adjoint int bool': lambda t: (t.tensor([[1, 2], [3, 4]]).mH, t.adjoint(t.tensor([[True, False]])),
                                      t.tensor([[1, 2]], dtype=t.int8).H),
    'mH adjoint grads': lambda t: (lambda x: (((x.mH * t.arange(6.0).reshape(3, 2)).sum() + x.adjoint()[1].sum()
                                               + (t.adjoint(x) ** 2).sum() + x.H[2, 0]).backward(), x.grad)[1])(
        t.arange(6.0).reshape(2, 3).requires_grad_()),
    'mH of 1-D': lambda t: t.ones(3).mH,
    'mT of 1-D': lambda t: t.ones(3).mT,
    'adjoint of 1-D': lambda t: t.ones(3).adjoint(),
    'torch.adjoint of 1-D': lambda t: t.adjoint(t.ones(3)),
    'H of 1-D': lambda t: t.ones(3).H,
    'H of 3-D': lambda t: t.ones(2, 3, 4).H,
    'H of 4-D': lambda t: t.ones(1, 2, 3, 4).H,
    'round half': lambda t: t.tensor([0.5, 1.5, 2.5, -0.5]).round(),
    'pow int float': lambda t: t.tensor([2, 3]) ** 0.5,
    'pow int int': lambda t: t.tensor([2, 3]) ** 2,
    'pow float 0d int tensor': lambda t: t.tensor([2., 3.]) ** t.tensor(2),
    'rpow int': lambda t: 2 ** t.tensor([1, 2]),
    'rpow float base int exp': lambda t: 2.5 ** t.tensor([1, 2]),
    'maximum int float': lambda t: t.maximum(t.tensor([1, 5]), t.tensor([2.5, 0.])),
    'mean dim int': lambda t: t.tensor([[1., 2.]]).mean(dim=-1, keepdim=True),
    'sum dtype': lambda t: t.tensor([1, 2]).sum(dtype=t.float32),
    'logsumexp inf': lambda t: t.logsumexp(t.tensor([-float('inf'), -float('inf')]), 0),
    'log_softmax 0d': lambda t: t.log_softmax(t.tensor(1.), 0),
    'softmax 0d': lambda t: t.softmax(t.tensor(1.), 0),
    'cat 0d': lambda t: t.cat([t.tensor(1.), t.tensor(2.)]),
    'stack 0d': lambda t: t.stack([t.tensor(1.), t.tensor(2.)]),
    'cat empty tensor': lambda t: t.cat([t.tensor([]), t.ones(2)]),
    'flatten 0d': lambda t: (t.tensor(1., requires_grad=True)*1).flatten().grad_fn.name(),
    'flatten 1d': lambda t: (lambda x: x.flatten() is x)(t.ones(3)),
    'squeeze int dim not 1': lambda t: t.ones(2,3).squeeze(0).shape,
    'unsqueeze grads': lambda t: (t.ones(3, requires_grad=True) * 1).unsqueeze(1).grad_fn.name(),
    'chunk more than size': lambda t: [c.shape for c in t.ones(2).chunk(5)],
    'split 0': lambda t: [c.shape for c in t.ones(5).split(2)],
    'masked_fill tensor value': lambda t: t.ones(3).masked_fill(t.tensor([True, False, True]), t.tensor(5.)),
    'masked_fill broadcast mask': lambda t: t.ones(2,3).masked_fill(t.tensor([True, False, True]), 0.),
    'index_select 0d idx': lambda t: t.ones(3).index_select(0, t.tensor(1)),
    'gather shape': lambda t: t.arange(6.).view(2,3).gather(1, t.tensor([[0],[2]])),
    'repeat grad': lambda t: (t.ones(2, requires_grad=True)*1).repeat(2).grad_fn.name(),
    'expand -1': lambda t: t.ones(3,1).expand(-1, 4).shape,
    'narrow neg': lambda t: t.arange(5).narrow(0, -2, 2),
    'flip list': lambda t: t.arange(4).view(2,2).flip([0, 1]),
    'flip dims as arguments': lambda t: t.arange(6).view(2,3).flip(0, 1),
    'flip one negative dim': lambda t: t.arange(6).view(2,3).flip(-1),
    'torch.flip takes a sequence only': lambda t: t.flip(t.arange(6).view(2,3), 0),
    'norm int': lambda t: t.tensor([3, 4]).norm(),
    'getitem 0d int tensor': lambda t: (t.ones(3, requires_grad=True)*1)[t.tensor(1)].grad_fn.name(),
    'getitem bool scalar': lambda t: (t.ones(3, requires_grad=True)*1)[True].shape,
    'getitem negative step': lambda t: t.arange(5)[::-1],
    'dot int': lambda t: t.dot(t.tensor([1, 2]), t.tensor([3, 4])),
    'matmul int': lambda t: t.tensor([[1, 2]]) @ t.tensor([[3], [4]]),
    'mm int float': lambda t: t.tensor([[1, 2]]).mm(t.tensor([[3.], [4.]])),
    'addmm int': lambda t: t.addmm(t.zeros(1, 1), t.ones(1, 2), t.ones(2, 1)),
    'addmm bias of the wrong size': lambda t: t.addmm(t.ones(3), t.ones(2, 3), t.ones(3, 2)),
    'addmm bias of the wrong shape': lambda t: t.addmm(t.ones(3, 2), t.ones(2, 3), t.ones(3, 2)),
    'addmm mats that cannot be multiplied': lambda t: t.addmm(t.ones(2), t.ones(2, 3), t.ones(2, 3)),
    'linear bias of the wrong size': lambda t: t.nn.functional.linear(t.ones(2, 3), t.ones(2, 3), t.ones(3)),
    'mm vector': lambda t: t.mm(t.ones(2, 3), t.ones(3)),
    'outer': lambda t: t.outer(t.tensor([1, 2]), t.tensor([3., 4.])),
    'clone keeps rg': lambda t: t.ones(2, requires_grad=True).clone().grad_fn.name(),
    'detach clone': lambda t: t.ones(2, requires_grad=True).detach().clone().requires_grad,
    'contiguous same': lambda t: (lambda x: x.contiguous() is x)(t.ones(2, 2)),
    'to copy': lambda t: (lambda x: x.to(t.float32, copy=True) is x)(t.ones(2)),
    'mse broadcast warn': lambda t: t.nn.functional.mse_loss(t.ones(2, 1), t.ones(2)),
    'mse int target': lambda t: t.nn.functional.mse_loss(t.ones(2), t.tensor([1, 2])),
    'l1 broadcast': lambda t: t.nn.functional.l1_loss(t.ones(2, 1), t.ones(2)),
    'bce weight grad_fn': lambda t: t.nn.functional.binary_cross_entropy(t.full((2,), .5, requires_grad=True), t.ones(2), weight=t.ones(2)).grad_fn.name(),
    'sigmoid large': lambda t: t.sigmoid(t.tensor([-1000., 1000.])),
    'softplus large': lambda t: t.nn.functional.softplus(t.tensor([-1000., 1000.])),
    'log_softmax large': lambda t: t.log_softmax(t.tensor([1000., 0.]), 0),
    'elu grad at 0': lambda t: (lambda x: (t.nn.functional.elu(x).backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'relu grad at 0': lambda t: (lambda x: (t.relu(x).backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'abs grad at 0': lambda t: (lambda x: (x.abs().backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'clamp grad at bound': lambda t: (lambda x: (x.clamp(0, 1).sum().backward(), x.grad)[1])(t.tensor([0., 1.], requires_grad=True)),
    'max grad ties dim': lambda t: (lambda x: (x.max(1).values.sum().backward(), x.grad)[1])(t.tensor([[2., 2.]], requires_grad=True)),
    'maximum grad tie': lambda t: (lambda x, y: (t.maximum(x, y).backward(), x.grad, y.grad)[1:])(t.tensor(1., requires_grad=True), t.tensor(1., requires_grad=True)),
    'sqrt grad 0': lambda t: (lambda x: (x.sqrt().backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'pow grad 0 base': lambda t: (lambda x: ((x ** 2).backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'pow half grad 0': lambda t: (lambda x: ((x ** 0.5).backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'pow tensor grad 0 base': lambda t: (lambda x, y: ((x ** y).backward(), x.grad, y.grad)[1:])(t.tensor(0., requires_grad=True), t.tensor(2., requires_grad=True)),
    'norm grad 0': lambda t: (lambda x: (x.norm().backward(), x.grad)[1])(t.zeros(2, requires_grad=True)),
    'prod grad two zeros': lambda t: (lambda x: (x.prod().backward(), x.grad)[1])(t.tensor([0., 0., 2.], requires_grad=True)),
    'std grad': lambda t: (lambda x: (x.std().backward(), x.grad)[1])(t.tensor([1., 1.], requires_grad=True)),
    'logsumexp grad -inf': lambda t: (lambda x: (x.logsumexp(0).backward(), x.grad)[1])(t.tensor([-float('inf'), 0.], requires_grad=True)),
    'log grad 0': lambda t: (lambda x: (x.log().backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'div grad by 0': lambda t: (lambda x: ((1 / x).backward(), x.grad)[1])(t.tensor(0., requires_grad=True)),
    'bce logits grad large': lambda t: (lambda x: (t.nn.functional.binary_cross_entropy_with_logits(x, t.tensor([0., 1.])).backward(), x.grad)[1])(t.tensor([100., -100.], requires_grad=True)),
    'bce grad at 0 and 1': lambda t: (lambda x: (t.nn.functional.binary_cross_entropy(x, t.tensor([0., 1.])).backward(), x.grad)[1])(t.tensor([0., 1.], requires_grad=True)),
    'bce value at 0': lambda t: t.nn.functional.binary_cross_entropy(t.tensor([0., 1.]), t.tensor([1., 0.])),
    'silu grad': lambda t: (lambda x: (t.nn.functional.silu(x).sum().backward(), x.grad)[1])(t.tensor([-1., 0., 2.], requires_grad=True)),
    'masked_fill float mask': lambda t: t.ones(3).masked_fill(t.tensor([1., 0., 1.]), 2.),
    'masked_fill byte mask': lambda t: t.ones(3).masked_fill(t.tensor([1, 0, 1], dtype=t.uint8), 2.),
    'masked_fill long mask': lambda t: t.ones(3).masked_fill(t.tensor([1, 0, 1]), 2.),
    'masked_fill 1-d value': lambda t: t.ones(3).masked_fill(t.tensor([True, False, True]), t.tensor([2., 3.])),
    'masked_fill_ tensor value grads': lambda t: (lambda x, v: (t.zeros(3).masked_fill_(x > 0.5, v * 2).mul(x).sum().backward(),
                                                                x.grad, v.grad)[1:])(t.tensor([0., 1., 2.], requires_grad=True),
                                                                                     t.tensor(3., requires_grad=True)),
    'unfold too big': lambda t: t.ones(2, 4).unfold(1, 5, 1),
    'unfold step 0': lambda t: t.ones(2, 4).unfold(1, 2, 0),
    'unfold size -1': lambda t: t.ones(2, 4).unfold(1, -1, 1),
    'unfold dim out of range': lambda t: t.ones(2, 4).unfold(2, 2, 1),
    'unfold 0-d': lambda t: t.tensor(5.).unfold(0, 1, 1),
    'unfold size 0': lambda t: t.ones(2, 4).unfold(1, 0, 1).shape,
    'unfold is a view': lambda t: (lambda x: (x.unfold(1, 2, 2).mul_(3), x)[1])(t.arange(8.).reshape(2, 4)),
    'unfold saved': lambda t: (lambda y: (y.grad_fn._saved_dimension, y.grad_fn._saved_size, y.grad_fn._saved_step,
                                          y.grad_fn._saved_self_sym_sizes))(t.ones(2, 4, requires_grad=True).unfold(-1, 3, 1)),
    'sum_to_size not expandable': lambda t: t.ones(2, 4).sum_to_size(3, 4),
    'sum_to_size same': lambda t: t.ones(2, 4).sum_to_size(2, 4),
    'cdist double backward': lambda t: (lambda a: t.autograd.grad(t.autograd.grad(t.cdist(a, a * 2).sum(), a, create_graph=True)[0].sum(), a))(
        t.tensor([[1., 2.], [0., 1.]], requires_grad=True)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_case_matches_torch(torch_ref, name):
    same(torch_ref, engine, EDGE_CASES[name])


def test_T_of_non_2d_warns_once(monkeypatch):
    import engine._ops as ops

    monkeypatch.setattr(ops, "_warned_T", False)
    with pytest.warns(UserWarning, match=r"^The use of `x.T` on tensors of dimension other than 2"):
        assert engine.ones(2, 3, 4).T.shape == (4, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.ones(3).T  # once per process, like TORCH_WARN_ONCE
        engine.ones(2, 3).T



@pytest.mark.torch
def test_matrix_transposes_of_0d_warn_once_each(torch_ref):
    """``x.mT``, ``x.mH``, ``x.adjoint()`` (one warning with ``torch.adjoint``) and ``x.H`` of a 0-D tensor
    return it, warning once per process each (TORCH_WARN_ONCE): compared in fresh processes."""
    code = ("import warnings, {} as t\n"
            "x = t.tensor(2.0, requires_grad=True)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    same = [f() is x for _ in range(2) for f in (lambda: x.mT, lambda: x.mH, lambda: x.adjoint(),\n"
            "                                                 lambda: t.adjoint(x), lambda: x.H)]\n"
            "print(same, [(x.category.__name__, str(x.message)) for x in w])")
    runs = [subprocess.run([sys.executable, "-c", code.format(m)], capture_output=True, text=True, check=True).stdout
            for m in ("torch", "engine")]
    assert runs[1] == runs[0]
    assert runs[1].count("UserWarning") == 4


# ----- A grad that is inf or nan where an op passes none of it: 0 there, as in PyTorch -----
# (relu and the clamps, maximum and max pass the grad through a mask; 0 * inf is nan, so a
# product with the mask gives nan where PyTorch's where/masked_fill gives 0)

MASKED_GRAD_OPS = {
    "relu": lambda t, x: x.relu(),
    "F.relu": lambda t, x: t.nn.functional.relu(x),
    "clamp": lambda t, x: x.clamp(-0.5, 1.0),
    "clamp_min": lambda t, x: x.clamp(min=0.5),
    "clamp_max": lambda t, x: x.clamp(max=0.5),
    "maximum": lambda t, x: t.maximum(x, t.zeros(4)),
    "minimum": lambda t, x: t.minimum(x, t.zeros(4)),
    "max dim": lambda t, x: x.reshape(2, 2).max(dim=1)[0].repeat(2),
    "max": lambda t, x: x.max().repeat(4),
    "min": lambda t, x: x.min().repeat(4),
}
_INF, _NAN = float("inf"), float("nan")


@pytest.mark.torch
@pytest.mark.parametrize("create_graph", [False, True], ids=["grad", "create_graph"])
@pytest.mark.parametrize("x", [[-1., 0., 2., 3.], [-1., _NAN, 2., 0.], [2., 2., -1., 0.]], ids=["plain", "nan", "ties"])
@pytest.mark.parametrize("grad", [[_NAN, _INF, _NAN, -_INF], [1., 2., 3., 4.]], ids=["inf-nan", "finite"])
@pytest.mark.parametrize("op", sorted(MASKED_GRAD_OPS))
def test_masked_grads_match_torch(torch_ref, op, grad, x, create_graph):
    def run(t):
        xt = t.tensor(x, requires_grad=True)
        return t.autograd.grad(MASKED_GRAD_OPS[op](t, xt), xt, t.tensor(grad), create_graph=create_graph)

    same(torch_ref, engine, run)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [8, 3000], ids=["small", "large"])  # (two kernels: np.where, and bits for large)
def test_relu_backward_with_inf_and_nan_grads_matches_torch(torch_ref, n, dtype):
    rng = np.random.default_rng(n)
    x, g = rng.standard_normal(n), rng.standard_normal(n)
    x[:8] = [_NAN, 0.0, -0.0, -1.0, 1.0, 2.0, 3.0, 4.0]
    g[:8] = [_INF, _INF, -_INF, _NAN, _INF, -_INF, _NAN, -0.0]

    def run(t):
        xt = t.tensor(x, dtype=getattr(t, dtype), requires_grad=True)
        xt.relu().backward(t.tensor(g, dtype=getattr(t, dtype)))
        return xt.grad

    (status, (_, _, values, _)), _ = same(torch_ref, engine, run)
    assert values[:8] == [_INF, 0.0, 0.0, 0.0, _INF, -_INF, "nan", 0.0]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [7, 7000], ids=["small", "large"])
def test_relu_values_keep_pytorchs_signed_zeros(torch_ref, n, dtype):
    x = np.resize([-0.0, 0.0, -1.5, 2.5, _NAN, -_INF, _INF], n)

    def run(t):
        y = t.relu(t.tensor(x, dtype=getattr(t, dtype)))
        return [math.copysign(1.0, v) for v in y.tolist()], [v if v == v else "nan" for v in y[:7].tolist()]

    signs, head = same(torch_ref, engine, run)[0][1]
    assert signs[:4] == [-1.0, 1.0, 1.0, 1.0]  # relu(-0.) is -0., relu(-1.5) is +0.
    assert head[3] == 2.5 and head[4] == "nan" and head[5:] == [0.0, _INF]


_EDGE_INPUT = [_NAN, _INF, -_INF, 0.0, -0.0, -1.0, 2.5, -3.0, 3.0]
_EDGE_OPS = {
    "clamp(min=0)": lambda t, x: x.clamp(min=0), "clamp(max=0)": lambda t, x: x.clamp(max=0),
    "clamp(min=-0.)": lambda t, x: x.clamp(min=-0.0), "clamp(0, 0)": lambda t, x: x.clamp(0, 0),
    "clamp_min": lambda t, x: x.clamp_min(0), "clamp_max": lambda t, x: x.clamp_max(-0.0),
    "clamp(tensor)": lambda t, x: x.clamp(min=t.zeros(9)), "clamp_max(tensor)": lambda t, x: x.clamp_max(t.zeros(9)),
    "elu": lambda t, x: t.nn.functional.elu(x), "selu": lambda t, x: t.nn.functional.selu(x),
    "softshrink": lambda t, x: t.nn.functional.softshrink(x), "hardshrink": lambda t, x: t.nn.functional.hardshrink(x),
    "softplus": lambda t, x: t.nn.functional.softplus(x), "mish": lambda t, x: t.nn.functional.mish(x),
    "silu": lambda t, x: t.nn.functional.silu(x), "hardswish": lambda t, x: t.nn.functional.hardswish(x),
    "frac": lambda t, x: x.frac(),
    "mse_loss": lambda t, x: t.nn.functional.mse_loss(x, t.full((9,), _INF), reduction="none"),
    "huber_loss": lambda t, x: t.nn.functional.huber_loss(x, t.full((9,), -_INF), reduction="none"),
    "bce_with_logits": lambda t, x: t.nn.functional.binary_cross_entropy_with_logits(x, t.ones(9), reduction="none"),
}


@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(_EDGE_OPS))
def test_signed_zeros_nan_and_inf_match_torch(torch_ref, op):
    """Values with their signs (relu(-0.) is -0.), nan passed through, grads, and no NumPy RuntimeWarning."""
    def run(t):
        x = t.tensor(_EDGE_INPUT, requires_grad=True)
        y = _EDGE_OPS[op](t, x)
        y.sum().backward()
        return ([v if v == v else "nan" for v in y.tolist()], [math.copysign(1.0, v) if v == v else "nan" for v in y.tolist()],
                [v if v == v else "nan" for v in x.grad.tolist()])

    (status, (values, signs, grads)), caught = same(torch_ref, engine, run)
    assert caught == []
    if op in ("softshrink", "hardshrink"):
        assert values[0] == "nan" and grads[0] == 1.0  # nan is not within lambd: it passes, and so does its grad
    if op.startswith("clamp(min=0)"):
        assert signs[3:5] == [1.0, -1.0] and values[5] == 0.0


@pytest.mark.parametrize("order", ["native", "fallback"])
@pytest.mark.parametrize("n", [9, 9000], ids=["small", "large"])
def test_relu_and_clamp_keep_the_element_on_a_tie_whichever_operand_numpy_returns(monkeypatch, order, n):
    # NumPy's maximum returns its second operand on a tie of 0. and -0. on x86, its first in Pyodide's
    # build; the fallback, for a NumPy that mixes the two, fixes ties after the fact.
    if order == "fallback":
        monkeypatch.setattr(engine._ops, "_TIE", None)
    x = engine.tensor(np.resize(_EDGE_INPUT, n))

    def signed(t):
        return [("nan" if v != v else (v, math.copysign(1.0, v))) for v in t[:9].tolist()]

    assert signed(x.relu()) == ["nan", (_INF, 1.0), (0.0, 1.0), (0.0, 1.0), (-0.0, -1.0), (0.0, 1.0), (2.5, 1.0),
                                (0.0, 1.0), (3.0, 1.0)]
    assert signed(x.clamp(min=-0.0, max=0.0)) == ["nan", (0.0, 1.0), (-0.0, -1.0), (0.0, 1.0), (-0.0, -1.0),
                                                  (-0.0, -1.0), (0.0, 1.0), (-0.0, -1.0), (0.0, 1.0)]
    assert signed(x.clamp_max(engine.zeros(n)))[3:5] == [(0.0, 1.0), (-0.0, -1.0)]
    assert signed(engine.nn.functional.elu(x))[3:5] == [(0.0, 1.0), (-0.0, -1.0)]


def test_clamp_of_a_0d_tensor_on_the_fallback(monkeypatch):
    monkeypatch.setattr(engine._ops, "_TIE", None)
    x = engine.tensor(-0.0)
    assert math.copysign(1.0, x.clamp(min=0.0).item()) == -1.0 and x.clamp(min=1.0).item() == 1.0
    assert x.relu().item() == 0.0 and math.copysign(1.0, x.relu().item()) == -1.0
