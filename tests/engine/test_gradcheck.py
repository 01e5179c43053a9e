"""``torch.autograd.gradcheck`` / ``gradgradcheck`` against real PyTorch 2.13: the same verdicts,
the same ``GradcheckError`` messages (slow mode), the same warnings."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytestmark = pytest.mark.torch


def outcome(fn):
    """(result or exception type and message, warning messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the type and message are the observation
            result = (type(e).__name__, str(e))
    return result, [str(w.message) for w in caught if "torch.jit" not in str(w.message)]


def functions(T):
    """Custom Functions with a right and a wrong backward, built for engine or torch."""
    F = T.autograd.Function

    class MyExp(F):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r

    class BadExp(MyExp):
        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r * 2

    class NotTimesGrad(F):
        @staticmethod
        def forward(ctx, i):
            return i * 2

        @staticmethod
        def backward(ctx, g):
            return T.ones_like(g) * 2

    class DetachedSecond(F):
        @staticmethod
        def forward(ctx, i):
            ctx.save_for_backward(i)
            return i ** 3

        @staticmethod
        def backward(ctx, g):
            (i,) = ctx.saved_tensors
            return g * 3 * i.detach() ** 2

    class MulConstant(F):
        @staticmethod
        def forward(ctx, t, constant):
            ctx.constant = constant
            return t * constant

        @staticmethod
        def backward(ctx, g):
            return g * ctx.constant, None

    class NoUndefined(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TwoBad(F):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g1, g2):
            x, y = ctx.saved_tensors
            return g1 * y + g2, g1 * x

    class Linear(F):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return {c.__name__: c.apply for c in (MyExp, BadExp, NotTimesGrad, DetachedSecond, MulConstant, NoUndefined,
                                          TwoBad, Linear)}


def inputs(T):
    d = T.float64
    return {
        "x": T.tensor([0.5, 1.0], dtype=d, requires_grad=True),
        "m": T.tensor([[0.3, -0.5, 1.2], [0.7, 0.1, -2.0]], dtype=d, requires_grad=True),
        "w": T.tensor([[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]], dtype=d, requires_grad=True),
        "b": T.tensor([0.5, -1.0], dtype=d, requires_grad=True),
        "y": T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=d, requires_grad=True),
        "s": T.tensor(0.7, dtype=d, requires_grad=True),
        "f32": T.tensor([1.0, 2.0], requires_grad=True),
        "plain": T.tensor([1.0, 2.0], dtype=d),
    }


