"""NAdam, RAdam, Adamax, Adadelta, ASGD, Rprop, LBFGS and the schedulers OneCycleLR, CyclicLR,
CosineAnnealingWarmRestarts, PolynomialLR, SequentialLR and ChainedScheduler against PyTorch 2.13.

The optimizers do PyTorch's single-tensor arithmetic operation for operation; measured on this data
(lockstep: both get the gradient at PyTorch's parameters) float64 agrees to an ulp or two and
float32 within an ulp of a sqrt (MKL's float32 sqrt is an ulp off now and then). LBFGS reduces
(dot, sum) with NumPy's summation order, not PyTorch's, so its tolerance is looser in float32.
The schedulers' rates are the same float operations, so they are compared exactly.
"""
import copy
import subprocess
import sys
import warnings

import numpy as np
import pytest

import engine
import engine.optim
from tests.engine.test_optim import EPS32, _lockstep, _np  # (the same data and lockstep runs)

pytestmark = pytest.mark.torch

TOL = {"float32": (4 * EPS32, 1e-8), "float64": (1e-14, 1e-17)}

CONFIGS = [
    ("NAdam", {}, False),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}, True),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}, False),
    ("NAdam", {"lr": 0.01, "betas": (0.8, 0.99), "maximize": True}, False),
    ("RAdam", {"lr": 0.01}, False),  # rho_t > 5 from step 6: both branches
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1}, True),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}, False),
    ("RAdam", {"betas": (0.8, 0.9), "eps": 1e-3}, False),
    ("Adamax", {}, False),
    ("Adamax", {"lr": 0.01, "betas": (0.5, 0.9), "weight_decay": 0.1, "maximize": True}, True),
    ("Adadelta", {}, False),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-4, "weight_decay": 0.1}, True),
    ("Adadelta", {"maximize": True}, False),
    ("ASGD", {}, False),
    ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 5}, True),  # averaging starts at step 6
    ("ASGD", {"t0": 3, "weight_decay": 0.1, "maximize": True}, False),
    ("Rprop", {}, False),
    ("Rprop", {"lr": 0.02, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05)}, True),
    ("Rprop", {"maximize": True}, False),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs,groups", CONFIGS)
def test_trajectory_and_state_are_pytorchs(torch_ref, name, kwargs, groups, dtype):
    rtol, atol = TOL[dtype]
    for (rw, rb, ropt), (w, b, opt) in _lockstep(torch_ref, name, kwargs, groups, dtype=dtype):
        np.testing.assert_allclose(_np(w), _np(rw), rtol=rtol, atol=atol)
        np.testing.assert_allclose(_np(b), _np(rb), rtol=rtol, atol=atol)
    ref_sd, sd = ropt.state_dict(), opt.state_dict()
    assert sd["param_groups"] == ref_sd["param_groups"]
    assert list(sd["state"]) == list(ref_sd["state"]) == [0, 1]
    for i, ref_state in ref_sd["state"].items():
        state = sd["state"][i]
        assert list(state) == list(ref_state)  # the same keys in the same order
        for key, ref_value in ref_state.items():
            assert str(state[key].dtype) == str(ref_value.dtype), key
            assert tuple(state[key].shape) == tuple(ref_value.shape), key
            np.testing.assert_allclose(state[key].numpy(), ref_value.numpy(), rtol=rtol, atol=atol, err_msg=key)
    assert sd["state"][0]["step"].item() == 20.0


STATE_KEYS = {
    "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"],
    "RAdam": ["step", "exp_avg", "exp_avg_sq"],
    "Adamax": ["step", "exp_avg", "exp_inf"],
    "Adadelta": ["step", "square_avg", "acc_delta"],
    "ASGD": ["step", "eta", "mu", "ax"],
    "Rprop": ["step", "prev", "step_size"],
}


@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_state_layout_literal(name):
    w = engine.tensor([1.0, -2.0], requires_grad=True)
    opt = getattr(engine.optim, name)([w])
    assert len(opt.state) == 0
    w.grad = engine.tensor([0.5, 0.25])
    opt.step()
    state = opt.state_dict()["state"][0]
    assert list(state) == STATE_KEYS[name]
    assert state["step"].dtype == engine.float32 and state["step"].dim() == 0 and state["step"].item() == 1.0


