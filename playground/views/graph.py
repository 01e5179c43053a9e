"""The live computation-graph view: one Bokeh figure, updated by assigning ``source.data``."""
from bokeh.models import (Arrow, ColumnDataSource, CustomJS, DataRange1d, HoverTool, NormalHead, PanTool, ResetTool, TapTool,
                          WheelZoomTool)
from bokeh.plotting import figure

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
}
NODE_W, NODE_H = 2.6, 0.8
SCALE_X, SCALE_Y = 3.4, 1.25  # layout units (one layer, one row) to figure units
# Labels have a pixel size while boxes scale with zoom: fit the text to the boxes' pixel width.
_FONT_JS = """
const span = Math.max(xr.end - xr.start, 1e-9);
const ppu = Math.max(fig.inner_width || 600, 100) / span;
const size = Math.min(12, 0.34 * ppu * %s);
text.glyph.text_font_size = (size < 5 ? 0 : size).toFixed(1) + 'px';
grad.glyph.text_font_size = (size < 6 ? 0 : size * 0.9).toFixed(1) + 'px';
""" % NODE_W
KIND_NAMES = {
    "leaf": "leaf tensor (requires grad)", "accumulate": "AccumulateGrad", "function": "grad_fn node",
    "tensor": "intermediate tensor", "output": "output", "const": "tensor without grad",
    "detached": "detached tensor",
}

TOOLTIP = """
<div style="max-width:420px">
  <div><b>@label</b> <span style="color:#64748b">@kind_name</span></div>
  <pre style="margin:4px 0;font-size:11px;white-space:pre-wrap">@value</pre>
  <div style="color:#166534;font-size:11px"><b>grad</b></div>
  <pre style="margin:2px 0;font-size:11px;white-space:pre-wrap">@grad</pre>
</div>
"""

NODE_COLUMNS = ("index", "x", "y", "label", "caption", "kind", "kind_name", "value", "grad", "grad_short",
                "fill", "line", "text_color", "alpha", "line_width", "freed")
EDGE_COLUMNS = ("start", "end", "x0", "y0", "x1", "y1", "alpha")


def node_data(nodes):
    """Columns for ``graph_nodes`` from the model's plain node dicts."""
    cols = {k: [] for k in NODE_COLUMNS}
    for n in nodes:
        kind = n["kind"]
        fill, line, text = STYLE.get(kind, STYLE["function"])
        freed = bool(n.get("freed"))
        cols["index"].append(n["id"])
        cols["x"].append(n["x"] * SCALE_X)
        cols["y"].append(-n["y"] * SCALE_Y)
        cols["label"].append(n["label"])
        cols["caption"].append(_caption(n))
        cols["kind"].append(kind)
        cols["kind_name"].append(KIND_NAMES.get(kind, kind) + (" (freed: saved tensors released)" if freed else ""))
        cols["value"].append(n.get("value") or "")
        cols["grad"].append(n.get("grad") or "")
        cols["grad_short"].append(grad_short(n))
        cols["fill"].append(fill)
        cols["line"].append(line)
        cols["text_color"].append(text)
        cols["alpha"].append(0.35 if freed else 1.0)
        cols["line_width"].append(2.5 if kind == "output" else 1.2)
        cols["freed"].append(freed)
    return cols


def _caption(n):
    if n["kind"] in ("function", "accumulate"):
        return n["label"] + ("\n(freed)" if n.get("freed") else "")
    sub = n.get("shape_text") or ""
    if n.get("dtype") and n["dtype"] not in ("torch.float32",):
        sub += f" {n['dtype'].replace('torch.', '')}"
    return f"{n['label']}\n{sub}" if sub else n["label"]


