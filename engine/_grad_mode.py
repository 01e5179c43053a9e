"""Whether operations record a graph: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""
import functools

_enabled = True
# A forward-AD dual level is entered (torch.autograd.forward_ad): ops then look for tangents.
_fw_active = False


class forward_ad_off:
    """Ops inside record no tangents (the level stays entered): for what works them out, and for a
    custom Function's forward, which sees its inputs' values only."""

    def __enter__(self):
        global _fw_active
        self._prev, _fw_active = _fw_active, False

    def __exit__(self, *exc):
        global _fw_active
        _fw_active = self._prev


def is_grad_enabled():
    return _enabled


def _set(mode):
    global _enabled
    _enabled = bool(mode)


class _GradMode:
    """Base for the grad-mode switches: a context manager and a decorator, as in PyTorch."""

    _mode = True

    def __enter__(self):
        self._prev = _enabled
        _set(self._mode)
        return None

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradMode):
    """Disables graph recording.

    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _mode = False

    def __init__(self, orig_func=None):
        # PyTorch allows ``@no_grad`` without parentheses in old code.
        self._func = orig_func

    def __call__(self, *args, **kwargs):
        if self._func is not None:
            with no_grad():
                return self._func(*args, **kwargs)
        return super().__call__(args[0])


class enable_grad(_GradMode):
    """Enables graph recording inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled(_GradMode):
    """Sets grad mode on or off; works as a call, a context manager or a decorator."""

    def __init__(self, mode):
        if type(mode) is not bool:
            t = type(mode)
            name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {name}")
        self._prev = _enabled
        self._mode = mode
        _set(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _set(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__(self._mode)


_inference = [False]


def is_inference_mode_enabled():
    return _inference[0]


class inference_mode(_GradMode):
    """``no_grad`` whose tensors are inference tensors: they can't be saved for backward, changed in
    place outside inference mode, or made to require grad there."""

    def __new__(cls, mode=True):
        if callable(mode):  # ``@torch.inference_mode`` without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._on = mode
        self._mode = not mode

    def __enter__(self):
        self._prev_inference = _inference[0]
        _inference[0] = self._on
        return super().__enter__()

    def __exit__(self, *exc):
        _inference[0] = self._prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        on = self._on

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(on):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return inference_mode(self._on)

_anomaly = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    return _anomaly["enabled"]
