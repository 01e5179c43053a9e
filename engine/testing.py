"""``torch.testing.assert_close``: tensors, numbers, booleans and None, nested in sequences and
mappings, compared as PyTorch compares them, with its tolerances and its messages."""
import cmath
import collections.abc

import numpy as np

from . import _dtypes
from ._tensor import Tensor, _wrap

__all__ = ["assert_close"]

# {dtype: (rtol, atol)}; any other dtype compares exactly
_PRECISIONS = {np.dtype(np.float16): (0.001, 1e-5), np.dtype(np.float32): (1.3e-6, 1e-5),
               np.dtype(np.float64): (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: np.dtype(np.int64), float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


class _Failure(Exception):
    def __init__(self, kind, msg, id=()):
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def error(self, msg):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.id:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    pass


def _tolerances(dtypes, rtol, atol, id):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch(identifier, extra, abs_diff, rel_diff, rtol, atol, abs_idx=None, rel_idx=None):
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        text = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch("Scalars", f"Expected {expected} but got {actual}.", abs_diff, rel_diff, rtol, atol)


def _greatest(values):
    """Where ``torch.max(values, 0)`` points: the first NaN, else the first largest value."""
    nans = np.isnan(values) if values.dtype.kind == "f" else None
    i = int(np.argmax(nans)) if nans is not None and nans.any() else int(np.argmax(values))
    return values[i].item(), i


def _tensor_mismatch(a, e, matches, rtol, atol):
    n = matches.size
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, e, flat = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[flat] = 0
        # (an integer quotient is in the default dtype, as PyTorch's true division gives it)
        rel_diff = abs_diff / np.abs(e) if a.dtype.kind in "fc" else np.true_divide(
            abs_diff, np.abs(e), dtype=_dtypes.get_default_dtype().np)
    rel_diff[flat] = 0
    (max_abs, i), (max_rel, j) = _greatest(abs_diff), _greatest(rel_diff)
    where = (lambda k: tuple(int(x) for x in np.unravel_index(k, matches.shape)))
    return _mismatch("Tensor-likes", extra, max_abs, max_rel, rtol, atol, where(i), where(j))


def _compare_tensors(actual, expected, id, rtol, atol, equal_nan, check_dtype, check_stride):
    def differ(attribute, a, b):
        raise _Failure(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {b}.", id)

    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if check_dtype and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    a, e = actual._data, expected._data
    if a.dtype != e.dtype:
        common = _dtypes.promote_types(actual.dtype, expected.dtype).np
        a, e = a.astype(common), e.astype(common)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "b":
            matches = a == e
        else:
            matches = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        raise _Failure(AssertionError, _scalar_mismatch(a.item(), e.item(), rtol, atol), id)
    raise _Failure(AssertionError, _tensor_mismatch(a, e, matches, rtol, atol), id)


def _compare(actual, expected, id, options):
    """The comparison of one pair of leaves, to run once every pair has been found."""
    rtol, atol, equal_nan = options["rtol"], options["atol"], options["equal_nan"]
    if actual is None or expected is None:
        if actual is not None or expected is not None:
            return _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", id)
        return None
    booleans = (bool, np.bool_)
    if isinstance(actual, booleans) and isinstance(expected, booleans):
        a, e = bool(actual), bool(expected)
        return None if a is e else _Failure(AssertionError, f"Booleans mismatch: {a} is not {e}", id)
    numbers = (int, float, complex, np.number)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        rtol, atol = _tolerances([_NUMBER_DTYPES.get(type(x), _NUMBER_DTYPES[int]) for x in (a, e)], rtol, atol, id)
        if options["check_dtype"] and type(a) is not type(e):
            return _Failure(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", id)
        if a == e or equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return None
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return None
        return _Failure(AssertionError, _scalar_mismatch(a, e, rtol, atol), id)
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    if not isinstance(actual, Tensor):
        if not isinstance(actual, np.ndarray):
            raise _Unsupported
        actual, expected = _wrap(np.asarray(actual)), _wrap(np.asarray(expected))
    rtol, atol = _tolerances([actual._data.dtype, expected._data.dtype], rtol, atol, id)
    try:
        _compare_tensors(actual, expected, id, rtol, atol, equal_nan, options["check_dtype"], options["check_stride"])
    except _Failure as failure:
        return failure
    return None


def _pairs(actual, expected, id, options, out):
    """Walks nested sequences and mappings; each pair of leaves gets its (deferred) comparison."""
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id)
        for i in range(len(actual)):
            _pairs(actual[i], expected[i], (*id, i), options, out)
        return
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        keys, expected_keys = set(actual.keys()), set(expected.keys())
        if keys != expected_keys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(expected_keys - keys)}\n"
                                           f"Additional keys in the actual mapping: {sorted(keys - expected_keys)}", id)
        try:
            keys = sorted(keys)
        except Exception:  # noqa: BLE001 - unorderable keys keep the mapping's order
            pass
        for key in keys:
            _pairs(actual[key], expected[key], (*id, key), options, out)
        return
    out.append((actual, expected, id))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises an ``AssertionError`` naming the greatest differences unless ``actual`` and ``expected``
    are close: ``|actual - expected| <= atol + rtol * |expected|``, with tolerances by dtype when
    neither is given (float32: rtol 1.3e-6, atol 1e-5; float64: 1e-7, 1e-7; integers: equal)."""
    __tracebackhide__ = True
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_dtype": check_dtype,
               "check_stride": check_stride, "allow_subclasses": allow_subclasses}
    leaves = []
    try:
        _pairs(actual, expected, (), options, leaves)
        failures = []
        for a, e, id in leaves:
            try:
                failure = _compare(a, e, id, options)
            except _Unsupported:
                raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(a)} and "
                                          f"{type(e)}.", id) from None
            if failure is not None:
                failures.append(failure)
    except _Failure as failure:
        raise failure.error(msg) from None
    if failures:
        raise failures[0].error(msg)
