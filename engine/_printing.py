"""Format tensors exactly as PyTorch 2.13 prints them.

A reimplementation of ``torch/_tensor_str.py`` over NumPy arrays, so that a
tensor printed by the engine reads character for character like the same
tensor printed by PyTorch. Depends only on NumPy (>= 2.0) and the stdlib.

>>> import numpy as np
>>> print(format_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32),
...                     "float32", requires_grad=True))
tensor([[1., 2.],
        [3., 4.]], requires_grad=True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = _PrinterOptions()

_FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}
_DTYPE_ALIASES = {
    "half": "float16",
    "float": "float32",
    "double": "float64",
    "short": "int16",
    "int": "int32",
    "long": "int64",
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options used by :func:`format_tensor`, like ``torch.set_printoptions``.

    ``profile`` is one of ``"default"``, ``"short"`` or ``"full"``; the other
    arguments override it. As in PyTorch, ``sci_mode`` is always assigned, so
    leaving it out switches back to automatic scientific notation.

    >>> import numpy as np
    >>> set_printoptions(precision=2)
    >>> format_tensor(np.array([1.12345]), "float32")
    'tensor([1.12])'
    >>> set_printoptions(profile="default")
    >>> format_tensor(np.array([1.12345]), "float32")
    'tensor([1.1235])'
    """
    if profile is not None:
        if profile == "default":
            _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = 4, 1000, 3, 80
        elif profile == "short":
            _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = 2, 1000, 2, 80
        elif profile == "full":
            _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current print options as a dict accepted by :func:`set_printoptions`.

    >>> get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    """
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (same arguments as :func:`set_printoptions`).

    >>> import numpy as np
    >>> with printoptions(sci_mode=True):
    ...     format_tensor(np.array([1.5]), "float32")
    'tensor([1.5000e+00])'
    """
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Chooses int/sci/fixed mode and the common column width (torch's ``_Formatter``)."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = values.reshape(-1)
        if not floating:
            # Equal values give equal strings, so measuring each distinct value once is enough.
            for value in set(flat.tolist()):
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        # PyTorch measures float32/float16 values after exact conversion to a double.
        flat = flat.astype(np.float64)
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return

        abs_vals = np.abs(nonzero_finite)
        nz_min = float(abs_vals.min())
        nz_max = float(abs_vals.max())
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))

        if _OPTS.sci_mode is None:
            self.sci_mode = nz_max / nz_min > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4
        else:
            self.sci_mode = _OPTS.sci_mode

        precision = _OPTS.precision
        distinct = set(nonzero_finite.tolist())
        if self.sci_mode:
            width = max(len(f"{v:.{precision}e}") for v in distinct)
        elif self.int_mode:
            # The trailing "." marks an integer-valued float tensor.
            width = max(len(f"{v:.0f}") for v in distinct) + 1
        else:
            width = max(len(f"{v:.{precision}f}") for v in distinct)
        self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating:
            precision = _OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(arr: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    # Each element takes its width plus ", ".
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((_OPTS.linewidth - indent) / element_length))
    edge = _OPTS.edgeitems

    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = (
            [formatter.format(v) for v in arr[:edge].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in arr[-edge:].tolist()]
        )
    else:
        data = [formatter.format(v) for v in arr.tolist()]

    lines = [", ".join(data[i : i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    dim = arr.ndim
    if dim == 0:
        return formatter.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, formatter)

    edge = _OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        slices = (
            [_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(edge)]
            + ["..."]
            + [_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(n - edge, n)]
        )
    else:
        slices = [_tensor_str_with_formatter(arr[i], indent + 1, summarize, formatter) for i in range(n)]

    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(arr: np.ndarray) -> np.ndarray:
    """The elements that stay visible after summarisation (torch's ``get_summarized_data``)."""
    edge = _OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            # arr[-0:] is the whole array, as in torch, so edgeitems=0 keeps everything here.
            return np.concatenate((arr[:edge], arr[-edge:]))
        return arr
    if not edge:
        return np.empty([0] * arr.ndim, dtype=arr.dtype)
    n = arr.shape[0]
    rows = list(range(edge)) + list(range(n - edge, n)) if n > 2 * edge else range(n)
    return np.stack([_summarized_data(arr[i]) for i in rows])


def _tensor_str(arr: np.ndarray, indent: int, floating: bool) -> str:
    if arr.size == 0:
        return "[]"
    summarize = arr.size > _OPTS.threshold
    formatter = _Formatter(_summarized_data(arr) if summarize else arr, floating)
    return _tensor_str_with_formatter(arr, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    parts = [tensor_str]
    # Mirrors torch's arithmetic exactly (including its +1 quirk), since it decides where lines break.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _canonical_dtype(name: str) -> str:
    name = name.removeprefix("torch.")
    return _DTYPE_ALIASES.get(name, name)


def format_tensor(
    data: np.ndarray,
    dtype_name: str,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    default_dtype_name: str = "float32",
    tangent: str | None = None,
) -> str:
    """Return ``repr`` of a tensor holding ``data``, exactly as PyTorch 2.13 writes it.

    ``dtype_name`` is the torch dtype's short name (``"float32"``, ``"int64"``,
    ``"bool"``, ...); ``grad_fn_name`` is e.g. ``"MulBackward0"``, and when it is
    given ``requires_grad`` is not printed, as in PyTorch.

    >>> import numpy as np
    >>> format_tensor(np.array(27.0, dtype=np.float32), "float32", grad_fn_name="MeanBackward0")
    'tensor(27., grad_fn=<MeanBackward0>)'
    >>> format_tensor(np.array([1.5, -2.0]), "float64")
    'tensor([ 1.5000, -2.0000], dtype=torch.float64)'
    >>> format_tensor(np.zeros((0, 3), dtype=np.int64), "int64")
    'tensor([], size=(0, 3), dtype=torch.int64)'
    """
    arr = np.asarray(data)
    dtype = _canonical_dtype(dtype_name)
    default_dtype = _canonical_dtype(default_dtype_name)
    floating = dtype in _FLOAT_DTYPES or arr.dtype.kind == "f"
    if floating:
        # Exact for float16/float32; tolist() then yields the doubles PyTorch formats.
        arr = arr.astype(np.float64)

    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    shape_str = "size=" + str(tuple(int(s) for s in arr.shape))
    dtype_str = "dtype=torch." + dtype

    if arr.size == 0:
        # Like NumPy, only a shape other than (0,) is spelled out.
        if arr.ndim != 1:
            suffixes.append(shape_str)
        # Nothing inside hints at the dtype, so anything but the default is shown.
        if dtype != default_dtype:
            suffixes.append(dtype_str)
        tensor_str = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(shape_str)
        if dtype not in (default_dtype, "int64", "bool"):
            suffixes.append(dtype_str)
        tensor_str = _tensor_str(arr, indent, floating)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor's tangent (forward AD), as its own str or number
        suffixes.append(f"tangent={tangent}")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)
