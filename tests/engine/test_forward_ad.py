"""Forward-mode AD (``torch.autograd.forward_ad``) against PyTorch 2.13: the tangent of every op in
the shared op table, dual tensors as PyTorch prints and unpacks them, in-place ops and views,
custom Functions with ``jvp``, ``gradcheck(check_forward_ad=True)``, PyTorch's forward-AD tutorial,
and the errors."""
import numpy as np
import pytest

import engine
import opinfo
from test_ops import as_outputs

CASES = opinfo.CASES


def _tangents(case, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape) for a in case.inputs()]


def _jvp(T, case):
    """The op's outputs and their tangents, float64, each input that would require grad made dual."""
    fwAD = T.autograd.forward_ad
    with fwAD.dual_level():
        inputs = []
        for a, t, dual in zip(case.inputs(), _tangents(case), case.grad_flags()):
            x = T.tensor(a, dtype=T.float64)
            inputs.append(fwAD.make_dual(x, T.tensor(t, dtype=T.float64)) if dual else x)
        outs = as_outputs(case.fn(T, *inputs))
        return [(o.detach().numpy().copy(),
                 None if fwAD.unpack_dual(o).tangent is None else fwAD.unpack_dual(o).tangent.numpy().copy())
                for o in outs]


def _finite_difference(case, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / 2 eps, in float64, for each float output."""
    def at(sign):
        xs = [engine.tensor(a + sign * eps * t if dual else a, dtype=engine.float64)
              for a, t, dual in zip(case.inputs(), _tangents(case), case.grad_flags())]
        return [o.detach().numpy() for o in as_outputs(case.fn(engine, *xs))]
    return [(p - m) / (2 * eps) if p.dtype.kind == "f" else None for p, m in zip(at(1), at(-1))]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_tangent_of_every_op(case, torch_ref):
    """Each op's tangent is PyTorch's; where PyTorch has no forward formula, finite differences'."""
    ours = _jvp(engine, case)
    try:
        ref = _jvp(torch_ref, case)
    except NotImplementedError:
        ref = None
    if ref is None:
        for (value, tangent), fd in zip(ours, _finite_difference(case)):
            if fd is not None:
                np.testing.assert_allclose(tangent, fd, rtol=1e-4, atol=1e-5)
        return
    assert len(ours) == len(ref)
    for k, ((v, t), (rv, rt)) in enumerate(zip(ours, ref)):
        np.testing.assert_allclose(v, rv, rtol=1e-7, atol=1e-9, err_msg=f"output {k} value")
        assert (t is None) == (rt is None), f"output {k}: tangent {'missing' if t is None else 'unexpected'}"
        if t is not None:
            np.testing.assert_allclose(t, rt, rtol=1e-6, atol=1e-8, err_msg=f"output {k} tangent")


# ----- PyTorch's forward-mode AD tutorial (intermediate/forward_ad_usage), section by section -----

def _tutorial(torch):
    import functools

    fwAD = torch.autograd.forward_ad
    nn = torch.nn
    torch.manual_seed(0)
    seen = {}

    primal = torch.randn(10, 10)
    tangent = torch.randn(10, 10)

    def fn(x, y):
        return x ** 2 + y ** 2

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        assert fwAD.unpack_dual(dual_input).tangent is tangent
        dual_input_alt = fwAD.make_dual(primal, tangent.T)
        assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
        seen["alt layout"] = fwAD.unpack_dual(dual_input_alt).tangent.stride()
        plain_tensor = torch.randn(10, 10)
        dual_output = fn(dual_input, plain_tensor)
        jvp = fwAD.unpack_dual(dual_output).tangent
        seen["basic"] = jvp
    assert fwAD.unpack_dual(dual_output).tangent is None

    model = nn.Linear(5, 5)
    input = torch.randn(16, 5)
    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: torch.rand_like(p) for name, p in params.items()}
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        out = model(input)
        jvp = fwAD.unpack_dual(out).tangent
        seen["module"] = jvp

    functional_call = torch.func.functional_call  # (from torch.func import ..., with torch bound to either)

    model = nn.Linear(5, 5)
    dual_params = {}
    with fwAD.dual_level():
        for name, p in params.items():
            dual_params[name] = fwAD.make_dual(p, tangents[name])
        out = functional_call(model, dual_params, input)
        jvp2 = fwAD.unpack_dual(out).tangent
    assert torch.allclose(jvp, jvp2)
    seen["functional_call"] = jvp2

    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = torch.exp(foo)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            return gO

    fn = Fn.apply
    primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
    tangent = torch.randn(10, 10)
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        dual_output = fn(dual_input)
        jvp = fwAD.unpack_dual(dual_output).tangent
        seen["custom"] = jvp
    seen["gradcheck"] = torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True, check_backward_ad=False,
                                                 check_undefined_grad=False, check_batched_grad=False)

    jvp = torch.func.jvp

    primal0, tangent0, primal1, tangent1 = (torch.randn(10, 10) for _ in range(4))

    def fn(x, y):
        return x ** 2 + y ** 2

    seen["func.jvp"] = jvp(fn, (primal0, primal1), (tangent0, tangent1))
    primal, tangent, y = (torch.randn(10, 10) for _ in range(3))
    seen["partial"] = jvp(functools.partial(fn, y=y), (primal,), (tangent,))
    return seen


