"""How the graph looks: palette, box geometry, positions and captions. No Bokeh: the static
sketch (views.sketch) draws with it too, before Bokeh is loaded."""

# Looks per node kind: fill, border, text colour. Close to torchviz's palette so it feels familiar
# (blue leaves and AccumulateGrad, grey grad_fn nodes, green output), plus our extra states.
STYLE = {
    "leaf": ("#dbeafe", "#2563eb", "#1e3a8a"),
    "accumulate": ("#bfdbfe", "#3b82f6", "#1e3a8a"),
    "function": ("#e5e7eb", "#6b7280", "#111827"),
    "tensor": ("#ffffff", "#6b7280", "#111827"),
    "output": ("#bbf7d0", "#16a34a", "#14532d"),
    "const": ("#f8fafc", "#cbd5e1", "#64748b"),
    "detached": ("#ffedd5", "#f97316", "#7c2d12"),
    "module": ("#ede9fe", "#7c3aed", "#4c1d95"),
}
FRAME = ("#f5f3ff", "#c4b5fd", "#6d28d9")  # an open module call: fill, border, title
NODE_W, NODE_H = 2.8, 0.8
SCALE_X, SCALE_Y = 3.4, 1.55  # layout units (one layer, one row) to figure units; rows leave room for grads
KIND_NAMES = {  # the graph's words (legend, tooltips, captions) for each kind of node, per language
    "en": {"leaf": "leaf tensor (requires grad)", "accumulate": "AccumulateGrad", "function": "grad_fn node",
           "tensor": "intermediate tensor", "output": "output", "const": "tensor without grad",
           "detached": "detached tensor", "module": "module call (tap to open)",
           "freed": "freed (after backward)", "freed_note": " (freed: saved tensors released)",
           "grad": ".grad", "received": "grad it received in backward",
           "backward": "backward: ", "saved": "saved for backward: ", "freed_caption": "(freed)"},
    "zh": {"leaf": "叶子张量（requires grad）", "accumulate": "AccumulateGrad", "function": "grad_fn 节点",
           "tensor": "中间张量", "output": "输出", "const": "不需要梯度的张量",
           "detached": "detach 后的张量", "module": "模块调用（点击展开）",
           "freed": "已释放（backward 之后）", "freed_note": "（已释放：保存的张量已清除）",
           "grad": ".grad", "received": "backward 中收到的梯度",
           "backward": "反向：", "saved": "为反向保存：", "freed_caption": "（已释放）"},
}


BAND_LAYERS = 12  # a graph deeper than this wraps into bands, so it fits a screen


def positions(nodes):
    """Figure coordinates per node id. Long graphs wrap into bands that snake left-right-left, so
    consecutive bands meet at the same side and the whole graph keeps a readable aspect."""
    rank = _ranks(nodes)
    if rank is None:
        return {n["id"]: (n["x"] * SCALE_X, -n["y"] * SCALE_Y) for n in nodes}
    rows = {}
    for n in nodes:
        band = rank[n["id"]] // BAND_LAYERS
        lo, hi = rows.get(band, (n["y"], n["y"]))
        rows[band] = (min(lo, n["y"]), max(hi, n["y"]))
    offset, top = {}, 0.0
    for band in sorted(rows):
        lo, hi = rows[band]
        offset[band] = top - lo
        top += hi - lo + 1.6
    out = {}
    for n in nodes:
        band, col = divmod(rank[n["id"]], BAND_LAYERS)
        if band % 2:
            col = BAND_LAYERS - 1 - col
        out[n["id"]] = (col * SCALE_X, -(n["y"] + offset[band]) * SCALE_Y)
    return out


def bands(nodes):
    """The band each node is drawn in (see positions); empty when the graph is not wrapped."""
    rank = _ranks(nodes)
    return {} if rank is None else {i: r // BAND_LAYERS for i, r in rank.items()}


def _ranks(nodes):
    """Each node's layer number, when the graph is long enough to wrap (else None)."""
    layers = sorted({n["x"] for n in nodes})
    if len(layers) <= BAND_LAYERS + 4:
        return None
    rank = {x: i for i, x in enumerate(layers)}
    return {n["id"]: rank[n["x"]] for n in nodes}


MAX_LABEL = 16  # characters that fit a box; longer names are cut (hover shows them whole)


def fit(label):
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def caption(n, language="en"):
    if n["kind"] in ("function", "accumulate"):
        if n.get("freed"):
            return fit(n["label"]) + "\n" + KIND_NAMES[language]["freed_caption"]
        return _node_name(n["label"])
    sub = n.get("shape_text") or ""
    if n.get("dtype") and n["dtype"] not in ("torch.float32",):
        sub += f" {n['dtype'].replace('torch.', '')}"
    return f"{fit(n['label'])}\n{sub}" if sub else fit(n["label"])


def _node_name(label):
    """A node's name in its box: one too long for a line breaks before PyTorch's ``Backward<N>``
    (SafeSoftmax / Backward0, MulConstant / Backward) instead of losing its end."""
    head, sep, tail = label.rpartition("Backward")
    if len(label) <= MAX_LABEL or not (sep and head) or tail and not tail.isdigit():
        return fit(label)
    return f"{fit(head)}\n{sep}{tail}"


def grad_short(n, limit=22):
    """A one-line glimpse of a computed grad, drawn under the node."""
    if n.get("grad_state") != "computed" or not n.get("grad"):
        return ""
    return short(n["grad"], limit)


def short(text, limit=22):
    """A tensor's repr on one line, without ``tensor(...)``, behind a ∇."""
    text = " ".join(text.split())
    if text.startswith("tensor(") and text.endswith(")"):
        text = text[len("tensor("):-1]
    text = "∇ " + text
    return text if len(text) <= limit else text[: limit - 1] + "…"


# The step-through view: nodes this backward has not reached yet are ghosts; the node that just
# ran is outlined in amber, and so are the grads it passed on.
PENDING = ("#f8fafc", "#cbd5e1", "#94a3b8")
CURRENT_LINE = "#d97706"