def test_scalar_state_values_literal():
    w = engine.tensor([1.0, -2.0], requires_grad=True)
    nadam, asgd = engine.optim.NAdam([w]), engine.optim.ASGD([w], lr=0.1, t0=0)
    w.grad = engine.tensor([0.5, 0.25])
    nadam.step()
    assert nadam.state[w]["mu_product"].dtype == engine.float32
    assert nadam.state[w]["mu_product"].item() == pytest.approx(0.9 * (1 - 0.5 * 0.96 ** 0.004), rel=1e-7)
    asgd.step()
    assert asgd.state[w]["eta"].item() == pytest.approx(0.1 / (1 + 1e-4 * 0.1) ** 0.75, rel=1e-7)
    assert asgd.state[w]["mu"].item() == 1.0


def test_float64_default_dtype_keeps_float64_scalars(torch_ref):
    old = engine.get_default_dtype()
    engine.set_default_dtype(engine.float64)
    try:
        w = engine.tensor([1.0, -2.0], requires_grad=True)
        opt = engine.optim.NAdam([w])
        w.grad = engine.tensor([0.5, 0.25])
        opt.step()
        assert opt.state[w]["step"].dtype == opt.state[w]["mu_product"].dtype == engine.float64
    finally:
        engine.set_default_dtype(old)


@pytest.mark.parametrize("name,kwargs", [
    ("NAdam", {}), ("NAdam", {"lr": 0.1, "momentum_decay": 0.01, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}), ("RAdam", {"betas": (0.5, 0.6), "weight_decay": 1e-2, "foreach": False}),
    ("Adamax", {}), ("Adamax", {"eps": 1e-5}), ("Adadelta", {}), ("Adadelta", {"rho": 0.95, "lr": 0.1}),
    ("ASGD", {}), ("ASGD", {"lambd": 1e-3, "t0": 100}), ("Rprop", {}), ("Rprop", {"etas": (0.4, 1.1)}),
    ("LBFGS", {}), ("LBFGS", {"lr": 0.5, "max_iter": 8, "history_size": 5, "line_search_fn": "strong_wolfe"}),
])
def test_repr_and_defaults_are_pytorchs(torch_ref, name, kwargs):
    ref = getattr(torch_ref.optim, name)([torch_ref.zeros(2, requires_grad=True)], **kwargs)
    ours = getattr(engine.optim, name)([engine.zeros(2, requires_grad=True)], **kwargs)
    assert repr(ours) == repr(ref)
    assert ours.defaults == ref.defaults


