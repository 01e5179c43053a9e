"""Custom differentiable operations: ``torch.autograd.Function`` with ``forward``/``backward``.

The ``ctx`` a Function's methods receive is the node itself (``y.grad_fn``), as in PyTorch:
attributes set on it in ``forward`` are read back in ``backward`` and by users.
"""
import functools
import inspect
import re

import numpy as np

from .. import _grad_mode
from .._graph import Node, freed_error
from .._tensor import _SAVED_HOOKS, Tensor, _Packed, _Saved, _pack, _version_message, _wrap
from .anomaly_mode import record_trace

_ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) leaves for ``backward``: saved tensors and flags."""

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for ``backward``, where ``ctx.saved_tensors`` returns them."""
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        for t in tensors:
            if not (isinstance(t, Tensor) or t is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should "
                    "save non-tensors as attributes on ctx.")
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Declare inputs that ``forward`` modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        pass

    def mark_non_differentiable(self, *args):
        """Declare outputs that never require grad (``backward`` still gets a zero grad for them)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """With ``False``, ``backward`` receives None instead of zeros for outputs that got no grad."""
        self._materialize = bool(value)


_ContextMethodMixin = FunctionCtx


class BackwardCFunction(Node, FunctionCtx):
    """The ``grad_fn`` of a custom Function's outputs; it is also the ``ctx`` its methods receive."""

    _forward_cls = None
    _c_base = "_FunctionBase"

    def __init__(self):
        Node.__init__(self)
        self._op = None
        self._materialize = True
        self.to_save = None
        self.non_differentiable = None
        self.dirty_tensors = None
        self.needs_input_grad = ()
        self._input_is_tensor = ()
        self._input_meta = ()
        self._out_meta = ()

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    _jvp_saved = None  # save_for_forward's tensors, what saved_tensors gives inside jvp

    @property
    def saved_tensors(self):
        if self._jvp_saved is not None:
            return tuple(self._jvp_saved)
        if self._freed:
            raise freed_error()
        out = []
        for s in self._saved or ():
            if s is None:
                out.append(None)
                continue
            if type(s) is _Packed:
                out.append(s.unpacked(self))
                continue
            t = s.tensor
            if t._vc[0] != s.version:
                fn = self if s.is_output else t._grad_fn
                msg = _version_message(t, s.version, fn)
                # PyTorch names a custom node without its "Backward" suffix here.
                if fn is not None and fn.name().endswith("Backward"):
                    msg = msg.replace(f" of {fn.name()},", f" of {fn.name()[:-len('Backward')]},")
                raise RuntimeError(msg)
            if s.is_output:
                # Rebuilt on each access, like PyTorch's SavedVariable: no reference cycle node ->
                # output -> node, yet a double backward flows through this node.
                t = _wrap(t._data, True)
                t._vc = s.tensor._vc
                t._grad_fn = self
                t._output_nr = s.output_nr
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def __call__(self, *args):
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    def _release(self):
        self._saved = None
        self._freed = True

    def _get_user_fn(self):
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                "only implement one of them.")
        return cls.vjp if cls.vjp is not Function.vjp else cls.backward

    def apply(self, *grads):
        """Call the user's ``backward`` with this ctx (what the engine runs for this node)."""
        return self._get_user_fn()(self, *grads)

    def _custom_backward(self, grads, create_graph):
        name = self.name()
        if self._materialize:
            grads = [_zeros(meta) if g is None and meta is not None else g
                     for g, meta in zip(grads, self._out_meta)]
        result = self.apply(*grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_in = len(self._input_is_tensor)
        # Returning too many results is fine as long as the extra ones are None.
        if len(result) > n_in and all(r is None for r in result[n_in:]):
            result = result[:n_in]
        if len(result) != n_in:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected {n_in}, got {len(result)})")
        outs = []
        for i, (r, is_t) in enumerate(zip(result, self._input_is_tensor)):
            if not is_t:
                if r is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position {i + 1}, but the "
                        "corresponding forward input was not a Variable")
                continue
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
            outs.append(r)
        return [_validate(name, k, r, meta, edge)
                for k, (r, meta, edge) in enumerate(zip(outs, self._input_meta, self._next))]


