"""Learning-rate schedulers against PyTorch's: the same rates, to the last bit, epoch after epoch."""
import math
import warnings

import pytest

import engine

SCHEDULERS = {  # name: (make(lr_scheduler, optimizer), epochs); each schedule is run for 30 epochs
    "step": lambda s, o: s.StepLR(o, step_size=4, gamma=0.5),
    "step_default_gamma": lambda s, o: s.StepLR(o, 3),
    "multistep": lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5, 11], gamma=0.3),
    "exponential": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "lambda": lambda s, o: s.LambdaLR(o, lambda epoch: 0.95 ** epoch),
    "lambda_per_group": lambda s, o: s.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5 + 0.1 * (e % 3)]),
    "multiplicative": lambda s, o: s.MultiplicativeLR(o, lambda epoch: 0.97),
    "constant": lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=4),
    "constant_default": lambda s, o: s.ConstantLR(o),
    "linear": lambda s, o: s.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=7),
    "linear_default": lambda s, o: s.LinearLR(o),
    "cosine": lambda s, o: s.CosineAnnealingLR(o, T_max=6, eta_min=0.001),
    "cosine_no_min": lambda s, o: s.CosineAnnealingLR(o, T_max=10),
}


def _optimizer(t):
    a = t.tensor([1.0, -2.0], requires_grad=True)
    b = t.tensor([0.5], requires_grad=True)
    return a, b, t.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=0.9)


def _schedule(t, make, epochs=30):
    a, b, opt = _optimizer(t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right order (optimizer, then scheduler) warns nothing
        sched = make(t.optim.lr_scheduler, opt)
        rates = [sched.get_last_lr()]
        for _ in range(epochs):
            opt.zero_grad()
            ((a * a).sum() + (b * 3).sum()).backward()
            opt.step()
            sched.step()
            rates.append(sched.get_last_lr())
            assert [g["lr"] for g in opt.param_groups] == rates[-1]
    return rates, sched, opt, a


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_rates_are_pytorchs(torch_ref, name):
    ours, sched, opt, a = _schedule(engine, SCHEDULERS[name])
    ref, ref_sched, ref_opt, ref_a = _schedule(torch_ref, SCHEDULERS[name])
    assert ours == ref  # exactly: the same float operations in the same order
    assert sched.last_epoch == ref_sched.last_epoch == 30 and sched.base_lrs == ref_sched.base_lrs
    assert [g["initial_lr"] for g in opt.param_groups] == [g["initial_lr"] for g in ref_opt.param_groups]
    assert a.tolist() == pytest.approx(ref_a.tolist(), rel=1e-6)


def test_step_rates_literal():
    rates, *_ = _schedule(engine, SCHEDULERS["step"], epochs=9)
    assert [r[0] for r in rates] == [0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025]


@pytest.mark.parametrize("name", ["step", "multistep", "exponential", "constant", "linear", "cosine"])
def test_step_with_an_epoch_uses_the_closed_form(torch_ref, name):
    def run(t):
        _, _, opt = _optimizer(t)
        sched = SCHEDULERS[name](t.optim.lr_scheduler, opt)
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in (3, 7, 2, 12, 5):
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr())
        return out, [str(w.message) for w in caught]

    ours, ours_warned = run(engine)
    ref, ref_warned = run(torch_ref)
    assert ours == ref
    assert ours_warned == ref_warned and len(ours_warned) == 5 and "epoch parameter" in ours_warned[0]


def test_resuming_cosine_from_a_saved_epoch(torch_ref):
    def run(t):
        _, _, opt = _optimizer(t)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        sched = t.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8, last_epoch=5)
        out = [sched.get_last_lr()]
        for _ in range(6):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out

    assert run(engine) == run(torch_ref)


PLATEAU = {
    "min_rel": dict(mode="min", factor=0.5, patience=2),
    "max_abs": dict(mode="max", factor=0.2, patience=1, threshold=0.05, threshold_mode="abs"),
    "cooldown_min_lr": dict(factor=0.5, patience=0, cooldown=2, min_lr=[0.02, 0.001]),
    "eps": dict(factor=0.5, patience=0, eps=0.03),
}
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.89, 0.8895, 0.9, 0.91, 0.92, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 0.3]


