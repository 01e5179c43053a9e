"""``torch.nn.utils.parametrize``, ``parametrizations.weight_norm``/``spectral_norm`` and the
deprecated ``torch.nn.utils.weight_norm`` against real PyTorch 2.13: reprs, state_dict keys,
values, gradients, ``grad_fn`` graphs, saved attributes, warnings and error messages."""
import copy
import importlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import same
from tests.engine.test_rnn import _graph

pytestmark = pytest.mark.torch


def _utils(t):
    return (importlib.import_module(t.__name__ + ".nn.utils.parametrize"),
            importlib.import_module(t.__name__ + ".nn.utils.parametrizations"))


def _modules(nn):
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Scale(nn.Module):
        def forward(self, X):
            return 2 * X

        def right_inverse(self, A):
            return A / 2

    class Split(nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w * 0.25, w * 0.75

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    class First(nn.Module):
        def forward(self, X):
            return X[0]

    class NotATensor(nn.Module):
        def forward(self, X):
            return 1.0

    class BadInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X[0]

    class Noisy(nn.Module):  # a parametrization whose value depends on train/eval
        def forward(self, X):
            return X + 1 if self.training else X

    return Symmetric, Scale, Split, ToDouble, First, NotATensor, BadInverse, Noisy


# ----- parametrize -----

def _register_and_use(t):
    P, _ = _utils(t)
    nn = t.nn
    Symmetric, Scale, Split, *_ = _modules(nn)
    t.manual_seed(0)
    layer = nn.Linear(3, 3)
    original = layer.weight
    P.register_parametrization(layer, "weight", Symmetric())
    first = [repr(layer), type(layer).__name__, type(layer).__bases__[0].__name__, P.is_parametrized(layer),
             P.is_parametrized(layer, "weight"), P.is_parametrized(layer, "bias"), layer.weight,
             _graph(layer.weight.grad_fn), list(layer.state_dict()), [n for n, _ in layer.named_parameters()],
             layer.parametrizations.weight.original is original, P.type_before_parametrizations(layer).__name__]
    P.register_parametrization(layer, "weight", Scale())
    x = t.randn(2, 3)
    layer(x).sum().backward()
    second = [repr(layer), layer.weight, _graph(layer.weight.grad_fn), original.grad]
    with P.cached():
        cached = [layer.weight is layer.weight]
    cached.append(layer.weight is layer.weight)
    return first, second, cached


def _assign_through_right_inverse(t):
    P, _ = _utils(t)
    nn = t.nn
    _, Scale, *_ = _modules(nn)
    t.manual_seed(0)
    layer = nn.Linear(3, 3)
    P.register_parametrization(layer, "weight", Scale())
    original = layer.parametrizations.weight.original
    layer.weight = t.eye(3)
    return [original, layer.weight, original is layer.parametrizations.weight.original, original._version,
            original.requires_grad, type(original).__name__]


def _sequence_of_originals(t):
    P, _ = _utils(t)
    nn = t.nn
    _, _, Split, *_ = _modules(nn)
    t.manual_seed(0)
    layer = P.register_parametrization(nn.Linear(2, 2), "weight", Split())
    out = [repr(layer), list(layer.state_dict()), layer.parametrizations.weight.original0,
           layer.parametrizations.weight.original1, layer.weight, _graph(layer.weight.grad_fn)]
    layer.weight = t.ones(2, 2)
    out += [layer.parametrizations.weight.original0, layer.parametrizations.weight.original1]
    P.remove_parametrizations(layer, "weight")
    return out + [repr(layer), type(layer).__name__, layer.weight, [n for n, _ in layer.named_parameters()]]


def _remove(t, leave):
    P, _ = _utils(t)
    nn = t.nn
    _, Scale, *_ = _modules(nn)
    t.manual_seed(0)
    layer = P.register_parametrization(nn.Linear(3, 3), "weight", Scale())
    original = layer.parametrizations.weight.original
    P.remove_parametrizations(layer, "weight", leave_parametrized=leave)
    return [repr(layer), type(layer).__name__, layer.weight, layer.weight is original,
            hasattr(layer, "parametrizations"), list(layer.state_dict()), P.is_parametrized(layer)]


def _buffer_and_training(t):
    P, _ = _utils(t)
    nn = t.nn
    *_, Noisy = _modules(nn)
    bn = nn.BatchNorm1d(3)
    bn.eval()
    P.register_parametrization(bn, "running_mean", Noisy())
    out = [repr(bn), list(bn.state_dict()), [n for n, _ in bn.named_buffers()], bn.running_mean]
    bn.train()
    return out + [bn.running_mean, bn.parametrizations.running_mean[0].training]


def _unsafe_and_transfer(t):
    P, _ = _utils(t)
    nn = t.nn
    Symmetric, Scale, _, _, First, *_ = _modules(nn)
    t.manual_seed(0)
    a = P.register_parametrization(nn.Linear(3, 3), "weight", First(), unsafe=True)
    b = nn.Linear(3, 3)
    src = P.register_parametrization(nn.Linear(3, 3), "weight", Scale())
    P.transfer_parametrizations_and_params(src, b)
    return [a.weight.shape, a.parametrizations.weight.unsafe, repr(b), b.weight,
            b.parametrizations.weight.original is src.parametrizations.weight.original]


def _parametrize_errors(t):
    P, _ = _utils(t)
    nn = t.nn
    Symmetric, Scale, Split, ToDouble, First, NotATensor, BadInverse, _ = _modules(nn)
    t.manual_seed(0)
    sym = P.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    scaled = P.register_parametrization(nn.Linear(3, 3), "weight", Scale())
    return [
        lambda: P.register_parametrization(nn.Linear(2, 2), "foo", Symmetric()),
        lambda: P.remove_parametrizations(nn.Linear(2, 2), "weight"),
        lambda: P.register_parametrization(nn.Linear(2, 3), "weight", Symmetric()),
        lambda: P.register_parametrization(nn.Linear(2, 2), "weight", ToDouble()),
        lambda: P.register_parametrization(nn.Linear(2, 2), "weight", First()),
        lambda: P.register_parametrization(nn.Linear(2, 2), "weight", NotATensor()),
        lambda: P.register_parametrization(scaled, "weight", ToDouble()),
        lambda: P.register_parametrization(scaled, "weight", First()),
        lambda: P.register_parametrization(scaled, "weight", BadInverse()),
        lambda: setattr(sym, "weight", t.ones(3, 3)),
        lambda: setattr(sym, "weight", nn.Parameter(t.ones(3, 3))),
        lambda: setattr(scaled, "weight", t.ones(3, 3, dtype=t.float64)),
        lambda: P.remove_parametrizations(P.register_parametrization(nn.Linear(2, 2), "weight", Split()), "weight",
                                          leave_parametrized=False),
        lambda: P.ParametrizationList([], t.ones(2)),
        lambda: pickle.dumps(sym),
    ]


PARAMETRIZE = {"register_and_use": _register_and_use, "assign": _assign_through_right_inverse,
               "sequence": _sequence_of_originals, "remove_leaving_parametrized": lambda t: _remove(t, True),
               "remove_leaving_original": lambda t: _remove(t, False), "buffer_and_training": _buffer_and_training,
               "unsafe_and_transfer": _unsafe_and_transfer}


@pytest.mark.parametrize("case", list(PARAMETRIZE))
def test_parametrize(torch_ref, et, case):
    same(torch_ref, et, PARAMETRIZE[case])


def test_parametrize_errors(torch_ref, et):
    for k in range(len(_parametrize_errors(torch_ref))):
        same(torch_ref, et, lambda t: _parametrize_errors(t)[k]())


def test_deepcopy_keeps_the_parametrization(et):
    P, _ = _utils(et)
    Symmetric = _modules(et.nn)[0]
    layer = P.register_parametrization(et.nn.Linear(3, 3), "weight", Symmetric())
    clone = copy.deepcopy(layer)
    assert type(clone) is type(layer) and type(clone).__name__ == "ParametrizedLinear"
    assert clone.parametrizations.weight.original is not layer.parametrizations.weight.original
    np.testing.assert_array_equal(clone.weight.detach().numpy(), layer.weight.detach().numpy())
    P.remove_parametrizations(clone, "weight")
    assert type(clone).__name__ == "Linear" and type(layer).__name__ == "ParametrizedLinear"


# ----- weight_norm -----

def _weight_norm_linear(t):
    _, PZ = _utils(t)
    t.manual_seed(0)
    m = PZ.weight_norm(t.nn.Linear(3, 4))
    w = m.weight
    f = w.grad_fn
    x = t.randn(2, 3, requires_grad=True)
    m(x).pow(2).sum().backward()
    return [repr(m), list(m.state_dict()), w, _graph(f), f._saved_dim, f._saved_result1, f._saved_g, f._saved_v,
            m.parametrizations.weight.original0, m.parametrizations.weight.original0.grad,
            m.parametrizations.weight.original1.grad, x.grad]


def _weight_norm_conv(t, dim):
    _, PZ = _utils(t)
    t.manual_seed(1)
    c = PZ.weight_norm(t.nn.Conv2d(2, 3, 3).double(), dim=dim)
    w = c.weight
    (w * t.arange(54.0, dtype=t.float64).view(3, 2, 3, 3)).sum().backward()
    return [w, _graph(w.grad_fn), c.parametrizations.weight.original0, c.parametrizations.weight.original0.grad,
            c.parametrizations.weight.original1.grad]


@pytest.mark.parametrize("dim", [0, 1, None, -1, -2, 3])
def test_weight_norm_dims(torch_ref, et, dim):
    """Over the first or last dim PyTorch's CPU kernel is fused (WeightNormInterfaceBackward0);
    over another dim, or the whole tensor (None, -1), it is composed of norm_except_dim's ops."""
    same(torch_ref, et, lambda t: _weight_norm_conv(t, dim))


def test_weight_norm(torch_ref, et):
    same(torch_ref, et, _weight_norm_linear)


def _old_weight_norm(t):
    t.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = t.nn.utils.weight_norm(t.nn.Linear(3, 4))
    out = [[(w.category.__name__, str(w.message)) for w in caught], repr(m), [n for n, _ in m.named_parameters()],
           list(m.state_dict()), m.weight_g, _graph(m.weight.grad_fn)]
    x = t.randn(2, 3, requires_grad=True)
    with t.no_grad():
        m.weight_v.mul_(2)
    before = m.weight.clone()
    y = m(x)  # the pre-hook recomputes the weight
    g, = t.autograd.grad(y.pow(2).sum(), m.weight_v, create_graph=True)
    g.sum().backward()
    out += [before, m.weight, _graph(g.grad_fn), g, m.weight_g.grad, x.grad]
    t.nn.utils.remove_weight_norm(m)
    return out + [repr(m), [n for n, _ in m.named_parameters()], m.weight, m._forward_pre_hooks == {}]


def test_deprecated_weight_norm(torch_ref, et):
    same(torch_ref, et, _old_weight_norm)


def _old_weight_norm_errors(t):
    m = t.nn.Linear(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.nn.utils.weight_norm(m)
    return [lambda: t.nn.utils.weight_norm(m), lambda: t.nn.utils.remove_weight_norm(t.nn.Linear(2, 2)),
            lambda: t.nn.utils.weight_norm(t.nn.Linear(2, 2), dim=None).weight_g]


def test_deprecated_weight_norm_errors(torch_ref, et):
    for k in range(3):
        outcome = same(torch_ref, et, lambda t: _old_weight_norm_errors(t)[k]())
        assert outcome[1] == [("FutureWarning", "`torch.nn.utils.weight_norm` is deprecated in favor of "
                                                "`torch.nn.utils.parametrizations.weight_norm`.")] or k == 1


def test_weight_norm_loads_a_deprecated_state_dict(torch_ref, et):
    def fn(t):
        _, PZ = _utils(t)
        t.manual_seed(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            old = t.nn.utils.weight_norm(t.nn.Linear(3, 4))
        new = PZ.weight_norm(t.nn.Linear(3, 4))
        result = new.load_state_dict(old.state_dict())
        return [repr(result), new.weight - old.weight, new.parametrizations.weight.original0, list(new.state_dict())]
    same(torch_ref, et, fn)


def test_weight_norm_double_backward_graph(torch_ref, et):
    """The derivative is PyTorch's _weight_norm_differentiable_backward, in ops."""
    def run(t):
        _, PZ = _utils(t)
        t.manual_seed(0)
        m = PZ.weight_norm(t.nn.Linear(3, 4).double())
        v = m.parametrizations.weight.original1
        g, = t.autograd.grad(m(t.randn(2, 3, dtype=t.float64)).pow(2).sum(), v, create_graph=True)
        g.pow(2).sum().backward()
        return _graph(g.grad_fn), g.detach().numpy(), v.grad.numpy(), m.parametrizations.weight.original0.grad.numpy()

    e, r = run(et), run(torch_ref)
    assert e[0] == r[0]
    for a, b in zip(e[1:], r[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_weight_norm_gradcheck(et):
    """The fused kernel's derivative (dims 0 and last) holds the norms constant, as PyTorch's does:
    its second derivative is PyTorch's (compared above), which gradgradcheck rejects in both."""
    from engine.nn.utils.weight_norm import _weight_norm

    et.manual_seed(0)
    v = et.randn(3, 2, 2, dtype=et.float64, requires_grad=True)
    for dim, g_shape in ((0, (3, 1, 1)), (2, (1, 1, 2)), (1, (1, 2, 1)), (-1, ())):
        g = et.rand(g_shape, dtype=et.float64, requires_grad=True)
        assert et.autograd.gradcheck(lambda v, g: _weight_norm(v, g, dim), (v, g))
        if dim in (1, -1):
            assert et.autograd.gradgradcheck(lambda v, g: _weight_norm(v, g, dim), (v, g))


# ----- spectral_norm -----

def _spectral_norm_linear(t):
    _, PZ = _utils(t)
    t.manual_seed(0)
    m = PZ.spectral_norm(t.nn.Linear(20, 40))
    sn = m.parametrizations.weight[0]
    out = [repr(m), list(m.state_dict()), [n for n, _ in m.named_buffers()], sn._u, sn._v]
    w = m.weight  # one more step of the power method, in training
    out += [w, _graph(w.grad_fn), t.linalg.matrix_norm(w, 2), sn._u]
    m(t.randn(3, 20)).sum().backward()
    m.eval()
    out += [m.parametrizations.weight.original.grad, m.weight - m.weight, sn._u]
    vdot = m.weight.grad_fn.next_functions[1][0]
    return out + [type(vdot).__name__, vdot._saved_self, vdot._saved_other]


def _spectral_norm_others(t):
    _, PZ = _utils(t)
    t.manual_seed(0)
    c = PZ.spectral_norm(t.nn.Conv2d(2, 3, 3), n_power_iterations=2)
    ct = PZ.spectral_norm(t.nn.ConvTranspose2d(2, 3, 3))
    b = PZ.spectral_norm(t.nn.Linear(3, 4), name="bias")
    return [c.weight, c.parametrizations.weight[0]._u, c.parametrizations.weight[0]._v,
            ct.parametrizations.weight[0].dim, ct.weight, ct.parametrizations.weight[0]._u.shape, b.bias, _graph(b.bias.grad_fn),
            PZ.spectral_norm(t.nn.Linear(3, 4), dim=-1).parametrizations.weight[0].dim]


def _spectral_norm_errors(t):
    _, PZ = _utils(t)
    return [lambda: PZ.spectral_norm(t.nn.Linear(3, 4), name="foo"), lambda: PZ.spectral_norm(t.nn.Linear(3, 4), dim=2),
            lambda: PZ.spectral_norm(t.nn.Linear(3, 4), n_power_iterations=0),
            lambda: PZ.spectral_norm(t.nn.Linear(3, 4), dim=-3)]


def test_spectral_norm(torch_ref, et):
    same(torch_ref, et, _spectral_norm_linear)
    same(torch_ref, et, _spectral_norm_others)
    for k in range(4):
        same(torch_ref, et, lambda t: _spectral_norm_errors(t)[k]())


def test_spectral_norm_gradcheck(et):
    _, PZ = _utils(et)
    et.manual_seed(0)
    m = PZ.spectral_norm(et.nn.Linear(3, 4).double()).eval()
    sn = m.parametrizations.weight[0]
    w = m.parametrizations.weight.original.detach().clone().requires_grad_()
    assert et.autograd.gradcheck(sn, (w,))
    assert et.autograd.gradgradcheck(sn, (w,))


def test_not_imported_with_engine():
    code = ("import sys, engine; assert 'engine.nn.utils.parametrize' not in sys.modules; "
            "engine.nn.utils.parametrizations.weight_norm; assert callable(engine.nn.utils.weight_norm)")
    subprocess.run([sys.executable, "-c", code], check=True)
