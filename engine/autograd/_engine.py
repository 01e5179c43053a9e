"""The backward pass: an iterative walk over ``grad_fn`` nodes.

Consumers are counted first; a node runs once every consumer reachable from the roots has
delivered its gradient, in PyTorch's order (latest-created first, ``AccumulateGrad`` at once).
No recursion, so a 100,000-op chain is fine in CPython and in Pyodide.
"""
import heapq
import itertools
import sys
import warnings

import numpy as np

from .. import _grad_mode
from .._graph import AccumulateGrad, Node, freed_error
from .graph import GradientEdge
from .._ops import _quiet_off, _quiet_on, _sum_to, sum_to, to_dtype
from .._tensor import _UNWORKED, Size, Tensor, _ndarray, _wrap, unpack_saved, unpack_with_attrs

_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)
_warned_cycle = False

# The graph tasks (backward and grad calls) running, innermost last: for the hooks that ask
# which task they run in and whether a node will run in it (register_multi_grad_hook).
_tasks = []
_task_ids = itertools.count(1)


class _GraphTask:
    __slots__ = ("id", "reachable", "needed", "captures")

    def __init__(self, reachable, needed, captures):
        self.id, self.reachable, self.needed, self.captures = next(_task_ids), reachable, needed, captures


class _Ready:
    """A ready node in the walk's heap, entered as ``(-seq, _Ready)``. Nodes of one priority (leaves'
    AccumulateGrad, PyTorch's UINT64_MAX) compare equal, so heapq, whose sifts are those of C++'s
    std::priority_queue, hands them out in the order PyTorch's ready queue does (a leaf's hooks run in
    PyTorch's order)."""
    __slots__ = ("node", "grads")

    def __init__(self, node, grads):
        self.node, self.grads = node, grads

    def __lt__(self, other):
        return False


def current_graph_task_id():
    """``torch._C._current_graph_task_id()``: the running backward's id, -1 outside one."""
    return _tasks[-1].id if _tasks else -1


def is_checkpoint_valid():
    """``torch.autograd._is_checkpoint_valid()``: False inside a walk limited to some inputs (grad(),
    backward(inputs=...)), which a reentrant checkpoint's inner backward would escape."""
    return not _tasks or _tasks[-1].needed is None


def will_engine_execute_node(node):
    """``torch._C._will_engine_execute_node``: does the running backward reach ``node`` and run it?"""
    if not isinstance(node, Node):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got {type(node).__name__}")
    if not _tasks:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    task = _tasks[-1]
    if task.needed is None:
        return node in task.reachable
    if node not in task.needed:
        return False
    if task.captures and isinstance(node, AccumulateGrad) and (node, 0) in task.captures:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                           "autograd.grad(). This is currently not supported.")
    return True


def make_grads(outputs, grad_outputs, create_graph):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if not out._requires_grad:
                grads.append(None)
                continue
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind != "f":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            grads.append(_wrap(np.ones(out._data.shape, dtype=out._data.dtype) if out._data.ndim
                               else np.array(1, dtype=out._data.dtype)))
        else:
            if not isinstance(g, Tensor):
                from .._factories import tensor

                g = tensor(g, dtype=out.dtype)
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and output[{i}] "
                    f"has a shape of {Size(out._data.shape)}.")
            if g._data.dtype != out._data.dtype and g._data.dtype.kind != out._data.dtype.kind:
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype of {out.dtype}.")
            grads.append(g)
    return grads


def backward_one(t, retain_graph, create_graph):
    """``t.backward()``, the commonest call: no gradient or inputs to sort out."""
    run_backward((t,), make_grads((t,), (None,), create_graph), retain_graph, create_graph)


