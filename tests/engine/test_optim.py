"""``torch.optim`` against PyTorch 2.13: the same steps give the same parameters, state, state
dicts, reprs, hooks and errors.

The optimizers do PyTorch's single-tensor arithmetic operation for operation, rounded as its CPU
kernels round (fused multiply-adds included), so float32 SGD comes out bit for bit. The one op
that is not is ``sqrt``: PyTorch's (MKL's) float32 sqrt is an ulp off for about one value in a
hundred, so Adam, RMSprop and Adagrad may differ by an ulp of the denominator at a step. The
tolerances below are a few ulps (float32 eps is 1.19e-7) and were measured, not guessed: on this
data SGD is bit for bit; Adam/AdamW reach 1 ulp (rel 1e-7); RMSprop 3e-8 absolute at lr=0.01.
"""
import copy
import warnings

import numpy as np
import pytest

import engine
import engine.optim
from tests.engine.opinfo import same

pytestmark = pytest.mark.torch

EPS32 = float(np.finfo(np.float32).eps)
# (rtol, atol) for float32 parameters and state after each of 20 steps. The atol is an ulp or two
# of a parameter near 1: PyTorch's kernels round differently on AVX-512 and AVX2 machines (seen
# on AMD EPYC), by an ulp of the value before an update that then cancels to near 0.
TOL = {
    "SGD": (2 * EPS32, 0.0),
    "Adam": (4 * EPS32, 3e-7),
    "AdamW": (4 * EPS32, 3e-7),
    "Adagrad": (4 * EPS32, 3e-7),
    "RMSprop": (4 * EPS32, 3e-7),
}

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 5)).astype(np.float32)
Y = RNG.standard_normal((16, 7)).astype(np.float32)
W0 = RNG.standard_normal((5, 7)).astype(np.float32)  # 35 values: a vector kernel's full chunks and a tail
B0 = RNG.standard_normal(7).astype(np.float32)


def _regression_grads(w, b):
    """The gradient of mean((x @ w + b - y) ** 2) / 2 at (w, b), in NumPy."""
    r = X @ w + b - Y
    return (X.T @ r / np.float32(16)).astype(w.dtype), r.mean(0).astype(b.dtype)


def _np(t):
    return t.detach().numpy()


def _make(lib, name, kwargs, groups, dtype="float32"):
    w = lib.tensor(W0.astype(dtype), requires_grad=True)
    b = lib.tensor(B0.astype(dtype), requires_grad=True)
    params = [{"params": [w]}, {"params": [b], "lr": 0.05}] if groups else [w, b]
    return w, b, getattr(lib.optim, name)(params, **kwargs)


def _lockstep(torch_ref, name, kwargs, groups=False, steps=20, dtype="float32"):
    """Yield (torch's (w, b, opt), the engine's) after each step. Both get the same gradient,
    taken at PyTorch's parameters, so a difference is the step's alone and never feeds back."""
    ref, ours = _make(torch_ref, name, kwargs, groups, dtype), _make(engine, name, kwargs, groups, dtype)
    for _ in range(steps):
        gw, gb = _regression_grads(_np(ref[0]), _np(ref[1]))
        for lib, (w, b, opt) in ((torch_ref, ref), (engine, ours)):
            w.grad, b.grad = lib.tensor(gw.copy()), lib.tensor(gb.copy())
            opt.step()
        yield ref, ours


CONFIGS = [
    ("SGD", {"lr": 0.1}, False),
    ("SGD", {"lr": 0.1, "momentum": 0.9}, False),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}, False),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}, False),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}, False),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}, True),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "foreach": False}, False),
    ("Adam", {"lr": 0.01}, False),
    ("Adam", {"lr": 0.01, "amsgrad": True}, False),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1}, False),
    ("Adam", {"lr": 0.01, "maximize": True}, False),
    ("Adam", {"lr": 0.01, "betas": (0.5, 0.3), "eps": 1e-3}, False),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1, "decoupled_weight_decay": True}, True),
    ("AdamW", {"lr": 0.01}, False),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}, False),
    ("AdamW", {"lr": 0.01, "maximize": True, "betas": (0.8, 0.99)}, True),
    ("RMSprop", {"lr": 0.01}, False),
    ("RMSprop", {"lr": 0.01, "centered": True}, False),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}, False),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "maximize": True, "alpha": 0.3}, True),
    ("Adagrad", {"lr": 0.1}, False),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.5}, False),
    ("Adagrad", {"lr": 0.1, "maximize": True, "eps": 1e-3}, True),
]


