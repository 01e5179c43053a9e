"""Trace the autograd graph reachable from the user's tensors into plain dicts.

Node kinds: "leaf" (requires grad, is_leaf), "tensor" (named non-leaf), "output" (the tensor
picked for backward), "const" (does not require grad), "detached" (does not require grad and was
made by ``.detach()``/``.data`` or under ``torch.no_grad()``, as read from the code by
program.analyse), "function" (a grad_fn node), "accumulate" (AccumulateGrad).

Edges point the way autograd walks backward: tensor -> its grad_fn ("grad_fn"), node -> node in
``next_functions`` ("next", ``index`` is the int torch shows beside the node, ``slot`` its
position), AccumulateGrad -> its ``.variable`` leaf ("variable").

Walked iteratively: graphs can have 100,000 nodes.
"""
import contextlib
import gc
import itertools
import math
import warnings
from collections import deque
from dataclasses import dataclass, field

from .runner import safe_repr

NOT_COMPUTED = "not computed yet"
NOT_RETAINED = "not kept: not a leaf (call .retain_grad() before backward to keep it)"
NO_GRAD = "none: requires_grad is False"
MAX_NAMED = 2_000  # named tensors collected from the namespace
MAX_CONTAINER = 50  # tensors shown from one list/tuple/dict
MAX_VALUES = 64  # elements copied into "values" for gradient history


@dataclass
class Graph:
    nodes: list = field(default_factory=list)  # dicts, see trace()
    edges: list = field(default_factory=list)  # dicts: from, to, kind, index, slot
    truncated: bool = False  # stopped at max_functions
    tensors: dict = field(default_factory=dict, repr=False)  # node id -> live tensor (not serialised)
    by_label: dict = field(default_factory=dict, repr=False)  # label -> node id
    fn_ids: dict = field(default_factory=dict, repr=False)  # id(grad_fn node) -> node id
    tensor_ids: dict = field(default_factory=dict, repr=False)  # id(tensor) -> node id
    functions: dict = field(default_factory=dict, repr=False)  # node id -> live grad_fn node

    def to_dict(self):
        return {"nodes": self.nodes, "edges": self.edges, "truncated": self.truncated}

    def node(self, node_id):
        for n in self.nodes:
            if n["id"] == node_id:
                return n
        return None


def shape_text(shape):
    dims = list(shape)
    return "×".join(str(d) for d in dims) if dims else "scalar"


def node_name(fn):
    try:
        name = fn.name()
    except Exception:  # noqa: BLE001 - a broken custom node must not break the view
        name = type(fn).__name__
    return name.rsplit("::", 1)[-1]


def _read_grad(t):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when reading .grad of a non-leaf
        return t.grad


def grad_state(t, show=safe_repr):
    """(state, text): state is "computed", "not_computed", "not_retained" or "none"; a computed
    grad's text is ``show(grad)``."""
    try:
        grad = _read_grad(t)
    except Exception as exc:  # noqa: BLE001
        return "none", f"unavailable: {exc}"
    if grad is not None:
        return "computed", show(grad)
    if not t.requires_grad:
        return "none", NO_GRAD
    if not t.is_leaf and not getattr(t, "retains_grad", False):
        return "not_retained", NOT_RETAINED
    return "not_computed", NOT_COMPUTED


def grad_values(t):
    """The grad's numbers as nested lists (small grads only), JSON-safe; else None."""
    grad = _read_grad(t)
    if grad is None or grad.numel() > MAX_VALUES or not grad.is_floating_point():
        return None

    def clean(v):
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v if math.isfinite(v) else str(v)

    return clean(grad.detach().tolist())


_saved_attrs_cache = {}


def saved_attributes(fn):
    cls = type(fn)
    names = _saved_attrs_cache.get(cls)
    if names is None:
        names = [a for a in dir(cls) if a.startswith("_saved_")]
        if hasattr(cls, "saved_tensors"):  # custom autograd.Function nodes
            names.append("saved_tensors")
        _saved_attrs_cache[cls] = names
    return names


def is_freed(fn):
    """True when backward (without retain_graph) released what this node saved.

    The engine says so with ``_freed``; torch raises RuntimeError on reading a freed saved
    tensor. Nodes that saved no tensor are never "freed" (a second backward through them works).
    """
    flag = getattr(fn, "_freed", None)
    if flag is not None:
        return bool(flag)
    for attr in saved_attributes(fn):
        try:
            getattr(fn, attr)
        except RuntimeError:
            return True
        except Exception:  # noqa: BLE001
            continue
    return False


