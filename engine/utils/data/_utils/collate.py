"""``default_collate`` (a list of samples to one batch) and ``default_convert`` (one sample's
NumPy data to tensors), with PyTorch's rules for each kind of element."""
import collections.abc
import copy
import re

import numpy as np

from ...._factories import as_tensor, tensor
from ...._dtypes import float64
from ...._ops import stack
from ...._tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtype kinds that hold strings or objects: no tensor can hold them
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _rebuild(like, items, convert):
    """``items`` (pairs of key or index and value) converted into a container of ``like``'s type:
    a copy of ``like`` when it is mutable, else ``type(like)(...)``, else a plain dict or list."""
    is_map = isinstance(like, collections.abc.Mapping)
    plain = dict if is_map else list
    try:
        if isinstance(like, collections.abc.MutableMapping if is_map else collections.abc.MutableSequence):
            out = copy.copy(like)
            for k, v in items:
                out[k] = convert(v)
            return out
        return type(like)({k: convert(v) for k, v in items} if is_map else [convert(v) for _, v in items])
    except TypeError:  # a container type that cannot be built from a dict or a list
        return plain({k: convert(v) for k, v in items}) if is_map else [convert(v) for _, v in items]


def default_convert(data):
    """NumPy arrays and scalars inside ``data`` as tensors; containers keep their types (tuples become lists)."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, [(k, data[k]) for k in data], default_convert)
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, list(enumerate(data)), default_convert)
    return data


def collate(batch, *, collate_fn_map=None):
    """Merge a list of samples into a batch: ``collate_fn_map`` handles its types (looked up by the
    first sample's exact type, then by ``isinstance`` in the map's order); mappings and sequences
    are merged field by field."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)

    def merge(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, [(k, [d[k] for d in batch]) for k in elem], merge)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return kind(*(merge(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(d) != size for d in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = list(zip(*batch))  # tuples, as PyTorch passes them on (strings stay a tuple)
        if isinstance(elem, tuple):
            return [merge(c) for c in columns]
        return _rebuild(elem, list(enumerate(columns)), merge)
    raise TypeError(default_collate_err_msg_format.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    dt = batch[0].dtype
    if np_str_obj_array_pattern.search(dt.str):
        raise TypeError(default_collate_err_msg_format.format(dt))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# The order matters: after an exact type match, the first isinstance match wins (bool is an int here)
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Tensors stacked on a new first dim, NumPy data as tensors, Python floats as float64 and ints
    as int64 tensors, strings kept in a list; dicts, tuples and lists merged field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