BAD_ARGS = [
    ("NAdam", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("NAdam", {"eps": -1e-8}, "Invalid epsilon value: -1e-08"),
    ("NAdam", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    ("NAdam", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
    ("NAdam", {"momentum_decay": -0.5}, "Invalid momentum_decay value: -0.5"),
    ("RAdam", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("RAdam", {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    ("Adamax", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ("Adamax", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adadelta", {"lr": -0.5}, "Invalid learning rate: -0.5"),
    ("ASGD", {"weight_decay": -2}, "Invalid weight_decay value: -2"),
    ("ASGD", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("Rprop", {"etas": (1.5, 1.2)}, "Invalid eta values: 1.5, 1.2"),
    ("Rprop", {"etas": (0.5, 0.9)}, "Invalid eta values: 0.5, 0.9"),
    ("LBFGS", {"lr": -1.0}, "Invalid learning rate: -1.0"),
]


@pytest.mark.parametrize("name,kwargs,message", BAD_ARGS)
def test_argument_errors_are_pytorchs(torch_ref, name, kwargs, message):
    with pytest.raises(ValueError) as ref:
        getattr(torch_ref.optim, name)([torch_ref.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(engine.optim, name)([engine.zeros(2, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(ref.value) == message


@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_capturable_on_cpu_raises_pytorchs_error(torch_ref, name):
    messages = []
    for lib in (torch_ref, engine):
        w = lib.ones(2, requires_grad=True)
        w.grad = lib.ones(2)
        opt = getattr(lib.optim, name)([w], capturable=True)
        with pytest.raises(AssertionError) as err:
            opt.step()
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert messages[1].startswith("If capturable=True, params")


@pytest.mark.parametrize("name,kwargs", [("NAdam", {"lr": 0.01}), ("RAdam", {"lr": 0.01}), ("Adamax", {}),
                                         ("Adadelta", {}), ("ASGD", {"t0": 2}), ("Rprop", {})])
def test_load_state_dict_resumes(name, kwargs):
    def run(steps, opt, w):
        for _ in range(steps):
            opt.zero_grad()
            ((w - 1) ** 2 * engine.tensor([1.0, 3.0, 0.5])).sum().backward()
            opt.step()

    w = engine.tensor([0.3, -1.0, 2.0], requires_grad=True)
    opt = getattr(engine.optim, name)([w], **kwargs)
    run(4, opt, w)
    saved, w_saved = copy.deepcopy(opt.state_dict()), w.detach().clone()
    run(4, opt, w)

    w2 = engine.tensor(w_saved.tolist(), requires_grad=True)
    opt2 = getattr(engine.optim, name)([w2], **kwargs)
    opt2.load_state_dict(saved)
    assert list(opt2.state[w2]) == STATE_KEYS[name]
    run(4, opt2, w2)
    assert w2.tolist() == w.tolist()
    assert opt2.state[w2]["step"].item() == 8.0


def test_skips_parameters_without_grad_and_runs_the_closure():
    a, b = engine.tensor([1.0], requires_grad=True), engine.tensor([2.0], requires_grad=True)
    opt = engine.optim.RAdam([a, b])

    def closure():
        opt.zero_grad()
        loss = (a * 3).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 3.0
    assert b not in opt.state and list(opt.state[a]) == STATE_KEYS["RAdam"]
    assert a.item() == pytest.approx(1.0 - 1e-3 * 3, rel=1e-7)  # rho_t <= 5: the un-adapted step lr * m_hat


def test_lazy_import():
    code = ("import sys, engine; new = [m for m in sys.modules if m.split('.')[-1] in "
            "('nadam', 'radam', 'adamax', 'adadelta', 'asgd', 'rprop', 'lbfgs', 'swa_utils')]; "
            "assert new == [], new; from engine.optim import NAdam; "
            "assert NAdam is engine.optim.NAdam and NAdam.__module__ == 'torch.optim.nadam'; "
            "assert 'engine.optim.radam' not in sys.modules; engine.optim.RAdam; "
            "assert 'engine.optim.radam' in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=engine.__path__[0] + "/..")
    assert out.stdout.strip() == "ok", out.stderr
    with pytest.raises(AttributeError, match="module 'torch.optim' has no attribute 'Lion'"):
        engine.optim.Lion
    assert {"NAdam", "LBFGS", "Rprop"} <= set(dir(engine.optim)) and "ASGD" in engine.optim.__all__


# ----- LBFGS -----
A = np.random.default_rng(1).standard_normal((12, 4))
BV = np.random.default_rng(2).standard_normal(12)


def _lbfgs_run(lib, problem, dtype, steps=4, **kwargs):
    if problem == "rosenbrock":
        x = lib.tensor(np.array([-1.5, 2.0], dtype=dtype), requires_grad=True)

        def f():
            return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
    else:
        x = lib.tensor(np.zeros(4, dtype=dtype), requires_grad=True)
        a, b = lib.tensor(A.astype(dtype)), lib.tensor(BV.astype(dtype))

        def f():
            return ((a @ x - b) ** 2).sum()
    opt = lib.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss

    trajectory, losses = [], []
    for _ in range(steps):
        # (.item(), not float(): PyTorch warns once per process on float() of a tensor that requires
        # grad, and test_tensor checks that warning)
        losses.append(opt.step(closure).item())
        trajectory.append(_np(x).copy())
    return np.array(trajectory), losses, opt


@pytest.mark.parametrize("problem,dtype,kwargs,rtol", [
    ("rosenbrock", "float64", {"line_search_fn": "strong_wolfe"}, 1e-10),
    ("rosenbrock", "float64", {"lr": 0.5, "max_iter": 7, "history_size": 3}, 1e-8),
    ("rosenbrock", "float64", {"lr": 0.5, "max_iter": 7, "history_size": 3, "line_search_fn": "strong_wolfe"}, 1e-8),
    ("lsq", "float64", {}, 1e-12),
    ("lsq", "float64", {"lr": 0.5, "max_iter": 7, "history_size": 3, "line_search_fn": "strong_wolfe"}, 1e-12),
    ("lsq", "float32", {"max_iter": 3, "history_size": 2}, 1e-5),
])
def test_lbfgs_trajectory_is_pytorchs(torch_ref, problem, dtype, kwargs, rtol):
    ref_x, ref_losses, ref_opt = _lbfgs_run(torch_ref, problem, dtype, **kwargs)
    x, losses, opt = _lbfgs_run(engine, problem, dtype, **kwargs)
    np.testing.assert_allclose(x, ref_x, rtol=rtol, atol=rtol * 1e-3)
    np.testing.assert_allclose(losses, ref_losses, rtol=rtol, atol=1e-12)
    ref_state, state = ref_opt.state_dict()["state"][0], opt.state_dict()["state"][0]
    assert list(state) == list(ref_state)
    assert set(state) == {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
                          "prev_loss", "al"}
    assert (state["func_evals"], state["n_iter"]) == (ref_state["func_evals"], ref_state["n_iter"])
    assert len(state["old_dirs"]) == len(ref_state["old_dirs"]) <= kwargs.get("history_size", 100)
    assert type(state["t"]).__name__ == type(ref_state["t"]).__name__
    assert str(state["d"].dtype) == str(ref_state["d"].dtype)
    np.testing.assert_allclose(state["prev_flat_grad"].numpy(), ref_state["prev_flat_grad"].numpy(),
                               rtol=max(rtol, 1e-4) * 100, atol=1e-6)


def test_lbfgs_converges_on_least_squares():
    x, losses, opt = _lbfgs_run(engine, "lsq", "float64", steps=2, line_search_fn="strong_wolfe")
    np.testing.assert_allclose(x[-1], np.linalg.lstsq(A, BV, rcond=None)[0], atol=1e-5)
    assert losses[1] < losses[0]


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad")
def test_lbfgs_errors(torch_ref):
    for lib in (torch_ref, engine):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options \(parameter groups\)$"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        opt = lib.optim.LBFGS([a], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 2).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
            opt.step(closure)
        with pytest.raises(TypeError):
            opt.step()


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad")
def test_lbfgs_stops_at_an_optimum():
    a = engine.ones(2, requires_grad=True)
    opt = engine.optim.LBFGS([a])

    def closure():
        opt.zero_grad()
        loss = ((a - 1) ** 2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 0.0
    assert opt.state[a] == {"func_evals": 1, "n_iter": 0}


# ----- schedulers -----
SCHEDULERS = {
    "onecycle": lambda s, o: s.OneCycleLR(o, max_lr=0.5, total_steps=50),
    "onecycle_linear_3phase": lambda s, o: s.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=50,
                                                        anneal_strategy="linear", three_phase=True),
    "onecycle_epochs": lambda s, o: s.OneCycleLR(o, max_lr=0.3, epochs=5, steps_per_epoch=10, pct_start=0.25,
                                                 cycle_momentum=False, div_factor=10.0, final_div_factor=100.0),
    "cyclic": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    "cyclic_triangular2": lambda s, o: s.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=4,
                                                  step_size_down=6, mode="triangular2"),
    "cyclic_exp_range": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range",
                                                gamma=0.97, base_momentum=0.7, max_momentum=0.95),
    "cyclic_scale_fn": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1 / (x + 1),
                                               scale_mode="iterations", cycle_momentum=False),
    "warm_restarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=7),
    "warm_restarts_mult": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001),
    "polynomial": lambda s, o: s.PolynomialLR(o, total_iters=30, power=0.9),
    "polynomial_default": lambda s, o: s.PolynomialLR(o),
    "sequential": lambda s, o: s.SequentialLR(o, [s.ConstantLR(o, factor=0.1, total_iters=5),
                                                  s.ExponentialLR(o, gamma=0.9)], milestones=[8]),
    "sequential3": lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.1, total_iters=4),
                                                   s.StepLR(o, 3, 0.5), s.CosineAnnealingLR(o, T_max=10)],
                                               milestones=[5, 20]),
    "chained": lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.1, total_iters=4),
                                                s.ExponentialLR(o, gamma=0.9)]),
    "chained_sequential": lambda s, o: s.ChainedScheduler(
        [s.SequentialLR(o, [s.ConstantLR(o, factor=0.5, total_iters=3), s.ExponentialLR(o, gamma=0.95)], [6]),
         s.MultiStepLR(o, [10, 30], 0.5)], optimizer=o),
}


def _optimizer(t, adam=False):
    a = t.tensor([1.0, -2.0], requires_grad=True)
    b = t.tensor([0.5], requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    return a, b, (t.optim.Adam(groups, lr=0.1) if adam else t.optim.SGD(groups, lr=0.1, momentum=0.9))


def _momenta(opt):
    return [g["betas"] if "betas" in g else g["momentum"] for g in opt.param_groups]


def _schedule(t, make, adam=False, epochs=49):
    a, b, opt = _optimizer(t, adam)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # optimizer, then scheduler: no warning
        sched = make(t.optim.lr_scheduler, opt)
        rates = [(sched.get_last_lr(), _momenta(opt))]
        for _ in range(epochs):
            opt.zero_grad()
            ((a * a).sum() + (b * 3).sum()).backward()
            opt.step()
            sched.step()
            rates.append((sched.get_last_lr(), _momenta(opt)))
            assert [g["lr"] for g in opt.param_groups] == rates[-1][0]
    return rates, sched, opt, a


def _plain(state):
    """A scheduler state dict without its functions (compared by name) and nested schedulers."""
    out = {}
    for key, value in state.items():
        if key == "_schedulers":
            out[key] = [_plain(s) for s in value]
        elif callable(value):
            out[key] = type(value).__name__
        else:
            out[key] = value
    return out


@pytest.mark.parametrize("adam", [False, True], ids=["sgd", "adam"])
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_rates_and_momenta_are_pytorchs(torch_ref, name, adam):
    ours, sched, opt, a = _schedule(engine, SCHEDULERS[name], adam)
    ref, ref_sched, ref_opt, ref_a = _schedule(torch_ref, SCHEDULERS[name], adam)
    assert ours == ref  # exactly
    assert _plain(sched.state_dict()) == _plain(ref_sched.state_dict())
    for g, rg in zip(opt.param_groups, ref_opt.param_groups):
        assert {k: v for k, v in g.items() if k != "params"} == {k: v for k, v in rg.items() if k != "params"}
    # (abs: an ulp or two of a parameter near 1, where PyTorch's AVX2 and AVX-512 kernels round apart)
    assert a.tolist() == pytest.approx(ref_a.tolist(), rel=1e-6, abs=3e-7)


def test_onecycle_literal_and_overrun():
    a, b, opt = _optimizer(engine)
    sched = engine.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4, pct_start=0.5,
                                                 anneal_strategy="linear")
    rates = [sched.get_last_lr()[0]]
    for _ in range(3):
        opt.step()
        sched.step()
        rates.append(sched.get_last_lr()[0])
    assert rates == pytest.approx([0.04, 1.0, 0.5000020, 4e-6])
    assert opt.param_groups[0]["momentum"] == 0.95 and opt.param_groups[0]["max_lr"] == 1.0
    opt.step()
    sched.step()  # step 4 == total_steps: still allowed
    with pytest.raises(ValueError, match="^Tried to step 5 times. The specified number of total steps is 4$"):
        sched.step()


def test_warm_restarts_fractional_epochs(torch_ref):
    def run(t):
        _, _, opt = _optimizer(t)
        sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [0.5, 1.25, 2.9, 3.0, 4.5, 9.0, 10.2, 22.0, 7, 1]:
                sched.step(epoch)
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    assert run(engine) == run(torch_ref)


def test_sequential_and_chained_load_state_dict():
    S = engine.optim.lr_scheduler

    def make(opt):
        seq = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, 0.5)], [3])
        return S.ChainedScheduler([seq, S.StepLR(opt, 4, 0.1)])

    _, _, opt = _optimizer(engine)
    sched = make(opt)
    for _ in range(5):
        opt.step()
        sched.step()
    saved = copy.deepcopy(sched.state_dict())
    assert [type(s).__name__ for s in sched._schedulers] == ["SequentialLR", "StepLR"]
    assert len(saved["_schedulers"]) == 2 and len(saved["_schedulers"][0]["_schedulers"]) == 2

    _, _, opt2 = _optimizer(engine)
    sched2 = make(opt2)
    sched2.load_state_dict(saved)
    assert "_schedulers" in saved  # the argument is left as it was
    assert sched2._schedulers[0].last_epoch == 5 and sched2._schedulers[1].last_epoch == 5
    assert sched2._schedulers[0]._schedulers[1].last_epoch == sched._schedulers[0]._schedulers[1].last_epoch


def test_cyclic_state_dict_keeps_callable_objects_only():
    class Scale:
        def __init__(self):
            self.k = 2.0

        def __call__(self, x):
            return 1 / self.k

    _, _, opt = _optimizer(engine)
    S = engine.optim.lr_scheduler
    fn = Scale()
    state = S.CyclicLR(opt, 0.01, 0.1, scale_fn=fn).state_dict()
    assert state["_scale_fn_custom"] == {"k": 2.0} and "_scale_fn_ref" not in state
    state = S.CyclicLR(opt, 0.01, 0.1, mode="triangular2").state_dict()
    assert state["_scale_fn_custom"] is None and "_scale_fn_ref" not in state
    fn.k = 5.0
    sched = S.CyclicLR(opt, 0.01, 0.1, scale_fn=fn)
    sched.load_state_dict({**sched.state_dict(), "_scale_fn_custom": {"k": 3.0}})
    assert fn.k == 3.0


SCHEDULER_ERRORS = [
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1), ValueError,
     "You must define either total_steps OR (epochs AND steps_per_epoch)"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=0), ValueError,
     "Expected positive integer total_steps, but got 0"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1, epochs=2.0, steps_per_epoch=3), ValueError,
     "Expected positive integer epochs, but got 2.0"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (lambda s, o: s.OneCycleLR(o, max_lr=[0.1], total_steps=10), ValueError,
     "max_lr must have the same length as optimizer.param_groups. max_lr has 1 values, param_groups has 2."),
    (lambda s, o: s.CyclicLR(o, 0.01, 0.1, mode="sine"), ValueError, "mode is invalid and scale_fn is None"),
    (lambda s, o: s.CyclicLR(o, [0.1, 0.2, 0.3], 0.1), ValueError,
     "base_lr must have the same length as optimizer.param_groups. base_lr has 3 values, param_groups has 2."),
    (lambda s, o: s.CyclicLR(object(), 0.01, 0.1), TypeError, "object is not an Optimizer"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "Expected positive integer T_0, but got 0"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2.0), ValueError,
     "Expected positive integer T_0, but got 2.0"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError,
     "Expected integer T_mult >= 1, but got 0"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"), ValueError,
     "Expected float or int eta_min, but got 0 of type <class 'str'>"),
    (lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2).step(-1), ValueError,
     "Expected non-negative epoch, but got -1"),
    (lambda s, o: s.SequentialLR(o, [], []), ValueError,
     "SequentialLR expects at least one scheduler, but got no scheduler."),
    (lambda s, o: s.SequentialLR(o, [s.StepLR(o, 2), s.StepLR(o, 3)], [1, 2]), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
     "points, but got number of schedulers 2 and the number of milestones to be equal to 2"),
    (lambda s, o: s.SequentialLR(o, [s.StepLR(o, 2), s.ReduceLROnPlateau(o)], [1]), ValueError,
     "SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
     "specified when calling `step`, but got one at index 1 in the given schedulers sequence."),
    (lambda s, o: s.SequentialLR(o, [s.StepLR(o, 2), 3], [1]), TypeError,
     "SequentialLR at index 1 should have `optimizer` as its attribute."),
    (lambda s, o: s.ChainedScheduler([]), ValueError,
     "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
]


