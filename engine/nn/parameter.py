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
