"""``torch.compile``, as its graph shows: the engine runs the function as written (it generates no
code), and AOTAutograd's one ``CompiledFunctionBackward`` node stands for the whole backward of a
call. Its ``next_functions`` are the graph's inputs (the call's tensors, a module's parameters, the
tensors the function reads from outside) in the order the call first uses them; a backward with
``create_graph=True`` makes ``CompiledFunctionBackwardBackward``, which cannot be differentiated, as
in PyTorch. ``backend="eager"`` records the ops one by one."""
import functools
import math

import numpy as np

from . import _graph, _grad_mode
from ._tensor import Tensor, _wrap
from .autograd.function import Function, _edge
from .nn import Module
from .nn.modules import module as _module

MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")  # torch._dynamo.list_backends()
_DEBUG = ("aot_eager", "aot_eager_decomp_partition", "eager")
_DOUBLE = "torch.compile with aot_autograd does not currently support double backward"
_running = [0]  # compiled calls under way: torch.compiler.is_compiling()
_patched = [False]


class InvalidBackend(RuntimeError):
    __module__ = "torch._dynamo.exc"

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def list_backends(exclude_tags=("debug", "experimental")):
    return sorted(_LISTED if exclude_tags and "debug" in exclude_tags else _LISTED + _DEBUG)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """``model`` (a function or an ``nn.Module``) compiled: same values and grads, one backward node."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(MODES)}")
    if callable(backend):
        raise NotImplementedError(
            "torch.compile with a custom backend: the engine builds no FX graph to hand it; use "
            "backend='inductor' (the default), 'aot_eager' or 'eager'")
    if backend not in _LISTED + _DEBUG:
        raise InvalidBackend(backend)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    if not _patched[0]:  # what PyTorch's dynamo does to the process at its first torch.compile
        from .distributions import Distribution

        Distribution.set_default_validate_args(False)
        _patched[0] = True
    fused = backend != "eager"
    if isinstance(model, Module):
        return OptimizedModule(model, fused)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return _call(model, args, kwargs, fused)

    compiled._torchdynamo_orig_callable = model
    return compiled


def _call(fn, args, kwargs, fused):
    start = next(_graph._sequence)  # nodes numbered from here on are the call's own
    _running[0] += 1
    outer, _module._param_reads = _module._param_reads, {}
    try:
        out = fn(*args, **kwargs)
    finally:
        _running[0] -= 1
        reads, _module._param_reads = _module._param_reads, outer
    if not fused or not _grad_mode._enabled:
        return out
    many = isinstance(out, (tuple, list))
    outs = list(out) if many else [out]
    own = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o._grad_fn is not None and
           o._grad_fn._seq >= start]
    if not own:
        return out
    inputs = _graph_inputs([outs[i] for i in own], start, (args, kwargs), reads)
    if inputs is None:  # (an input whose shape the graph does not tell: the ops stay as recorded)
        return out
    run = _Run([outs[i] for i in own], inputs)
    fresh = CompiledFunction.apply(run, *inputs)
    for i, t in zip(own, fresh if isinstance(fresh, tuple) else (fresh,)):
        outs[i] = t
    return type(out)(outs) if many else outs[0]


def _graph_inputs(outs, start, args, reads):
    """The tensors whose grads the call's backward gives, as AOTAutograd orders a graph's inputs: by
    first use in the call's ops (a module's parameters, the call's tensors, those read from outside), a
    module's parameter from when it was read (``reads``), a tensor the call was given that needs no grad
    (its use leaves no edge) by its place among the others given."""
    given = _flat(args)
    by_edge = {}
    for a in given:
        if a._requires_grad:
            by_edge.setdefault(_edge(a), a)
    first = {}  # edge into the outside -> (its first user's number, the edge's place), that user
    stack, visited = [o._grad_fn for o in outs], set()
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        for i, (child, nr) in enumerate(node._next):
            if child is None:
                continue
            if isinstance(child, _graph.AccumulateGrad) or child._seq < start:
                key = (node._seq, i)
                if (child, nr) not in first or key < first[child, nr][0]:
                    first[child, nr] = key, node
            elif child not in visited:
                stack.append(child)
    used = []
    for (child, nr), (key, user) in first.items():
        t = by_edge.get((child, nr))
        if t is None and isinstance(child, _graph.AccumulateGrad):
            t = child.variable
        if t is None:  # an outside node's output: a stand-in tensor of its shape on that edge
            metas = getattr(user, "_metas", None) or getattr(user, "_input_meta", None)
            if metas is None or key[1] >= len(metas) or metas[key[1]] is None:
                return None
            shape, dtype = metas[key[1]]
            t = _wrap(np.zeros(shape, dtype), True)
            t._grad_fn, t._output_nr = child, nr
        if id(t) in reads:
            key = min(key, (reads[id(t)], -1))
        used.append((key + (0,), t))
    keyed = {id(t): key for key, t in used}
    places = [keyed.get(id(a)) for a in given]
    for k, a in enumerate(given):
        if a._requires_grad or id(a) in keyed:
            continue
        after = next((p for p in places[k + 1:] if p is not None), None)
        before = next((p for p in reversed(places[:k]) if p is not None), None)
        keyed[id(a)] = key = ((after[0], after[1] - 0.5, k) if after is not None else
                              (before[0], before[1] + 0.5, k) if before is not None else (-math.inf, 0, k))
        used.append((key, a))
    used.sort(key=lambda pair: pair[0])
    return [t for _, t in used]


def _flat(items):
    out = []
    for a in items:
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (tuple, list)):
            out.extend(_flat(a))
        elif isinstance(a, dict):
            out.extend(_flat(list(a.values())))
    return out


class _Run:
    """One compiled call: its outputs in the graph its ops recorded, and the graph's inputs."""

    def __init__(self, outs, inputs):
        self.outs, self.inputs = outs, inputs

    def grads(self, outs, grads):
        from .autograd import grad
        from .autograd.graph import get_gradient_edge

        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
        wanted = [get_gradient_edge(t) for t in self.inputs if t._requires_grad]
        if not pairs or not wanted:
            return (None,) * len(self.inputs)
        found = iter(grad([o for o, _ in pairs], wanted, [g for _, g in pairs], retain_graph=True,
                          allow_unused=True))
        return tuple(next(found) if t._requires_grad else None for t in self.inputs)