def _root(t, i):
    if not t._requires_grad:
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    # (the grad_fn property only when t is a view: its base may have changed in place since)
    fn = t._grad_fn if t._view_version is None else t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    acc = t._grad_accumulator()
    if acc is None:  # a view made under no_grad: it reads requires_grad=True, yet is no root
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return acc, 0


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None, accumulate=True,
                 allow_unused=False, materialize_grads=False):
    """Shared by ``backward`` (accumulate into ``.grad``) and ``grad`` (return the grads of ``inputs``)."""
    if retain_graph is None:
        retain_graph = create_graph
    global _warned_cycle
    if accumulate and create_graph and not _warned_cycle:
        _warned_cycle = True  # TORCH_WARN_ONCE: once per process
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=4)
    roots = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None and not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append((_root(t, i), g))

    # Where grads are captured (grad()) or limited to (backward(inputs=...)).
    targets = None
    if inputs is not None:
        targets = {}
        for k, t in enumerate(inputs):
            if type(t) is GradientEdge:  # (autograd.grad only)
                targets.setdefault((t.node, t.output_nr), []).append(k)
                continue
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            key = (t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._grad_accumulator(), 0)
            targets.setdefault(key, []).append(k)

    # Count, for every reachable node, the edges that will deliver a grad to it (iteratively).
    root_nodes = [n for (n, _), _ in roots]
    hooked_leaf = False  # a leaf's AccumulateGrad with hooks: then all of them go through the heap
    if targets is None:
        needed = None
        deps = dict.fromkeys(root_nodes, 0)
        stack = list(deps)
        while stack:
            for child, _ in stack.pop()._next:
                if child is not None:
                    if child in deps:
                        deps[child] += 1
                    else:
                        deps[child] = 1
                        stack.append(child)
                        if not child._plain and type(child) is AccumulateGrad:
                            hooked_leaf = True
    else:
        # grad() and backward(inputs=...) run only the nodes that lead to a target.
        target_nodes = {node for node, _ in targets}
        needed = set()
        for n in _postorder(root_nodes):
            if n in target_nodes or any(c in needed for c, _ in n._next if c is not None):
                needed.add(n)
        deps = {}
        for n in needed:
            for child, _ in n._next:
                if child is not None and child in needed:
                    deps[child] = deps.get(child, 0) + 1

    buffers = {}
    heap = []
    for (node, nr), g in roots:
        if needed is not None and node not in needed:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_outputs
            if deps.get(node, 0) == 0:
                heapq.heappush(heap, (-node._seq, _Ready(node, buf)))
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    captured = {}
    plain_walk = targets is None and not _grad_mode._anomaly["enabled"]
    # Hook-free leaves made ready run at once (their order cannot be seen), unless a leaf has hooks:
    # its place in PyTorch's ready queue, among the other leaves, decides when its hooks run.
    leaves_at_once = plain_walk and not hooked_leaf
    # rules run on NumPy arrays where they can (Op.array_vjps); not when tangents must flow through them
    arrays = plain_walk and not create_graph and not _grad_mode._fw_active
    heappush, heappop = heapq.heappush, heapq.heappop
    ready = None  # the next node when it is the only one ready: no trip through the heap
    ready_grads = None
    leaves = []  # (node, grads) of hook-free leaves made ready by the node being run
    prev = _grad_mode._enabled
    _grad_mode._set(create_graph)
    quiet = _quiet_on()  # for the whole walk: the rules' kernels then skip setting it one by one
    _tasks.append(_GraphTask(deps, needed, None if accumulate or targets is None else targets))
    try:
        while ready is not None or heap:
            if ready is not None:
                node, grads, ready, ready_grads = ready, ready_grads, None, None
            else:
                entry = heappop(heap)[1]
                node, grads = entry.node, entry.grads
            op = node._op
            plain = op is not None and plain_walk and node._plain
            if plain:
                # The common node: one output, no hooks, an engine op. Its rule runs child by
                # child below (apply_node and _apply_rule, inlined).
                g = grads[0]
                if g is not None:
                    vjps = op._array_vjps if arrays else None
                    if vjps is _UNWORKED:
                        vjps = op.array_vjps
                    on_arrays = vjps is not None
                    if on_arrays:
                        if type(g) is not _ndarray and isinstance(g, Tensor):
                            g = g._data
                        standins = op._standins  # (sorted; a rule's attrs can be among them, past the inputs)
                        if op.saves or standins and (standins is _UNWORKED or standins[0] < len(node._metas)):
                            ans, args = unpack_saved(node, True)
                        else:  # nothing saved, no input's shape read: the rule sees the (shape, dtype) pairs
                            if node._freed:  # (its kept index or mask freed by an earlier backward)
                                raise freed_error()
                            ans, args = None, node._metas
                    else:
                        g = _as_tensor(g)
                        ans, args = unpack_saved(node)
                        vjps = op.vjps
                    attrs, metas = node._attrs, node._metas
            elif op is None and plain_walk and type(node) is AccumulateGrad and node._plain:
                _accumulate_grad(node.variable, grads, create_graph, True)  # the leaf's node, inlined
                grads = None
                continue
            else:
                if arrays:
                    _as_tensors(grads)
                outs = _run_node(node, grads, targets, inputs, accumulate, captured, create_graph, needed,
                                 retain_graph)
                if outs is None:
                    continue
            i = -1
            for child, nr in node._next:
                i += 1
                if child is None or needed is not None and child not in needed:
                    continue
                if not plain:
                    r = outs[i]
                elif g is None:
                    r = None
                else:
                    if attrs is not None:
                        r = vjps[i](g, ans, *args, **attrs)
                    elif len(args) == 2:  # (spelled out: a call with *args costs more than the rule)
                        r = vjps[i](g, ans, args[0], args[1])
                    elif len(args) == 1:
                        r = vjps[i](g, ans, args[0])
                    else:
                        r = vjps[i](g, ans, *args)
                    if r is not None:
                        shape, dt = metas[i]
                        if on_arrays:
                            if r.shape != shape:
                                r = _sum_to(r, shape)
                            if r.dtype is not dt and r.dtype != dt:
                                r = r.astype(dt)
                        else:
                            if r._data.shape != shape:
                                r = sum_to(r, shape)
                            if r._data.dtype is not dt and r._data.dtype != dt:
                                r = to_dtype(r, dt)
                n = deps[child] - 1
                if n:  # more grads to come: into the child's buffer
                    deps[child] = n
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child._n_outputs
                elif child in buffers:  # the last one, after others
                    buf = buffers.pop(child)
                elif child._n_outputs == 1:  # the only one (most nodes): no buffer
                    buf = [r]
                    r = None
                else:
                    buf = [None] * child._n_outputs
                if r is not None:
                    old = buf[nr]
                    if old is None:
                        buf[nr] = r
                    elif type(old) is type(r):
                        buf[nr] = old + r
                    else:  # an array and a tensor, from rules run on arrays and on tensors
                        buf[nr] = _as_tensor(old) + _as_tensor(r)
                if not n:  # the child is ready
                    if leaves_at_once and type(child) is AccumulateGrad and child._plain:
                        leaves.append((child, buf))  # a hook-free leaf's node: run once this node is done
                    elif ready is None and not heap:
                        ready, ready_grads = child, buf
                    else:
                        if ready is not None:
                            heappush(heap, (-ready._seq, _Ready(ready, ready_grads)))
                            ready = None
                        heappush(heap, (-child._seq, _Ready(child, buf)))
            if plain and not retain_graph and node._saved is not None:
                node._saved = None  # Node._release, inlined
                node._freed = True
            if leaves:  # (AccumulateGrad runs as soon as it is ready, before any other node)
                # Only the leaves' lists hold their grads now: see _accumulate_grad's ownership check
                ans = args = r = buf = outs = g = grads = None
                for leaf, leaf_grads in leaves:
                    _accumulate_grad(leaf.variable, leaf_grads, create_graph, True)
                leaves.clear()
    finally:
        _tasks.pop()
        _quiet_off(quiet)
        _grad_mode._set(prev)

    if inputs is None or accumulate:
        return None
    result = []
    for k, t in enumerate(inputs):
        g = captured.get(k)
        if g is None:
            if not allow_unused and not materialize_grads:
                raise RuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
            if materialize_grads and type(t) is not GradientEdge:
                g = _wrap(np.zeros(t._data.shape, dtype=t._data.dtype))
        elif not create_graph:
            tangent = g._fw_grad if _grad_mode._fw_active else None
            g = g.detach()
            if tangent is not None:  # (forward AD through the backward pass: the grad keeps its tangent)
                from .forward_ad import set_tangent

                set_tangent(g, tangent)
        result.append(g)
    return tuple(result)