def grad_short(n, limit=30):
    """A one-line glimpse of a computed grad, drawn under the node."""
    if n.get("grad_state") != "computed" or not n.get("grad"):
        return ""
    text = " ".join(n["grad"].split())
    if text.startswith("tensor(") and text.endswith(")"):
        text = text[len("tensor("):-1]
    text = "∇ " + text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def edge_data(nodes, edges):
    pos = {n["id"]: (n["x"] * SCALE_X, -n["y"] * SCALE_Y) for n in nodes}
    freed = {n["id"] for n in nodes if n.get("freed")}
    cols = {k: [] for k in EDGE_COLUMNS}
    for e in edges:
        if e.get("kind") == "saved":
            continue
        # The model's edges point the way backward walks; drawn the way data flows.
        a, b = e["to"], e["from"]
        if a not in pos or b not in pos:
            continue
        (xa, ya), (xb, yb) = pos[a], pos[b]
        # Edges run with the data, from an input (left) to what consumes it (right).
        cols["start"].append(a)
        cols["end"].append(b)
        cols["x0"].append(xa + NODE_W / 2 if xb > xa else xa)
        cols["y0"].append(ya if xb > xa else ya - NODE_H / 2)
        cols["x1"].append(xb - NODE_W / 2 if xb > xa else xb)
        cols["y1"].append(yb if xb > xa else yb + NODE_H / 2)
        cols["alpha"].append(0.3 if (a in freed or b in freed) else 0.9)
    return cols


class GraphView:
    """The figure and its two named sources, ``graph_nodes`` and ``graph_edges``."""

    def __init__(self, height=460):
        self.nodes = ColumnDataSource({k: [] for k in NODE_COLUMNS}, name="graph_nodes")
        self.edges = ColumnDataSource({k: [] for k in EDGE_COLUMNS}, name="graph_edges")
        wheel = WheelZoomTool()
        fig = figure(
            name="graph_figure", height=height, sizing_mode="stretch_width", match_aspect=True,
            tools=[PanTool(), wheel, ResetTool(), TapTool()], active_scroll=wheel, toolbar_location="above",
            x_range=DataRange1d(range_padding=0.06), y_range=DataRange1d(range_padding=0.12),
            outline_line_color=None,
        )
        fig.axis.visible = False
        fig.grid.visible = False
        fig.background_fill_color = "#fcfcfd"
        fig.add_layout(Arrow(
            source=self.edges, x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_color="#94a3b8",
            line_alpha="alpha", line_width=1.4, end=NormalHead(size=7, fill_color="#94a3b8", line_color="#94a3b8"),
        ))
        boxes = fig.rect(
            x="x", y="y", width=NODE_W, height=NODE_H, source=self.nodes, fill_color="fill", line_color="line",
            fill_alpha="alpha", line_alpha="alpha", line_width="line_width", border_radius=6,
        )
        self.text = fig.text(
            x="x", y="y", text="caption", source=self.nodes, text_align="center", text_baseline="middle",
            text_font_size="11px", text_color="text_color", text_alpha="alpha", text_line_height=1.15,
        )
        self.grad_text = fig.text(
            x="x", y="y", y_offset=20, text="grad_short", source=self.nodes, text_align="center",
            text_baseline="top", text_font_size="10px", text_color="#15803d",
        )
        fig.add_tools(HoverTool(renderers=[boxes], tooltips=TOOLTIP))
        fit = CustomJS(args=dict(xr=fig.x_range, fig=fig, text=self.text, grad=self.grad_text), code=_FONT_JS)
        fig.x_range.js_on_change("start", fit)
        fig.x_range.js_on_change("end", fit)
        self.figure = fig

    def update(self, graph):
        nodes, edges = graph.get("nodes", []), graph.get("edges", [])
        self.nodes.data = node_data(nodes)
        self.edges.data = edge_data(nodes, edges)
        self._fit(nodes)

    def _fit(self, nodes):
        # A first guess before the browser measures (the JS callback then refines it).
        xs = [n["x"] for n in nodes] or [0]
        span = (max(xs) - min(xs)) * SCALE_X + NODE_W * 1.5
        size = min(12.0, 0.34 * 620 / span * NODE_W)
        self.text.glyph.text_font_size = f"{size if size >= 5 else 0:.1f}px"
        self.grad_text.glyph.text_font_size = f"{size * 0.9 if size >= 6 else 0:.1f}px"
