"""``torch.autograd.graph``: the ``Node`` class every ``grad_fn`` is an instance of, gradient edges,
and hooks on the tensors a graph saves for backward.

>>> def pack(t):
...     print("Packing", t)
...     return t
>>> with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
...     y = torch.ones(2, requires_grad=True).exp()
Packing tensor([2.7183, 2.7183], grad_fn=<ExpBackward0>)
"""
import contextlib
import functools
from typing import NamedTuple, Optional

from .._graph import Node
from .._tensor import _SAVED_HOOKS, Tensor
from ..utils.hooks import RemovableHandle

__all__ = ["Node", "RemovableHandle", "GradientEdge", "get_gradient_edge", "increment_version",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook"]


class GradientEdge(NamedTuple):
    """Object representing a given gradient edge within the autograd graph."""

    node: Node
    output_nr: int
    ownership_token: Optional[Node] = None


def get_gradient_edge(tensor):
    """The edge where ``tensor``'s gradient is computed: ``(grad_fn, output_nr)``, or its
    ``AccumulateGrad`` for a leaf. ``autograd.grad(loss, edge)`` equals ``autograd.grad(loss, tensor)``."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    fn = tensor.grad_fn
    if fn is None:
        fn = tensor._grad_accumulator()
    return GradientEdge(fn, tensor._output_nr)


def increment_version(tensor):
    """Mark ``tensor`` (or each of several) as modified in place, for autograd's saved-tensor checks."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._vc[0] += 1


_disabled = []  # error messages of the disable_saved_tensors_hooks contexts, innermost last


class saved_tensors_hooks:
    """Context manager that sets a pair of pack / unpack hooks for saved tensors.

    Every tensor an operation saves for backward inside it goes through ``pack_hook`` (under
    no_grad) when saved, and what it returned through ``unpack_hook`` whenever the saved tensor is
    read: by backward, or by ``grad_fn._saved_*``."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled:
            raise RuntimeError(_disabled[-1])
        _SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args):
        _SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward (here every
    tensor is on the CPU already, so they are kept as they are)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Within it, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""
    _disabled.append(error_message)
    try:
        yield
    finally:
        _disabled.pop()


def _grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    node = t._grad_accumulator() if t.requires_grad and t.grad_fn is None else t.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """One hook on several tensors. ``mode="all"``: ``fn(grads)`` once per backward, after the grad
    of every tensor that backward computes (None for the others); ``"any"``: ``fn(grad)`` with the
    first of them. Returns a handle whose ``remove()`` removes it."""
    from ._engine import current_graph_task_id, will_engine_execute_node

    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "any":
        ran = set()  # the backward calls (graph task ids) it ran in

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = current_graph_task_id()
            if task in ran:
                return
            ran.add(task)
            fn(grad)

        return _MultiHandle(tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad))

    count, buffer = {}, {}  # per graph task: grads seen so far, and those grads
    expected = None  # how many grads the running backward computes
    grad_fns = [_grad_fn_or_grad_acc(t) for t in tensors]

    def inner_hook(idx, grad):
        nonlocal expected
        task = current_graph_task_id()
        seen = count.get(task, 0)
        count[task] = seen + 1
        grads = buffer.setdefault(task, [None] * len(tensors))
        if seen == 0:  # the first grad of this backward: how many it will compute
            expected = sum(map(will_engine_execute_node, grad_fns))
        grads[idx] = grad
        if seen == expected - 1:
            del count[task], buffer[task]
            fn(grads)

    return _MultiHandle(tuple(t.register_hook(functools.partial(inner_hook, i)) for i, t in enumerate(tensors)))
