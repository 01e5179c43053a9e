"""Anomaly mode against real PyTorch 2.13: the NaN error, the "Error detected in ..." warning with
the forward stack (ending at the user's line), the switches and what they restore."""
import os
import re
import warnings

import pytest

pytestmark = pytest.mark.torch

ANOMALY_ON = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
              "enabled for debugging.")


def run(fn):
    """(error type and message or None, warning messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # noqa: BLE001 - the type and message are the observation
            err = (type(e).__name__, str(e))
    return err, [str(w.message) for w in caught]


def user_frames(msg):
    """The frames of this test file in a traceback warning, as (function, source line)."""
    return re.findall(r'File "[^"]*test_anomaly\.py", line \d+, in (\w+)\n    (.*)\n', msg)


def sqrt_nan(T):
    x = T.tensor([0.0, 1.0], requires_grad=True)
    with T.autograd.detect_anomaly():
        y = x.sqrt()
        (y * 0).sum().backward()


def custom_nan(T):
    class MyBad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = T.tensor([1.0, 2.0], requires_grad=True)
    T.autograd.set_detect_anomaly(True)
    try:
        y = MyBad.apply(x)
        y.sum().backward()
    finally:
        T.autograd.set_detect_anomaly(False)


def test_nan_in_backward(et, torch_ref):
    ours, theirs = run(lambda: sqrt_nan(et)), run(lambda: sqrt_nan(torch_ref))
    assert ours[0] == theirs[0] == ("RuntimeError", "Function 'SqrtBackward0' returned nan values in its 0th output.")
    assert ours[1][0] == theirs[1][0] == ANOMALY_ON
    for msg in (ours[1][1], theirs[1][1]):
        assert msg.startswith("Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n")
        assert msg.endswith(" (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                            "python_anomaly_mode.cpp:122.)")
    assert user_frames(ours[1][1])[-1] == user_frames(theirs[1][1])[-1] == ("sqrt_nan", "y = x.sqrt()")
    engine_dir = os.path.dirname(et.__file__) + os.sep
    assert engine_dir not in ours[1][1]  # the engine's own frames are left out


def test_nan_in_custom_function_backward(et, torch_ref):
    ours, theirs = run(lambda: custom_nan(et)), run(lambda: custom_nan(torch_ref))
    assert ours[0] == theirs[0] == ("RuntimeError", "Function 'MyBadBackward' returned nan values in its 0th output.")
    assert len(ours[1]) == len(theirs[1]) == 1
    assert ours[1][0].startswith("Error detected in MyBadBackward. Traceback of forward call")
    assert user_frames(ours[1][0])[-1] == user_frames(theirs[1][0])[-1] == ("custom_nan", "y = MyBad.apply(x)")


def switches(T):
    obs = [T.is_anomaly_enabled()]
    T.autograd.set_detect_anomaly(True)
    obs.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    T.autograd.set_detect_anomaly(False)
    obs.append(T.is_anomaly_enabled())
    with T.autograd.set_detect_anomaly(True, check_nan=False):
        obs.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        x = T.tensor([0.0, 1.0], requires_grad=True)
        (x.sqrt() * 0).sum().backward()  # no NaN check: no error
        obs.append(repr(x.grad))
    obs.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = T.autograd.detect_anomaly(check_nan=False)
    obs.append(([str(w.message) for w in caught], T.is_anomaly_enabled()))
    with d:
        obs.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    obs.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    obs.append(run(lambda: T.autograd.detect_anomaly()(lambda: None)))
    return obs


def test_switches_restore_state(et, torch_ref):
    ours = switches(et)
    assert ours == switches(torch_ref)
    assert ours[1] == (True, True) and ours[3] == (True, False) and ours[4] == "tensor([nan, 0.])"
    assert ours[6] == ([ANOMALY_ON], False)
    assert ours[-1][0] == ("TypeError", "'detect_anomaly' object is not callable")


def without_forward_info(T):
    x = T.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()
    with T.autograd.detect_anomaly():
        (y * 0).sum().backward()


def stale_saved_tensor(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with T.autograd.detect_anomaly():
        z = x * y
        y.add_(1)
        z.sum().backward()


def metadata(T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anomaly = T.autograd.detect_anomaly()
    with anomaly:
        y = T.tensor([1.0], requires_grad=True).sqrt()
    stack = y.grad_fn.metadata["traceback_"]
    return type(stack).__name__, stack[-1].splitlines()[1].strip()


def test_warnings_and_hints(et, torch_ref):
    ours, theirs = run(lambda: without_forward_info(et)), run(lambda: without_forward_info(torch_ref))
    assert ours == theirs
    assert ours[1][1] == ("Error detected in SqrtBackward0. No forward pass information available. Enable detect "
                          "anomaly during forward pass for more information. (Triggered internally at "
                          "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:100.)")
    ours, theirs = run(lambda: stale_saved_tensor(et)), run(lambda: stale_saved_tensor(torch_ref))
    assert ours[0] == theirs[0]
    assert ours[0][1].endswith("Hint: the backtrace further above shows the operation that failed to compute its "
                               "gradient. The variable in question was changed in there or anywhere later. Good luck!")
    assert user_frames(ours[1][1])[-1] == user_frames(theirs[1][1])[-1] == ("stale_saved_tensor", "z = x * y")
    assert metadata(et) == metadata(torch_ref) == ("list", "y = T.tensor([1.0], requires_grad=True).sqrt()")


def test_no_nan_check_outside_anomaly_mode(et):
    x = et.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert repr(x.grad) == "tensor([nan, 0.])"
    assert et.sqrt(x).grad_fn.metadata == {}
