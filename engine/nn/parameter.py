"""``torch.nn.Parameter``: the tensor a Module registers as one of its parameters."""
from .._tensor import Tensor

_FLOAT_ONLY = "Only Tensors of floating point and complex dtype can require gradients"


class Parameter(Tensor):
    r"""A Tensor that is a module parameter: assigned as a Module attribute, it is registered and
    listed by ``parameters()``. A leaf that requires grad by default; ops on it give plain Tensors.

    Args:
        data (Tensor): the parameter's values, shared, not copied (an empty tensor when None).
        requires_grad (bool): whether the parameter requires gradient. Default: ``True``
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._factories import empty

            data = empty(0)
        elif not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        p = object.__new__(cls)
        # A detached alias: the same array and, as in PyTorch, the same version counter.
        p._data = data._data
        p._vc = data._vc
        p._grad_fn = None
        p._requires_grad = False
        if data._inference:
            p._inference = True
        p._set_requires_grad(requires_grad, _FLOAT_ONLY)
        return p

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # As PyTorch: values and requires_grad are copied, the gradient is not.
        if id(self) in memo:
            return memo[id(self)]
        copied = type(self)(Tensor.detach(self).clone(), self._requires_grad)
        memo[id(self)] = copied
        return copied

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    from .._tensor import _wrap

    return Parameter(_wrap(data), requires_grad)


# ``type(p)`` prints "<class 'torch.nn.parameter.Parameter'>", as in PyTorch; pickling goes
# through _rebuild_parameter, so the name is never looked up.
Parameter.__module__ = "torch.nn.parameter"


class UninitializedParameter(Parameter):
    r"""A parameter whose shape is not known yet: a lazy module's (``nn.LazyLinear``) until its first
    ``forward``, which ``materialize``\ s it into a ``Parameter`` of the input's size."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._factories import empty

        return Parameter.__new__(cls, empty(0, dtype=dtype), requires_grad)

    def __repr__(self):
        return "<UninitializedParameter>"

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def size(self, dim=None):
        return self.shape

    def _refuse(self, *args, **kwargs):
        raise ValueError(
            "Attempted to use an uninitialized parameter in <method 'numel' of 'torch._C.TensorBase' objects>. This "
            "error happens when you are using a `LazyModule` or explicitly manipulating "
            "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call `forward` with a dummy "
            "batch to initialize the parameters before calling torch functions")

    numel = dim = _refuse

    def materialize(self, shape, device=None, dtype=None):
        """Become a ``Parameter`` of ``shape`` (uninitialized values: the module's
        ``reset_parameters`` draws them)."""
        import numpy as np

        self._data = np.empty(tuple(shape), dtype=self._data.dtype if dtype is None else dtype.np)
        self.__class__ = self.cls_to_become

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad)
        return memo[id(self)]


UninitializedParameter.__module__ = "torch.nn.parameter"


class _BufferMeta(type):
    # A Buffer is a plain Tensor marked ``_is_buffer``: isinstance(t, Buffer) reads the mark
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    r"""A tensor that is part of a module's state but not a parameter: assigned as a Module
    attribute, it is registered as a buffer (in ``state_dict()`` unless ``persistent=False``).
    What ``Buffer(t)`` returns is a detached alias of ``t``, a plain Tensor, marked as a buffer."""

    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from .._factories import empty

            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedBuffer(Tensor):
    r"""A buffer whose shape is not known yet: a lazy module's (``nn.LazyBatchNorm2d``'s running
    statistics) until its first ``forward``, which ``materialize``\ s it into a tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from .._factories import empty

        b = object.__new__(cls)
        e = empty(0, dtype=dtype)
        b._data, b._vc, b._grad_fn, b._requires_grad = e._data, e._vc, None, False
        return b

    def __repr__(self):
        return "<UninitializedBuffer>"

    shape = UninitializedParameter.shape
    size = UninitializedParameter.size
    numel = dim = UninitializedParameter._refuse
    materialize = UninitializedParameter.materialize


UninitializedBuffer.__module__ = "torch.nn.parameter"
