"""Backward one node at a time: what each grad_fn node received and passed on, in the order
autograd ran them, for the step-through view.

Recorded with PyTorch's own hook API (``Node.register_hook``), so it reads the walk of whatever
``torch`` the session runs, engine or PyTorch, and sees grads after the user's own hooks.
"""
import sys

from .graph import grad_state, saved_attributes
from .runner import FILENAME, safe_repr

MAX_STEPS = 400  # grad_fn nodes recorded; a bigger graph is not stepped through (``too_big``)
MAX_TEXT = 2_000
MAX_SAVED_TEXT = 600
# Elements printed in full per backward (printing costs about 7 µs an element, far more than the
# walk); past it a tensor shows its first values only. Graphs learners step through stay under.
PRINT_BUDGET = 20_000


def _nodes_from(root):
    """grad_fn nodes reachable from ``root`` (iteratively), or None past MAX_STEPS."""
    seen, stack, found = set(), [root], []
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        found.append(fn)
        if len(found) > MAX_STEPS:
            return None
        try:
            stack.extend(nxt for nxt, _ in fn.next_functions)
        except Exception:  # noqa: BLE001 - a broken custom node: its children are not stepped
            pass
    return found


def _number(v):
    text = f"{v:.4g}"
    return text + "." if isinstance(v, float) and text.lstrip("-").isdigit() else text  # 1. as torch prints it


class _Printer:
    """Tensors as text, in full while the budget lasts."""

    def __init__(self):
        self.budget = PRINT_BUDGET

    def text(self, value, limit):
        numel = value.numel() if callable(getattr(value, "numel", None)) and hasattr(value, "shape") else 0
        if numel > self.budget:
            head = ", ".join(_number(v) for v in value.detach().reshape(-1)[:4].tolist())
            return f"tensor([{head}, ...])  (the first 4 of {numel} values: too many grads to print them all)"
        self.budget -= numel
        return safe_repr(value, limit)

    def grad(self, g):
        if g is None:
            return None
        try:
            return {"shape": "×".join(str(int(d)) for d in g.shape) or "scalar", "text": self.text(g, MAX_TEXT)}
        except Exception as exc:  # noqa: BLE001
            return {"shape": "?", "text": f"<repr failed: {exc}>"}

    def saved(self, pairs):
        return [[name, self.text(value, MAX_SAVED_TEXT)] for name, value in pairs]


class _Kept:
    """A tensor met during a backward, printed only if that walk is shown (a later backward in a
    loop replaces it unprinted). Printed as itself when unchanged since, else from the copy taken
    then. Copied: what later code changes in place (a leaf's .grad, which accumulates and which
    zero_grad zeroes; a leaf that requires grad, which an optimizer steps). The grads passed
    between nodes are new tensors nobody else holds: kept as they are."""
    __slots__ = ("value", "version", "copy")

    def __init__(self, value, copy):
        self.value, self.version, self.copy = value, _version(value), None
        if copy:
            self.copy = value.detach().clone()
            if value.requires_grad:
                self.copy.requires_grad_()  # (its repr then ends as the leaf's does)

    def now(self):
        v = _version(self.value)
        return self.value if self.copy is None or v is not None and v == self.version else self.copy


def _version(t):
    try:
        return t._version
    except Exception:  # noqa: BLE001 - e.g. an inference tensor: it has no version counter
        return None


def _kept(value, copy=True):
    if value is None or not callable(getattr(value, "clone", None)):
        return value
    try:
        return _Kept(value, copy)
    except Exception:  # noqa: BLE001 - an odd tensor: kept as it is
        return value


def _now(value):
    return value.now() if type(value) is _Kept else value


def _saved(fn):
    """What the node saved for its rule (``grad_fn._saved_*``), read while the node runs: a
    backward without retain_graph frees it right after."""
    out = []
    for attr in saved_attributes(fn):
        if attr == "saved_tensors":  # a custom Function's: what its backward unpacks
            continue
        try:
            value = getattr(fn, attr)
            leaf = getattr(value, "requires_grad", False) and getattr(value, "is_leaf", False)
            out.append((attr[len("_saved_"):], _kept(value, copy=leaf)))
        except Exception:  # noqa: BLE001 - freed or unreadable: not shown
            continue
    return out