def _run_node(node, grads, targets, inputs, accumulate, captured, create_graph, needed, retain_graph):
    """Any node, hooks and all, for the walk: its input grads, or None when ``grad()`` only
    captures what reaches this leaf."""
    hooked = False
    if targets is not None:
        for nr in range(node._n_outputs):
            ks = targets.get((node, nr))
            if not ks:
                continue
            hooked = True
            g = grads[nr] = _hooked_grad(node, nr, grads[nr])
            if not accumulate:
                for k in ks:
                    captured[k] = g
            elif not isinstance(node, AccumulateGrad) and g is not None:
                _accumulate(inputs[ks[0]], g, create_graph)
        if not accumulate and isinstance(node, AccumulateGrad):
            return None
        g = None
    try:
        outs = apply_node(node, grads, create_graph, needed, hooked, True)
    except Exception:
        if _grad_mode._anomaly["enabled"]:
            from .anomaly_mode import warn_trace

            warn_trace(node)
        raise
    if not retain_graph:
        node._release()
    return outs


def _as_tensor(g):
    return g if isinstance(g, Tensor) else _wrap(np.asarray(g))


def _as_tensors(grads):
    """A walk's grads as tensors, for a node whose hooks or rule take tensors."""
    for i, g in enumerate(grads):
        if g is not None:
            grads[i] = _as_tensor(g)


