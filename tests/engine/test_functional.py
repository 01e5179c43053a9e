"""``torch.autograd.functional`` against real PyTorch 2.13: the same return structures (a Tensor
for a Tensor, tuples and tuples of tuples for tuples), values, ``grad_fn`` names with
``create_graph=True``, and error messages."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytestmark = pytest.mark.torch


def describe(x):
    """Structure and content of a result: nested tuples of (repr, requires_grad)."""
    if isinstance(x, tuple):
        return tuple(describe(e) for e in x)
    return repr(x), getattr(x, "requires_grad", None)


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are the observation
        return type(e).__name__, str(e)
    return None


# ----- The functions of PyTorch's docs for torch.autograd.functional -----

def exp_reducer(x):
    return x.exp().sum(dim=1)


def adder(x, y):
    return 2 * x + 3 * y


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def two_outputs(x, y):
    return x * y, x.sum() + 0 * y.sum()


def data(T):
    m = T.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=T.float64)
    pair = (T.tensor([1.0, 2.0], dtype=T.float64), T.tensor([3.0, 4.0], dtype=T.float64))
    ones = T.ones(2, dtype=T.float64)
    return m, pair, ones


CALLS = {
    "vjp_single": lambda F, T, m, p, v: F.vjp(exp_reducer, m, v),
    "vjp_tuple": lambda F, T, m, p, v: F.vjp(adder, p, v),
    "vjp_graph": lambda F, T, m, p, v: F.vjp(exp_reducer, m, v, create_graph=True),
    "vjp_scalar_no_v": lambda F, T, m, p, v: F.vjp(lambda x: x ** 2, T.tensor(2.0)),
    "jvp_single": lambda F, T, m, p, v: F.jvp(exp_reducer, m, T.ones(2, 2, dtype=T.float64)),
    "jvp_tuple": lambda F, T, m, p, v: F.jvp(adder, p, (v, v)),
    "jvp_graph": lambda F, T, m, p, v: F.jvp(exp_adder, p, (v, v), create_graph=True),
    "jac_single": lambda F, T, m, p, v: F.jacobian(exp_reducer, m),
    "jac_graph": lambda F, T, m, p, v: F.jacobian(exp_reducer, m, create_graph=True),
    "jac_tuple_in": lambda F, T, m, p, v: F.jacobian(exp_adder, p),
    "jac_tuple_out": lambda F, T, m, p, v: F.jacobian(lambda x: (x ** 2, x.sum()), p[0]),
    "jac_tuple_both": lambda F, T, m, p, v: F.jacobian(two_outputs, p),
    "jac_unused_input": lambda F, T, m, p, v: F.jacobian(lambda x, y: x * 2, p),
    "jac_vectorize": lambda F, T, m, p, v: F.jacobian(two_outputs, p, vectorize=True),
    "jac_forward_mode": lambda F, T, m, p, v: F.jacobian(exp_reducer, m, vectorize=True, strategy="forward-mode"),
    "jac_scalar": lambda F, T, m, p, v: F.jacobian(lambda x: x ** 3, T.tensor(2.0)),
    "hess_single": lambda F, T, m, p, v: F.hessian(pow_reducer, m),
    "hess_tuple": lambda F, T, m, p, v: F.hessian(pow_adder_reducer, p),
    "hess_vectorize": lambda F, T, m, p, v: F.hessian(pow_reducer, m, vectorize=True),
    "hess_graph": lambda F, T, m, p, v: F.hessian(pow_reducer, p[0], create_graph=True),
    "vhp_single": lambda F, T, m, p, v: F.vhp(pow_reducer, m, T.ones(2, 2, dtype=T.float64)),
    "vhp_tuple": lambda F, T, m, p, v: F.vhp(pow_adder_reducer, p, (v, v)),
    "hvp_single": lambda F, T, m, p, v: F.hvp(pow_reducer, m, T.ones(2, 2, dtype=T.float64)),
    "hvp_tuple": lambda F, T, m, p, v: F.hvp(pow_adder_reducer, p, (v, v)),
    "hvp_graph": lambda F, T, m, p, v: F.hvp(pow_reducer, p[0], v, create_graph=True),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_results_match_pytorch(et, torch_ref, name):
    def run(T):
        import importlib

        F = importlib.import_module(T.__name__ + ".autograd.functional")
        assert T.autograd.functional is F
        return describe(CALLS[name](F, T, *data(T)))

    assert run(et) == run(torch_ref)


def test_structures_and_values(et):
    F = et.autograd.functional
    m, p, v = data(et)
    jac = F.jacobian(exp_reducer, m)
    assert isinstance(jac, et.Tensor) and tuple(jac.shape) == (2, 2, 2)
    both = F.jacobian(two_outputs, p)
    assert len(both) == 2 and all(len(row) == 2 for row in both)
    assert tuple(both[0][1].shape) == (2, 2) and tuple(both[1][0].shape) == (2,)
    np.testing.assert_allclose(both[0][1].numpy(), np.diag([1.0, 2.0]))
    out, hv = F.hvp(pow_reducer, p[0], v)
    assert out.item() == 9.0 and hv.tolist() == [6.0, 12.0]
    g = F.jacobian(exp_reducer, m, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == "ViewBackward0"


ERRORS = {
    "v_needed": lambda F, T, m, p, v: F.vjp(exp_reducer, m),
    "v_size": lambda F, T, m, p, v: F.vjp(exp_reducer, m, T.ones(3, dtype=T.float64)),
    "v_tuple_len": lambda F, T, m, p, v: F.jvp(adder, p, (v,)),
    "v_single": lambda F, T, m, p, v: F.vjp(adder, p, (v, v)),
    "entry_size": lambda F, T, m, p, v: F.jvp(adder, p, (v, T.ones(3, dtype=T.float64))),
    "list_inputs": lambda F, T, m, p, v: F.jacobian(lambda x: x, [1, 2]),
    "int_in_tuple": lambda F, T, m, p, v: F.jacobian(lambda x, y: x, (m, 3)),
    "bad_output": lambda F, T, m, p, v: F.jacobian(lambda x: 3, m),
    "strict_independent": lambda F, T, m, p, v: F.jacobian(lambda x, y: x * 2, p, strict=True),
    "strict_no_grad": lambda F, T, m, p, v: F.vjp(lambda x: T.ones(2), p[0], v, strict=True),
    "strict_linear_hessian": lambda F, T, m, p, v: F.hessian(lambda x: (2 * x).sum(), p[0], strict=True),
    "hessian_not_scalar": lambda F, T, m, p, v: F.hessian(lambda x: x ** 2, p[0]),
    "hvp_not_scalar": lambda F, T, m, p, v: F.hvp(lambda x: x, m, T.ones(2, 2, dtype=T.float64)),
    "vhp_tuple_out": lambda F, T, m, p, v: F.vhp(lambda x: (x.sum(), x.sum()), p[0], v),
    "forward_mode_loop": lambda F, T, m, p, v: F.jacobian(exp_reducer, m, strategy="forward-mode"),
    "strict_vectorize": lambda F, T, m, p, v: F.jacobian(exp_reducer, m, strict=True, vectorize=True),
    "bad_strategy": lambda F, T, m, p, v: F.jacobian(exp_reducer, m, strategy="sideways"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(et, torch_ref, name):
    ours = error(lambda: ERRORS[name](et.autograd.functional, et, *data(et)))
    theirs = error(lambda: ERRORS[name](torch_ref.autograd.functional, torch_ref, *data(torch_ref)))
    assert ours is not None
    assert ours == theirs


def test_error_messages_literal(et):
    F = et.autograd.functional
    m, p, v = data(et)
    assert error(lambda: F.vjp(exp_reducer, m)) == (
        "RuntimeError", "The vector v can only be None if the user-provided function returns a single Tensor "
        "with a single element.")
    assert error(lambda: F.jacobian(lambda x, y: x * 2, p, strict=True)) == (
        "RuntimeError", "Output 0 of the user-provided function is independent of input 1. This is not allowed "
        "in strict mode.")


def graph_use(T):
    F = T.autograd.functional
    y = T.tensor([1.0, 2.0], requires_grad=True)
    out, j = F.vjp(lambda x: x ** 2, y * 1, T.ones(2), create_graph=True)
    j.sum().backward()
    obs = [describe(out), describe(j), repr(y.grad)]
    with T.no_grad():
        obs.append(describe(F.vjp(lambda x: x ** 2, y, T.ones(2))))
        obs.append(describe(F.jacobian(lambda x: x ** 2, y)))
    obs.append(F.jacobian(lambda x: x ** 2, y).requires_grad)
    obs.append(y.grad_fn)
    return obs


def test_create_graph_reaches_the_callers_leaves(et, torch_ref):
    ours = graph_use(et)
    assert ours == graph_use(torch_ref)
    assert ours[2] == "tensor([2., 2.])"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3),
                  elements=st.floats(-2, 2, allow_nan=False)))
def test_jacobian_hessian_random_inputs(et, torch_ref, arr):
    def run(T):
        F = T.autograd.functional
        x = T.tensor(arr)

        def f(t):
            return (t.sin() * t).sum() + (t ** 2).sum() * 0.5

        jac = F.jacobian(lambda t: t.sin() * t, x)
        hes = F.hessian(f, x)
        _, hv = F.hvp(f, x, T.ones_like(x))
        _, jv = F.jvp(lambda t: t.sin() * t, x, T.ones_like(x))
        return jac.numpy(), hes.numpy(), hv.numpy(), jv.numpy()

    for ours, theirs in zip(run(et), run(torch_ref)):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
