"""Global switches real code flips before it starts (reproducibility, matmul precision, the legacy
default tensor type). The engine computes the same way whatever they say; they keep what was set
and answer as PyTorch does, warnings and errors included."""
import importlib
import warnings

from . import _dtypes, _factories

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest", "warned_tensor_type": False}
_TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/{}.)"


def use_deterministic_algorithms(mode, *, warn_only=False):
    if type(mode) is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["warn_only"]


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"  # (sic: no space)
                      "setFloat32MatmulPrecision call has no effect."
                      + _TRIGGERED.format("aten/src/ATen/Context.cpp:458"), UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def set_default_tensor_type(t):
    """``torch.set_default_tensor_type(torch.DoubleTensor)`` (or its name): old code's way to set the
    default dtype, deprecated since PyTorch 2.1 (a warning, once)."""
    if isinstance(t, str):  # "torch.DoubleTensor": looked up as PyTorch's _import_dotted_name does
        name, t = t.split("."), importlib.import_module("engine")
        for part in name[1:]:
            t = getattr(t, part)
    if not _state["warned_tensor_type"]:
        _state["warned_tensor_type"] = True
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives."
                      + _TRIGGERED.format("torch/csrc/tensor/python_tensor.cpp:434"), UserWarning, stacklevel=2)
    if not isinstance(t, _factories._LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    _dtypes.set_default_dtype(t.dtype)
