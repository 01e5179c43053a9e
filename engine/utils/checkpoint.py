"""``torch.utils.checkpoint``: activation checkpointing, as PyTorch 2.13 does it on the CPU.

A checkpointed function keeps no activations: its inputs are kept, and its forward is run again
when backward needs what it would have saved. Two ways, as in PyTorch:

- ``use_reentrant=True`` (the default, with PyTorch's warning): one ``CheckpointFunctionBackward``
  node stands for the whole function; its backward reruns it and calls backward inside backward.
- ``use_reentrant=False``: the graph is the function's own nodes, but what they save goes through
  saved-tensor hooks that keep nothing; the first unpack in a backward reruns the function and
  takes each saved tensor from the rerun, in the order they were saved (and stops the rerun once
  it has them all).
"""
import contextlib
import itertools
import warnings
import weakref

from .. import _grad_mode
from .._tensor import Tensor, _version_message
from ..autograd import _is_checkpoint_valid, backward
from ..autograd._engine import current_graph_task_id
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..random import fork_rng, get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "noop_context_fn", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""
_NO_REENTRANT_ARG = ("the use_reentrant parameter should be passed explicitly. {} use_reentrant=False is recommended, "
                     "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer "
                     "to docs for more details on the differences between the two variants.")
_early_stop = None  # set_checkpoint_early_stop's setting (None: each call's own)
_debug = None  # set_checkpoint_debug_enabled's


class CheckpointError(RuntimeError):
    pass


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    global _early_stop
    prev, _early_stop = _early_stop, enable
    try:
        yield
    finally:
        _early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    global _debug
    prev, _debug = _debug, enabled
    try:
        yield
    finally:
        _debug = prev


@contextlib.contextmanager
def _rng_as_in_forward(state):
    """The generator as the forward left it (``state``; None: as it is), and as it was again after."""
    with fork_rng(enabled=state is not None):
        if state is not None:
            set_rng_state(state)
        yield


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.fwd_cpu_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs, ctx.tensor_indices, tensors = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors.append(arg)
                ctx.tensor_indices.append(i)
                arg = None  # (filled in from saved_tensors in backward)
            ctx.inputs.append(arg)
        ctx.save_for_backward(*tensors)
        with _grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        if not _is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _rng_as_in_forward(ctx.fwd_cpu_state):
            detached = detach_variable(tuple(inputs))
            with _grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, args) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping none of its activations for backward (see the module)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _NO_REENTRANT_ARG.format(
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception."), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if (_debug if _debug is not None else debug) and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not _grad_mode._enabled:  # (nothing will be saved: no hooks, and forward_context unused, as in PyTorch)
        return function(*args, **kwargs)
    fwd_state = get_rng_state() if preserve else None

    def recompute(*inputs):
        with _rng_as_in_forward(fwd_state), recompute_context:
            function(*inputs, **kwargs)

    frame = _Frame(recompute, _early_stop if _early_stop is not None else early_stop,
                   _metadata if determinism_check == "default" else None, args)
    with _Hooks(frame), forward_context:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint ``segments`` - 1 runs of a sequence of modules (or functions); the last runs plainly."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _NO_REENTRANT_ARG.format(
            "In version 2.9 we will raise an exception if use_reentrant is not passed."), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


# ----- use_reentrant=False -----

def _metadata(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


class _Holder:
    """What the pack hook keeps for one saved tensor: per backward (graph task), the recomputed
    tensor until it is unpacked, then None."""
    __slots__ = ("values", "__weakref__")

    def __init__(self):
        self.values = {}


class _StopRecomputation(Exception):
    pass


class _Frame:
    def __init__(self, recompute, early_stop, metadata_fn, args):
        self.recompute, self.early_stop, self.metadata_fn = recompute, early_stop, metadata_fn
        # the inputs, checked for in-place changes when rerun (as PyTorch's saved inputs are)
        self.args = [(a, a._vc[0]) if isinstance(a, Tensor) else (a, None) for a in args]
        self.holders = []  # weak references, in the order the forward saved
        self.metadata = []
        self.counts = {}  # graph task -> tensors saved by its rerun so far
        self.rerun = set()  # graph tasks that have rerun the function
        self.forward_completed = False
        self.ignore_mismatch = False

    def inputs(self):
        for a, version in self.args:
            if version is not None and a._vc[0] != version:
                raise RuntimeError(_version_message(a, version, None))
        return [a for a, _ in self.args]

    def check(self, task):
        if self.ignore_mismatch:
            return
        if len(self.holders) != self.counts.get(task, 0):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\nNumber of tensors "
                f"saved during recomputation: {self.counts.get(task, 0)}.\n{_DEBUG_TIP}")
        if self.metadata_fn is None:
            return
        wrong = ""
        for k, (ref, saved) in enumerate(zip(self.holders, self.metadata)):
            holder = ref()
            if holder is not None and saved != (now := self.metadata_fn(holder.values[task])):
                wrong += f"tensor at position {k}:\nsaved metadata: {saved}\nrecomputed metadata: {now}\n"
        if wrong:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                                  f"metadata than during the forward pass.\n{wrong}.\n{_DEBUG_TIP}")


_outside = itertools.count(1)  # (an unpack outside any backward gets a task of its own, as PyTorch's uuid)


class _Hooks(saved_tensors_hooks):
    """The forward's hooks: a holder for each saved tensor; its first unpack in a backward reruns."""

    def __init__(self, frame):
        def pack(x):
            holder = _Holder()
            frame.holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                frame.metadata.append(frame.metadata_fn(x))
            return holder

        def unpack(holder):
            task = current_graph_task_id()
            if task == -1:
                task = ("outside", next(_outside))
            if task not in frame.rerun:
                args = frame.inputs()
                try:
                    with _Recomputation(frame, task), _grad_mode.enable_grad():
                        frame.recompute(*args)
                except _StopRecomputation:
                    pass
                frame.rerun.add(task)
                frame.check(task)
            value = holder.values.get(task)
            if value is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. If "
                    "you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please "
                    "open an issue with details on your use case.")
            holder.values[task] = None
            return value

        super().__init__(pack, unpack)


class _Recomputation(saved_tensors_hooks):
    """The rerun's hooks: each tensor saved goes, detached, to the holder of the same position."""

    def __init__(self, frame, task):
        def pack(x):
            x = x.detach() if x.requires_grad else x
            k = frame.counts.get(task, 0)
            frame.counts[task] = k + 1
            if k >= len(frame.holders):
                if not frame.forward_completed:  # (a backward inside the checkpointed function)
                    frame.ignore_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{_DEBUG_TIP}")
            holder = frame.holders[k]()
            if holder is not None:
                holder.values[task] = x
            if frame.early_stop and k + 1 == len(frame.holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)