def _postorder(roots):
    out, seen = [], set()
    stack = [(r, False) for r in roots]
    while stack:
        n, done = stack.pop()
        if done:
            out.append(n)
            continue
        if n in seen:
            continue
        seen.add(n)
        stack.append((n, True))
        for c, _ in n._next:
            if c is not None and c not in seen:
                stack.append((c, False))
    return out


def _hooked_grad(node, nr, g):
    """The grad of one node output after the hooks of the tensor it belongs to."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._hooks
    else:
        hooks = node._tensor_pre_hooks.get(nr) if node._tensor_pre_hooks else None
    if hooks and g is not None:
        for h in list(hooks.values()):
            r = h(g)
            if r is not None:
                g = r
    return g


_getrefcount = getattr(sys, "getrefcount", None) or (lambda obj: -1)  # -1: no refcounts (PyPy), always copy


def _exclusive_refs(grads):
    # What _accumulate_grad sees when only the engine holds a grad (its list entry and a local)
    # and only the grad holds its array; measured, not assumed, as the count differs across
    # Python versions.
    g = grads[0]
    return _getrefcount(g), _getrefcount(g._data)


_EXCLUSIVE_REFS = _exclusive_refs([_wrap(np.zeros(1))]) if hasattr(sys, "getrefcount") else (0, 0)


def _accumulate_grad(var, grads, create_graph, steal):
    """AccumulateGrad's work: ``grads[0]`` into the leaf ``var``'s ``.grad``. With ``steal``, .grad
    takes the incoming array instead of a copy when nothing else can ever see it: only ``grads``
    holds the grad (no hook kept it, no other consumer, not a root gradient, which run_backward
    keeps referenced) and only the grad holds its array, which owns its memory."""
    g = grads[0]
    if g is None:
        return
    if steal and var._grad is None and not create_graph and _getrefcount(g) == _EXCLUSIVE_REFS[0]:
        if isinstance(g, Tensor):
            d = g._data if _getrefcount(g._data) == _EXCLUSIVE_REFS[1] else None
        else:  # an array (or NumPy scalar) from a rule run on arrays: tested on its own
            d = g if type(g) is _ndarray else None
        if d is not None and d.dtype == var._data.dtype:
            f = d.flags  # (a new object at each read)
            if f.owndata and f.writeable and f.c_contiguous:
                var._grad = _wrap(d)
                return
    _accumulate(var, _as_tensor(g), create_graph)


def _accumulate(t, g, create_graph):
    """Add ``g`` into ``t.grad``: in place normally, out of place when building a graph."""
    if t._grad is None:
        if create_graph:
            # A copy (CopyBackwards), as PyTorch's AccumulateGrad makes: .grad never aliases a graph tensor.
            t._grad = _wrap(np.empty_like(g._data, dtype=t._data.dtype)).copy_(g)
        else:
            t._grad = _wrap(g._data.astype(t._data.dtype, copy=True))
    elif create_graph or t._grad._requires_grad:
        t._grad = t._grad + g
    else:
        t._grad._data += g._data
        t._grad._vc[0] += 1


def apply_node(node, grads, create_graph, needed=None, hooks_done=False, owned=False, by_hand=False):
    """Run one node: tensor hooks, retain_grad, pre-hooks, the backward rule, post-hooks.
    ``owned``: ``grads`` is the walk's own buffer, not tensors a caller passed in. ``by_hand``:
    ``grad_fn(*grads)``, which gives the rule's results as they come (see _apply_rule)."""
    if node._tensor_pre_hooks and not hooks_done:
        for nr in node._tensor_pre_hooks:
            grads[nr] = _hooked_grad(node, nr, grads[nr])
    if node._retains:
        for nr, ref in node._retains.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                _accumulate(t, grads[nr], create_graph)
    if node._pre_hooks:
        for h in list(node._pre_hooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)

    if isinstance(node, AccumulateGrad):
        var = node.variable
        if var._hooks and not hooks_done:
            grads[0] = _hooked_grad(node, 0, grads[0])
        _accumulate_grad(var, grads, create_graph, owned and not node._hooks)
        post = var._post_hooks
        if post:
            for h in list(post.values()):
                h(var)
        outs = []
    elif node._op is None:
        outs = node._custom_backward(grads, create_graph)
    else:
        outs = _apply_rule(node, grads, needed, not by_hand)

    if node._hooks:
        for h in list(node._hooks.values()):
            r = h(tuple(outs), tuple(grads))
            if r is not None:
                outs = list(r)
    if _grad_mode._anomaly["enabled"] and _grad_mode._anomaly["check_nan"]:
        _check_nan(node, outs)
    return outs