CASES = {
    "my_exp": lambda T, f, i: T.autograd.gradcheck(f["MyExp"], (i["x"],)),
    "bad_exp": lambda T, f, i: T.autograd.gradcheck(f["BadExp"], (i["x"],)),
    "bad_exp_no_raise": lambda T, f, i: T.autograd.gradcheck(f["BadExp"], (i["x"],), raise_exception=False),
    "bad_exp_matrix": lambda T, f, i: T.autograd.gradcheck(lambda a: f["BadExp"](a).sum(1), (i["m"],)),
    "single_tensor_input": lambda T, f, i: T.autograd.gradcheck(f["MyExp"], i["x"]),
    "scalar": lambda T, f, i: (T.autograd.gradcheck(lambda a: a.exp(), i["s"]),
                               T.autograd.gradgradcheck(lambda a: a.exp(), i["s"])),
    "linear": lambda T, f, i: T.autograd.gradcheck(f["Linear"], (i["m"], i["w"], i["b"]), eps=1e-6, atol=1e-4),
    "linear_gradgrad": lambda T, f, i: T.autograd.gradgradcheck(f["Linear"], (i["m"], i["w"], i["b"])),
    "mul_constant": lambda T, f, i: (T.autograd.gradcheck(f["MulConstant"], (i["m"], 5.0)),
                                     T.autograd.gradgradcheck(f["MulConstant"], (i["m"], 5.0))),
    "not_times_grad": lambda T, f, i: T.autograd.gradcheck(f["NotTimesGrad"], (i["x"],)),
    "no_undefined": lambda T, f, i: T.autograd.gradcheck(f["NoUndefined"], (i["x"],)),
    "no_undefined_off": lambda T, f, i: T.autograd.gradcheck(f["NoUndefined"], (i["x"],),
                                                             check_undefined_grad=False),
    "two_outputs_bad": lambda T, f, i: T.autograd.gradcheck(f["TwoBad"], (i["m"], i["y"])),
    "gradgrad_bad": lambda T, f, i: T.autograd.gradgradcheck(
        f["DetachedSecond"], (i["x"],), grad_outputs=(T.ones(2, dtype=T.float64, requires_grad=True),)),
    "gradgrad_constant_grad_out": lambda T, f, i: T.autograd.gradgradcheck(
        f["DetachedSecond"], (i["x"],), grad_outputs=(T.ones(2, dtype=T.float64),)),
    "first_order_of_detached": lambda T, f, i: T.autograd.gradcheck(f["DetachedSecond"], (i["x"],)),
    "float32_warns": lambda T, f, i: T.autograd.gradcheck(lambda a: a * 3, (i["f32"],), eps=1e-3, atol=1e-2),
    "nothing_requires_grad": lambda T, f, i: T.autograd.gradcheck(T.sin, (i["plain"],)),
    "constant_output": lambda T, f, i: T.autograd.gradcheck(lambda a: (a > 0).double(), (i["x"],)),
    "tuple_outputs": lambda T, f, i: T.autograd.gradcheck(lambda a, b: (a * b, a + 1), (i["m"], i["y"])),
    "list_inputs": lambda T, f, i: T.autograd.gradcheck(lambda a: (a * 2).sum(), [i["m"]]),
    "non_tensor_arg": lambda T, f, i: T.autograd.gradcheck(lambda a, k: a * k, (i["m"], 3)),
    "builtins": lambda T, f, i: (T.autograd.gradcheck(T.tanh, (i["m"],)), T.autograd.gradgradcheck(T.tanh, (i["m"],)),
                                 T.autograd.gradcheck(lambda a: a.sum(), (i["m"],))),
    "fast_mode_ok": lambda T, f, i: (T.autograd.gradcheck(T.sin, (i["m"],), fast_mode=True),
                                     T.autograd.gradgradcheck(T.sin, (i["m"],), fast_mode=True)),
    "fast_mode_bad_no_raise": lambda T, f, i: T.autograd.gradcheck(f["BadExp"], (i["x"],), fast_mode=True,
                                                                   raise_exception=False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_matches_pytorch(et, torch_ref, name):
    ours = outcome(lambda: CASES[name](et, functions(et), inputs(et)))
    theirs = outcome(lambda: CASES[name](torch_ref, functions(torch_ref), inputs(torch_ref)))
    assert ours == theirs


def test_mismatch_message_is_pytorchs(et):
    from engine.autograd.gradcheck import GradcheckError

    f, i = functions(et), inputs(et)
    with pytest.raises(GradcheckError) as info:
        et.autograd.gradcheck(f["BadExp"], (i["x"],))
    assert str(info.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[1.6487, 0.0000],\n        [0.0000, 2.7183]], dtype=torch.float64)\n"
        "analytical:tensor([[3.2974, 0.0000],\n        [0.0000, 5.4366]], dtype=torch.float64)\n")
    assert isinstance(info.value, RuntimeError)
    assert et.autograd.gradcheck(f["BadExp"], (i["x"],), raise_exception=False) is False
    assert et.autograd.gradcheck(f["MyExp"], (i["x"],)) is True


def test_gradcheck_error_import_paths(et):
    from engine.autograd.gradcheck import GradcheckError

    assert GradcheckError.__mro__[1] is RuntimeError
    assert GradcheckError.__module__ == "torch.autograd.gradcheck"
    assert callable(et.autograd.gradcheck) and callable(et.autograd.gradgradcheck)


def test_float32_warning_text(et):
    with pytest.warns(UserWarning, match=r"^Input #0 requires gradient and is not a double precision floating point"):
        et.autograd.gradcheck(lambda a: a * 3, (et.tensor([1.0, 2.0], requires_grad=True),), eps=1e-3, atol=1e-2)


def test_fast_mode_failure_message(et, torch_ref):
    msgs = []
    for T in (et, torch_ref):
        f, i = functions(T), inputs(T)
        with pytest.raises(RuntimeError) as info:
            T.autograd.gradcheck(f["BadExp"], (i["x"],), fast_mode=True)
        msgs.append(str(info.value))
    # The random projection vectors differ from PyTorch's generator; the slow-mode part does not.
    for m in msgs:
        assert m.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert msgs[0][msgs[0].index("\nThe above quantities"):] == msgs[1][msgs[1].index("\nThe above quantities"):]


def test_inputs_are_restored_after_perturbation(et):
    x = et.tensor([[0.3, 0.4], [0.5, 0.6]], dtype=et.float64, requires_grad=True)
    before = x.detach().numpy().copy()
    assert et.autograd.gradcheck(lambda a: (a * a).sum(0), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


UNARY = ["sin", "exp", "tanh", "sigmoid"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
                  elements=st.floats(-2, 2, allow_nan=False)),
       st.sampled_from(UNARY))
def test_gradcheck_and_gradgradcheck_pass_on_ops(et, arr, op):
    x = et.tensor(arr, dtype=et.float64, requires_grad=True)
    fn = getattr(et, op)
    assert et.autograd.gradcheck(fn, (x,))
    assert et.autograd.gradgradcheck(fn, (x,))
    assert et.autograd.gradcheck(lambda a: fn(a) * a, (x,), fast_mode=True)