@pytest.mark.parametrize("name, kwargs, groups", CONFIGS, ids=lambda v: str(v) if not isinstance(v, bool) else
                         ("groups" if v else "one-group"))
def test_each_step_matches_pytorch(torch_ref, name, kwargs, groups):
    rtol, atol = TOL[name]
    for step, (ref, ours) in enumerate(_lockstep(torch_ref, name, kwargs, groups), 1):
        for t, e in zip(ref[:2], ours[:2]):
            np.testing.assert_allclose(_np(e), _np(t), rtol=rtol, atol=atol, err_msg=f"step {step}")
            assert e._version == t._version
            t_state, e_state = ref[2].state[t], ours[2].state[e]
            assert list(e_state) == list(t_state)
            for key, tv in t_state.items():
                ev = e_state[key]
                assert ev.dtype == engine.float32 and ev._version == tv._version, key
                if key == "step":
                    assert ev.item() == tv.item() == step
                else:  # (a state value can cancel down from the tensor's largest: an ulp of that)
                    tv = _np(tv)
                    np.testing.assert_allclose(_np(ev), tv, rtol=rtol, atol=max(atol, rtol * np.abs(tv).max()),
                                               err_msg=f"{key} {step}")


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_float32_steps_are_pytorchs_bit_for_bit_on_this_data(torch_ref, name):
    # The kernels' rounding (fused multiply-adds, scalars cast to float32, PyTorch's operation
    # order) is reproduced: SGD exactly; Adam, whose sqrt and division PyTorch vectorizes
    # differently on AVX-512 and AVX2 machines, to one ulp (exactly on the AVX-512 machines here).
    kwargs = {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.05} if name == "SGD" else \
        {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}
    ulps = 0 if name == "SGD" else 1
    for ref, ours in _lockstep(torch_ref, name, kwargs):
        for e, t in zip(ours[:2], ref[:2]):
            e, t = _np(e), _np(t)
            assert e.dtype == t.dtype == np.float32
            apart = np.abs(e - t) / np.spacing(np.maximum(np.abs(e), np.abs(t)))
            assert apart.max() <= ulps, f"{apart.max()} ulps apart"


@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
                                          ("Adam", {"lr": 0.01, "amsgrad": True}),
                                          ("AdamW", {"lr": 0.01}),
                                          ("Adagrad", {"lr": 0.1, "lr_decay": 0.1}),
                                          ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.9})])
def test_float64_steps_match_pytorch(torch_ref, name, kwargs):
    for ref, ours in _lockstep(torch_ref, name, kwargs, dtype="float64"):
        for t, e in zip(ref[:2], ours[:2]):
            assert e.dtype == engine.float64
            np.testing.assert_allclose(_np(e), _np(t), rtol=4e-16, atol=1e-15)
        t_state, e_state = ref[2].state[ref[0]], ours[2].state[ours[0]]
        assert [(k, str(v.dtype)) for k, v in e_state.items()] == [(k, str(v.dtype)) for k, v in t_state.items()]
    assert name == "SGD" or str(e_state["step"].dtype) == "torch.float32"  # the default dtype's, as PyTorch


def test_step_under_float64_default_keeps_a_float64_step(torch_ref):
    steps = []
    for lib in (torch_ref, engine):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            p = lib.ones(2, requires_grad=True)
            p.grad = lib.ones(2)
            opt = lib.optim.Adam([p])
            opt.step()
            steps.append(str(opt.state[p]["step"].dtype))
        finally:
            lib.set_default_dtype(old)
    assert steps == ["torch.float64", "torch.float64"]