@pytest.mark.parametrize("case", range(len(SCHEDULER_ERRORS)))
def test_scheduler_errors_are_pytorchs(torch_ref, case):
    make, error, message = SCHEDULER_ERRORS[case]
    messages = []
    for lib in (torch_ref, engine):
        _, _, opt = _optimizer(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(error) as err:
                make(lib.optim.lr_scheduler, opt)
        messages.append(str(err.value))
    assert messages[1] == messages[0] == message


def test_momentum_cycling_needs_momentum(torch_ref):
    for lib in (torch_ref, engine):
        opt = lib.optim.Adagrad([lib.zeros(2, requires_grad=True)])
        for make in (lambda: lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1),
                     lambda: lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5)):
            with pytest.raises(ValueError, match=r"^optimizer must support momentum or beta1 with `cycle_momentum` "
                                                 r"option enabled$"):
                make()
        lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False)  # fine without


def test_different_optimizer_is_rejected():
    S = engine.optim.lr_scheduler
    _, _, opt = _optimizer(engine)
    _, _, other = _optimizer(engine)
    with pytest.raises(ValueError, match="^ChainedScheduler expects all schedulers to belong to the same optimizer, "
                                         "but got scheduler StepLR at index 1 has "):
        S.ChainedScheduler([S.StepLR(opt, 2), S.StepLR(other, 2)])


