"""``torch.save`` and ``torch.load`` in PyTorch's own file format (a zip archive holding a pickle and
one record per tensor), so a file written here loads in PyTorch and one written by PyTorch loads here.

>>> torch.save({"w": torch.ones(2)}, "weights.pt")
>>> torch.load("weights.pt")
{'w': tensor([1., 1.])}
"""
import collections
import contextlib
import io
import os
import pickle
import sys
import types
import zipfile

import numpy as np

from . import _dtypes, _torch_names
from ._tensor import Size, Tensor, _wrap, device
from .nn.parameter import Parameter

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

# The typed-storage classes PyTorch's pickles name, by NumPy dtype.
_STORAGES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
             "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16, "CharStorage": np.int8,
             "ByteStorage": np.uint8, "BoolStorage": np.bool_}
_STORAGE_OF = {np.dtype(v): k for k, v in _STORAGES.items()}


def _marker(module, name):
    """A stand-in that pickles as the global ``module.name`` (PyTorch's), whatever is installed."""
    return type(name, (), {"__module__": module, "__qualname__": name})


_STORAGE_CLASSES = {name: _marker("torch", name) for name in _STORAGES}


class _Storage:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    a = storage.array
    item = a.itemsize
    if len(size):
        view = np.lib.stride_tricks.as_strided(a[storage_offset:], tuple(size), tuple(s * item for s in stride))
    else:
        view = a[storage_offset:storage_offset + 1].reshape(())
    return _wrap(np.array(view), bool(requires_grad))


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    return Parameter(data, requires_grad)


_rebuild_tensor_v2.__module__ = _rebuild_parameter.__module__ = "torch._utils"
_rebuild_parameter.__qualname__ = "_rebuild_parameter"
_rebuild_tensor_v2.__qualname__ = "_rebuild_tensor_v2"


class _Pickler(pickle._Pickler):  # the Python pickler: its save_global can name PyTorch's globals
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = []

    def persistent_id(self, obj):
        if type(obj) is _Storage:
            key = str(len(self.storages))
            self.storages.append(obj.array)
            return ("storage", _STORAGE_CLASSES[_STORAGE_OF[obj.array.dtype]], key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            return _rebuild_parameter, (_wrap(obj._data), obj.requires_grad, collections.OrderedDict())
        if isinstance(obj, Tensor):
            d = obj._data if obj._data.flags.c_contiguous else obj._data.copy()  # (ascontiguousarray makes 0-d 1-d)
            if d.dtype not in _STORAGE_OF:
                raise pickle.PicklingError(f"can't save a tensor of dtype {obj.dtype}")
            stride = tuple(int(s) // d.itemsize for s in d.strides) if d.size else (1,) * d.ndim
            return _rebuild_tensor_v2, (_Storage(d.reshape(-1)), 0, Size(d.shape), stride, obj.requires_grad,
                                        collections.OrderedDict())
        if type(obj) is Size:
            return Size, (tuple(obj),)
        if type(obj) is device:
            return device, (str(obj),)
        if isinstance(obj, _dtypes.dtype):
            return str(obj).split(".")[-1]  # pickled as the global torch.<name>
        if type(obj) in _torch_names.RENAMED:  # as PyTorch pickles it: its class by PyTorch's name
            return object.__reduce_ex__(obj, self.proto)
        return NotImplemented

    def save_global(self, obj, name=None):
        module = getattr(obj, "__module__", None) or ""
        if module == "torch" or module.startswith("torch."):
            name = name or obj.__qualname__
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)

    dispatch = {**pickle._Pickler.dispatch, types.FunctionType: save_global}


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` (tensors, state dicts, modules, ...) to ``f``, a path or a binary file object."""
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    prefix = _archive_name(f)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{prefix}/data.pkl", buf.getvalue())
        z.writestr(f"{prefix}/.format_version", "1")
        z.writestr(f"{prefix}/.storage_alignment", "64")
        z.writestr(f"{prefix}/byteorder", sys.byteorder)
        for key, array in enumerate(pickler.storages):
            z.writestr(f"{prefix}/data/{key}", array.astype(array.dtype.newbyteorder("<")).tobytes())
        z.writestr(f"{prefix}/version", "3\n")
        z.writestr(f"{prefix}/.data/serialization_id", "0" * 40)
    data = out.getvalue()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


# ----- Loading -----

_safe_globals = []
_WEIGHTS_ONLY_HINT = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those steps "
    "only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default value of "
    "the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
    "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check the "
    "recommended steps in the following error message.\n\tWeightsUnpickler error: {}\n\nCheck the documentation of "
    "torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")
_BUILTINS = {("collections", "OrderedDict"): collections.OrderedDict, ("__builtin__", "set"): set,
             ("builtins", "set"): set, ("__builtin__", "frozenset"): frozenset, ("builtins", "frozenset"): frozenset,
             ("_codecs", "encode"): None, ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
             ("torch._utils", "_rebuild_parameter"): _rebuild_parameter, ("torch", "Size"): Size,
             ("torch", "device"): device}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, records, weights_only):
        super().__init__(file, encoding="utf-8")
        self.records = records
        self.weights_only = weights_only

    def find_class(self, module, name):
        if (module, name) in _BUILTINS:
            found = _BUILTINS[module, name]
            return found if found is not None else super().find_class(module, name)
        if module == "torch" and name in _STORAGES:
            return _STORAGE_CLASSES[name]
        if module == "torch" and isinstance(getattr(_dtypes, name, None), _dtypes.dtype):
            return getattr(_dtypes, name)
        if self.weights_only:
            for g in _safe_globals:
                if (getattr(g, "__module__", None), getattr(g, "__qualname__", None)) == (module, name):
                    return g
            raise pickle.UnpicklingError(_WEIGHTS_ONLY_HINT.format(
                f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
                f"`torch.serialization.add_safe_globals([{module}.{name}])` or the "
                f"`torch.serialization.safe_globals([{module}.{name}])` context manager to allowlist this global if "
                "you trust this class/function."))
        found = _torch_names.BY_TORCH_NAME.get((module, name))
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            module = "engine" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, storage_type, key, location, numel = pid
        dtype = np.dtype(_STORAGES[storage_type.__qualname__]).newbyteorder("<")
        return _Storage(np.frombuffer(self.records(key), dtype=dtype, count=numel).astype(dtype.newbyteorder("=")))


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read back what ``save`` (or PyTorch's ``torch.save``) wrote. With ``weights_only`` (the default,
    as in PyTorch 2.6+) only tensors, containers and plain values are rebuilt."""
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in ("0", "")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        if data[:2] == b"PK":
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding central directory") \
                from None
        raise pickle.UnpicklingError("not a file torch.save wrote: only PyTorch's zip format (torch.save's since "
                                     "PyTorch 1.6) can be loaded") from None
    with z:
        names = z.namelist()
        pkl = next((n for n in names if n.endswith("/data.pkl")), None)
        if pkl is None:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pkl[: -len("data.pkl")]
        unpickler = _Unpickler(io.BytesIO(z.read(pkl)), lambda key: z.read(f"{prefix}data/{key}"), weights_only)
        return unpickler.load()


def add_safe_globals(safe_globals):
    """Allow these classes or functions in ``load(..., weights_only=True)``."""
    _safe_globals.extend(safe_globals)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Within it, ``load(..., weights_only=True)`` also allows these classes or functions."""
    n = len(_safe_globals)
    _safe_globals.extend(safe_globals)
    try:
        yield
    finally:
        del _safe_globals[n:]
