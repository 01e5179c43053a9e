"""Custom ``torch.autograd.Function``: every scenario runs once with the engine and once with real
PyTorch 2.13, and what a user can observe (values, ``grad_fn`` names and reprs, ``next_functions``,
what ``backward`` receives, error messages) must be identical. Each scenario also asserts a few
literal facts, so that it cannot pass by both sides being wrong in the same way."""
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytestmark = pytest.mark.torch


def norm(x):
    """A printable observation with memory addresses blanked."""
    return re.sub(r"0x[0-9a-f]+", "0x?", x if isinstance(x, str) else repr(x))


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and message are the observation
        return type(e).__name__, norm(str(e))
    return None


def edges(node):
    """``next_functions`` as names, e.g. ``(('AccumulateGrad', 0), (None, 0))``."""
    return tuple((type(n).__name__ if n is not None else None, nr) for n, nr in node.next_functions)


def both(et, torch_ref, scenario):
    ours, theirs = scenario(et), scenario(torch_ref)
    assert ours == theirs
    return ours


# ----- The tutorial's MulConstant and the docs' MyExp -----

def mul_constant(T):
    from_ = T.autograd.function.Function

    class MulConstant(from_):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    a = T.tensor([[0.5, 1.0, 2.0], [3.0, -1.0, 0.25]], requires_grad=True)
    b = MulConstant.apply(a, 5)
    obs = {
        "b": repr(b),
        "name": b.grad_fn.name(),
        "type": type(b.grad_fn).__name__,
        "module": type(b.grad_fn).__module__,
        "repr": norm(repr(b.grad_fn)),
        "constant": b.grad_fn.constant,
        "needs": b.grad_fn.needs_input_grad,
        "edges": edges(b.grad_fn),
        "is_leaf": b.is_leaf,
        "forward_cls": b.grad_fn._forward_cls.__name__,
    }
    b.backward(T.ones_like(a))
    obs["a.grad"] = repr(a.grad)
    c = MulConstant.apply(T.ones(2), 3)
    obs["no_graph"] = (repr(c), c.requires_grad, c.grad_fn)
    return obs


def test_mul_constant_tutorial(et, torch_ref):
    obs = both(et, torch_ref, mul_constant)
    assert obs["name"] == obs["type"] == "MulConstantBackward"
    assert obs["repr"] == "<torch.autograd.function.MulConstantBackward object at 0x?>"
    assert obs["constant"] == 5 and obs["needs"] == (True, False)
    assert obs["edges"] == (("AccumulateGrad", 0),)
    assert "grad_fn=<MulConstantBackward>" in obs["b"]