def _zeros(meta):
    shape, dtype = meta
    return _wrap(np.zeros(shape, dtype=dtype))


def _validate(name, index, grad, meta, edge):
    """PyTorch's ``validate_outputs``: reduce a broadcast grad to its input's shape, cast its dtype."""
    if grad is None or edge[0] is None:
        return grad
    shape, dtype = meta
    gshape = grad._data.shape
    if gshape != shape:
        try:
            ok = np.broadcast_shapes(shape, gshape) == gshape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {index} - got {list(gshape)} but "
                f"expected shape compatible with {list(shape)}")
        from .._ops import sum_to

        grad = sum_to(grad, shape)
    if grad._data.dtype != dtype:
        from .._ops import to_dtype

        grad = to_dtype(grad, dtype)
    return grad


class _SavedSlot(_Saved):
    __slots__ = ("output_nr",)

    def __init__(self, tensor, is_output=False, output_nr=0):
        super().__init__(tensor, is_output)
        self.output_nr = output_nr


class FunctionMeta(type):
    """Gives every Function subclass its node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = "torch.autograd.function"
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


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
    def forward(*args, **kwargs):
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
        """Run ``forward`` without recording, then attach one ``<Name>Backward`` node to its outputs."""
        uses_setup = cls.setup_context is not Function.setup_context
        if uses_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        executable = _grad_mode._enabled and any(ctx.needs_input_grad)
        if executable:
            ctx._input_is_tensor = tuple(isinstance(a, Tensor) for a in args)
            ctx._input_meta = tuple((t._data.shape, t._data.dtype) for t in tensors)
            ctx._next = tuple(_edge(t) for t in tensors)
            if _grad_mode._anomaly["enabled"]:
                record_trace(ctx)
        # forward sees its inputs' values only; their tangents go to jvp below
        forward_ad = _grad_mode._fw_active and any(t._fw_grad is not None for t in tensors)
        with _grad_mode.no_grad(), _grad_mode.forward_ad_off():
            if uses_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outs = _wrap_outputs(ctx, tensors, output if is_tuple else (output,), executable)
        if forward_ad:
            from .forward_ad import function_tangents

            function_tangents(cls, ctx, args, outs)
        if executable:
            _save_variables(ctx)
        else:
            ctx.to_save = None
        ctx.non_differentiable = None
        return outs if is_tuple else outs[0]


def _edge(t):
    if not t._requires_grad:
        return (None, 0)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def _alias(t):
    """A new tensor object over ``t``'s data and version counter (PyTorch's view-as-self)."""
    out = _wrap(t._data)
    out._vc = t._vc
    return out


def _view_of_input(t):
    out = _alias(t)
    out._base = t if t._base is None else t._base
    return out


_CUSTOM_VIEW = (
    "This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic "
    "to handle view+inplace would override the custom backward associated with the custom Function, leading to "
    "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.")
_MULTI_VIEWS = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output views "
    "to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def custom_view_error(t, indirect):
    """PyTorch's error for a view a custom Function returned (``t._custom_view``, also set on views of
    it) modified in place, or, ``indirect``, used after its base was."""
    name = re.sub(r"Backward\d*$", "", t._grad_fn.name())
    what = "its base or another view of its base has been modified inplace" if indirect else "is being modified inplace"
    reason = _MULTI_VIEWS if t._custom_view == "multi" else _CUSTOM_VIEW
    return RuntimeError(f"Output {t._output_nr} of {name} is a view and {what}. {reason}")


def _wrap_outputs(ctx, inputs, outs, executable):
    """PyTorch's ``_wrap_outputs``: give each output its history according to what ``forward`` declared."""
    dirty = ctx.dirty_tensors or ()
    ctx.dirty_tensors = None
    for i, t in enumerate(dirty):
        if not isinstance(t, Tensor):
            raise TypeError(f"mark_dirty can only accept variables, but argument {i} is of type {type(t).__name__}")
        t._vc[0] += 1
    dirty_ids = {id(t) for t in dirty}
    input_ids = {id(t) for t in inputs}
    non_diff = {id(t) for t in (ctx.non_differentiable or ()) if isinstance(t, Tensor)}
    out_ids = {id(o) for o in outs if isinstance(o, Tensor)}
    if any(i not in out_ids for i in dirty_ids):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as output. The inputs "
            "that are modified inplace must all be outputs of the Function.")
    ctx._n_outputs = len(outs)
    ctx._out_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in outs)
    n_diff = sum(1 for o in outs if isinstance(o, Tensor) and id(o) not in non_diff and o._data.dtype.kind == "f")
    result = []
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            result.append(o)
            continue
        is_input, is_dirty = id(o) in input_ids, id(o) in dirty_ids
        if not executable or id(o) in non_diff or o._data.dtype.kind != "f":
            if not o._requires_grad:
                if is_input and not is_dirty:
                    o = _view_of_input(o)
            elif is_input:
                o = _alias(o)
            else:
                o.detach_()
        elif is_dirty:
            if o._grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            o._grad_fn, o._output_nr, o._requires_grad = ctx, nr, True
        else:
            if is_input:
                o = _view_of_input(o)
            elif o._no_grad_view:  # a view made in forward, under no_grad: now the output's history is ctx
                o._no_grad_view = False
            o._grad_fn, o._output_nr, o._requires_grad = ctx, nr, True
            if o._base is not None:
                # Not to be modified in place (PyTorch's IN_CUSTOM_FUNCTION and MULTI_OUTPUT_NODE views):
                # _check_inplace and refresh_view raise custom_view_error.
                o._view_version = o._vc[0]
                o._custom_view = "multi" if n_diff > 1 else "single"
        result.append(o)
    return tuple(result)