@pytest.mark.parametrize("name", sorted(PLATEAU))
def test_reduce_on_plateau_is_pytorchs(torch_ref, name):
    def run(t):
        _, _, opt = _optimizer(t)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[name])
        out = []
        for m in METRICS:
            opt.step()
            sched.step(t.tensor(m) if m == 0.5 else m)  # a 0-d tensor metric too
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
        return out

    ours = run(engine)
    assert ours == run(torch_ref)
    assert len({tuple(r[0]) for r in ours}) > 1  # the rate did drop


def test_state_dict_round_trip(torch_ref):
    for t in (engine, torch_ref):
        _, _, opt = _optimizer(t)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(3):
            opt.step()
            sched.step()
        state = sched.state_dict()
        _, _, opt2 = _optimizer(t)
        again = t.optim.lr_scheduler.StepLR(opt2, step_size=5)
        again.load_state_dict(state)
        if t is engine:
            ours = (sorted(state), again.step_size, again.last_epoch, again.get_last_lr())
        else:
            assert ours == (sorted(state), again.step_size, again.last_epoch, again.get_last_lr())
    assert ours[1:] == (2, 3, [0.05, 0.025])


def test_lambda_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    _, _, opt = _optimizer(engine)
    decay = Decay()
    sched = engine.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, decay])
    decay.rate = 0.25
    state = sched.state_dict()
    assert state["lr_lambdas"] == [None, {"rate": 0.25}]
    decay.rate = 0.9
    sched.load_state_dict(state)
    assert decay.rate == 0.25 and "lr_lambdas" in state


def _warnings_of(t, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(t)
    return [(w.category.__name__, str(w.message)) for w in caught]


WARNED = {
    "scheduler_before_optimizer": lambda t: _step_first(t),
    "get_lr_outside_step": lambda t: t.optim.lr_scheduler.StepLR(_optimizer(t)[2], 2).get_lr(),
    "overridden_step": lambda t: _overridden(t),
}


def _step_first(t):
    _, _, opt = _optimizer(t)
    sched = t.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    sched.step()
    opt.step()
    sched.step()


def _overridden(t):
    _, _, opt = _optimizer(t)
    sched = t.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step = lambda: None
    sched.step()


@pytest.mark.parametrize("name", sorted(WARNED))
def test_warnings_are_pytorchs(torch_ref, name):
    ours = _warnings_of(engine, WARNED[name])
    assert ours == _warnings_of(torch_ref, WARNED[name]) and len(ours) == 1


ERRORS = {
    "not_an_optimizer": lambda t: t.optim.lr_scheduler.StepLR([t.zeros(1)], 2),
    "resume_without_initial_lr": lambda t: t.optim.lr_scheduler.StepLR(_optimizer(t)[2], 2, last_epoch=3),
    "lambdas_per_group": lambda t: t.optim.lr_scheduler.LambdaLR(_optimizer(t)[2], [lambda e: 1.0]),
    "constant_factor": lambda t: t.optim.lr_scheduler.ConstantLR(_optimizer(t)[2], factor=1.5),
    "linear_start": lambda t: t.optim.lr_scheduler.LinearLR(_optimizer(t)[2], start_factor=0),
    "linear_end": lambda t: t.optim.lr_scheduler.LinearLR(_optimizer(t)[2], end_factor=-0.1),
    "plateau_factor": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(t)[2], factor=1.0),
    "plateau_mode": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(t)[2], mode="up"),
    "plateau_threshold_mode": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(t)[2],
                                                                                threshold_mode="pct"),
    "plateau_min_lrs": lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(t)[2], min_lr=[0.1]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(torch_ref, name):
    caught = []
    for t in (torch_ref, engine):
        with pytest.raises(Exception) as err:
            ERRORS[name](t)
        caught.append((type(err.value).__name__, str(err.value)))
    assert caught[1] == caught[0]


def test_import_forms():
    from engine.optim.lr_scheduler import LRScheduler, StepLR, _LRScheduler

    assert engine.optim.lr_scheduler.StepLR is StepLR and _LRScheduler is LRScheduler
    assert issubclass(engine.optim.lr_scheduler.ReduceLROnPlateau, LRScheduler)
    assert math.isclose(StepLR(_optimizer(engine)[2], 1, 0.5).get_last_lr()[1], 0.05)