def _regression_loss(lib, w, b):
    x, y = lib.tensor(X), lib.tensor(Y)
    return ((x @ w + b - y) ** 2).mean()


@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
                                          ("Adam", {"lr": 0.05}), ("AdamW", {"lr": 0.05, "amsgrad": True})])
def test_training_loop_with_backward_and_closure(torch_ref, name, kwargs):
    # The tutorials' loop: zero_grad, backward, step; and step(closure), which returns the loss.
    runs = []
    for lib in (torch_ref, engine):
        w, b, opt = _make(lib, name, kwargs, groups=False)
        losses = []
        for i in range(20):
            if i % 2:
                def closure():
                    opt.zero_grad()
                    loss = _regression_loss(lib, w, b)
                    loss.backward()
                    return loss

                losses.append(opt.step(closure).item())
            else:
                opt.zero_grad()
                loss = _regression_loss(lib, w, b)
                loss.backward()
                assert opt.step() is None
                losses.append(loss.item())
        runs.append((losses, _np(w), _np(b)))
    (t_losses, tw, tb), (e_losses, ew, eb) = runs
    assert e_losses[-1] < 0.7 * e_losses[0]  # it trains
    # The gradients come from each library's own backward (matmul, mean): a few float32 ulps apart.
    np.testing.assert_allclose(e_losses, t_losses, rtol=1e-5)
    np.testing.assert_allclose(ew, tw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eb, tb, rtol=1e-5, atol=1e-6)