class StepRecorder:
    """``with StepRecorder(output) as rec: output.backward()``; then ``rec.steps`` holds one
    entry per node run: ``(node, grads it received, grads it passed on, leaf grad after)``.
    The node objects stay referenced until ``resolve`` maps them to graph ids."""

    def __init__(self, output, tensors=()):
        fn = getattr(output, "grad_fn", None)
        self.nodes = _nodes_from(fn) if fn is not None else []
        self.too_big = self.nodes is None
        self.steps = []
        self._handles = []
        self.source = None  # for a backward the code ran: {"line", "calls"}
        # The grad before this backward of each tensor it sets (a leaf through its AccumulateGrad, a
        # retained non-leaf through its grad_fn): the view shows it until the step that sets it.
        nodes = self.nodes or ()
        ran = {id(fn) for fn in nodes}
        watched = {id(t): t for t in tensors if id(getattr(t, "grad_fn", None)) in ran}
        watched.update((id(fn.variable), fn.variable) for fn in nodes if getattr(fn, "variable", None) is not None)
        # (a computed grad kept as a copy, printed when the walk is shown; t keeps the id unique)
        self.before = {key: (t, *grad_state(t, show=_kept)) for key, t in watched.items()}

    def __enter__(self):
        for fn in self.nodes or ():
            try:
                self._handles.append(fn.register_hook(self._hook(fn)))
            except Exception:  # noqa: BLE001 - a node that takes no hooks is left out of the steps
                pass
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        self._handles = []

    def _hook(self, fn):
        steps = self.steps

        def hook(grad_inputs, grad_outputs):
            leaf = getattr(fn, "variable", None)
            after = _kept(getattr(leaf, "grad", None)) if leaf is not None else None
            steps.append((fn, [_kept(g, False) for g in grad_outputs], [_kept(g, False) for g in grad_inputs],
                          after, _saved(fn)))

        return hook

    def resolve(self, graph):
        """The walk as plain JSON, nodes named by ``graph``'s ids (model.graph.trace):
        ``steps``, ``before`` (tensor id -> its grad before this backward) and ``ready`` (tensor id
        -> the step that set its grad: its AccumulateGrad, or for a retained non-leaf its grad_fn);
        ``source`` for a backward the code called. Nodes the graph does not draw are left out (e.g.
        ``loss.sum().backward()``: the sum's node); None when that leaves only leaves' nodes."""
        extra = {"source": self.source} if self.source is not None else {}
        if self.too_big:
            return {"steps": [], "before": {}, "ready": {}, "too_big": True, **extra}
        known = {n["id"] for n in graph.nodes}
        ids = {key: node_id for key, node_id in graph.fn_ids.items() if node_id in known}
        printer = _Printer()
        out = []
        for fn, received, sent, after, saved in self.steps:
            node_id = ids.get(id(fn))
            if node_id is None:  # beyond the traced part of a truncated graph, or not drawn
                continue
            received, sent = [printer.grad(_now(g)) for g in received], [printer.grad(_now(g)) for g in sent]
            after, saved = printer.grad(_now(after)), printer.saved([(name, _now(v)) for name, v in saved])
            try:
                children = [ids.get(id(nxt)) if nxt is not None else None for nxt, _ in fn.next_functions]
            except Exception:  # noqa: BLE001
                children = []
            passed = []
            for slot, g in enumerate(sent):
                child = children[slot] if slot < len(children) else None
                passed.append(None if g is None or child is None else {**g, "to": child, "slot": slot})
            step = {"node": node_id, "received": received, "sent": passed, "saved": saved}
            leaf = getattr(fn, "variable", None)
            if leaf is not None:
                step["leaf"] = graph.tensor_ids.get(id(leaf))
                step["leaf_grad"] = after
            out.append(step)
        step_of = {s["node"]: k for k, s in enumerate(out)}
        ready = {}
        for e in graph.edges:
            if e["kind"] == "grad_fn" and e["to"] in step_of:
                ready[e["from"]] = step_of[e["to"]]
        for k, s in enumerate(out):
            if s.get("leaf"):
                ready[s["leaf"]] = k
        before = {}
        for key, (_t, state, grad) in self.before.items():
            node_id = graph.tensor_ids.get(key)
            if node_id is not None:
                before[node_id] = {"grad_state": state, "grad": grad if isinstance(grad, str) else safe_repr(_now(grad))}
        self.nodes = self.steps = self.before = None
        if self.source is not None and all("leaf" in s for s in out):
            return None  # the code's backward of tensors it kept no name for: nothing of it is drawn but leaves
        return {"steps": out, "before": before, "ready": ready, "too_big": False, **extra}