class CompiledFunction(Function):
    @staticmethod
    def forward(ctx, run, *inputs):
        ctx.run = run
        outs, run.outs = run.outs, None  # (held as saved tensors only: freed by a backward without retain_graph)
        ctx.save_for_backward(*outs)
        return tuple(_wrap(o._data.copy()) for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        outs = ctx.saved_tensors
        run = ctx.run
        if _grad_mode._enabled:  # create_graph=True
            return (None,) + CompiledFunctionBackward.apply(run, outs, *run.inputs, *grads)
        return (None,) + run.grads(outs, grads)


class CompiledFunctionBackward(Function):
    """The backward of a compiled call as a node of its own (``create_graph=True``)."""

    @staticmethod
    def forward(ctx, run, outs, *rest):  # rest: the call's inputs (what it saved), then the grads
        return run.grads(outs, rest[len(run.inputs):])

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_DOUBLE)


class OptimizedModule(Module):
    """A compiled module: its ``_orig_mod`` called as a compiled function (``state_dict`` keys start
    ``_orig_mod.``, and its attributes are the module's, as in PyTorch)."""

    __module__ = "torch._dynamo.eval_frame"

    def __init__(self, mod, fused):
        super().__init__()
        self._orig_mod = mod
        self._fused = fused

    def forward(self, *args, **kwargs):
        return _call(self._orig_mod, args, kwargs, self._fused)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


def is_compiling():
    return _running[0] > 0