def test_scheduler_step_before_optimizer_step_warns():
    _, _, opt = _optimizer(engine)
    sched = engine.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=r"^To get the last learning rate computed by the scheduler"):
            sched.get_lr()


# ----- swa_utils -----
def _swa_run(lib, kind):
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        m.bias.copy_(lib.tensor([0.01, -0.02]))
    su = lib.optim.swa_utils
    averaged = {"swa": lambda: su.AveragedModel(m),
                "ema_multi": lambda: su.AveragedModel(m, multi_avg_fn=su.get_ema_multi_avg_fn(0.9)),
                "ema": lambda: su.AveragedModel(m, avg_fn=su.get_ema_avg_fn(0.8)),
                "swa_multi": lambda: su.AveragedModel(m, multi_avg_fn=su.get_swa_multi_avg_fn())}[kind]()
    opt = lib.optim.SGD(m.parameters(), lr=0.02)
    sched = su.SWALR(opt, swa_lr=0.005, anneal_epochs=4, anneal_strategy="linear" if kind == "ema" else "cos")
    x = lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    lrs = []
    for _ in range(8):
        opt.zero_grad()
        (m(x) ** 2).sum().backward()
        opt.step()
        averaged.update_parameters(m)
        sched.step()
        lrs.append(sched.get_last_lr())
    return averaged, sched, lrs, averaged(x)


