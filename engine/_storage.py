"""Storages: the memory a tensor and its views share (``x.untyped_storage()``, ``x.storage()``,
``x.storage_offset()``), the usual way to see that a view and its base are one piece of memory:

>>> x = torch.arange(6.).view(2, 3)
>>> x[1].storage_offset(), x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
(3, True)

A tensor's storage is the NumPy array that owns its memory (its views' ``.base``)."""
import warnings
import weakref

import numpy as np

from . import _dtypes
from ._memory import address as _ptr
from ._tensor import _CPU, Tensor

_storages = weakref.WeakValueDictionary()  # id(owner) -> its UntypedStorage, one object per memory as in PyTorch
_warned = [False]
_TYPED_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. "
    "This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use "
    "tensor.untyped_storage() instead of tensor.storage()")


def _owner(a):
    """The array whose memory ``a`` views (``a`` itself when it owns it)."""
    while True:
        b = a.base
        if not isinstance(b, np.ndarray):  # (NumPy's as_strided keeps the array behind a holder of its own)
            b = getattr(b, "base", None)
            if not isinstance(b, np.ndarray):
                return a
        a = b


def _in_memory_order(a):
    """The elements of ``a`` as laid out in memory, a flat view (an owner is C or F contiguous)."""
    return a.reshape(-1, order="A")


def _untyped(a):
    owner = _owner(a)
    s = _storages.get(id(owner))
    if s is None or s._owner is not owner:
        s = _storages[id(owner)] = UntypedStorage(owner)
    return s


def _check_index(i, n):
    if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
        return None
    if not -n <= i < n:
        raise IndexError(f"index {i} out of range for storage of size {n}")
    return int(i) % n if n else 0


def _show(items, info):
    return " " + "\n ".join(str(v) for v in items) + "\n" + info


class UntypedStorage:
    """The bytes behind one or more tensors."""

    __module__ = "torch.storage"

    device = _CPU
    dtype = _dtypes.uint8

    def __init__(self, owner):
        self._owner = owner

    def _byte_array(self):
        return _in_memory_order(self._owner).view(np.uint8)

    def nbytes(self):
        return self._owner.nbytes

    size = nbytes
    __len__ = nbytes

    def data_ptr(self):
        return _ptr(self._owner)

    def element_size(self):
        return 1

    def is_shared(self):
        return False

    def resizable(self):
        return True

    def type(self):
        return "torch.storage.UntypedStorage"

    def tolist(self):
        return self._byte_array().tolist()

    def __getitem__(self, i):
        if isinstance(i, slice):
            part = UntypedStorage.__new__(UntypedStorage)
            part._owner = self._byte_array()[i]
            return part
        k = _check_index(i, self.nbytes())
        if k is None:
            raise TypeError(f"can't index a torch.UntypedStorage with {type(i).__name__}")
        return int(self._byte_array()[k])

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return _show(self.tolist(), f"[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]")


class TypedStorage:
    """The elements behind a tensor, in its dtype (deprecated in PyTorch for ``untyped_storage()``)."""

    __module__ = "torch.storage"

    device = _CPU

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    def _elements(self):
        return _in_memory_order(self._untyped_storage._owner)

    def untyped(self):
        return self._untyped_storage

    def size(self):
        return self._untyped_storage._owner.size

    __len__ = size

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def element_size(self):
        return self._untyped_storage._owner.itemsize

    def is_shared(self):
        return False

    def type(self):
        return f"torch.{self.dtype._legacy.replace('Tensor', 'Storage')}"

    def tolist(self):
        return self._elements().tolist()

    def _index(self, i):
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        k = _check_index(i, self.size())
        if k is None:
            raise RuntimeError(f"can't index a {type(self)} with {type(i)}")
        return k

    def __getitem__(self, i):
        return self._elements()[self._index(i)].item()

    def __setitem__(self, i, value):
        if isinstance(i, (int, np.integer)) and not -self.size() <= i < self.size():
            raise IndexError(f"index {i} is out of bounds for dimension 0 with size {self.size()}")
        self._elements()[self._index(i)] = value.item() if isinstance(value, Tensor) else value

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return _show(self.tolist(),
                     f"[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {self.size()}]")


_STORAGE_CLASSES = (UntypedStorage, TypedStorage)


def storage_offset(self):
    d = self._data
    return (_ptr(d) - _ptr(_owner(d))) // d.itemsize


def untyped_storage(self):
    return _untyped(self._data)


def storage(self):
    if not _warned[0]:
        _warned[0] = True  # (PyTorch warns at the first use only)
        warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=2)
    return TypedStorage(_untyped(self._data), self.dtype)


def is_set_to(self, tensor):
    a, b = self._data, tensor._data
    return (_ptr(a) == _ptr(b) and a.shape == b.shape and a.strides == b.strides
            and _owner(a) is _owner(b))


def is_storage(obj):
    return type(obj) in _STORAGE_CLASSES


Tensor.storage_offset = storage_offset
Tensor.untyped_storage = untyped_storage
Tensor.storage = storage
Tensor.is_set_to = is_set_to