@pytest.mark.torch
def test_pytorch_forward_ad_tutorial(torch_ref):
    ours, ref = _tutorial(engine), _tutorial(torch_ref)
    assert ours.keys() == ref.keys()
    for key in ref:
        a, b = ours[key], ref[key]
        if isinstance(b, tuple) and not isinstance(b[0], int):
            for x, y in zip(a, b):
                np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-5, err_msg=key)
        elif hasattr(b, "numpy"):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5, err_msg=key)
        else:
            assert a == b, key


# ----- Dual tensors as PyTorch prints, unpacks and modifies them, and its errors -----
# Each case runs inside a dual level, with d = make_dual(tensor([1., 2., 3.]), tensor([1., 0., .5])) and
# q = tensor([1., 2.], requires_grad=True); statements, then the expression whose repr is compared.

SNIPPETS = [
    "d", "fwAD.unpack_dual(d)", "type(fwAD.unpack_dual(d)).__name__", "d.grad_fn, d.requires_grad, d.is_leaf",
    "d.sin() * 2 + d ** 2", "fwAD.unpack_dual(d.exp())", "fwAD.unpack_dual(T.ones(3))", "T.ones(3) * 5",
    "u = fwAD.unpack_dual(d * 3)\nu.primal.grad_fn, u.primal._base is not None",
    "t = T.tensor([1., 0., .5])\nfwAD.unpack_dual(fwAD.make_dual(T.zeros(3), t)).tangent is t",
    "d.detach()", "d.data", "d.clone()", "d[1]", "d[1:]", "d.view(3, 1)", "d.t()", "d.expand(2, 3)", "d.argmax()",
    "d > 1", "d.numpy()", "d.tolist()", "d.sum()", "d.mean()", "d.to(T.float64)", "d.int()",
    "with T.no_grad():\n    out = d * 2\nout",
    "d + T.ones(3)", "T.stack([d, T.zeros(3)])", "T.cat([d, d])", "d @ T.ones(3, 2)", "F.relu(d - 1.5)",
    "F.softmax(d, 0)", "F.log_softmax(d, 0)", "T.where(d > 1.5, d, 0.)", "d.max()", "d.sort(descending=True)",
    "T.cummax(d, 0)", "fwAD.unpack_dual(d.norm()).tangent", "d.pow(3).log()", "T.nn.Linear(3, 2)(d)",
    "dq = fwAD.make_dual(q, T.ones(2))\ndq, dq._base is q", "dq = fwAD.make_dual(q, T.ones(2))\n(dq * dq).sum()",
    "dq = fwAD.make_dual(q, T.ones(2))\n(dq * dq).sum().backward()\nq.grad",
    "dq = fwAD.make_dual(q, T.ones(2))\nfwAD.unpack_dual((dq * dq).sum()).tangent",
    "p = fwAD.make_dual(T.tensor([1., 2.]), T.ones(2, requires_grad=True))\nfwAD.unpack_dual((p.sin() * 2).sum())",
    "t = T.ones(2, requires_grad=True)\np = fwAD.make_dual(T.tensor([1., 2.]), t)\n"
    "fwAD.unpack_dual((p.sin() * 2).sum()).tangent.backward()\nt.grad",
    "x = fwAD.make_dual(T.tensor([1., 2.], requires_grad=True), T.ones(2))\n"
    "g, = T.autograd.grad((x ** 3).sum(), x, create_graph=True)\nfwAD.unpack_dual(g).tangent.detach()",
    "x = fwAD.make_dual(T.tensor([1., 2.], requires_grad=True), T.ones(2))\n"
    "g, = T.autograd.grad((x ** 3).sum(), x)\ng",
    # in place: the tangent changes in place too (the user's tangent object included), views follow
    "e = fwAD.make_dual(T.tensor([1., 2., 3.]), T.ones(3))\ne.mul_(2)\ne",
    "t = T.ones(3)\ne = fwAD.make_dual(T.tensor([1., 2., 3.]), t)\ne.mul_(2)\nt",
    "e = fwAD.make_dual(T.tensor([1., 2., 3.]), T.ones(3))\nv = e[1:]\nv.mul_(T.tensor(2.))\ne, v",
    "e = fwAD.make_dual(T.tensor([1., 2., 3.]), T.ones(3))\nw = e[:2]\ne.mul_(2)\nw",
    "f = T.zeros(3)\nf.add_(d)\nf", "f = T.zeros(3)\nf += d\nf", "g = T.zeros(3)\ng[0] = d[2]\ng",
    "m = T.zeros(2, 3)\nm[0] = d\nm", "m = T.zeros(3)\nm.copy_(d)\nm", "m = T.zeros(3)\nm.fill_(d[0])\nm",
    "m = d.clone()\nm.zero_()\nm", "m = d.clone()\nm.fill_(2.)\nm", "m = T.zeros(2, 3)\nm[:, 1] = d[:2]\nm",
    "d.exp_()", "e = fwAD.make_dual(T.tensor([1., 2., 3.]), T.ones(3))\ne[1] = 5.\ne",
    "m = d.clone()\nm.copy_(T.ones(3))\nm",
    "d.requires_grad_()",
    "T.zeros_like(d)", "d.new_zeros(2)",
    "fwAD.make_dual(T.zeros(3), T.ones(3, dtype=T.float64))",
    # errors
    "fwAD.make_dual(T.zeros(3), T.ones(2))", "fwAD.make_dual(T.tensor([1, 2]), T.tensor([1., 2.]))",
    "fwAD.make_dual(T.zeros(2), T.tensor([1, 2]))", "fwAD.make_dual(d, T.ones(3))",
    "fwAD.unpack_dual(d, level=3)", "fwAD.make_dual(T.zeros(3), T.ones(3), level=2)", "fwAD.unpack_dual(3.0)",
    "fwAD.enter_dual_level()", "fwAD.exit_dual_level(level=5)", "T.heaviside(d, T.tensor([0.5]))",
    "T.floor_divide(d, 2)",
]