@pytest.mark.parametrize("kind", ["swa", "swa_multi", "ema", "ema_multi"])
def test_swa_utils_are_pytorchs(torch_ref, kind):
    ref, ref_sched, ref_lrs, ref_out = _swa_run(torch_ref, kind)
    ours, sched, lrs, out = _swa_run(engine, kind)
    assert lrs == ref_lrs  # exactly
    assert sched.state_dict().keys() == ref_sched.state_dict().keys()
    assert ours.n_averaged.item() == ref.n_averaged.item() == 8 and ours.n_averaged.dtype == engine.int64
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["n_averaged", "module.weight", "module.bias"]
    for p, rp in zip(ours.parameters(), ref.parameters()):
        np.testing.assert_allclose(_np(p), _np(rp), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(_np(out), _np(ref_out), rtol=1e-6, atol=1e-7)


def test_swa_literal_average_and_errors(torch_ref):
    su = engine.optim.swa_utils
    m = engine.nn.Linear(1, 1, bias=False)
    averaged = su.AveragedModel(m)
    for value in (1.0, 2.0, 6.0):
        with engine.no_grad():
            m.weight.fill_(value)
        averaged.update_parameters(m)
    assert averaged.module.weight.item() == 3.0 and averaged.n_averaged.item() == 3
    with pytest.raises(AssertionError, match="^Only one of avg_fn and multi_avg_fn should be provided$"):
        su.AveragedModel(m, avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())
    with pytest.raises(ValueError,
                       match=r"^Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range.$"):
        su.get_ema_avg_fn(1.5)
    opt = engine.optim.SGD(m.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got exp$"):
        su.SWALR(opt, 0.01, anneal_strategy="exp")
    with pytest.raises(ValueError, match="^anneal_epochs must be equal or greater than 0, got -1$"):
        su.SWALR(opt, 0.01, anneal_epochs=-1)
    su.update_bn([engine.ones(2, 1)], m)  # no batch norm: nothing to do


def test_update_bn_recomputes_batchnorm_statistics(torch_ref, et):
    def run(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4))
        loader = [T.randn(5, 3) for _ in range(3)]
        T.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        return bn.running_mean.tolist(), bn.running_var.tolist(), bn.momentum, int(bn.num_batches_tracked)

    ours, ref = run(et), run(torch_ref)
    np.testing.assert_allclose(ours[0], ref[0], atol=1e-6)
    np.testing.assert_allclose(ours[1], ref[1], atol=1e-6)
    assert ours[2:] == ref[2:] == (0.1, 3)