class CodeBackwards:
    """``with CodeBackwards(torch) as rec: <run the user's code>``: ``rec.count`` is the number of
    backward calls that succeeded (``Tensor.backward()`` or ``torch.autograd.backward(...)``),
    ``rec.last`` the StepRecorder of the last one (its ``source`` says the line) and ``rec.output``
    the tensor it was called on. Tutorials call backward in their code; the page steps through that
    walk as through the Backward button's."""

    def __init__(self, torch):
        self.cls = getattr(torch, "Tensor", None)
        self.autograd = getattr(torch, "autograd", None)
        self.count, self.last, self.output = 0, None, None
        self._restore = []

    def __enter__(self):
        depth = [0]  # (shared: PyTorch's Tensor.backward calls torch.autograd.backward)
        if isinstance(self.cls, type):
            self._wrap(self.cls, lambda t, *args, **kwargs: t, depth)
        if self.autograd is not None:
            self._wrap(self.autograd, _only_root, depth)
        return self

    def _wrap(self, owner, root_of, depth):
        """``owner.backward`` counted and recorded; ``root_of(*args, **kwargs)`` is the tensor it
        starts from, or None (several: counted, not stepped)."""
        original = getattr(owner, "backward", None)
        if not callable(original):
            return
        self._restore.append((owner, original, "backward" in vars(owner)))
        rec = self

        def backward(*args, **kwargs):
            if depth[0]:  # (a backward inside one being recorded: in a hook, or PyTorch's own chain of calls)
                return original(*args, **kwargs)
            try:
                root = root_of(*args, **kwargs)
            except TypeError:  # (arguments backward itself rejects, with its own message)
                root = None
            if not isinstance(root, rec.cls):
                root = None
            recorder = rec._recorder(root, sys._getframe(1)) if root is not None else None
            depth[0] += 1
            try:
                if recorder is None:
                    result = original(*args, **kwargs)
                else:
                    with recorder:
                        result = original(*args, **kwargs)
            finally:
                depth[0] -= 1
            rec.count += 1
            rec.last, rec.output = recorder, root
            if recorder is not None:
                recorder.source["calls"] = rec.count
            return result

        backward.__wrapped__ = original
        setattr(owner, "backward", backward)

    def __exit__(self, *exc):
        for owner, original, own in reversed(self._restore):
            if own:
                setattr(owner, "backward", original)
            else:  # (inherited: the class gets nothing of its own back)
                delattr(owner, "backward")
        self._restore = []
        return False

    def _recorder(self, t, frame):
        """A StepRecorder for ``t.backward()`` called from ``frame``, or None if one cannot be made
        (the call itself then runs as it would have)."""
        try:
            while frame is not None and frame.f_code.co_filename != FILENAME:
                frame = frame.f_back  # (called from library code: the user's line that led there)
            tensors = [v for v in frame.f_locals.values() if isinstance(v, self.cls)] if frame is not None else []
            recorder = StepRecorder(t, tensors)
            recorder.source = {"line": frame.f_lineno if frame is not None else None}
            return recorder
        except Exception:  # noqa: BLE001 - stepping is a view nicety; the user's backward goes on
            return None


def _only_root(tensors=None, *args, **kwargs):
    """The one tensor ``torch.autograd.backward(tensors, ...)`` starts from; None for several."""
    if isinstance(tensors, (list, tuple)):
        return tensors[0] if len(tensors) == 1 else None
    return tensors


def state_at(graph, walk, k):
    """The graph as it stood after the first ``k`` steps of ``walk`` (0: none run yet).

    Returns ``nodes`` (copies: a tensor's grad as it was then, ``freed`` as it was then, and
    ``step``: "done", "current" (the k-th node) or "pending" on the nodes this backward ran, and
    ``received`` on a grad_fn node that has run: the grad it got),
    ``flows`` (the grads the current node passed on, one per edge to a child) and ``current``
    (that step, or None before the first)."""
    steps = walk["steps"]
    k = max(0, min(int(k), len(steps)))
    order = {s["node"]: i for i, s in enumerate(steps)}
    before, ready = walk.get("before") or {}, walk.get("ready") or {}
    nodes = []
    for n in graph.get("nodes", []):
        i = order.get(n["id"])
        if i is not None:
            state = "pending" if i >= k else "current" if i == k - 1 else "done"
            n = {**n, "step": state, "freed": bool(n.get("freed")) and i < k}
            got = steps[i]["received"][0] if steps[i]["received"] else None
            if i < k and got is not None and n["kind"] == "function":  # (a leaf shows its .grad instead)
                n["received"] = got["text"]  # the grad of the node's output, once the node has run
        elif n["id"] in before and ready.get(n["id"], -1) >= k:
            n = {**n, **before[n["id"]]}
        nodes.append(n)
    current = steps[k - 1] if k else None
    flows = []
    if current is not None:
        for g in current["sent"]:
            if g is not None:
                flows.append({"from": current["node"], "to": g["to"], "slot": g["slot"],
                              "shape": g["shape"], "text": g["text"]})
    return {"k": k, "n": len(steps), "nodes": nodes, "flows": flows, "current": current}