def test_parameter_stays_the_same_leaf_updated_in_place(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        p = lib.tensor([1.0, -2.0], requires_grad=True)
        alias = p.data  # shares p's memory: sees every step
        opt = lib.optim.SGD([p], lr=0.5)
        (p * p).sum().backward()
        opt.step()
        opt.step()
        out.append((opt.param_groups[0]["params"][0] is p, p.is_leaf, p.requires_grad, p.grad_fn,
                    p._version, alias.tolist(), p.tolist(), p.grad.tolist()))
    assert out[0] == out[1] == (True, True, True, None, 2, [-1.0, 2.0], [-1.0, 2.0], [2.0, -4.0])


@pytest.mark.parametrize("outer_grad", [True, False])
def test_the_closure_runs_with_grad_on(torch_ref, outer_grad):
    # (The step itself runs under no_grad: else every in-place update of a leaf above would raise.)
    seen = []
    for lib in (torch_ref, engine):
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.Adam([p])
        modes = []
        opt.register_step_pre_hook(lambda o, a, k: modes.append(("pre", lib.is_grad_enabled())))

        def closure():
            modes.append(("closure", lib.is_grad_enabled()))
            loss = (p * 3).sum()
            loss.backward()
            return loss

        with lib.set_grad_enabled(outer_grad):
            loss = opt.step(closure)
            modes.append(("after", loss.item(), loss.requires_grad, lib.is_grad_enabled(), p.grad_fn))
        seen.append(modes)
    assert seen[0] == seen[1] == [("pre", outer_grad), ("closure", True), ("after", 6.0, True, outer_grad, None)]


def test_parameters_without_grad_are_skipped(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opts = [lib.optim.SGD([a, b], lr=0.1, momentum=0.9), lib.optim.Adam([a, b], lr=0.1),
                lib.optim.RMSprop([a, b]), lib.optim.Adagrad([a, b])]
        a.grad = lib.full((2,), 0.5)
        for opt in opts:
            opt.step()
        out.append((a.tolist(), b.tolist(), b._version, [sorted(opt.state_dict()["state"]) for opt in opts]))
    # Adagrad makes every parameter's state up front.
    assert out[0] == out[1]
    assert out[1][1:] == ([1.0, 1.0, 1.0], 0, [[0], [0], [0], [0, 1]])


def _plain(x):
    """A state dict as plain data: tensors as (dtype, shape, values), containers kept."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if hasattr(x, "detach"):
        return (str(x.dtype), tuple(x.shape), _np(x).tolist())
    return x


def test_state_dict_layout_and_values(torch_ref):
    dicts = []
    for lib in (torch_ref, engine):
        w, b, c = lib.ones(2, 2, requires_grad=True), lib.ones(2, requires_grad=True), lib.ones(1, requires_grad=True)
        opt = lib.optim.Adam([{"params": [w, b]}, {"params": [c], "lr": 0.5, "betas": (0.5, 0.5)}], lr=0.1,
                             amsgrad=True)
        for step in range(3):
            b.grad, c.grad = lib.full((2,), 0.25 * step + 0.5), lib.full((1,), -1.0)  # w has none
            opt.step()
        sd = opt.state_dict()
        shares = sd["state"][1]["exp_avg"] is opt.state[b]["exp_avg"]  # the same tensors, not copies
        dicts.append((_plain(sd), [list(s) for s in sd["state"].values()], shares))
    assert dicts[0] == dicts[1]
    sd, _, shares = dicts[1]
    assert shares and list(sd["state"]) == [1, 2]
    assert sd["param_groups"][1] == {"lr": 0.5, "betas": (0.5, 0.5), "eps": 1e-08, "weight_decay": 0,
                                     "amsgrad": True, "maximize": False, "foreach": None, "capturable": False,
                                     "differentiable": False, "fused": None, "decoupled_weight_decay": False,
                                     "params": [2]}
    assert sd["state"][2]["step"] == ("torch.float32", (), 3.0)


def test_state_dict_of_named_and_duplicated_parameters(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        p, q = lib.ones(2, requires_grad=True), lib.ones(1, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dup = lib.optim.SGD([p, q, p], lr=0.1, momentum=0.9)
        p.grad, q.grad = lib.ones(2), lib.ones(1)
        dup.step()
        named = lib.optim.SGD([("w", p), ("b", q)], lr=0.1)
        out.append((_plain(dup.state_dict()), p.tolist(), [str(w.message)[:44] for w in caught],
                    _plain(named.state_dict()), repr(named)))
    assert out[0] == out[1]
    sd, p_values = out[1][0], out[1][1]
    # PyTorch indexes a repeated parameter by its last position and updates it once per listing,
    # each time from the momentum buffer as it was before the step.
    assert sd["param_groups"][0]["params"] == [2, 1, 2] and p_values == [float(np.float32(0.9) - np.float32(0.1))] * 2
    assert out[1][3]["param_groups"][0]["param_names"] == ["w", "b"]


@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.01}),
                                          ("AdamW", {"amsgrad": True}), ("RMSprop", {"momentum": 0.5}),
                                          ("Adagrad", {"lr_decay": 0.1})])
def test_load_state_dict_resumes_training(torch_ref, name, kwargs):
    finals = []
    for lib in (torch_ref, engine):
        w, b, opt = _make(lib, name, kwargs, groups=True)
        for _ in range(5):
            w.grad, b.grad = (lib.tensor(g) for g in _regression_grads(_np(w), _np(b)))
            opt.step()
        # A fresh optimizer over copies of the parameters picks up where this one stopped. (A copy
        # of the state dict, as torch.save makes: loading shares the tensors with the dict.)
        saved = copy.deepcopy(opt.state_dict())
        w2, b2 = (t.detach().clone().requires_grad_() for t in (w, b))
        opt2 = getattr(lib.optim, name)([{"params": [w2]}, {"params": [b2]}], lr=123.0)
        opt2.load_state_dict(saved)
        assert opt2.param_groups[1]["lr"] == 0.05 and opt2.param_groups[0]["params"][0] is w2
        for pair in ((w, b, opt), (w2, b2, opt2)):
            for _ in range(5):
                pair[0].grad, pair[1].grad = (lib.tensor(g) for g in _regression_grads(_np(pair[0]), _np(pair[1])))
                pair[2].step()
        np.testing.assert_array_equal(_np(w2), _np(w))  # resumed exactly
        finals.append((_np(w2), _plain(opt2.state_dict()) == _plain(opt.state_dict())))
    assert finals[1][1] and finals[0][1]
    np.testing.assert_allclose(finals[1][0], finals[0][0], rtol=TOL[name][0], atol=TOL[name][1])


def test_load_state_dict_casts_state_to_the_parameters_dtype(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.Adam([p])
        opt.step()
        sd = opt.state_dict()
        q = lib.ones(2, dtype=lib.float64, requires_grad=True)
        opt2 = lib.optim.Adam([q])
        opt2.load_state_dict(sd)
        st = opt2.state[q]
        out.append((str(st["exp_avg"].dtype), str(st["step"].dtype), st["step"] is sd["state"][0]["step"],
                    st is sd["state"][0]))
    assert out[0] == out[1] == ("torch.float64", "torch.float32", True, False)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(torch_ref, set_to_none):
    out = []
    for lib in (torch_ref, engine):
        p, q = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        (p * p).sum().backward(create_graph=True)  # p.grad has a grad_fn
        q.grad = lib.full((2,), 3.0)
        g_p, g_q = p.grad, q.grad
        lib.optim.SGD([p, q]).zero_grad(set_to_none)
        out.append([(t.grad is None, t.grad is g, None if t.grad is None else
                     (t.grad.tolist(), t.grad.requires_grad, t.grad.grad_fn is None)) for t, g in ((p, g_p), (q, g_q))])
    assert out[0] == out[1]
    if set_to_none:
        assert out[1] == [(True, False, None)] * 2
    else:
        assert out[1] == [(False, True, ([0.0, 0.0], False, True))] * 2


def test_zero_grad_default_sets_none(torch_ref):
    p = engine.ones(2, requires_grad=True)
    p.grad = engine.ones(2)
    engine.optim.Adam([p]).zero_grad()
    assert p.grad is None


NAMED_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


@pytest.mark.parametrize("name", NAMED_OPTIMIZERS)
def test_repr_and_defaults(torch_ref, name):
    out = []
    for lib in (torch_ref, engine):
        p, q = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
        opt = getattr(lib.optim, name)([{"params": [p]}, {"params": [q], "lr": 0.25, "weight_decay": 0.5}])
        out.append((repr(opt), str(opt), opt.defaults, [{k: v for k, v in g.items() if k != "params"}
                                                         for g in opt.param_groups]))
    assert out[0] == out[1]


@pytest.mark.parametrize("name", NAMED_OPTIMIZERS)
def test_signatures_are_pytorchs(torch_ref, name):
    import inspect

    def params(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert params(getattr(engine.optim, name)) == params(getattr(torch_ref.optim, name))


def test_repr_exact_text():
    p = engine.ones(1, requires_grad=True)
    assert repr(engine.optim.SGD([p], lr=0.1)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n)")
    assert repr(engine.optim.AdamW([p])).splitlines()[5:7] == ["    decoupled_weight_decay: True",
                                                               "    differentiable: False"]


@pytest.mark.parametrize("build", [
    lambda t, p: t.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.5, weight_decay=1e-4, maximize=True,
                             foreach=False, fused=None),
    lambda t, p: t.optim.SGD([p], lr=t.tensor(0.1)),
    lambda t, p: t.optim.Adam([p], lr=0.1, betas=(0.8, 0.9), eps=1e-6, amsgrad=True, fused=True),
    lambda t, p: t.optim.RMSprop([p], 0.1, 0.9, 1e-6, 0.1, 0.2, True, False, True, True),
    lambda t, p: t.optim.Adagrad([p], 0.1, 0.01, 0.2, 0.3, 1e-5, True),
    lambda t, p: t.optim.Optimizer([p], {"lr": 1, "beta": (1, 2)}),
], ids=["sgd-options", "tensor-lr", "adam-options", "rmsprop-positional", "adagrad-positional", "base"])
def test_repr_with_options(torch_ref, build):
    assert repr(build(engine, engine.ones(1, requires_grad=True))) == repr(
        build(torch_ref, torch_ref.ones(1, requires_grad=True)))


def _leaf(t):
    p = t.zeros(2, requires_grad=True)
    p.grad = t.ones(2)
    return p


def _nonleaf_retaining_grad(t):
    q = t.zeros(2, requires_grad=True) * 2
    q.retain_grad()
    return repr(t.optim.SGD([q]))


def _duplicate_across_groups(t):
    p = _leaf(t)
    return t.optim.SGD([{"params": [p]}, {"params": p}])


def _add_group(t):
    opt = t.optim.SGD([_leaf(t)], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": t.ones(3, requires_grad=True), "lr": 5})
    return repr(opt), [len(g["params"]) for g in opt.param_groups]


def _add_group_with_names_to_unnamed(t):
    t.optim.SGD([_leaf(t)]).add_param_group({"params": [("w", _leaf(t))]})


def _required_option(t):
    from importlib import import_module

    required = import_module(t.__name__ + ".optim.optimizer").required
    return t.optim.Optimizer([_leaf(t)], {"lr": required})


def _load(groups, state):
    def run(t):
        t.optim.SGD([_leaf(t)]).load_state_dict({"state": state, "param_groups": groups})

    return run


ERRORS = {
    "single_tensor": lambda t: t.optim.SGD(_leaf(t)),
    "empty": lambda t: t.optim.SGD([]),
    "empty_generator": lambda t: t.optim.Adam(iter([])),
    "not_iterable": lambda t: t.optim.SGD(5),
    "non_leaf": lambda t: t.optim.SGD([_leaf(t) * 2]),
    "non_leaf_retaining_grad_is_fine": _nonleaf_retaining_grad,
    "number_param": lambda t: t.optim.SGD([_leaf(t), 1.0]),
    "str_param": lambda t: t.optim.Adam(["a"]),
    "dict_after_tensor": lambda t: t.optim.SGD([_leaf(t), {"params": [_leaf(t)]}]),
    "tensor_after_dict": lambda t: t.optim.SGD([{"params": [_leaf(t)]}, _leaf(t)]),
    "set_in_group": lambda t: t.optim.SGD([{"params": {_leaf(t)}}]),
    "duplicate_across_groups": _duplicate_across_groups,
    "some_names_missing": lambda t: t.optim.SGD([("a", _leaf(t)), _leaf(t)]),
    "names_in_one_group_only": lambda t: t.optim.SGD([{"params": [("a", _leaf(t))]}, {"params": [_leaf(t)]}]),
    "add_group_not_dict": lambda t: t.optim.SGD([_leaf(t)]).add_param_group([_leaf(t)]),
    "add_group": _add_group,
    "add_group_names_mismatch": _add_group_with_names_to_unnamed,
    "required_option_missing": _required_option,
    "sgd_negative_lr": lambda t: t.optim.SGD([_leaf(t)], lr=-1.0),
    "sgd_negative_int_lr": lambda t: t.optim.SGD([_leaf(t)], lr=-1),
    "sgd_tensor_lr_size": lambda t: t.optim.SGD([_leaf(t)], lr=t.tensor([0.1, 0.2])),
    "sgd_negative_momentum": lambda t: t.optim.SGD([_leaf(t)], momentum=-0.5),
    "sgd_negative_weight_decay": lambda t: t.optim.SGD([_leaf(t)], weight_decay=-0.5),
    "sgd_nesterov_without_momentum": lambda t: t.optim.SGD([_leaf(t)], nesterov=True),
    "sgd_nesterov_with_dampening": lambda t: t.optim.SGD([_leaf(t)], momentum=0.9, dampening=0.1, nesterov=True),
    "sgd_fused_and_foreach": lambda t: t.optim.SGD([_leaf(t)], fused=True, foreach=True),
    "sgd_fused_differentiable": lambda t: t.optim.SGD([_leaf(t)], fused=True, differentiable=True),
    "sgd_lr_none": lambda t: t.optim.SGD([_leaf(t)], lr=None),
    "sgd_differentiable_step_on_leaf": lambda t: t.optim.SGD([_leaf(t)], differentiable=True).step(),
    "adam_negative_lr": lambda t: t.optim.Adam([_leaf(t)], lr=-0.5),
    "adam_negative_eps": lambda t: t.optim.Adam([_leaf(t)], eps=-1e-8),
    "adam_beta0": lambda t: t.optim.Adam([_leaf(t)], betas=(1.0, 0.5)),
    "adam_beta1": lambda t: t.optim.Adam([_leaf(t)], betas=(0.5, -0.1)),
    "adam_int_beta": lambda t: t.optim.Adam([_leaf(t)], betas=(0, 0.5)),
    "adam_negative_weight_decay": lambda t: t.optim.Adam([_leaf(t)], weight_decay=-1),
    "adamw_negative_weight_decay": lambda t: t.optim.AdamW([_leaf(t)], weight_decay=-1e-2),
    "adam_fused_and_foreach": lambda t: t.optim.Adam([_leaf(t)], fused=True, foreach=True),
    "adam_tensor_lr_with_foreach": lambda t: t.optim.Adam([_leaf(t)], lr=t.tensor(0.1), foreach=True),
    "adam_capturable_step": lambda t: t.optim.Adam([_leaf(t)], capturable=True).step(),
    "adam_differentiable_step_on_leaf": lambda t: t.optim.Adam([_leaf(t)], differentiable=True).step(),
    "adamw_fused_differentiable": lambda t: t.optim.AdamW([_leaf(t)], fused=True, differentiable=True),
    "rmsprop_negative_alpha": lambda t: t.optim.RMSprop([_leaf(t)], alpha=-0.1),
    "rmsprop_negative_momentum": lambda t: t.optim.RMSprop([_leaf(t)], momentum=-0.1),
    "rmsprop_capturable_step": lambda t: t.optim.RMSprop([_leaf(t)], capturable=True).step(),
    "adagrad_negative_lr_decay": lambda t: t.optim.Adagrad([_leaf(t)], lr_decay=-0.1),
    "adagrad_negative_initial_accumulator": lambda t: t.optim.Adagrad([_leaf(t)], initial_accumulator_value=-1),
    "base_step": lambda t: t.optim.Optimizer([_leaf(t)], {}).step(),
    "load_wrong_group_count": _load([], {}),
    "load_wrong_group_size": _load([{"params": [0, 1]}], {}),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_and_warnings_match_pytorch(torch_ref, name):
    def run(t):
        result = ERRORS[name](t)
        return repr(result) if isinstance(result, t.optim.Optimizer) else result

    result = same(torch_ref, engine, run)[0]
    if not name.endswith(("_is_fine", "add_group", "across_groups")):
        assert result[0] == "raised"


def test_error_messages_verbatim():
    p = engine.ones(2, requires_grad=True)
    cases = [(lambda: engine.optim.SGD([p], lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
             (lambda: engine.optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
             (lambda: engine.optim.SGD([p * 2]), ValueError, "can't optimize a non-leaf Tensor"),
             (lambda: engine.optim.SGD(p), TypeError, "params argument given to the optimizer should be an iterable "
                                                      "of Tensors or dicts, but got torch.FloatTensor")]
    for make, cls, message in cases:
        with pytest.raises(cls) as info:
            make()
        assert str(info.value) == message


def test_step_hooks_and_state_dict_hooks(torch_ref):
    logs = []
    for lib in (torch_ref, engine):
        log = []
        p = _leaf(lib)
        opt = lib.optim.SGD([p], lr=1.0)
        h1 = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", o is opt, args[1:], kwargs)))
        opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", p.tolist())))
        opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("load-pre", sorted(sd))))
        opt.register_load_state_dict_post_hook(lambda o: log.append("load-post"), prepend=True)
        opt.step()
        h1.remove()
        opt.step(closure=None)
        sd = opt.state_dict()
        opt.load_state_dict(sd)
        log.append(sorted(sd))
        logs.append(log)
    assert logs[0] == logs[1]
    assert logs[1][:3] == [("pre", True, (), {}), ("post", [-1.0, -1.0]), ("post", [-2.0, -2.0])]


def test_global_step_hooks_and_hook_changing_arguments(torch_ref):
    logs = []
    for lib in (torch_ref, engine):
        from importlib import import_module

        mod = import_module(lib.__name__ + ".optim.optimizer")
        log = []
        p = _leaf(lib)
        opt = lib.optim.SGD([p], lr=1.0)
        handles = [mod.register_optimizer_step_pre_hook(lambda o, a, k: log.append("global-pre")),
                   mod.register_optimizer_step_post_hook(lambda o, a, k: log.append("global-post")),
                   opt.register_step_pre_hook(lambda o, a, k: ((o,), {"closure": lambda: log.append("closure")})),
                   opt.register_step_post_hook(lambda o, a, k: log.append(("post", a[1:], sorted(k))))]
        try:
            opt.step()
        finally:
            for h in handles:
                h.remove()
        opt.step()
        logs.append(log)
    assert logs[0] == logs[1] == ["global-pre", "closure", ("post", (), ["closure"]), "global-post"]


def test_a_custom_optimizer_subclass(torch_ref):
    # The pattern of "write your own optimizer" tutorials: defaults, param_groups, state, hooks.
    results = []
    for lib in (torch_ref, engine):
        class SignSGD(lib.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            @lib.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            self.state[p]["n"] = self.state[p].get("n", 0) + 1
                            p -= group["lr"] * p.grad.sign()

        p = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = SignSGD([p], lr=0.25)
        calls = []
        opt.register_step_post_hook(lambda o, a, k: calls.append(1))
        for _ in range(3):
            opt.zero_grad()
            ((p - 0.2) ** 2).sum().backward()
            opt.step()
        results.append((p.tolist(), p.is_leaf, opt.state_dict(), repr(opt), len(calls)))
    assert results[0] == results[1]
    assert results[1][2] == {"state": {0: {"n": 3}}, "param_groups": [{"lr": 0.25, "params": [0]}]}


def test_a_parameter_subclass_is_optimized_and_named_as_pytorch_does(torch_ref):
    class Weight(engine.Tensor):
        pass

    p = Weight([1.0, 2.0])
    p.requires_grad_()
    p.grad = engine.full((2,), 2.0)
    opt = engine.optim.SGD([p], lr=0.5)
    opt.step()
    assert type(opt.param_groups[0]["params"][0]) is Weight and p.tolist() == [0.0, 1.0] and p._version == 1
    with pytest.raises(TypeError, match="but got torch.FloatTensor$"):
        engine.optim.SGD(p)


def test_tensor_lr_steps_as_pytorch(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        p = lib.tensor(W0[0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=lib.tensor(0.1), momentum=0.9)
        adam_p = lib.tensor(W0[1], requires_grad=True)
        adam = lib.optim.Adam([adam_p], lr=lib.tensor(0.01))
        for i in range(5):
            p.grad = lib.tensor(np.sin(W0[2] + i))
            adam_p.grad = lib.tensor(np.cos(W0[3] + i))
            opt.step()
            adam.step()
        out.append((_np(p), _np(adam_p)))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=4 * EPS32)


def test_foreach_and_fused_are_accepted_and_step(torch_ref):
    # Their kernels are PyTorch's single-tensor ones here; PyTorch's foreach ones round alike.
    for name, kwargs in [("SGD", {"lr": 0.1, "momentum": 0.9, "foreach": True}), ("Adam", {"foreach": True}),
                         ("Adagrad", {"fused": True})]:
        for ref, ours in _lockstep(torch_ref, name, kwargs, steps=5):
            np.testing.assert_allclose(_np(ours[0]), _np(ref[0]), rtol=TOL[name][0], atol=TOL[name][1])


def test_deepcopy_of_an_optimizer_keeps_state(torch_ref):
    out = []
    for lib in (torch_ref, engine):
        p = _leaf(lib)
        opt = lib.optim.Adam([p], lr=0.1)
        opt.step()
        twin = copy.deepcopy(opt)
        twin_p = twin.param_groups[0]["params"][0]
        twin.step()  # its own parameter and state, stepped again
        out.append((twin_p is p, p.tolist(), twin_p.tolist(), _plain(twin.state_dict()["state"])))
    assert out[0][0] is False and out[0][1:] == out[1][1:]
