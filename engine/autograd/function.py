"""Custom differentiable operations: ``torch.autograd.Function`` with ``forward``/``backward``."""
import functools

from .. import _grad_mode
from .._graph import Node, freed_error
from .._tensor import Tensor, _Saved, _version_message, _wrap


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: saved tensors and flags."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        if self._freed:
            raise freed_error()
        out = []
        for s in self._saved or ():
            if isinstance(s, _Saved):
                if s.tensor._vc[0] != s.version:
                    raise RuntimeError(_version_message(s.tensor, s.version, None))
                out.append(s.tensor)
            else:
                out.append(s)
        return tuple(out)

    saved_variables = saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The ``grad_fn`` of a custom Function's outputs; it is also the ``ctx`` its methods receive."""

    _forward_cls = None

    def __init__(self):
        Node.__init__(self)
        self._op = None
        self._materialize = True
        self._non_differentiable = ()
        self._to_save = None
        self.needs_input_grad = ()

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def apply(self, *grads):
        return self._forward_cls.backward(self, *grads)

    def _custom_backward(self, grads, create_graph):
        n_out = self._n_outputs
        if self._materialize:
            grads = [g if g is not None else _wrap(_zeros_like_out(self, i)) for i, g in enumerate(grads)]
        result = self._forward_cls.backward(self, *grads[:n_out])
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self._input_is_tensor)
        if len(result) != n_in:
            # Trailing Nones for non-tensor inputs may be omitted, as PyTorch allows.
            if len(result) > n_in and all(r is None for r in result[n_in:]):
                result = result[:n_in]
            else:
                raise RuntimeError(
                    f"function {type(self).__name__} returned an incorrect number of gradients "
                    f"(expected {n_in}, got {len(result)})")
        outs = []
        for r, is_t, meta in zip(result, self._input_is_tensor, self._input_meta):
            if not is_t:
                continue
            if r is not None and meta is not None and r._data.shape != meta:
                from .._ops import sum_to

                r = sum_to(r, meta)
            outs.append(r)
        return outs


def _zeros_like_out(node, i):
    import numpy as np

    shape, dt = node._out_meta[i]
    return np.zeros(shape, dtype=dt)


class FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = "torch.autograd.function"
        cls._backward_cls = backward_cls


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class for custom differentiable operations.

    >>> class MyExp(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp()
    ...         ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (y,) = ctx.saved_tensors
    ...         return grad * y
    >>> MyExp.apply(torch.ones(1, requires_grad=True))
    tensor([2.7183], grad_fn=<MyExpBackward>)
    """

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use "
            "it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        uses_setup = cls.setup_context is not Function.setup_context
        with _grad_mode.no_grad():
            if uses_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outs = output if is_tuple else (output,)
        record = _grad_mode._enabled and any(t._requires_grad for t in tensors)
        if not record:
            return output
        ctx._input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._input_meta = tuple(a._data.shape if isinstance(a, Tensor) else None for a in args)
        edges = []
        for t in tensors:
            if not t._requires_grad:
                edges.append((None, 0))
            elif t._grad_fn is not None:
                edges.append((t._grad_fn, t._output_nr))
            else:
                edges.append((t._grad_accumulator(), 0))
        ctx.next_functions = tuple(edges)
        ctx._n_outputs = len(outs)
        ctx._out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None) for o in outs]
        inputs_by_id = {id(t) for t in tensors}
        new_outs = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                continue
            if id(o) in inputs_by_id:
                # An input returned as is: the output is a new tensor object over the same data.
                o2 = _wrap(o._data)
                o2._vc = o._vc
                o = o2
            if id(outs[i]) not in ctx._non_differentiable and o._data.dtype.kind == "f":
                o._grad_fn = ctx
                o._output_nr = i
                o._requires_grad = True
            new_outs.append(o)
        if ctx._to_save is not None:
            saved = []
            for t in ctx._to_save:
                if isinstance(t, Tensor):
                    # Saving an output keeps it with its grad_fn, as the backward may differentiate it.
                    idx = next((k for k, o in enumerate(outs) if o is t), None)
                    saved.append(_Saved(new_outs[idx] if idx is not None else t))
                else:
                    saved.append(t)
            ctx._saved = saved or None
            ctx._to_save = None
        return tuple(new_outs) if is_tuple else new_outs[0]


class InplaceFunction(Function):
    pass


class NestedIOFunction(Function):
    pass


def once_differentiable(fn):
    """Marks a ``backward`` as not differentiable: it runs without recording a graph."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _grad_mode.no_grad():
            return fn(ctx, *args)

    return wrapper
