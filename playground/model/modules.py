"""Module calls in the user's code, so that a big graph can show each call as one box.

While the code runs, PyTorch's global forward hooks note every ``nn.Module`` call: the module,
the call it ran inside, and the grad_fn sequence number before and after it. A grad_fn node made
in between belongs to that call (the innermost one). A module's parameters, with their
AccumulateGrad, go in the innermost call that all their uses lie in.

``Collapsed`` then draws every call that is not open as one box (its members hidden) and maps a
backward step onto that picture; ``closing`` closes a call and the calls inside it.
"""
import itertools
from dataclasses import dataclass

from .graph import MAX_CONTAINER, bound_values
from .layout import layered_layout
from .runner import safe_repr

MAX_CALLS = 2_000  # module calls recorded per run; later ones are not grouped
MIN_MEMBERS = 2  # a call with fewer nodes is not worth a box
MAX_ABOUT = 600
NO_END = float("inf")


@dataclass
class Call:
    module: object
    parent: int | None  # index of the enclosing call
    start: int
    end: float = NO_END


class CallRecorder:
    """``with CallRecorder(torch) as rec: exec(code)``; then ``rec.calls``. Does nothing on a
    torch without global module hooks, and never lets its own failure reach user code."""

    def __init__(self, torch):
        self.torch = torch
        self.calls = []
        self._stack = []
        self._handles = []
        self._probe = None

    def __enter__(self):
        hooks = getattr(getattr(getattr(self.torch, "nn", None), "modules", None), "module", None)
        pre = getattr(hooks, "register_module_forward_pre_hook", None)
        post = getattr(hooks, "register_module_forward_hook", None)
        if pre is None or post is None:
            return self
        try:
            self._probe = self.torch.zeros((), requires_grad=True)
            self._handles = [pre(self._pre), post(self._post, always_call=True)]
        except Exception:  # noqa: BLE001 - grouping is a view nicety; the run goes on without it
            self.__exit__()
        return self

    def __exit__(self, *exc):
        for handle in self._handles:
            handle.remove()
        self._handles, self._stack, self._probe = [], [], None
        return False

    def _now(self):
        """The sequence number the next grad_fn would get, read off a throwaway node (the only
        public way to read it), or None where no node can be made (inference mode)."""
        try:
            with self.torch.enable_grad():
                fn = self._probe.view_as(self._probe).grad_fn
            return int(fn._sequence_nr()) if fn is not None else None
        except Exception:  # noqa: BLE001
            return None

    def _pre(self, module, args):
        seq = self._now() if len(self.calls) < MAX_CALLS else None
        if seq is None:
            self._stack.append(None)
            return
        parent = next((i for i in reversed(self._stack) if i is not None), None)
        self.calls.append(Call(module, parent, seq))
        self._stack.append(len(self.calls) - 1)

    def _post(self, module, args, output):
        if self._stack:
            i = self._stack.pop()
            if i is not None:
                end = self._now()
                self.calls[i].end = NO_END if end is None else end


def module_names(namespace, module_type, order=()):
    """id(module) -> the name the user's code reaches it by: ``model``, ``model.fc1``,
    ``layers[0]``. The first name wins."""
    names = {}
    if module_type is None:
        return names

    def add(prefix, module):
        try:
            subs = list(itertools.islice(module.named_modules(), 5_000))
        except Exception:  # noqa: BLE001
            subs = [("", module)]
        for sub, m in subs:
            names.setdefault(id(m), f"{prefix}.{sub}" if sub else prefix)

    for key, value in bound_values(namespace, order):
        if isinstance(value, module_type):
            add(key, value)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value[:MAX_CONTAINER]):
                if isinstance(item, module_type):
                    add(f"{key}[{i}]", item)
    return names


