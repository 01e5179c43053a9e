"""The live computation-graph view: one Bokeh figure, updated by assigning ``source.data``."""
from bokeh.models import (Arrow, ColumnDataSource, CustomJS, Range1d, HoverTool, NormalHead, PanTool, ResetTool, TapTool,
                          WheelZoomTool)
from bokeh.plotting import figure

from .look import KIND_NAMES, NODE_H, NODE_W, STYLE, caption, grad_short, positions  # noqa: F401 (re-exported)

# Labels have a pixel size while boxes scale with zoom: fit the text to the boxes' pixel width
# (a 13-character name such as MeanBackward0 is about 7.7 font-sizes wide).
FONT_PER_BOX_PX = 0.14
_FONT_JS = """
const span = Math.max(xr.end - xr.start, 1e-9);
const ppu = Math.max(fig.inner_width || 600, 100) / span;
const size = Math.min(12, %s * ppu * %s);
text.glyph.text_font_size = (size < 5 ? 0 : size).toFixed(1) + 'px';
grad.glyph.text_font_size = (size < 6 ? 0 : size * 0.9).toFixed(1) + 'px';
grad.glyph.y_offset = ppu * %s / 2 + 1;
""" % (FONT_PER_BOX_PX, NODE_W, NODE_H)

TOOLTIP = """
<div style="max-width:420px">
  <div><b>@label</b> <span style="color:#64748b">@kind_name</span></div>
  <pre style="margin:4px 0;font-size:11px;white-space:pre-wrap">@value</pre>
  <div style="color:#166534;font-size:11px"><b>@grad_title</b></div>
  <pre style="margin:2px 0;font-size:11px;white-space:pre-wrap">@grad</pre>
</div>
"""

