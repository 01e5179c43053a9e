"""Wrapper frames that a warning's ``stacklevel`` does not count. The engine wraps many functions in
a second Python function (NumPy's parameter names, ``out=``); a warning raised inside with
``stacklevel=n`` must still point at the user's line, as the unwrapped function's did, both for the
playground's "line N:" and for the once-per-line "default" filter."""
import sys
import warnings

_CODES = set()
_warn = warnings.warn


def transparent(fn):
    """Mark the function ``fn``'s frames as not counted by warnings; returns ``fn``."""
    _CODES.add(fn.__code__)
    return fn


def _counted_warn(message, category=None, stacklevel=1, source=None, **kwargs):
    frame = sys._getframe(1)
    extra, n = 0, stacklevel - 1
    while n > 0 and frame is not None:
        frame = frame.f_back
        if frame is not None and frame.f_code in _CODES:
            extra += 1
        else:
            n -= 1
    while frame is not None and frame.f_code in _CODES:
        frame, extra = frame.f_back, extra + 1
    return _warn(message, category, stacklevel + extra + 1, source, **kwargs)


warnings.warn = _counted_warn