def _save_variables(ctx):
    to_save = ctx.to_save
    ctx.to_save = None
    if to_save is None:
        return
    saved = []
    for i, t in enumerate(to_save):
        if t is None:
            saved.append(None)
        elif not isinstance(t, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type {type(t).__name__}")
        elif t._grad_fn is ctx:
            alias = _alias(t)
            alias._output_nr = t._output_nr
            saved.append(_SavedSlot(alias, True, t._output_nr))
        else:
            saved.append(_SavedSlot(t))
    if _SAVED_HOOKS:
        hooks = _SAVED_HOOKS[-1]
        saved = [s if s is None else _pack(t, hooks, s.is_output) for s, t in zip(saved, to_save)]
    ctx._saved = saved


class InplaceFunction(Function):
    """Kept for backward compatibility, as in PyTorch."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


class _DelayedError(Node):
    """Stands between a ``@once_differentiable`` backward's results and a second differentiation."""

    def __init__(self):
        super().__init__()
        self._op = None

    def name(self):
        return "torch::autograd::Error"

    def _custom_backward(self, grads, create_graph):
        raise RuntimeError(_ONCE)


_DelayedError.__name__ = _DelayedError.__qualname__ = "Error"


def once_differentiable(fn):
    """Marks a ``backward`` as not differentiable: it runs without recording, and differentiating
    its result again raises PyTorch's error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not _grad_mode._enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        node = _DelayedError()
        node._n_outputs = len(outs)
        edges, wrapped = [], []
        for nr, o in enumerate(outs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            leaf = _alias(o)
            leaf._requires_grad = True
            edges.append((leaf._grad_accumulator(), 0))
            out = _alias(o)
            out._grad_fn, out._output_nr, out._requires_grad = node, nr, True
            wrapped.append(out)
        node._next = tuple(edges)
        return tuple(wrapped) if is_tuple else wrapped[0]

    return wrapper


__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta", "Function", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]