def bound_values(namespace, order=()):
    """(name, value) of the user's names: those in ``order`` (as the code binds them) first."""
    names = [n for n in order if n in namespace]
    seen = set(names)
    names += [n for n in namespace if n not in seen]
    return [(n, namespace[n]) for n in names if not n.startswith("__")]


def collect_tensors(namespace, tensor_type, order=(), module_type=None, limit=MAX_NAMED):
    """[(label, tensor)] for tensors bound to names, one level into lists/tuples/dicts, module
    parameters (``model.weight``) and leaves' ``.grad`` when it has a graph (create_graph)."""
    found = []

    def add(label, value):
        if isinstance(value, tensor_type) and len(found) < limit:
            found.append((label, value))
            try:
                grad = _read_grad(value)
            except Exception:  # noqa: BLE001
                grad = None
            if grad is not None and grad.grad_fn is not None:
                found.append((f"{label}.grad", grad))

    for name, value in bound_values(namespace, order):
        if isinstance(value, tensor_type):
            add(name, value)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value[:MAX_CONTAINER]):
                add(f"{name}[{i}]", item)
        elif isinstance(value, dict):
            for key, item in itertools.islice(value.items(), MAX_CONTAINER):
                if isinstance(key, (str, int)):
                    add(f"{name}[{key!r}]", item)
        elif module_type is not None and isinstance(value, module_type):
            try:
                params = list(value.named_parameters())[:MAX_CONTAINER]
            except Exception:  # noqa: BLE001
                params = []
            for pname, param in params:
                add(f"{name}.{pname}", param)
    return found


def _tensor_kind(requires_grad, is_leaf, origin):
    if requires_grad:
        return "leaf" if is_leaf else "tensor"
    return "detached" if origin else "const"


def with_output(snapshot, label):
    """``snapshot`` (a dict) with the tensor named ``label`` drawn as the output, in the graph and
    in the tensor table. The session marks the last Backward's output, or else the last tensor
    made; the output Backward will start from may be another, picked before any Backward. The
    snapshot itself when that tensor is already the output, or is not drawn."""
    graph = snapshot.get("graph") or {}
    node = next((n for n in graph.get("nodes", ()) if label in (n.get("names") or ())), None)
    if node is None or node["kind"] == "output":
        return snapshot
    target = node["id"]

    def marked(item, node_id):
        if node_id == target:
            return item if item["kind"] == "output" else {**item, "kind": "output"}
        if item["kind"] != "output":
            return item
        return {**item, "kind": _tensor_kind(item["requires_grad"], item["is_leaf"], item["origin"])}

    return {**snapshot, "graph": {**graph, "nodes": [marked(n, n["id"]) for n in graph["nodes"]]},
            "inspector": [marked(r, r["node"]) for r in snapshot.get("inspector") or ()]}


def _tensor_node(node_id, labels, t, origin, output):
    requires = bool(t.requires_grad)
    leaf = bool(t.is_leaf)
    kind = "output" if output else _tensor_kind(requires, leaf, origin)
    state, text = grad_state(t)
    try:
        value = safe_repr(t)
    except Exception as exc:  # noqa: BLE001
        value = f"<repr failed: {exc}>"
    shape = [int(d) for d in t.shape]
    grad_fn = t.grad_fn
    return {
        "id": node_id,
        "kind": kind,
        "label": ", ".join(labels) if labels else shape_text(shape),
        "names": list(labels),
        "shape": shape,
        "shape_text": shape_text(shape),
        "dtype": str(t.dtype),
        "value": value,
        "grad": text,
        "grad_state": state,
        "requires_grad": requires,
        "is_leaf": leaf,
        "retains_grad": bool(getattr(t, "retains_grad", False)) if not leaf else None,
        "grad_fn": node_name(grad_fn) if grad_fn is not None else None,
        "origin": origin,
        "freed": None,
        "saved": [],
    }


def _function_node(node_id, fn):
    name = node_name(fn)
    accumulate = hasattr(fn, "variable") or name == "AccumulateGrad"
    saved = [] if accumulate else [a[len("_saved_"):] if a.startswith("_saved_") else a for a in saved_attributes(fn)]
    return {
        "id": node_id,
        "kind": "accumulate" if accumulate else "function",
        "label": name,
        "names": [],
        "shape": None,
        "shape_text": None,
        "dtype": None,
        "value": None,
        "grad": None,
        "grad_state": None,
        "requires_grad": None,
        "is_leaf": None,
        "retains_grad": None,
        "grad_fn": None,
        "origin": None,
        "freed": False if accumulate else is_freed(fn),
        "saved": saved,
    }


