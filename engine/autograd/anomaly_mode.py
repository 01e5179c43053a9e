"""Anomaly detection: a NaN produced in backward names the forward op that made it."""
import warnings

from .._grad_mode import _anomaly, is_anomaly_enabled

_WARNING = "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging."


def is_anomaly_check_nan_enabled():
    return _anomaly["check_nan"]


class detect_anomaly:
    """Context manager (and decorator): record each node's forward stack and raise when a
    backward rule returns NaN, showing where that node was created."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn(_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = dict(_anomaly)
        _anomaly.update(enabled=True, check_nan=self.check_nan)

    def __exit__(self, *exc):
        _anomaly.update(self._prev)
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` turns anomaly detection on (also usable with ``with``)."""

    def __init__(self, mode, check_nan=True):
        self._prev = dict(_anomaly)
        _anomaly.update(enabled=bool(mode), check_nan=check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _anomaly.update(self._prev)
        return False


__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