def _apply_rule(node, grads, needed, fit=True):
    """The rule's grads, each summed to its input's shape and cast to its dtype (``fit``) as PyTorch's
    engine does on the way to the next node: a node called by hand returns them unfitted."""
    vjps = node._op.vjps
    ans, args, attrs = unpack_with_attrs(node)
    if node._n_outputs == 1:
        g = grads[0]
        if g is None:
            return [None] * len(node._next)
    else:
        g = grads
        if all(x is None for x in grads):
            return [None] * len(node._next)
    outs = []
    metas = node._metas
    for i, (child, _) in enumerate(node._next):
        if child is None or (needed is not None and child not in needed):
            outs.append(None)
            continue
        r = vjps[i](g, ans, *args) if attrs is None else vjps[i](g, ans, *args, **attrs)
        if r is not None and fit:
            shape, dt = metas[i]
            if r._data.shape != shape:
                r = sum_to(r, shape)
            if r._data.dtype != dt:
                r = to_dtype(r, dt)
        outs.append(r)
    return outs


def _check_nan(node, outs):
    for i, g in enumerate(outs):
        if g is not None and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def call_node(node, grads):
    """``grad_fn(*grads)``: run one node by hand, as PyTorch allows."""
    if len(grads) != node._n_outputs:
        raise TypeError(f"expected {node._n_outputs} arguments, got {len(grads)} instead")
    for i, g in enumerate(grads):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"argument {i} is not a Variable")
    outs = apply_node(node, grads, _grad_mode._enabled, by_hand=True)
    return outs[0] if len(outs) == 1 else tuple(outs)