@contextlib.contextmanager
def gc_paused():
    """Building 100,000 small dicts triggers many full collections; they find nothing here."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def trace(named, output=None, origins=None, max_functions=None):
    """Build the Graph for ``named`` = [(label, tensor)] (see collect_tensors).

    ``output``: label of the tensor picked for backward (kind "output").
    ``origins``: {label: "detach" | "no_grad"} from program.analyse.
    ``max_functions``: stop expanding after this many grad_fn nodes (``truncated``).
    """
    with gc_paused():
        return _trace(named, output, origins, max_functions)


def _trace(named, output, origins, max_functions):
    origins = origins or {}
    graph = Graph()
    tensor_ids = graph.tensor_ids
    tensor_labels = {}  # node id -> labels
    tensor_objs = {}
    order = []
    for label, t in named:
        key = id(t)
        if key not in tensor_ids:
            node_id = f"t:{label}"
            tensor_ids[key] = node_id
            tensor_labels[node_id] = []
            tensor_objs[node_id] = t
            order.append(node_id)
        tensor_labels[tensor_ids[key]].append(label)
        graph.by_label[label] = tensor_ids[key]

    fn_ids = graph.fn_ids
    fn_objs = []  # keeps wrappers alive so id() stays unique while we walk
    edges = graph.edges
    queue = deque()
    unnamed = 0

    def fn_node(fn):
        key = id(fn)
        node_id = fn_ids.get(key)
        if node_id is None:
            node_id = f"f{len(fn_objs)}"
            fn_ids[key] = node_id
            fn_objs.append(fn)
            graph.functions[node_id] = fn
            queue.append(fn)
        return node_id

    for node_id in order:
        t = tensor_objs[node_id]
        if t.grad_fn is not None:
            edges.append({"from": node_id, "to": fn_node(t.grad_fn), "kind": "grad_fn",
                          "index": int(getattr(t, "output_nr", 0) or 0), "slot": 0})

    fn_nodes = []
    while queue:
        if max_functions is not None and len(fn_nodes) >= max_functions:
            graph.truncated = True
            break
        fn = queue.popleft()
        node_id = fn_ids[id(fn)]
        fn_nodes.append(_function_node(node_id, fn))
        variable = getattr(fn, "variable", None)
        if variable is not None:
            key = id(variable)
            if key not in tensor_ids:
                leaf_id = f"u{unnamed}"
                unnamed += 1
                tensor_ids[key] = leaf_id
                tensor_labels[leaf_id] = []
                tensor_objs[leaf_id] = variable
                order.append(leaf_id)
            edges.append({"from": node_id, "to": tensor_ids[key], "kind": "variable", "index": 0, "slot": 0})
        try:
            nexts = fn.next_functions
        except Exception:  # noqa: BLE001
            nexts = ()
        for slot, (nxt, index) in enumerate(nexts):
            if nxt is not None:
                edges.append({"from": node_id, "to": fn_node(nxt), "kind": "next", "index": int(index), "slot": slot})

    if graph.truncated:
        kept = {n["id"] for n in fn_nodes}
        graph.edges = [e for e in edges if not (e["to"].startswith("f") and e["to"] not in kept)]

    output_id = graph.by_label.get(output) if output else None
    for node_id in order:
        labels = tensor_labels[node_id]
        origin = next((origins[label] for label in labels if label in origins), None)
        graph.nodes.append(_tensor_node(node_id, labels, tensor_objs[node_id], origin, node_id == output_id))
        graph.tensors[node_id] = tensor_objs[node_id]
    graph.nodes.extend(fn_nodes)
    return graph


def lineage(graph, node_id):
    """``node_id`` and every node on a path through it: what it was computed from (towards the
    leaves) and what was computed from it (towards the outputs). For focusing a big graph. A
    named tensor stands with its grad_fn: one is on a path when the other is."""
    edges = graph.get("edges", []) if isinstance(graph, dict) else graph.edges
    inputs, consumers, made_by = {}, {}, {}
    for e in edges:
        if e.get("kind") == "saved":
            continue
        inputs.setdefault(e["from"], []).append(e["to"])  # (edges point the way backward walks)
        consumers.setdefault(e["to"], []).append(e["from"])
        if e.get("kind") == "grad_fn":
            made_by[e["from"]] = e["to"]
    start = {node_id} | ({made_by[node_id]} if node_id in made_by else set())
    found = set(start)
    for links in (inputs, consumers):
        stack = list(start)
        while stack:
            for nxt in links.get(stack.pop(), ()):
                if nxt not in found:
                    found.add(nxt)
                    stack.append(nxt)
    found.update(t for t, fn in made_by.items() if fn in found)
    return found