def module_groups(graph, calls, names):
    """The module calls of ``calls`` with at least MIN_MEMBERS nodes of ``graph`` (a traced
    model.graph.Graph), as JSON: [{"id", "label", "type", "parent", "members", "about"}].
    ``members``: the node ids directly in the call (its sub-calls list their own)."""
    if not calls:
        return []
    fns = []
    for node_id, fn in graph.functions.items():
        try:
            seq = fn._sequence_nr()
        except Exception:  # noqa: BLE001
            continue
        if not hasattr(fn, "variable"):  # (an AccumulateGrad's number is UINT64_MAX, made by no call)
            fns.append((seq, node_id))
    fns.sort()
    owner = {}
    stack, next_call = [], 0
    for seq, node_id in fns:
        while next_call < len(calls) and calls[next_call].start < seq:
            stack.append(next_call)
            next_call += 1
        while stack and calls[stack[-1]].end < seq:
            stack.pop()
        if stack:
            owner[node_id] = stack[-1]
    _adopt_parameters(graph, calls, owner)

    members = {}
    for node_id, i in owner.items():
        members.setdefault(i, []).append(node_id)
    total = {}
    for i in range(len(calls) - 1, -1, -1):  # sub-calls come after their parent
        total[i] = total.get(i, 0) + len(members.get(i, ()))
        parent = calls[i].parent
        if parent is not None:
            total[parent] = total.get(parent, 0) + total[i]
    kept = {i for i, n in total.items() if n >= MIN_MEMBERS}

    def kept_parent(i):
        p = calls[i].parent
        while p is not None and p not in kept:
            p = calls[p].parent
        return p

    for i in sorted(set(members) - kept):  # a small call's nodes join the call around it
        p = kept_parent(i)
        if p is not None:
            members.setdefault(p, []).extend(members[i])

    counts, seen = {}, {}
    for c in calls:
        counts[id(c.module)] = counts.get(id(c.module), 0) + 1
    groups = []
    for i, c in enumerate(calls):
        nth = seen[id(c.module)] = seen.get(id(c.module), 0) + 1
        if i not in kept:
            continue
        kind = type(c.module).__name__
        label = names.get(id(c.module), kind)
        if counts[id(c.module)] > 1:
            label += f" #{nth}"
        p = kept_parent(i)
        groups.append({
            "id": f"m{i}", "label": label, "type": kind, "parent": f"m{p}" if p is not None else None,
            "members": members.get(i, []), "about": safe_repr(c.module, MAX_ABOUT),
        })
    return groups


def _adopt_parameters(graph, calls, owner):
    """A parameter of a called module, and its AccumulateGrad, join the innermost call around all
    the nodes that use it (none, when it is also used outside every call)."""
    params = set()
    for module in {id(c.module): c.module for c in calls}.values():  # (a module called in a loop: once)
        try:
            params.update(id(p) for p in module.parameters())
        except Exception:  # noqa: BLE001
            continue
    leaf_of, users = {}, {}
    for e in graph.edges:
        if e["kind"] == "variable":
            leaf_of[e["from"]] = e["to"]
        elif e["kind"] == "next":
            users.setdefault(e["to"], []).append(e["from"])
    for acc, leaf in leaf_of.items():
        t = graph.tensors.get(leaf)
        if t is None or id(t) not in params or not users.get(acc):
            continue
        around = None
        for user in users[acc]:
            i = owner.get(user)
            if i is None:
                around = None
                break
            around = i if around is None else _common(calls, around, i)
        if around is not None:
            owner[acc] = owner[leaf] = around


def _common(calls, a, b):
    chain = set()
    while a is not None:
        chain.add(a)
        a = calls[a].parent
    while b is not None and b not in chain:
        b = calls[b].parent
    return b


# ----- the picture with modules as boxes -------------------------------------------------------

BOX = "g:"


