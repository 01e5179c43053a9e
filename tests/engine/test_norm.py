"""Normalization layers against real PyTorch 2.13: ``F.batch_norm``, ``layer_norm``, ``group_norm``,
``instance_norm``, ``rms_norm`` and their modules. Values (float32 within rounding), grads, the
running statistics, ``grad_fn`` names and ``next_functions``, ``_saved_*``, the double backward's
values and graph, error messages, reprs and ``state_dict``; a small network trained a few SGD steps
from one seed in both."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from tests.engine.test_nn_modules import close
from tests.engine.test_ops import graph_structure


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) * 1.5 + 0.3 for s in shapes]


def _stats(T, c, dtype):
    return T.zeros(c, dtype=dtype), T.ones(c, dtype=dtype)


def _bn(training, affine=True, running=True, momentum=0.1, eps=1e-5, bias=True):
    def fn(T, x, w=None, b=None):
        rm, rv = _stats(T, x.shape[1], x.dtype) if running else (None, None)
        if running and not training:  # running statistics that are not the initial ones
            rm += 0.25
            rv *= 1.5
        out = T.nn.functional.batch_norm(x, rm, rv, w if affine else None, b if affine and bias else None, training,
                                         momentum, eps)
        return out, rm, rv
    return fn


def _in(affine=True, running=False, use_input_stats=True):
    def fn(T, x, w=None, b=None):
        rm, rv = _stats(T, x.shape[1], x.dtype) if running else (None, None)
        if running and not use_input_stats:
            rm += 0.25
            rv *= 1.5
        out = T.nn.functional.instance_norm(x, rm, rv, w if affine else None, b if affine else None, use_input_stats)
        return out, rm, rv
    return fn


def _F(name, *args, **kwargs):
    return lambda T, *inputs: getattr(T.nn.functional, name)(inputs[0], *args, *inputs[1:], **kwargs)


# name -> (fn(T, *inputs), input shapes, which inputs require grad)
CASES = {
    "batch_norm_train_2d": (_bn(True), [(6, 3), (3,), (3,)], (True, True, True)),
    "batch_norm_train_3d": (_bn(True, momentum=0.3), [(4, 3, 5), (3,), (3,)], (True, True, True)),
    "batch_norm_train_4d": (_bn(True, eps=1e-3), [(2, 3, 2, 3), (3,), (3,)], (True, True, True)),
    "batch_norm_train_5d": (_bn(True), [(2, 2, 2, 2, 2), (2,), (2,)], (True, True, True)),
    "batch_norm_train_no_affine": (_bn(True, affine=False), [(6, 3)], (True,)),
    "batch_norm_train_no_running": (_bn(True, running=False), [(6, 3), (3,), (3,)], (True, True, True)),
    "batch_norm_train_no_bias": (_bn(True, bias=False), [(6, 3, 2), (3,)], (True, True)),
    "batch_norm_train_params_only": (_bn(True), [(6, 3), (3,), (3,)], (False, True, True)),
    "batch_norm_eval": (_bn(False), [(6, 3), (3,), (3,)], (True, True, True)),
    "batch_norm_eval_3d_no_affine": (_bn(False, affine=False), [(4, 3, 5)], (True,)),
    "layer_norm": (_F("layer_norm", (4,)), [(2, 3, 4), (4,), (4,)], (True, True, True)),
    "layer_norm_two_dims": (_F("layer_norm", (3, 4), eps=1e-3), [(2, 3, 4), (3, 4), (3, 4)], (True, True, True)),
    "layer_norm_no_affine": (_F("layer_norm", [5]), [(3, 5)], (True,)),
    "layer_norm_weight_only": (_F("layer_norm", (4,)), [(2, 3, 4), (4,)], (True, True)),
    "layer_norm_whole": (_F("layer_norm", (2, 3, 4)), [(2, 3, 4), (2, 3, 4), (2, 3, 4)], (True, True, True)),
    "group_norm": (_F("group_norm", 3), [(2, 6, 5), (6,), (6,)], (True, True, True)),
    "group_norm_2d_input": (_F("group_norm", 2), [(3, 4), (4,), (4,)], (True, True, True)),
    "group_norm_4d_one_group": (_F("group_norm", 1, eps=1e-3), [(2, 4, 2, 3), (4,), (4,)], (True, True, True)),
    "group_norm_per_channel": (_F("group_norm", 4), [(2, 4, 3), (4,), (4,)], (True, True, True)),
    "group_norm_no_affine": (_F("group_norm", 2), [(2, 4, 3)], (True,)),
    "rms_norm": (_F("rms_norm", (4,)), [(2, 3, 4), (4,)], (True, True)),
    "rms_norm_no_weight": (_F("rms_norm", (4,)), [(2, 3, 4)], (True,)),
    "rms_norm_two_dims_eps": (_F("rms_norm", [3, 4], eps=1e-3), [(2, 3, 4), (3, 4)], (True, True)),
    "instance_norm": (_in(affine=False), [(2, 3, 5)], (True,)),
    "instance_norm_affine": (_in(), [(2, 3, 5), (3,), (3,)], (True, True, True)),
    "instance_norm_running": (_in(affine=False, running=True), [(2, 3, 2, 2)], (True,)),
    "instance_norm_eval": (_in(affine=False, running=True, use_input_stats=False), [(2, 3, 4)], (True,)),
}


def _inputs(T, name, dtype):
    fn, shapes, flags = CASES[name]
    return [T.tensor(a, dtype=dtype, requires_grad=f) for a, f in zip(_arrays(shapes), flags)]


def _first_output(out):
    return out[0] if isinstance(out, tuple) else out


def _forward_backward(T, name, dtype):
    """The output and what else the case returns (running statistics), grads of the inputs that
    require grad, and the graph three levels deep."""
    inputs = _inputs(T, name, dtype)
    result = CASES[name][0](T, *inputs)
    out = _first_output(result)
    upstream = T.tensor(_arrays([tuple(out.shape)], seed=1)[0], dtype=dtype)
    wanted = [t for t in inputs if t.requires_grad]
    grads = T.autograd.grad(out, wanted, upstream)
    return result, grads, graph_structure(out.grad_fn, inputs, 3)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_backward_float32(torch_ref, et, name):
    close(torch_ref, et, lambda T: _forward_backward(T, name, T.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_backward_float64(torch_ref, et, name):
    close(torch_ref, et, lambda T: _forward_backward(T, name, T.float64), rtol=1e-10, atol=1e-10)


def _nodes(fn):
    """Every node of the graph (but AccumulateGrad), each once, in a fixed order."""
    out, seen, stack = [], set(), [fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or type(node).__name__ == "AccumulateGrad":
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(reversed([n for n, _ in node.next_functions]))
    return out


def _saved(node):
    names = sorted(a for a in dir(node) if a.startswith("_saved_"))
    values = []
    for a in names:
        try:
            v = getattr(node, a)
        except RuntimeError as e:
            v = ("raised", str(e))
        if hasattr(v, "grad_fn"):  # a tensor: its values, and whose output it reads as
            v = (v, type(v.grad_fn).__name__ if v.grad_fn is not None else None)
        values.append((a, v))
    return type(node).__name__, values


def _saved_attributes(T, name):
    inputs = _inputs(T, name, T.float32)
    out = _first_output(CASES[name][0](T, *inputs))
    before = [_saved(n) for n in _nodes(out.grad_fn)]
    out.backward(T.ones_like(out))
    after = [_saved(n) for n in _nodes(out.grad_fn)]  # freed
    return before, after


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_attributes(torch_ref, et, name):
    close(torch_ref, et, lambda T: _saved_attributes(T, name))


def _double_backward(T, name):
    """First grads with create_graph=True (values, their graph), then the grads of a weighted sum
    of them with respect to the inputs and to the upstream grad."""
    inputs = _inputs(T, name, T.float64)
    out = _first_output(CASES[name][0](T, *inputs))
    upstream = T.tensor(_arrays([tuple(out.shape)], seed=1)[0], requires_grad=True)
    wanted = [t for t in inputs if t.requires_grad]
    grads = T.autograd.grad(out, wanted, upstream, create_graph=True)
    weights = _arrays([tuple(g.shape) for g in grads], seed=2)
    total = sum((g * T.tensor(w)).sum() for g, w in zip(grads, weights))
    second = T.autograd.grad(total, wanted + [upstream], allow_unused=True)
    return grads, second, [graph_structure(g.grad_fn, inputs + [upstream], 3) for g in grads]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_double_backward(torch_ref, et, name):
    close(torch_ref, et, lambda T: _double_backward(T, name), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(et, name):
    inputs = _inputs(et, name, et.float64)

    def fn(*xs):
        return _first_output(CASES[name][0](et, *xs))

    assert et.autograd.gradcheck(fn, inputs)
    assert et.autograd.gradgradcheck(fn, inputs)


def test_batch_norm_double_backward_node(et):
    """One NativeBatchNormBackwardBackward0 node, an output per input of the first node; edges for
    grad_out, input, weight, save_mean and save_invstd, as in PyTorch."""
    x = et.randn(5, 3, requires_grad=True)
    w, b = et.randn(3, requires_grad=True), et.randn(3, requires_grad=True)
    g = et.randn(5, 3, requires_grad=True)
    y = et.nn.functional.batch_norm(x, None, None, w, b, True)
    gx, gw, gb = et.autograd.grad(y, (x, w, b), g, create_graph=True)
    node = gx.grad_fn
    assert type(node).__name__ == "NativeBatchNormBackwardBackward0"
    assert gw.grad_fn is node and gb.grad_fn is node
    assert [gx.output_nr, gw.output_nr, gb.output_nr] == [0, 1, 2]
    assert [n.variable if n is not None else None for n, _ in node.next_functions] == [g, x, w, None, None]


def test_third_order_runs(et):
    # The double backward's rules are engine ops: a third derivative is one more grad call.
    x = et.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], dtype=et.float64, requires_grad=True)
    y = et.nn.functional.layer_norm(x, (2,)) * et.tensor([1.0, 2.0], dtype=et.float64)
    (g,) = et.autograd.grad((y ** 3).sum(), x, create_graph=True)
    (gg,) = et.autograd.grad(g.sum(), x, create_graph=True)
    (ggg,) = et.autograd.grad(gg.pow(2).sum(), x)
    assert ggg.shape == x.shape and bool(et.isfinite(ggg).all())


# ----- Running statistics -----

def _running_stats(T):
    x = T.tensor(_arrays([(8, 3, 2)])[0], dtype=T.float32)
    rm, rv = _stats(T, 3, T.float32)
    versions = []
    for momentum in (0.1, 0.5, 1.0):
        T.nn.functional.batch_norm(x * momentum, rm, rv, None, None, True, momentum)
        versions.append((rm._version, rv._version))
    y = T.nn.functional.batch_norm(x, rm, rv, None, None, False)
    return rm, rv, versions, y, T.var(x.transpose(0, 1).reshape(3, -1), 1)


@pytest.mark.torch
def test_running_stats_use_the_unbiased_variance(torch_ref, et):
    close(torch_ref, et, _running_stats)


def test_running_var_is_unbiased_engine_only(et):
    x = et.tensor([[1.0], [3.0]])
    rm, rv = et.zeros(1), et.ones(1)
    y = et.nn.functional.batch_norm(x, rm, rv, None, None, True, 1.0, 1e-5)
    assert rm.tolist() == [2.0] and rv.tolist() == [2.0]  # var([1, 3], unbiased) = 2
    np.testing.assert_allclose(y.detach().numpy(), [[-1.0], [1.0]], atol=1e-4)  # with the biased var, 1
    assert rm._version == 0  # updated as PyTorch's kernel updates it: no version bump


# ----- Errors, with PyTorch's messages -----

def _t(T, shape, dtype=None):
    return T.ones(*shape, dtype=dtype or T.float32)


ERRORS = {
    "bn_running_size": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), T.zeros(4), T.ones(4), None, None, True),
    "bn_weight_size": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), None, None, T.ones(4), None, True),
    "bn_bias_size": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), None, None, None, T.ones(4), True),
    "bn_one_value": lambda T: T.nn.functional.batch_norm(_t(T, (1, 3)), None, None, training=True),
    "bn_one_value_3d": lambda T: T.nn.functional.batch_norm(_t(T, (1, 3, 1)), None, None, training=True),
    "bn_one_value_eval": lambda T: T.nn.functional.batch_norm(_t(T, (1, 3)), T.zeros(3), T.ones(3)),
    "bn_1d": lambda T: T.nn.functional.batch_norm(_t(T, (3,)), None, None, training=True),
    "bn_half_running": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), T.zeros(3), None, training=True),
    "bn_eval_no_running": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), None, None),
    "bn_eps_zero": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), None, None, training=True, eps=0.0),
    "bn_eps_negative": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), T.zeros(3), T.ones(3), eps=-1.0),
    "bn_long": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3), T.int64), None, None, training=True),
    "bn_double_input": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3), T.float64), None, None, T.ones(3),
                                                            training=True),
    "bn_double_weight": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), None, None,
                                                             T.ones(3, dtype=T.float64), training=True),
    "bn_double_running": lambda T: T.nn.functional.batch_norm(_t(T, (5, 3)), T.zeros(3, dtype=T.float64),
                                                              T.ones(3, dtype=T.float64), T.ones(3), T.ones(3), True),
    "torch_batch_norm_one_value": lambda T: T.batch_norm(_t(T, (1, 3)), None, None, None, None, True, 0.1, 1e-5,
                                                         False),
    "module_bn1d_4d": lambda T: T.nn.BatchNorm1d(3)(_t(T, (2, 3, 4, 5))),
    "module_bn2d_2d": lambda T: T.nn.BatchNorm2d(3)(_t(T, (2, 3))),
    "module_bn3d_4d": lambda T: T.nn.BatchNorm3d(3)(_t(T, (2, 3, 4, 5))),
    "module_bn_features": lambda T: T.nn.BatchNorm1d(4)(_t(T, (5, 3))),
    "module_bn_one_value": lambda T: T.nn.BatchNorm1d(3)(_t(T, (1, 3))),
    "ln_input_shape": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), (4,)),
    "ln_input_shape_two_dims": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), (2, 5)),
    "ln_input_too_small": lambda T: T.nn.functional.layer_norm(_t(T, (5,)), (2, 5)),
    "ln_weight_shape": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), (5,), T.ones(4)),
    "ln_bias_shape": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), (5,), T.ones(5), T.ones(4)),
    "ln_weight_rank": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), (3, 5), T.ones(5)),
    "ln_int_shape": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), 5),
    "ln_empty_shape": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3, 5)), []),
    "ln_long": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3), T.int64), (3,)),
    "ln_double_weight": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3)), (3,), T.ones(3, dtype=T.float64)),
    "ln_double_input": lambda T: T.nn.functional.layer_norm(_t(T, (2, 3), T.float64), (3,), T.ones(3)),
    "gn_groups": lambda T: T.nn.functional.group_norm(_t(T, (2, 6, 5)), 4),
    "gn_1d": lambda T: T.nn.functional.group_norm(_t(T, (6,)), 3),
    "gn_one_value": lambda T: T.nn.functional.group_norm(_t(T, (1, 3)), 3),
    "gn_weight": lambda T: T.nn.functional.group_norm(_t(T, (2, 6)), 3, T.ones(5)),
    "gn_bias": lambda T: T.nn.functional.group_norm(_t(T, (2, 6)), 3, T.ones(6), T.ones(5)),
    "gn_long": lambda T: T.nn.functional.group_norm(_t(T, (4, 3), T.int64), 3),
    "gn_double_input": lambda T: T.nn.functional.group_norm(_t(T, (4, 3), T.float64), 3, T.ones(3)),
    "module_gn_divisible": lambda T: T.nn.GroupNorm(4, 6),
    "rms_input_shape": lambda T: T.nn.functional.rms_norm(_t(T, (2, 3, 5)), (4,)),
    "rms_input_shape_two_dims": lambda T: T.nn.functional.rms_norm(_t(T, (2, 3, 5)), (2, 5)),
    "rms_weight_shape": lambda T: T.nn.functional.rms_norm(_t(T, (2, 3, 5)), (5,), T.ones(4)),
    "rms_int_shape": lambda T: T.nn.functional.rms_norm(_t(T, (2, 3, 5)), 5),
    "rms_empty_shape": lambda T: T.nn.functional.rms_norm(_t(T, (2, 3, 5)), []),
    "rms_mixed_dtype": lambda T: _quietly(T.nn.functional.rms_norm, _t(T, (2, 3), T.float64), (3,), T.ones(3)),
    "in_one_spatial": lambda T: T.nn.functional.instance_norm(_t(T, (2, 3, 1))),
    "in_2d": lambda T: T.nn.functional.instance_norm(_t(T, (2, 3))),
    "in_no_running": lambda T: T.nn.functional.instance_norm(_t(T, (2, 3, 4)), use_input_stats=False),
    "module_in_rank": lambda T: T.nn.InstanceNorm1d(3)(_t(T, (2, 3, 5, 4))),
    "module_in2d_rank": lambda T: T.nn.InstanceNorm2d(3)(_t(T, (2, 3))),
    "module_in_features_affine": lambda T: T.nn.InstanceNorm1d(4, affine=True)(_t(T, (2, 3, 5))),
    "module_in_features_warns": lambda T: T.nn.InstanceNorm1d(4)(_t(T, (2, 3, 5))),
}


def _quietly(fn, *args):
    with warnings.catch_warnings():  # (a warning PyTorch gives once per process: see test_rms_norm_warning)
        warnings.simplefilter("ignore")
        return fn(*args)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(torch_ref, et, name):
    close(torch_ref, et, ERRORS[name])


def test_error_text(et):
    F = et.nn.functional
    with pytest.raises(ValueError, match=r"^Expected more than 1 value per channel when training, got input size "
                                         r"torch\.Size\(\[1, 3\]\)$"):
        et.nn.BatchNorm1d(3)(et.ones(1, 3))
    with pytest.raises(ValueError, match=r"^expected 2D or 3D input \(got 4D input\)$"):
        et.nn.BatchNorm1d(3)(et.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but "
                                           r"got input of size\[2, 3, 5\]$"):
        F.layer_norm(et.ones(2, 3, 5), (4,))


def test_rms_norm_warning(et, monkeypatch):
    import engine._norm

    monkeypatch.setitem(engine._norm._warned, "rms_norm", False)
    with pytest.warns(UserWarning) as caught:
        et.nn.functional.rms_norm(et.ones(2, 3, dtype=et.float64), (3,), et.ones(3))
        et.nn.functional.rms_norm(et.ones(2, 3, dtype=et.float64), (3,), et.ones(3))  # once per process
    assert [str(w.message) for w in caught] == [
        "Mismatch dtype between input and weight: input dtype = double, weight dtype = float, Cannot dispatch to "
        "fused implementation. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)"]


# ----- torch.* and the native ops -----

TORCH_LEVEL = {
    "batch_norm": lambda T, x, w, b: T.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    "instance_norm": lambda T, x, w, b: T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    "layer_norm": lambda T, x, w, b: T.layer_norm(x, (4,), w[:4], b[:4]),
    "group_norm": lambda T, x, w, b: T.group_norm(x, 3, w, b),
    "rms_norm": lambda T, x, w, b: T.rms_norm(x, [4], w[:4], 1e-6),
    "native_batch_norm": lambda T, x, w, b: T.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5),
    "native_layer_norm": lambda T, x, w, b: T.native_layer_norm(x, [4], w[:4], b[:4], 1e-5),
    "native_group_norm": lambda T, x, w, b: T.native_group_norm(x, w, b, 2, 6, 4, 3, 1e-5),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(TORCH_LEVEL))
def test_torch_level_functions(torch_ref, et, name):
    def run(T):
        x, w, b = [T.tensor(a, dtype=T.float32, requires_grad=True) for a in _arrays([(2, 6, 4), (6,), (6,)])]
        out = TORCH_LEVEL[name](T, x, w, b)
        outs = list(out) if isinstance(out, tuple) else [out]
        return outs, [type(o.grad_fn).__name__ if o.grad_fn is not None else None for o in outs], \
            T.autograd.grad(outs[0].sum(), (x,))

    close(torch_ref, et, run, atol=1e-5)


def test_group_norm_stats_are_outputs_of_its_node(torch_ref, et):
    """native_group_norm's mean and rstd are differentiable outputs of its node: a backward through
    them (and through a double backward, which reads them) reaches the input."""
    def run(T):
        x, w = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in _arrays([(2, 6, 4), (6,)])]
        out, mean, rstd = T.native_group_norm(x, w, None, 2, 6, 4, 3, 1e-5)
        stats = (mean * 0.5).sum() + (rstd * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum()
        g_stats = T.autograd.grad(stats, x, retain_graph=True)
        g_all = T.autograd.grad((out * 2).sum() + stats, (x, w), retain_graph=True)
        try:  # PyTorch's rule drops the grad of one statistic without the other's
            T.autograd.grad(mean.sum(), x)
            alone = None
        except RuntimeError as e:
            alone = str(e)
        return g_stats, g_all, mean.output_nr, rstd.output_nr, alone

    close(torch_ref, et, run, rtol=1e-9, atol=1e-9)


# ----- Modules -----

REPRS = {
    "bn1d": lambda T: T.nn.BatchNorm1d(4),
    "bn2d_options": lambda T: T.nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False, track_running_stats=False),
    "bn3d_no_bias": lambda T: T.nn.BatchNorm3d(2, bias=False),
    "ln": lambda T: T.nn.LayerNorm(4),
    "ln_tuple": lambda T: T.nn.LayerNorm([3, 4], eps=1e-6, elementwise_affine=False, bias=False),
    "ln_no_bias": lambda T: T.nn.LayerNorm(4, bias=False),
    "gn": lambda T: T.nn.GroupNorm(2, 4),
    "gn_no_affine": lambda T: T.nn.GroupNorm(1, 3, eps=0.1, affine=False),
    "rms": lambda T: T.nn.RMSNorm(4),
    "rms_options": lambda T: T.nn.RMSNorm([3, 4], eps=1e-3, elementwise_affine=False),
    "in1d": lambda T: T.nn.InstanceNorm1d(3),
    "in2d_affine": lambda T: T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
    "in3d": lambda T: T.nn.InstanceNorm3d(3, momentum=0.2),
    "sequential": lambda T: (T.manual_seed(0), T.nn.Sequential(T.nn.Linear(4, 8), T.nn.BatchNorm1d(8), T.nn.ReLU()))[1],
}


def _module_state(m):
    return (repr(m), [(k, v) for k, v in m.state_dict().items()], [(k, type(v).__name__, v.requires_grad)
                                                                    for k, v in m.named_parameters()],
            [k for k, _ in m.named_buffers()], m.training, type(m).__module__.split(".", 1)[1], type(m).__qualname__)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(REPRS))
def test_module_repr_and_state(torch_ref, et, name):
    close(torch_ref, et, lambda T: _module_state(REPRS[name](T)))


def test_repr_text(et):
    assert repr(et.nn.BatchNorm1d(4)) == \
        "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert repr(et.nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(et.nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(et.nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert list(et.nn.BatchNorm1d(2).state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                                      "num_batches_tracked"]


def _module_modes(T, make, shape, steps=3):
    m = make(T)
    xs = [T.tensor(a, dtype=T.float32) for a in _arrays([shape] * steps, seed=3)]
    seen = []
    for x in xs:
        y = m(x)
        seen.append((y, [(k, v.clone()) for k, v in m.state_dict().items()]))
    m.eval()
    seen.append((m(xs[0]), m.training, [c.training for c in m.modules()]))
    m.train()
    seen.append(m(xs[1]))
    return seen


MODES = {
    "bn1d": (lambda T: T.nn.BatchNorm1d(3), (6, 3)),
    "bn1d_3d": (lambda T: T.nn.BatchNorm1d(3), (4, 3, 5)),
    "bn1d_cumulative": (lambda T: T.nn.BatchNorm1d(3, momentum=None), (6, 3)),
    "bn1d_untracked": (lambda T: T.nn.BatchNorm1d(3, track_running_stats=False), (6, 3)),
    "bn1d_no_affine": (lambda T: T.nn.BatchNorm1d(3, affine=False, momentum=0.5), (6, 3)),
    "bn2d": (lambda T: T.nn.BatchNorm2d(2), (3, 2, 2, 3)),
    "bn3d": (lambda T: T.nn.BatchNorm3d(2), (2, 2, 2, 2, 3)),
    "ln": (lambda T: T.nn.LayerNorm((3, 4)), (2, 3, 4)),
    "gn": (lambda T: T.nn.GroupNorm(2, 4), (3, 4, 5)),
    "rms": (lambda T: T.nn.RMSNorm(4, eps=1e-6), (2, 3, 4)),
    "in1d": (lambda T: T.nn.InstanceNorm1d(3), (2, 3, 5)),
    "in1d_unbatched": (lambda T: T.nn.InstanceNorm1d(3, affine=True), (3, 5)),
    "in2d_tracked": (lambda T: T.nn.InstanceNorm2d(3, track_running_stats=True), (2, 3, 2, 3)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(MODES))
def test_module_train_and_eval(torch_ref, et, name):
    make, shape = MODES[name]
    close(torch_ref, et, lambda T: _module_modes(T, make, shape), atol=1e-5)


def _load_old_checkpoint(T):
    m = T.nn.BatchNorm1d(2)
    m(T.tensor([[1.0, 2.0], [3.0, 5.0]]))
    sd = m.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1  # saved before num_batches_tracked existed
    fresh = T.nn.BatchNorm1d(2)
    result = fresh.load_state_dict(sd)
    sd._metadata[""]["version"] = 2
    try:
        T.nn.BatchNorm1d(2).load_state_dict(sd)
        strict = None
    except RuntimeError as e:
        strict = str(e)
    return repr(result), fresh.running_mean, fresh.num_batches_tracked, strict


def _instance_norm_old_checkpoint(T):
    m = T.nn.InstanceNorm1d(2)
    sd = T.nn.BatchNorm1d(2, affine=False).state_dict()
    sd._metadata[""].pop("version")
    try:
        m.load_state_dict(sd)
    except RuntimeError as e:
        return str(e)


def _to_double(T):
    m = T.nn.BatchNorm1d(2).double()
    return [(k, v.dtype) for k, v in m.state_dict().items()], m(T.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=T.float64))


@pytest.mark.torch
@pytest.mark.parametrize("fn", [_load_old_checkpoint, _instance_norm_old_checkpoint, _to_double])
def test_module_state_handling(torch_ref, et, fn):
    close(torch_ref, et, fn)


def _train_small_net(T, steps=5):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.BatchNorm1d(8), T.nn.ReLU(), T.nn.Linear(8, 1))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    x_data, y_data = _arrays([(16, 4), (16, 1)], seed=4)
    x, y = T.tensor(x_data, dtype=T.float32), T.tensor(y_data, dtype=T.float32)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = T.nn.functional.mse_loss(model(x), y)
        loss.backward()
        history.append((loss, [(k, p.grad.clone()) for k, p in model.named_parameters()]))
        opt.step()
    bn = model[1]
    stats = (bn.running_mean.clone(), bn.running_var.clone(), bn.num_batches_tracked.clone())
    model.eval()
    with T.no_grad():
        evaluated = model(x)
    return history, stats, evaluated, [(k, v) for k, v in model.state_dict().items()], type(loss.grad_fn).__name__


@pytest.mark.torch
def test_small_network_trains_as_in_pytorch(torch_ref, et):
    close(torch_ref, et, _train_small_net, rtol=1e-4, atol=1e-5)
    history = _train_small_net(et)[0]
    assert history[-1][0].item() < history[0][0].item()  # it learns


def test_small_network_running_stats_engine_only(et):
    _, (mean, var, count), evaluated, state, _ = _train_small_net(et, steps=2)
    assert int(count) == 2
    assert [k for k, _ in state] == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                                     "1.num_batches_tracked", "3.weight", "3.bias"]
    assert evaluated.grad_fn is None and tuple(evaluated.shape) == (16, 1)


# ----- Shapes, drawn -----

@pytest.mark.torch
@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), c=st.integers(1, 4), rest=st.lists(st.integers(1, 3), max_size=2),
       training=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_batch_norm_any_shape(torch_ref, n, c, rest, training, seed):
    def run(T):
        x, w, b = [T.tensor(a, requires_grad=True) for a in _arrays([(n, c, *rest), (c,), (c,)], seed)]
        rm, rv = T.zeros(c, dtype=T.float64), T.ones(c, dtype=T.float64) * 2
        out = T.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.2)
        return out, rm, rv, T.autograd.grad((out * out).sum(), (x, w, b))

    close(torch_ref, engine, run, rtol=1e-9, atol=1e-9)


@pytest.mark.torch
@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), k=st.integers(1, 4), seed=st.integers(0, 2 ** 16))
def test_layer_and_rms_norm_any_shape(torch_ref, shape, k, seed):
    k = min(k, len(shape))
    normalized = tuple(shape[len(shape) - k:])

    def run(T):
        x, w, b = [T.tensor(a, requires_grad=True) for a in _arrays([tuple(shape), normalized, normalized], seed)]
        ln = T.nn.functional.layer_norm(x, normalized, w, b)
        rms = T.nn.functional.rms_norm(x, normalized, w)
        return ln, rms, T.autograd.grad((ln * ln).sum() + (rms * rms * rms).sum(), (x, w, b))

    close(torch_ref, engine, run, rtol=1e-9, atol=1e-9)


@pytest.mark.torch
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3), groups=st.integers(1, 3), per_group=st.integers(1, 3),
       rest=st.lists(st.integers(1, 3), max_size=2), seed=st.integers(0, 2 ** 16))
def test_group_norm_any_shape(torch_ref, n, groups, per_group, rest, seed):
    c = groups * per_group
    if n * per_group * math.prod(rest) == 1:
        return  # F.group_norm refuses one value per group (see ERRORS)

    def run(T):
        x, w, b = [T.tensor(a, requires_grad=True) for a in _arrays([(n, c, *rest), (c,), (c,)], seed)]
        out = T.nn.functional.group_norm(x, groups, w, b)
        return out, T.autograd.grad((out * out).sum(), (x, w, b))

    close(torch_ref, engine, run, rtol=1e-9, atol=1e-9)


# ----- Without PyTorch: the values of the docstrings' examples -----

def test_doc_examples(et):
    F = et.nn.functional
    x = et.tensor([[1.0, 2.0], [3.0, 6.0]], requires_grad=True)
    y = F.batch_norm(x, None, None, training=True)
    np.testing.assert_allclose(y.detach().numpy(), [[-1.0, -1.0], [1.0, 1.0]], atol=1e-4)
    assert type(y.grad_fn).__name__ == "NativeBatchNormBackward0"
    np.testing.assert_allclose(F.layer_norm(et.tensor([[1.0, 3.0]]), (2,)).numpy(), [[-1.0, 1.0]], atol=1e-4)
    np.testing.assert_allclose(F.group_norm(et.tensor([[1.0, 3.0, 0.0, 4.0]]), 2).numpy(), [[-1, 1, -1, 1]], atol=1e-4)
    np.testing.assert_allclose(F.rms_norm(et.tensor([[3.0, 4.0]]), (2,)).numpy(), [[0.8485, 1.1314]], atol=1e-4)
    m = et.nn.BatchNorm1d(2)
    m(et.tensor([[1.0, 2.0], [3.0, 6.0]]))
    assert m.running_mean.tolist() == pytest.approx([0.2, 0.4])
    assert m.running_var.tolist() == pytest.approx([0.9 + 0.1 * 2.0, 0.9 + 0.1 * 8.0])
    assert int(m.num_batches_tracked) == 1