class _Jvp:
    """Custom Functions for the cases below: defined once per module."""

    def __init__(self, T):
        fwAD = T.autograd.forward_ad

        class Fn(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                ctx.save_for_forward(x, y)
                ctx.seen = repr(fwAD.unpack_dual(x).tangent)  # forward sees no tangent
                return x * y * k

            @staticmethod
            def jvp(ctx, gx, gy, gk):
                x, y = ctx.saved_tensors
                return gx * y * 3 + gy + (0 if gk is None else 1)

        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def jvp(ctx, gx):
                return gx * 2

        class Short(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def jvp(ctx, gx):
                return gx[:1]

        class Number(Short):
            @staticmethod
            def jvp(ctx, gx):
                return 3

        class NoJvp(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.exp()

            @staticmethod
            def backward(ctx, g):
                return g

        self.__dict__.update(Fn=Fn, Two=Two, Short=Short, Number=Number, NoJvp=NoJvp)


SNIPPETS += [
    "J.Fn.apply(d, T.tensor([5., 6., 7.]), 3)", "out = J.Fn.apply(d, T.ones(3), 3)\nout.grad_fn is None",
    "J.Fn.apply(T.ones(3), T.ones(3), 3)", "J.Two.apply(d)", "J.Short.apply(d)", "J.Number.apply(d)",
    "J.NoJvp.apply(d)", "J.NoJvp.apply(T.ones(3))",
]


def run(T, source):
    fwAD = T.autograd.forward_ad
    T.manual_seed(0)
    *body, last = source.split("\n")
    env = {"T": T, "fwAD": fwAD, "F": T.nn.functional, "J": _Jvp(T)}
    try:
        with fwAD.dual_level():
            env["d"] = fwAD.make_dual(T.tensor([1., 2., 3.]), T.tensor([1., 0., .5]))
            env["q"] = T.tensor([1., 2.], requires_grad=True)
            exec("\n".join(body), env)
            return repr(eval(last, env))
    except Exception as e:  # noqa: BLE001 - the type and message are the observation
        return f"{type(e).__name__}: {e}"


@pytest.mark.torch
@pytest.mark.parametrize("source", SNIPPETS)
def test_as_pytorch(torch_ref, source):
    assert run(engine, source) == run(torch_ref, source)


@pytest.mark.torch
def test_tangents_are_dropped_when_the_level_exits(torch_ref):
    for T in (engine, torch_ref):
        fwAD = T.autograd.forward_ad
        with fwAD.dual_level():
            y = fwAD.make_dual(T.tensor([1., 2.]), T.ones(2)) * 2
            assert fwAD.unpack_dual(y).tangent is not None
        assert fwAD.unpack_dual(y).tangent is None
        assert repr(y) == "tensor([2., 4.])"
        with pytest.raises(RuntimeError, match="Trying to create a dual Tensor for forward AD but no level exists"):
            fwAD.make_dual(T.zeros(2), T.ones(2))
        with pytest.raises(RuntimeError, match="Dual level must be a positive number."):
            fwAD.exit_dual_level()


def test_shape_changing_in_place_methods_reshape_the_tangent(torch_ref, et):
    """``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``: the tangent takes the new shape with the primal."""
    from tests.engine.opinfo import outcome

    def reshaped(t):
        import importlib

        fwAD = importlib.import_module(t.__name__ + ".autograd.forward_ad")
        out = []
        for name, args in (("squeeze_", ()), ("unsqueeze_", (0,)), ("t_", ()), ("transpose_", (0, 1)),
                           ("squeeze_", (1,))):
            with fwAD.dual_level():
                d = fwAD.make_dual(t.arange(2.).view(2, 1).clone(), t.tensor([[1.], [2.]]))
                p = fwAD.unpack_dual(getattr(d, name)(*args))
                out.append((tuple(p.primal.shape), p.tangent.tolist()))
        return out

    ours, ref = outcome(reshaped, et)[0], outcome(reshaped, torch_ref)[0]
    assert ours == ref
    assert ref[1][0] == ((2,), [1.0, 2.0]) and ref[1][2] == ((1, 2), [[1.0, 2.0]])
