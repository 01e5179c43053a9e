"""Anomaly detection: every node remembers the forward stack that created it, and an error in
backward (a NaN gradient among them) warns with that stack.

>>> with torch.autograd.detect_anomaly():
...     x = torch.tensor([0.0], requires_grad=True)
...     (x.sqrt() * 0).sum().backward()
Traceback (most recent call last):
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
"""
import os
import traceback
import warnings

from .._grad_mode import _anomaly, is_anomaly_enabled  # noqa: F401  (torch.is_anomaly_enabled)

_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.")
_TRACE_KEY = "traceback_"
_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# PyTorch's warnings end with where its C++ raised them; users compare against that text.
_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


def is_anomaly_check_nan_enabled():
    return _anomaly["check_nan"]


def set_anomaly_enabled(enabled, check_nan=True):
    _anomaly.update(enabled=bool(enabled), check_nan=bool(check_nan))


def record_trace(node):
    """Store the forward stack on a new node, as ``node.metadata['traceback_']`` (PyTorch's key).
    This engine's own frames are left out: the stack ends at the user's line."""
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_ENGINE_DIR)]
    node.metadata[_TRACE_KEY] = traceback.format_list(frames)


def warn_trace(node):
    """Warn with the forward stack of the node whose backward failed (PyTorch's ``print_stack``)."""
    stack = node.metadata.get(_TRACE_KEY) if isinstance(node.metadata, dict) else None
    if stack is None:
        msg = (f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly "
               "during forward pass for more information." + _TRIGGERED.format(100))
    else:
        msg = (f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
               + "".join(stack) + _TRIGGERED.format(122))
    warnings.warn(msg, UserWarning, stacklevel=3)


class detect_anomaly:
    """Context manager that turns anomaly detection on: each node records its forward stack, and a
    backward error (or a NaN gradient, with ``check_nan``) warns with the stack that made the node.

    >>> with torch.autograd.detect_anomaly():
    ...     y = torch.tensor([1.0], requires_grad=True).sqrt()
    """

    def __init__(self, check_nan=True):
        self.prev = _anomaly["enabled"]
        self.check_nan = check_nan
        self.prev_check_nan = _anomaly["check_nan"]
        warnings.warn(_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns anomaly detection on; used with ``with``, it is restored after."""

    def __init__(self, mode, check_nan=True):
        self.prev = _anomaly["enabled"]
        self.prev_check_nan = _anomaly["check_nan"]
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


__all__ = ["detect_anomaly", "set_detect_anomaly"]