def my_exp(T):
    class MyExp(T.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    x = T.tensor([0.5, 1.0, -2.0], dtype=T.float64, requires_grad=True)
    y = MyExp.apply(x)
    (saved,) = y.grad_fn.saved_tensors
    obs = {"y": repr(y), "saved": repr(saved), "saved_is_y": saved is y,
           "saved_fn_is_node": saved.grad_fn is y.grad_fn, "saved_version": saved._version}
    (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
    obs["g"] = repr(g)
    (gg,) = T.autograd.grad(g.sum(), x)
    obs["gg"] = repr(gg)
    y2 = MyExp.apply(x)
    y2.sum().backward()
    obs["x.grad"] = repr(x.grad)
    obs["saved_after_free"] = error(lambda: y2.grad_fn.saved_tensors)
    obs["second_backward"] = error(lambda: y2.sum().backward())
    y3 = MyExp.apply(x)
    y3.sum().backward(retain_graph=True)
    y3.sum().backward()
    obs["retained"] = repr(x.grad)
    return obs


def test_my_exp_saves_its_output_and_differentiates_twice(et, torch_ref):
    obs = both(et, torch_ref, my_exp)
    assert "grad_fn=<MyExpBackward>" in obs["y"] and "grad_fn=<MyExpBackward>" in obs["saved"]
    assert obs["saved_is_y"] is False and obs["saved_fn_is_node"] is True
    assert obs["saved_after_free"][1].startswith("Trying to backward through the graph a second time")
    assert obs["second_backward"] == obs["saved_after_free"]


def legendre(T):
    class LegendrePolynomial3(T.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    x = T.linspace(-3.14, 3.14, 50, dtype=T.float64)
    y = T.sin(x)
    a, b, c, d = (T.full((), v, dtype=T.float64, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
    P3 = LegendrePolynomial3.apply
    losses = []
    for _ in range(30):
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with T.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad = None
    names = (y_pred.grad_fn.name(), y_pred.grad_fn.next_functions[1][0].next_functions[1][0].name())
    return np.array(losses), [p.item() for p in (a, b, c, d)], names


def test_legendre_polynomial_training_loop(et, torch_ref):
    ours, theirs = legendre(et), legendre(torch_ref)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    assert ours[2] == theirs[2] == ("AddBackward0", "LegendrePolynomial3Backward")


# ----- setup_context style, save_for_backward(None, t), defaults, needs_input_grad -----

def setup_context_style(T):
    seen = []

    class Scale(T.autograd.Function):
        @staticmethod
        def forward(x, k=3):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append((len(inputs), inputs[1], type(output).__name__))
            x, k = inputs
            ctx.k = k
            ctx.save_for_backward(None, x)

        @staticmethod
        def backward(ctx, g):
            none, x = ctx.saved_tensors
            seen.append((none, repr(x), ctx.needs_input_grad))
            return g * ctx.k, None

    x = T.tensor([1.0, 3.0], requires_grad=True)
    scale = Scale.apply  # aliased to a plain name, as tutorials do
    y = scale(x)
    y.sum().backward()
    z = scale(x, k=4)
    return repr(y), repr(z), repr(x.grad), seen, z.grad_fn.name()


def test_setup_context_save_none_and_alias(et, torch_ref):
    obs = both(et, torch_ref, setup_context_style)
    assert obs[3][0] == (2, 3, "Tensor")
    assert obs[3][1] == (None, "tensor([1., 3.], requires_grad=True)", (True, False))
    assert obs[4] == "ScaleBackward"


def needs_input_grad(T):
    seen = []

    class Mixed(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k, nothing):
            seen.append(("fwd", ctx.needs_input_grad))
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen.append(("bwd", ctx.needs_input_grad))
            a_grad = g * 2 if ctx.needs_input_grad[0] else None
            return a_grad, None, None, None

    x = T.tensor([1.0, 2.0], requires_grad=True)
    z = Mixed.apply(x, T.ones(2), 3, None)
    obs = {"edges": edges(z.grad_fn)}
    z.sum().backward()
    with T.no_grad():
        w = Mixed.apply(x, T.ones(2), 3, None)
    obs.update(seen=seen, x_grad=repr(x.grad), no_grad=(w.requires_grad, w.grad_fn))
    return obs


def test_needs_input_grad_and_non_tensor_args(et, torch_ref):
    obs = both(et, torch_ref, needs_input_grad)
    assert obs["edges"] == (("AccumulateGrad", 0), (None, 0))
    assert obs["seen"][0] == ("fwd", (True, False, False, False))


# ----- Several outputs, materialize_grads, non-differentiable outputs -----

def several_outputs(T):
    seen = []

    class Lazy(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(("lazy", repr(g1), repr(g2)))
            out = T.zeros_like(g1 if g1 is not None else g2)
            if g1 is not None:
                out = out + g1 * 2
            if g2 is not None:
                out = out + g2 * 3
            return out

    class Eager(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(("eager", repr(g1), repr(g2)))
            return g1 * 2 + g2 * 3

    x = T.tensor([1.0, 2.0], requires_grad=True)
    a, b = Lazy.apply(x)
    obs = {"one_node": a.grad_fn is b.grad_fn, "nrs": (a.output_nr, b.output_nr)}
    a.sum().backward()
    obs["lazy_grad"] = repr(x.grad)
    x.grad = None
    c, d = Eager.apply(x)
    d.sum().backward()
    obs["eager_grad"] = repr(x.grad)
    obs["seen"] = seen
    return obs


def test_several_outputs_and_materialize_grads(et, torch_ref):
    obs = both(et, torch_ref, several_outputs)
    assert obs["one_node"] is True and obs["nrs"] == (0, 1)
    assert obs["seen"][0] == ("lazy", "tensor([1., 1.])", "None")
    assert obs["seen"][1] == ("eager", "tensor([0., 0.])", "tensor([1., 1.])")


def non_differentiable(T):
    seen = []

    class Gather(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = T.tensor([1, 2, 0])
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x[idx], idx

        @staticmethod
        def backward(ctx, g, g_idx):
            seen.append(repr(g_idx))
            (idx,) = ctx.saved_tensors
            out = T.zeros_like(g)
            out[idx] = g
            return out

    class Half(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y, z = x * 2, x * 3
            ctx.mark_non_differentiable(z)
            return y, z

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(repr(g2))
            return g1 * 2

    x = T.tensor([3.0, 1.0, 2.0], requires_grad=True)
    s, i = Gather.apply(x)
    obs = {"s": repr(s), "i": (repr(i), i.requires_grad, i.grad_fn, i.output_nr)}
    (s * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    obs["grad"] = repr(x.grad)
    y, z = Half.apply(x)
    obs["half"] = (repr(y), repr(z), z.requires_grad, z.is_leaf)
    y.sum().backward()
    obs["seen"] = seen
    return obs


def test_mark_non_differentiable(et, torch_ref):
    obs = both(et, torch_ref, non_differentiable)
    assert obs["i"] == ("tensor([1, 2, 0])", False, None, 0)
    assert obs["seen"] == ["tensor([0, 0, 0])", "tensor([0., 0., 0.])"]


def non_tensor_outputs(T):
    seen = []

    class Mixed(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, x

        @staticmethod
        def backward(ctx, g1, g2, g3):
            seen.append((repr(g1), repr(g2), repr(g3)))
            return g1 * 2 + g3

    class AsList(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2]

        @staticmethod
        def backward(ctx, g):
            return g

    x = T.tensor([1.0, 2.0], requires_grad=True)
    a, b, c = Mixed.apply(x)
    obs = {"b": b, "c": (repr(c), c is x, c._base is x, c.is_leaf, c.output_nr)}
    (a.sum() + c.sum()).backward()
    lst = AsList.apply(x)
    obs.update(seen=seen, grad=repr(x.grad), lst=(type(lst).__name__, repr(lst)))
    return obs


def test_non_tensor_outputs(et, torch_ref):
    obs = both(et, torch_ref, non_tensor_outputs)
    assert obs["b"] == 7 and obs["seen"] == [("tensor([1., 1.])", "None", "tensor([1., 1.])")]
    assert obs["lst"] == ("list", "[tensor([2., 4.])]")


# ----- Inputs returned as they are, mark_dirty -----

def identity(T):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = T.tensor([3.0, 1.0], requires_grad=True)
    y = Id.apply(x)
    obs = {"y": (repr(y), y is x, y._base is x, y.is_leaf, y._version)}
    y.sum().backward()
    obs["grad"] = repr(x.grad)
    with T.no_grad():
        n = Id.apply(x)
    obs["no_grad"] = (n is x, n.requires_grad, n._base is x)
    plain = T.ones(2)
    p = Id.apply(plain)
    obs["plain"] = (p is plain, p.requires_grad, p._base is plain)
    return obs


def test_returning_an_input_gives_a_new_tensor(et, torch_ref):
    obs = both(et, torch_ref, identity)
    assert obs["y"] == ("tensor([3., 1.], grad_fn=<IdBackward>)", False, True, False, 0)
    assert obs["grad"] == "tensor([5., 5.])"


def dirty(T):
    class Double_(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Forgot(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(1)
            ctx.mark_dirty(x)
            return y * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    v0 = b._version
    c = Double_.apply(b)
    obs = {"c": (c is b, repr(b), b._version - v0, b.grad_fn.name())}
    c.sum().backward()
    obs["grad"] = repr(a.grad)
    obs["leaf"] = error(lambda: Double_.apply(T.tensor([1.0], requires_grad=True)))
    obs["forgot"] = error(lambda: Forgot.apply(a.clone(), a))
    return obs


def test_mark_dirty(et, torch_ref):
    obs = both(et, torch_ref, dirty)
    assert obs["c"] == (True, "tensor([2., 4.], grad_fn=<Double_Backward>)", 2, "Double_Backward")
    assert obs["leaf"] == ("RuntimeError", "a leaf Variable that requires grad has been used in an in-place operation.")
    assert obs["forgot"][1].startswith("Some elements marked as dirty during the forward method were not returned")


# ----- Double backward: differentiable backward, a Function in another's backward, once_differentiable -----

def cube(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, dy):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(dy, x)

    class CubeBackward(T.autograd.Function):
        @staticmethod
        def forward(ctx, dy, x):
            ctx.save_for_backward(dy, x)
            return dy * 3 * x ** 2

        @staticmethod
        def backward(ctx, ddx):
            dy, x = ctx.saved_tensors
            return ddx * 3 * x ** 2, ddx * 6 * dy * x

    x = T.tensor([1.5, -2.0], dtype=T.float64, requires_grad=True)
    out = Cube.apply(x)
    (gx,) = T.autograd.grad(out.sum(), x, create_graph=True)
    (ggx,) = T.autograd.grad(gx.sum(), x)
    return repr(out), repr(gx), edges(gx.grad_fn), repr(ggx)


def test_function_inside_another_functions_backward(et, torch_ref):
    out, gx, gx_edges, ggx = both(et, torch_ref, cube)
    assert "grad_fn=<CubeBackward>" in out and "grad_fn=<CubeBackwardBackward>" in gx
    assert gx_edges == ((None, 0), ("AccumulateGrad", 0))
    assert ggx == "tensor([  9., -12.], dtype=torch.float64)"


def once(T):
    from_ = T.autograd.function

    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @from_.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = T.tensor([1.0, 3.0], requires_grad=True)
    (g,) = T.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    obs = {"plain": (repr(g), g.requires_grad)}
    v = T.ones(2, requires_grad=True)
    (h,) = T.autograd.grad(Square.apply(x), x, v, create_graph=True)
    obs["delayed"] = (h.grad_fn.name(), type(h.grad_fn).__name__, edges(h.grad_fn), h.requires_grad)
    obs["twice"] = error(lambda: h.sum().backward())
    return obs


def test_once_differentiable(et, torch_ref):
    obs = both(et, torch_ref, once)
    assert obs["plain"] == ("tensor([2., 6.])", False)
    assert obs["delayed"] == ("torch::autograd::Error", "Error", (("AccumulateGrad", 0),), True)
    assert obs["twice"] == ("RuntimeError",
                            "trying to differentiate twice a function that was marked with @once_differentiable")


# ----- What backward may return -----

def bad_backwards(T):
    def fn(name, backward, n_args=1):
        def forward(ctx, *args):
            return args[0] * 2

        cls = type(name, (T.autograd.Function,),
                   {"forward": staticmethod(forward), "backward": staticmethod(backward)})
        return lambda *args: cls.apply(*args)

    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    two = T.ones(2, dtype=T.float64)
    obs = {}
    obs["too_few"] = error(lambda: fn("TooFew", lambda ctx, g: g)(x, x).sum().backward())
    obs["non_tensor_input"] = error(lambda: fn("NonTensor", lambda ctx, g: (g, g))(x, 2).sum().backward())
    obs["wrong_shape"] = error(lambda: fn("WrongShape", lambda ctx, g: T.ones(3))(x).sum().backward())
    obs["not_a_tensor"] = error(lambda: fn("Float", lambda ctx, g: 3.0)(x).sum().backward())
    obs["bad_type"] = error(lambda: fn("Str", lambda ctx, g: "grad")(x).sum().backward())
    fn("ExtraNones", lambda ctx, g: (g, None, None))(x).sum().backward()
    obs["extra_nones"] = repr(x.grad)
    x.grad = None
    fn("Broadcast", lambda ctx, g: T.ones(4, 2, dtype=T.float32))(x).sum().backward()
    obs["reduced_and_cast"] = repr(x.grad)
    obs["single_for_two"] = error(lambda: fn("Single", lambda ctx, g: g * 3)(x, two).backward(two))
    return obs


def test_errors_from_backward(et, torch_ref):
    obs = both(et, torch_ref, bad_backwards)
    assert obs["too_few"] == ("RuntimeError",
                              "function TooFewBackward returned an incorrect number of gradients (expected 2, got 1)")
    assert obs["non_tensor_input"][1] == (
        "function NonTensorBackward returned a gradient different than None at position 2, but the "
        "corresponding forward input was not a Variable")
    assert obs["wrong_shape"][1] == (
        "Function WrongShapeBackward returned an invalid gradient at index 0 - got [3] but expected shape "
        "compatible with [2]")
    assert obs["not_a_tensor"] == ("RuntimeError", "expected Variable or None (got float)")
    assert obs["reduced_and_cast"] == "tensor([4., 4.], dtype=torch.float64)"


def saved_errors(T):
    class Out(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class SaveInt(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = Out.apply(x)
    y.add_(1)
    obs = {"modified": error(lambda: y.sum().backward())}
    obs["save_int"] = error(lambda: SaveInt.apply(x))
    with T.no_grad():
        obs["save_int_no_grad"] = error(lambda: SaveInt.apply(x))
    return obs


def test_saved_tensor_errors(et, torch_ref):
    obs = both(et, torch_ref, saved_errors)
    expected = "[torch.FloatTensor [2]], which is output 0 of Out, is at version 1; expected version 0"
    assert expected in obs["modified"][1]
    assert obs["save_int"] == ("TypeError", "save_for_backward can only save variables, but argument 1 is of type int")
    assert obs["save_int_no_grad"] is None


# ----- Hooks, calling the node, vjp instead of backward -----

def hooks(T):
    calls = []

    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class ByVjp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 4

        @staticmethod
        def vjp(ctx, g):
            return g * 4

    x = T.tensor([3.0], requires_grad=True)
    y = Sq.apply(x)
    y.grad_fn.register_hook(lambda gi, go: calls.append(("post", repr(gi), repr(go))))
    y.grad_fn.register_prehook(lambda go: calls.append(("pre", repr(go))))
    y.register_hook(lambda g: calls.append(("tensor", repr(g))))
    y.backward(retain_graph=True)
    y.backward()
    z = Sq.apply(x)
    obs = {"calls": calls, "grad": repr(x.grad), "apply": repr(z.grad_fn.apply(T.tensor([2.0]))),
           "call": error(lambda: z.grad_fn(T.tensor([2.0])))}
    x.grad = None
    ByVjp.apply(x).backward()
    obs["vjp"] = repr(x.grad)
    return obs


def test_hooks_and_calling_the_node(et, torch_ref):
    obs = both(et, torch_ref, hooks)
    assert [c[0] for c in obs["calls"]] == ["tensor", "pre", "post"] * 2
    assert obs["call"] == ("TypeError", "'SqBackward' object is not callable")
    assert obs["vjp"] == "tensor([4.])"


# ----- Property: a custom exp matches the built-in one, first and second order -----

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3),
                  elements=st.floats(-3, 3, allow_nan=False)))
def test_custom_exp_matches_builtin_and_torch(et, torch_ref, arr):
    def grads(T):
        class MyExp(T.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                r = i.exp()
                ctx.save_for_backward(r)
                return r

            @staticmethod
            def backward(ctx, g):
                (r,) = ctx.saved_tensors
                return g * r

        x = T.tensor(arr, requires_grad=True)
        w = T.tensor(np.linspace(0.5, 1.5, arr.size).reshape(arr.shape))
        (g,) = T.autograd.grad((MyExp.apply(x) * w).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * w).sum(), x)
        return g.detach().numpy(), gg.numpy(), type(g.grad_fn).__name__

    ours, theirs = grads(et), grads(torch_ref)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    expected = np.exp(arr) * np.linspace(0.5, 1.5, arr.size).reshape(arr.shape)
    np.testing.assert_allclose(ours[0], expected, rtol=1e-12)
    assert ours[2] == theirs[2] == "MulBackward0"