# What each common node does in backward, shown on hover: the step's arithmetic for learners.
RULES = {
    "AccumulateGrad": "adds the incoming gradient into the leaf's .grad (accumulates across backward calls)",
    "AddBackward0": "grad_a = grad,  grad_b = grad  (summed back over broadcast dimensions)",
    "SubBackward0": "grad_a = grad,  grad_b = -grad",
    "RsubBackward1": "grad_x = -grad  (for c - x)",
    "MulBackward0": "grad_a = grad * b,  grad_b = grad * a  (saves both inputs)",
    "DivBackward0": "grad_a = grad / b,  grad_b = -grad * a / b**2",
    "NegBackward0": "grad_x = -grad",
    "PowBackward0": "grad_x = grad * n * x**(n-1)  (saves x)",
    "PowBackward1": "grad_x = grad * y * x**(y-1),  grad_y = grad * x**y * log(x)",
    "PowBackward2": "grad_y = grad * c**y * log(c)  (for c ** y)",
    "ExpBackward0": "grad_x = grad * exp(x)  (saves the result)",
    "LogBackward0": "grad_x = grad / x",
    "SqrtBackward0": "grad_x = grad / (2 * sqrt(x))",
    "SinBackward0": "grad_x = grad * cos(x)",
    "CosBackward0": "grad_x = -grad * sin(x)",
    "TanhBackward0": "grad_x = grad * (1 - tanh(x)**2)  (saves the result)",
    "SigmoidBackward0": "grad_x = grad * s * (1 - s),  s = sigmoid(x)",
    "ReluBackward0": "grad_x = grad where x > 0, else 0",
    "AbsBackward0": "grad_x = grad * sign(x)",
    "SumBackward0": "grad_x = grad copied to every element",
    "SumBackward1": "grad_x = grad copied along the summed dimensions",
    "MeanBackward0": "grad_x = grad / N copied to every element",
    "MeanBackward1": "grad_x = grad / N copied along the averaged dimensions",
    "MmBackward0": "grad_A = grad @ B.T,  grad_B = A.T @ grad",
    "MvBackward0": "grad_M = outer(grad, v),  grad_v = M.T @ grad",
    "DotBackward0": "grad_a = grad * b,  grad_b = grad * a",
    "AddmmBackward0": "grad_bias = grad (summed),  grad_A = grad @ B.T,  grad_B = A.T @ grad",
    "ViewBackward0": "grad_x = grad reshaped back to x's shape",
    "TBackward0": "grad_x = grad.t()",
    "PermuteBackward0": "grad_x = grad permuted back",
    "ExpandBackward0": "grad_x = grad summed over the expanded dimensions",
    "SelectBackward0": "grad_x = zeros with grad written at the selected index",
    "SliceBackward0": "grad_x = zeros with grad written into the slice",
    "IndexBackward0": "grad_x = zeros with grad added at the indexed positions",
    "CloneBackward0": "grad_x = grad",
    "SoftmaxBackward0": "grad_x = s * (grad - sum(grad * s)),  s = softmax(x)",
    "LogSoftmaxBackward0": "grad_x = grad - softmax(x) * sum(grad)",
    "MseLossBackward0": "grad_x = 2 * (x - y) * grad / N",
    "BinaryCrossEntropyWithLogitsBackward0": "grad_z = (sigmoid(z) - y) * grad / N",
    "NllLossBackward0": "grad_x = -grad / N at each target class, 0 elsewhere",
    "CopySlices": "grad flows to the written slice's source; the overwritten part of the base gets 0",
    # Nodes of a double backward (create_graph=True): backward formulas recorded as ops.
    "MulBackward1": "grad_x = grad * c  (x times a number c, as inside a derivative formula)",
    "AddBackward1": "grad_x = grad  (x plus a number)",
    "DivBackward1": "grad_x = grad / c  (x over a number c)",
    "SgnBackward0": "grad_x = 0  (sign is flat wherever it is differentiable)",
    "UnsqueezeBackward0": "grad_x = grad with the inserted dimension squeezed out",
    "SqueezeBackward1": "grad_x = grad with the removed size-1 dimension put back",
    "SigmoidBackwardBackward0": "node of g * s * (1 - s):  grad_g = grad * s * (1 - s),  grad_s = grad * g * (1 - 2s)",
    "TanhBackwardBackward0": "node of g * (1 - t**2):  grad_g = grad * (1 - t**2),  grad_t = -2 * t * g * grad",
    "ThresholdBackwardBackward0": "node of relu's backward:  grad_g = grad where x > 0, else 0;  grad_x = 0",
    "SoftmaxBackwardDataBackward0": "node of softmax's backward s * (g - sum(g * s)), differentiated again",
    "LogSoftmaxBackwardDataBackward0": "node of log_softmax's backward g - exp(out) * sum(g):  grad_g = grad - sum(grad * exp(out))",
    "NllLossBackwardBackward0": "node of nll_loss's backward:  grad_g = nll_loss(grad),  grad_x = 0",
    "MseLossBackwardBackward0": "node of 2 * (x - y) * g / N:  grad_g = 2 * (x - y) * grad / N,  grad_x = 2 * g * grad / N",
    "SelectBackwardBackward0": "node of x[i]'s backward (zeros with g at i):  grad_g = grad[i]",
    "SliceBackwardBackward0": "node of a slice's backward (zeros with g in the slice):  grad_g = grad[slice]",
    "IndexPutImplBackward0": "node of indexing's backward (zeros with g added at the indices):  grad_g = grad[indices]",
    "IndexAddBackward0": "grad_x = grad,  grad_source = grad at the indexed rows",
    "MaskedFillBackward0": "grad_x = grad where the mask is False, else 0",
    "MaskedFillBackward1": "grad_x = grad where the mask is False, else 0;  grad_value = sum of grad where it is True",
    "WhereBackward0": "grad_a = grad where the condition holds, else 0;  grad_b = the rest",
    "CatBackward0": "grad_each = its slice of grad",
    "StackBackward0": "grad_each = grad selected at its index along the stacked dimension",
    "SplitBackward0": "grad_x = the parts' grads concatenated (zeros for a part that got none)",
    "UnsafeSplitBackward0": "grad_x = the parts' grads concatenated (zeros for a part that got none)",
    "EmbeddingBackward0": "grad_weight = grad rows added into the rows that were looked up",
    "ConvolutionBackward0": "grad_input = grad convolved back with the weight (transposed conv),  grad_weight = "
                            "input windows times grad, summed,  grad_bias = grad summed over batch and positions",
    "MaxPool2DWithIndicesBackward0": "each window's grad goes to the element that was its max (saved indices), "
                                     "the rest get 0",
    "AvgPool2DBackward0": "each window's grad is divided by the window size and spread over the window",
    "AdaptiveAvgPool2DBackward0": "each output's grad is spread evenly over the input region it averaged",
    "ConstantPadNdBackward0": "grad_x = grad with the padding cut off",
    "NativeBatchNormBackward0": "grad through (x - mean) / std * weight + bias, mean and std being the batch's "
                                "(so every x of a channel moves them);  grad_weight = sum(grad * x_hat),  "
                                "grad_bias = sum(grad)",
    "NativeLayerNormBackward0": "grad through (x - mean) / std * weight + bias, mean and std over the normalized "
                                "dims of each sample;  grad_weight = sum(grad * x_hat),  grad_bias = sum(grad)",
}

NODE_COLUMNS = ("index", "x", "y", "label", "caption", "kind", "kind_name", "value", "grad", "grad_title", "grad_short",
                "fill", "line", "text_color", "alpha", "line_width", "freed")
EDGE_COLUMNS = ("start", "end", "x0", "y0", "x1", "y1", "alpha")


def node_data(nodes, pos=None):
    """Columns for ``graph_nodes`` from the model's plain node dicts."""
    pos = pos or positions(nodes)
    cols = {k: [] for k in NODE_COLUMNS}
    for n in nodes:
        kind = n["kind"]
        fill, line, text = STYLE.get(kind, STYLE["function"])
        freed = bool(n.get("freed"))
        cols["index"].append(n["id"])
        x, y = pos[n["id"]]
        cols["x"].append(x)
        cols["y"].append(y)
        cols["label"].append(n["label"])
        cols["caption"].append(caption(n))
        cols["kind"].append(kind)
        cols["kind_name"].append(KIND_NAMES.get(kind, kind) + (" (freed: saved tensors released)" if freed else ""))
        cols["value"].append(n.get("value") or _rule(n))
        cols["grad"].append(n.get("grad") or "")
        cols["grad_title"].append(".grad" if n.get("grad") else "")
        cols["grad_short"].append(grad_short(n))
        cols["fill"].append(fill)
        cols["line"].append(line)
        cols["text_color"].append(text)
        cols["alpha"].append(0.35 if freed else 1.0)
        cols["line_width"].append(2.5 if kind == "output" else 1.2)
        cols["freed"].append(freed)
    return cols