class Collapsed:
    """``graph`` with every module call that is not in ``open_ids`` (and lies in open calls)
    drawn as one box, laid out afresh. ``graph`` then holds the picture's nodes and edges,
    ``frames`` the open calls (id, label, member ids drawn), ``shown`` maps each hidden node to
    its box's id."""

    def __init__(self, graph, open_ids=()):
        groups = graph.get("groups") or []
        open_ids = set(open_ids)
        by_id = {g["id"]: g for g in groups}
        owner = {m: g["id"] for g in groups for m in g["members"]}
        box_memo = {}

        def box_of(gid):  # the outermost closed call on the way up, or None
            if gid not in box_memo:
                g = by_id[gid]
                up = box_of(g["parent"]) if g["parent"] is not None else None
                box_memo[gid] = up if up is not None else (None if gid in open_ids else gid)
            return box_memo[gid]

        for g in groups:  # parents first (they come first), so box_of recurses one level
            box_of(g["id"])
        self.shown = {}
        for node_id, gid in owner.items():
            box = box_of(gid)
            if box is not None:
                self.shown[node_id] = BOX + box
        nodes_by_id = {n["id"]: n for n in graph.get("nodes", [])}
        inside = {}
        for n in graph.get("nodes", []):
            box = self.shown.get(n["id"])
            if box is not None:
                inside.setdefault(box, []).append(n)
        nodes = [dict(n) for n in graph.get("nodes", []) if n["id"] not in self.shown]
        nodes += [_box_node(by_id[box[len(BOX):]], inside[box]) for box in inside]
        edges, seen = [], set()
        for e in graph.get("edges", []):
            a, b = self.shown.get(e["from"], e["from"]), self.shown.get(e["to"], e["to"])
            key = (a, b, e["kind"])
            if a == b or key in seen:
                continue
            seen.add(key)
            edges.append({**e, "from": a, "to": b})
        drawn, clusters = {}, {}  # an open call frames its members and open sub-calls
        placed = [(node_id, gid) for node_id, gid in owner.items()
                  if node_id not in self.shown and node_id in nodes_by_id]
        placed += [(box, by_id[box[len(BOX):]]["parent"]) for box in inside]
        for node_id, gid in placed:
            chain = []
            while gid is not None:
                drawn.setdefault(gid, []).append(node_id)
                chain.append(gid)
                gid = by_id[gid]["parent"]
            if chain:
                clusters[node_id] = tuple(reversed(chain))
        ids = [n["id"] for n in nodes]
        pos = layered_layout(ids, [(e["to"], e["from"]) for e in edges if e["kind"] != "saved"], clusters=clusters)
        for n in nodes:
            n["x"], n["y"] = pos[n["id"]]
        self.graph = {**graph, "nodes": nodes, "edges": edges}
        depth = {}
        for g in groups:
            depth[g["id"]] = depth[g["parent"]] + 1 if g["parent"] is not None else 0
        self.frames = [{"id": g["id"], "label": g["label"], "type": g["type"], "depth": depth[g["id"]],
                        "members": drawn[g["id"]]}
                       for g in groups if g["id"] in drawn and box_of(g["id"]) is None]

    def at_step(self, nodes, flows):
        """The picture of a backward step (model.steps.state_at's nodes and flows): a box is the
        current node when one of its members is, a ghost while all its members are."""
        states = {}
        for n in nodes:
            box = self.shown.get(n["id"])
            if box is not None and n.get("step"):
                states.setdefault(box, []).append(n["step"])
        plain = {n["id"]: n for n in nodes if n["id"] not in self.shown}
        out = []
        for n in self.graph["nodes"]:
            if n["id"] in plain:
                out.append({**plain[n["id"]], "x": n["x"], "y": n["y"]})
                continue
            step = states.get(n["id"])
            if step:
                n = {**n, "step": "current" if "current" in step else "pending" if set(step) == {"pending"}
                     else "done"}
            out.append(n)
        moved = []
        for f in flows:
            a, b = self.shown.get(f["from"], f["from"]), self.shown.get(f["to"], f["to"])
            if a != b:
                moved.append({**f, "from": a, "to": b})
        return out, moved


def closing(graph, open_ids, gid):
    """``open_ids`` once the call ``gid`` is closed again, and every call inside it."""
    parents = {g["id"]: g["parent"] for g in graph.get("groups") or ()}

    def inside(g):
        while g is not None and g != gid:
            g = parents.get(g)
        return g is not None

    return {g for g in open_ids if not inside(g)}


def _box_node(group, members):
    kinds, tensors = {}, []
    for n in members:
        if n["kind"] in ("function", "accumulate"):
            kinds[n["label"]] = kinds.get(n["label"], 0) + 1
        else:
            tensors.append(n["label"])
    inside = ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in kinds.items())
    if tensors:
        inside += f"; parameters: {', '.join(tensors)}"
    grads = [f"{n['label']}: {n['grad']}" for n in members if n.get("grad_state") == "computed"]
    return {
        "id": BOX + group["id"], "kind": "module", "label": group["label"], "names": [], "shape": None,
        "shape_text": group["type"], "dtype": None,
        "value": f"{group['about']}\n\n{len(members)} nodes inside: {inside}\n(tap to open)",
        "grad": "\n".join(grads), "grad_state": None, "requires_grad": None,
        "is_leaf": None, "retains_grad": None, "grad_fn": None, "origin": None,
        "freed": bool(members) and all(n.get("freed") for n in members if n["kind"] == "function"),
        "saved": [], "members": [n["id"] for n in members],
    }