def _rule(n):
    if n["kind"] not in ("function", "accumulate"):
        return ""
    rule = RULES.get(n["label"], "backward of a custom or less common op")
    saved = [a for a in n.get("saved") or () if a != "saved_tensors"]
    # What grad_fn._saved_* holds for it: the tensors and numbers this node kept for backward.
    return f"backward: {rule}" + (f"\nsaved for backward: {', '.join(saved)}" if saved else "")


def edge_data(nodes, edges, pos=None):
    pos = pos or positions(nodes)
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
        if xb != xa:  # leave and enter boxes by the sides facing each other
            side = NODE_W / 2 if xb > xa else -NODE_W / 2
            x0, y0, x1, y1 = xa + side, ya, xb - side, yb
        else:  # same column (a band turning): top and bottom
            side = NODE_H / 2 if yb < ya else -NODE_H / 2
            x0, y0, x1, y1 = xa, ya - side, xb, yb + side
        cols["x0"].append(x0)
        cols["y0"].append(y0)
        cols["x1"].append(x1)
        cols["y1"].append(y1)
        cols["alpha"].append(0.3 if (a in freed or b in freed) else 0.9)
    return cols


class GraphView:
    """The figure and its two named sources, ``graph_nodes`` and ``graph_edges``."""

    def __init__(self, height=460):
        self.nodes = ColumnDataSource({k: [] for k in NODE_COLUMNS}, name="graph_nodes")
        self.edges = ColumnDataSource({k: [] for k in EDGE_COLUMNS}, name="graph_edges")
        wheel = WheelZoomTool()
        fig = figure(
            name="graph_figure", height=height, sizing_mode="stretch_width",
            tools=[PanTool(), wheel, ResetTool(), TapTool()], active_scroll=wheel, toolbar_location="above",
            x_range=Range1d(-2, 10), y_range=Range1d(-3, 3), outline_line_color=None,
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
            x="x", y="y", y_offset=12, text="grad_short", source=self.nodes, text_align="center",
            text_baseline="top", text_font_size="10px", text_color="#15803d",
        )
        fig.add_tools(HoverTool(renderers=[boxes], tooltips=TOOLTIP))
        fit = CustomJS(args=dict(xr=fig.x_range, fig=fig, text=self.text, grad=self.grad_text), code=_FONT_JS)
        fig.x_range.js_on_change("start", fit)
        fig.x_range.js_on_change("end", fit)
        self.figure = fig
        self.height = height

    def update(self, graph):
        nodes, edges = graph.get("nodes", []), graph.get("edges", [])
        pos = positions(nodes)
        self.nodes.data = node_data(nodes, pos)
        self.edges.data = edge_data(nodes, edges, pos)
        self._frame(nodes, pos)

    def _frame(self, nodes, pos, width_px=640):
        """Fit the whole graph with boxes kept in proportion (for a plot about ``width_px`` wide);
        a big graph opens on its output end at a readable zoom, and Reset shows it whole.
        Label size then follows the zoom in the browser (see _FONT_JS)."""
        fig, height_px = self.figure, self.height - 40
        xs = [p[0] for p in pos.values()] or [0.0]
        ys = [p[1] for p in pos.values()] or [0.0]
        x0, x1 = min(xs) - NODE_W, max(xs) + NODE_W
        y0, y1 = min(ys) - NODE_H * 1.5, max(ys) + NODE_H * 1.5
        unit = max((x1 - x0) / width_px, (y1 - y0) / height_px)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        full = (cx - unit * width_px / 2, cx + unit * width_px / 2, cy - unit * height_px / 2, cy + unit * height_px / 2)
        view = full
        readable = FONT_PER_BOX_PX * NODE_W / unit
        if readable < 6.5 and nodes:
            out = next((n for n in nodes if n["kind"] == "output"), nodes[-1])
            ox, oy = pos[out["id"]]
            unit = FONT_PER_BOX_PX * NODE_W / 10.0
            w, h = unit * width_px, unit * height_px
            view = (ox - w * 0.8, ox + w * 0.2, oy - h / 2, oy + h / 2)
        fig.x_range.update(start=view[0], end=view[1], reset_start=full[0], reset_end=full[1])
        fig.y_range.update(start=view[2], end=view[3], reset_start=full[2], reset_end=full[3])
        size = min(12.0, FONT_PER_BOX_PX * NODE_W / unit)
        self.text.glyph.text_font_size = f"{size if size >= 5 else 0:.1f}px"
        self.grad_text.glyph.text_font_size = f"{size * 0.9 if size >= 6 else 0:.1f}px"
        self.grad_text.glyph.y_offset = NODE_H / 2 / unit + 1  # just under the box, at any zoom
