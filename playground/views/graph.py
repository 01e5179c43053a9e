"""The live computation-graph view: one Bokeh figure, updated by assigning ``source.data``."""
from bokeh.models import (Arrow, ColumnDataSource, CustomJS, Range1d, HoverTool, NormalHead, PanTool, ResetTool, TapTool,
                          WheelZoomTool)
from bokeh.plotting import figure

from playground.model.graph import lineage
from playground.model.modules import Collapsed
from playground.model.steps import state_at

from .look import (CURRENT_LINE, FRAME, KIND_NAMES, NODE_H, NODE_W, PENDING, STYLE, bands,  # noqa: F401
                   caption, fit, grad_short, positions, short)
from .rules import rule_text

# Labels have a pixel size while boxes scale with zoom: fit the text to the boxes' pixel width
# (MAX_LABEL characters, such as MseLossBackward0, are about 9 font-sizes wide, with a little room left).
FONT_PER_BOX_PX = 0.10
WIDE_PX = 1300  # about how wide the plot is across a laptop's page, for the height a wide graph needs
TOOLBAR_PX = 40  # of the plot's height, the toolbar's
READABLE_PX = 7  # the label font a graph opens with on its output end when the whole would hide its labels
# Python frames the graph for a plot it cannot measure; the browser knows the plot's size: there the
# frame keeps its boxes in proportion and fills the plot with the whole graph, or with its output
# end where the whole would be too small to read (a phone); again when the plot changes size, unless
# the user has moved it. Reset shows the whole graph. Pan and wheel zoom keep the proportion, so only
# a frame set for another size (a new graph, a resize) is changed.
# A view Bokeh has made for a model: page-level scripts find the plot's element, or the player's view.
FIND_VIEW_JS = """
function find_view(test) {
  for (const root of Object.values(Bokeh.index)) {
    const stack = [root];
    while (stack.length) {
      const v = stack.pop();
      if (test(v)) return v;
      for (const c of (v.child_views || [])) stack.push(c);
    }
  }
  return null;
}
"""
_FONT_JS = FIND_VIEW_JS + """
const whole = cb_obj != null && cb_obj.event_name === 'reset';
function fit(tries, resized) {
  const W = fig.inner_width, H = fig.inner_height;
  if (!(W > 0 && H > 0)) {  // not laid out yet
    if (tries < 50) setTimeout(() => fit(tries + 1, resized), 60);
    return;
  }
  const ux = (xr.end - xr.start) / W, uy = (yr.end - yr.start) / H;
  let u = Math.max(ux, uy);
  const [x0, x1, y0, y1, ox, oy] = fig.tags.length == 6 ? fig.tags : [0, 0, 0, 0, 0, 0];
  // a plot resized while showing what the last fit chose (the user has not moved it): fit afresh,
  // the whole graph again if that was a Reset
  const auto = fig.__ap_auto, afresh = resized === true && auto !== undefined &&
    auto[0] === xr.start && auto[1] === xr.end && auto[2] === yr.start && auto[3] === yr.end;
  const all = whole || afresh && auto[4];
  if (x1 > x0 && (whole || afresh || Math.abs(ux / uy - 1) > 0.01)) {
    let cx = (xr.start + xr.end) / 2, cy = (yr.start + yr.end) / 2;
    const eps = 1e-6 * (x1 - x0);
    if (whole || afresh || (xr.start <= x0 + eps && xr.end >= x1 - eps)) {  // the whole graph: fill the plot with it
      u = Math.max((x1 - x0) / W, (y1 - y0) / H, $box / 12);
      cx = (x0 + x1) / 2; cy = (y0 + y1) / 2;
      if (!all && $box / u < 5) {  // (labels under 5 px are not drawn)
        u = $box / $readable;
        cx = Math.min(ox - 0.3 * u * W, x1 - u * W / 2); cy = oy;  // the output a fifth from the right
      }
    }
    yr.setv({start: cy - u * H / 2, end: cy + u * H / 2});
    xr.setv({start: cx - u * W / 2, end: cx + u * W / 2});  // (which may run this again: then a no-op)
    fig.__ap_auto = [xr.start, xr.end, yr.start, yr.end, all];
  }
  const size = Math.min(12, $box / u);
  const label = (size < 5 ? 0 : size).toFixed(1) + 'px', small = (size < 6 ? 0 : size * 0.9).toFixed(1) + 'px';
  const below = $node_h / u / 2 + 1;
  // every look of a label: a tapped node's selection draws the others with nonselection_glyph
  for (const [r, font, dy] of [[text, label, null], [grad, small, below], [flow, small, below], [tab, small, null]]) {
    for (const g of [r.glyph, r.selection_glyph, r.nonselection_glyph]) {
      if (g && g.text_font_size !== undefined) {
        g.text_font_size = font;
        if (dy !== null) g.y_offset = dy;
      }
    }
  }
}
fit(0, false);
function plot_element() {  // the plot's element, once Bokeh has made it
  const view = find_view(v => v.model === fig);
  return view === null ? null : view.el;
}
if (!fig.__ap_resize) {
  // Any change of the plot's size refits it: the window's, the layout's (the wide graph), full screen.
  fig.__ap_resize = true;
  let pending = null;
  const later = () => { clearTimeout(pending); pending = setTimeout(() => fit(0, true), 150); };
  const watch = (tries) => {
    const el = plot_element();
    if (el !== null && window.ResizeObserver) new ResizeObserver(later).observe(el);
    else if (el === null && tries < 50) setTimeout(() => watch(tries + 1), 100);
    else window.addEventListener('resize', later);
  };
  watch(0);
}
""".replace("$box", repr(FONT_PER_BOX_PX * NODE_W)).replace("$readable", repr(READABLE_PX)).replace("$node_h", repr(NODE_H))

TOOLTIP = """
<div style="max-width:420px">
  <div><b>@label</b> <span style="color:#64748b">@kind_name</span></div>
  <pre style="margin:4px 0;font-size:11px;white-space:pre-wrap">@value</pre>
  <div style="color:#166534;font-size:11px"><b>@grad_title</b></div>
  <pre style="margin:2px 0;font-size:11px;white-space:pre-wrap">@grad</pre>
</div>
"""

NODE_COLUMNS = ("index", "x", "y", "label", "caption", "kind", "kind_name", "value", "grad", "grad_title", "grad_short",
                "fill", "line", "text_color", "alpha", "line_width", "freed")
EDGE_COLUMNS = ("start", "end", "x0", "y0", "x1", "y1", "alpha")
FADED = 0.12  # alpha of what lies off the focused node's paths
FLOW_COLUMNS = ("start", "end", "x0", "y0", "x1", "y1", "lx", "ly", "text")
FRAME_COLUMNS = ("index", "xs", "ys", "tx", "ty", "title")
FRAME_PAD, TAB_H = 0.22, 0.42  # figure units: room around an open module's nodes, its title tab


def node_data(nodes, pos=None, language="en"):
    """Columns for ``graph_nodes`` from the model's plain node dicts."""
    pos = pos or positions(nodes)
    words = KIND_NAMES.get(language, KIND_NAMES["en"])
    cols = {k: [] for k in NODE_COLUMNS}
    for n in nodes:
        kind = n["kind"]
        fill, line, text = STYLE.get(kind, STYLE["function"])
        step = n.get("step")
        if step == "pending":
            fill, line, text = PENDING
        elif step == "current":
            line = CURRENT_LINE
        freed = bool(n.get("freed"))
        cols["index"].append(n["id"])
        x, y = pos[n["id"]]
        cols["x"].append(x)
        cols["y"].append(y)
        cols["label"].append(n["label"])
        cols["caption"].append(caption(n, language))
        cols["kind"].append(kind)
        cols["kind_name"].append(words.get(kind, kind) + (words["freed_note"] if freed else ""))
        cols["value"].append(n.get("value") or _rule(n, language))
        received = n.get("received")
        cols["grad"].append(n.get("grad") or received or "")
        cols["grad_title"].append(words["grad"] if n.get("grad") else words["received"] if received else "")
        cols["grad_short"].append(grad_short(n) or (short(n["received"]) if n.get("received") else ""))
        cols["fill"].append(fill)
        cols["line"].append(line)
        cols["text_color"].append(text)
        cols["alpha"].append(0.35 if freed and step != "current" else 1.0)
        cols["line_width"].append(3.5 if step == "current" else 2.5 if kind == "output" else 1.2)
        cols["freed"].append(freed)
    return cols


def _rule(n, language):
    if n["kind"] not in ("function", "accumulate"):
        return ""
    words = KIND_NAMES.get(language, KIND_NAMES["en"])
    rule = rule_text(n["label"], language)
    saved = [a for a in n.get("saved") or () if a != "saved_tensors"]
    # What grad_fn._saved_* holds for it: the tensors and numbers this node kept for backward.
    return f"{words['backward']}{rule}" + (f"\n{words['saved']}{', '.join(saved)}" if saved else "")


def _between(pa, pb):
    """An arrow from box ``pa`` to box ``pb``: out of and into the sides facing each other."""
    (xa, ya), (xb, yb) = pa, pb
    if xb != xa:
        side = NODE_W / 2 if xb > xa else -NODE_W / 2
        return xa + side, ya, xb - side, yb
    side = NODE_H / 2 if yb < ya else -NODE_H / 2  # same column (a band turning): top and bottom
    return xa, ya - side, xb, yb + side


def edge_data(nodes, edges, pos=None):
    pos = pos or positions(nodes)
    freed = {n["id"] for n in nodes if n.get("freed")}
    cols = {k: [] for k in EDGE_COLUMNS}
    for e in edges:
        if e.get("kind") == "saved":
            continue
        # The model's edges point the way backward walks; drawn the way data flows, from an
        # input (left) to what consumes it (right).
        a, b = e["to"], e["from"]
        if a not in pos or b not in pos:
            continue
        cols["start"].append(a)
        cols["end"].append(b)
        x0, y0, x1, y1 = _between(pos[a], pos[b])
        cols["x0"].append(x0)
        cols["y0"].append(y0)
        cols["x1"].append(x1)
        cols["y1"].append(y1)
        cols["alpha"].append(0.3 if (a in freed or b in freed) else 0.9)
    return cols


def flow_data(flows, pos):
    """The grads a step passed on: arrows the way backward goes (a node to its inputs' nodes), and
    under each receiving node what it got (their sum, when it got several)."""
    cols = {k: [] for k in FLOW_COLUMNS}
    received = {}
    for f in flows:
        a, b = f["from"], f["to"]
        if a not in pos or b not in pos:
            continue
        x0, y0, x1, y1 = _between(pos[a], pos[b])
        first = b not in received
        received.setdefault(b, []).append(short(f["text"], 22 if first else 14)[2:])
        for k, v in zip(FLOW_COLUMNS, (a, b, x0, y0, x1, y1, pos[b][0], pos[b][1], "")):
            cols[k].append(v)
    for i, b in enumerate(cols["end"]):
        if b in received:  # one label per receiving node, on its first arrow
            cols["text"][i] = "∇ " + " + ".join(received.pop(b))
    return cols


def frame_data(frames, pos, band=None):
    """An open module call: a frame around what is drawn of it, column by column (the layout keeps
    a call's nodes together in each column, so the frame covers no other node), with a title tab
    above its top left corner (tapped, it closes the call again). Outer calls get wider frames.
    ``band``: node id -> the band a wrapped graph draws it in; a call across bands gets a frame
    in each."""
    cols = {k: [] for k in FRAME_COLUMNS}
    deepest = max((f["depth"] for f in frames), default=0)
    for f in frames:
        pieces = {}
        for m in f["members"]:
            if m in pos:
                x, y = pos[m]
                spans = pieces.setdefault(band.get(m, 0) if band else 0, {})
                lo, hi = spans.get(x, (y, y))
                spans[x] = (min(lo, y), max(hi, y))
        if not pieces:
            continue
        outer = deepest - f["depth"]
        px, py, tab = [], [], None
        for b in sorted(pieces):
            if px:
                px.append(float("nan"))
                py.append(float("nan"))
            corner = _frame_outline(pieces[b], outer, px, py)
            tab = tab or corner
        for k, v in zip(FRAME_COLUMNS, (f["id"], px, py, tab[0] + NODE_W / 2, tab[1] + TAB_H / 2,
                                        "▾ " + fit(f["label"]))):
            cols[k].append(v)
    return cols


def _frame_outline(spans, outer, px, py):
    """Append to ``px``/``py`` the outline around ``spans`` (column x -> lowest and highest y of
    the nodes framed there): stepped where neighbouring columns differ. Returns its top left."""
    pad = FRAME_PAD * (1 + outer)
    xs = sorted(spans)
    edges = [xs[0] - NODE_W / 2 - pad] + [(a + b) / 2 for a, b in zip(xs, xs[1:])] + [xs[-1] + NODE_W / 2 + pad]
    tops = [spans[x][1] + NODE_H / 2 + FRAME_PAD + outer * (TAB_H + 0.1) for x in xs]  # tabs clear of each other
    bottoms = [spans[x][0] - NODE_H / 2 - pad - NODE_H * 0.5 for x in xs]  # (the grad under a box)
    for i, top in enumerate(tops):
        px += [edges[i], edges[i + 1]]
        py += [top, top]
    for i in reversed(range(len(xs))):
        px += [edges[i + 1], edges[i]]
        py += [bottoms[i], bottoms[i]]
    return edges[0], tops[0]


class GraphView:
    """The figure and its named sources: ``graph_nodes``, ``graph_edges``, ``graph_flows`` (a
    backward step's grads) and ``graph_frames`` (open module calls, when modules are grouped)."""

    def __init__(self, height=460, language="en"):
        self.frames = ColumnDataSource({k: [] for k in FRAME_COLUMNS}, name="graph_frames")
        self.nodes = ColumnDataSource({k: [] for k in NODE_COLUMNS}, name="graph_nodes")
        self.edges = ColumnDataSource({k: [] for k in EDGE_COLUMNS}, name="graph_edges")
        self.flows = ColumnDataSource({k: [] for k in FLOW_COLUMNS}, name="graph_flows")
        wheel = WheelZoomTool()
        fig = figure(
            name="graph_figure", height=height, sizing_mode="stretch_width",
            tools=[PanTool(), wheel, ResetTool()], active_scroll=wheel, toolbar_location="above",
            x_range=Range1d(-2, 10), y_range=Range1d(-3, 3), outline_line_color=None,
        )
        fig.axis.visible = False
        fig.grid.visible = False
        fig.background_fill_color = "#fcfcfd"
        fig.patches(xs="xs", ys="ys", source=self.frames, fill_color=FRAME[0],
                    fill_alpha=0.55, line_color=FRAME[1], line_dash="dashed", line_width=1.2, level="underlay",
                    nonselection_fill_alpha=0.55, nonselection_line_alpha=1.0)
        tabs = fig.rect(
            x="tx", y="ty", width=NODE_W, height=TAB_H, source=self.frames, fill_color=FRAME[1], line_color=FRAME[1],
            nonselection_fill_alpha=1.0, nonselection_line_alpha=1.0, border_radius=4,  # (a tapped tab: none fade)
        )
        self.tab_text = fig.text(
            x="tx", y="ty", text="title", source=self.frames, text_align="center", text_baseline="middle",
            text_font_size="10px", text_color=FRAME[2], nonselection_text_alpha=1.0,
        )
        fig.add_layout(Arrow(
            source=self.edges, x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_color="#94a3b8",
            line_alpha="alpha", line_width=1.4, end=NormalHead(size=7, fill_color="#94a3b8", line_color="#94a3b8"),
        ))
        fig.add_layout(Arrow(
            source=self.flows, x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_color=CURRENT_LINE,
            line_width=2.6, end=NormalHead(size=9, fill_color=CURRENT_LINE, line_color=CURRENT_LINE),
        ))
        boxes = fig.rect(
            x="x", y="y", width=NODE_W, height=NODE_H, source=self.nodes, fill_color="fill", line_color="line",
            fill_alpha="alpha", line_alpha="alpha", line_width="line_width", border_radius=6,
            nonselection_fill_alpha="alpha", nonselection_line_alpha="alpha", selection_fill_alpha="alpha",
            selection_line_alpha="alpha",
        )
        self.text = fig.text(
            x="x", y="y", text="caption", source=self.nodes, text_align="center", text_baseline="middle",
            text_font_size="11px", text_color="text_color", text_alpha="alpha", text_line_height=1.15,
            nonselection_text_alpha="alpha", selection_text_alpha="alpha",
        )
        self.grad_text = fig.text(
            x="x", y="y", y_offset=12, text="grad_short", source=self.nodes, text_align="center",
            text_baseline="top", text_font_size="10px", text_color="#15803d", text_alpha="alpha",
            nonselection_text_alpha="alpha", selection_text_alpha="alpha",
        )
        self.flow_text = fig.text(
            x="lx", y="ly", text="text", source=self.flows, text_align="center", text_baseline="top",
            text_font_size="10px", text_color="#92400e", y_offset=12, background_fill_color="#fffbeb",
            background_fill_alpha=0.9,
        )
        fig.add_tools(HoverTool(renderers=[boxes], tooltips=TOOLTIP), TapTool(renderers=[boxes, tabs]))
        fit = CustomJS(args=dict(xr=fig.x_range, yr=fig.y_range, fig=fig, text=self.text, grad=self.grad_text, flow=self.flow_text,
                                 tab=self.tab_text), code=_FONT_JS)
        fig.x_range.js_on_change("start", fit)
        fig.x_range.js_on_change("end", fit)
        fig.js_on_event("reset", fit)
        self.fit_js = fit  # also for the page's document_ready: the first frame comes with the page, unchanged
        self.figure = fig
        self.heights = (height, height)
        self._graph, self._pos, self._bands = {}, {}, None
        self._walk = self._step = self._focus = self._collapsed = None
        self.language = language

    def update(self, graph, walk=None, step=None, modules=None):
        """Show ``graph`` (framed afresh), as it stood after ``step`` steps of ``walk`` if given.
        ``modules``: None draws every node; else its module calls are boxes, but for the open
        ones (the ids in ``modules``), which are frames around their insides."""
        self._graph = graph
        self._collapsed = Collapsed(graph, modules) if modules is not None and graph.get("groups") else None
        shown = self.shown
        before, self._pos = self._pos, positions(shown.get("nodes", []))
        self._bands = bands(shown.get("nodes", [])) if self._collapsed is not None else None
        self._focus = None
        self.nodes.selected.indices = []
        self.frames.selected.indices = []
        self.show_step(walk, step)
        if self._pos != before or not before:  # (a Backward, a step, a rerun of the same graph: the zoom stays)
            self._frame(shown.get("nodes", []), self._pos)

    @property
    def shown(self):
        """The graph as drawn: with module boxes when modules are grouped."""
        return self._collapsed.graph if self._collapsed is not None else self._graph

    def show_step(self, walk=None, step=None):
        """Redraw the current graph at a step of its backward walk (None: as it is now); the
        zoom stays where the user left it."""
        self._walk, self._step = walk, step
        graph, pos, collapsed = self._graph, self._pos, self._collapsed
        nodes, flows = graph.get("nodes", []), []
        if walk and walk.get("steps") and step is not None:
            state = state_at(graph, walk, step)
            nodes, flows = state["nodes"], state["flows"]
            if collapsed is not None:
                nodes, flows = collapsed.at_step(nodes, flows)
        elif collapsed is not None:
            nodes = collapsed.graph["nodes"]
        nodes_cols = node_data(nodes, pos, self.language)
        edge_cols = edge_data(nodes, self.shown.get("edges", []), pos)
        if self._focus is not None:  # everything off the focused node's paths fades back
            keep = self._focus
            nodes_cols["alpha"] = [a if i in keep else FADED for a, i in zip(nodes_cols["alpha"], nodes_cols["index"])]
            edge_cols["alpha"] = [a if s in keep and e in keep else FADED
                                  for a, s, e in zip(edge_cols["alpha"], edge_cols["start"], edge_cols["end"])]
        self.nodes.data = nodes_cols
        self.edges.data = edge_cols
        self.flows.data = flow_data(flows, pos)
        self.frames.data = frame_data(collapsed.frames if collapsed is not None else [], pos, self._bands)

    def set_heights(self, least, most):
        """Let the plot grow from ``least`` to ``most`` pixels high, as the graph needs when the plot
        is about WIDE_PX wide; the browser refits the graph to the new size (see _FONT_JS)."""
        self.heights = (least, most)
        self._fit_height()

    def _fit_height(self):
        least, most = self.heights
        height = least
        if most > least and len(self.figure.tags) == 6:
            x0, x1, y0, y1 = self.figure.tags[:4]
            box = FONT_PER_BOX_PX * NODE_W
            unit = max((x1 - x0) / WIDE_PX, box / 12)  # as _FONT_JS frames it
            if box / unit < 5:
                unit = box / READABLE_PX
            height = min(most, max(least, round((y1 - y0) / unit) + TOOLBAR_PX))
        self.figure.height = height

    @property
    def height(self):
        """The plot's height in pixels, toolbar included."""
        return self.figure.height

    def set_language(self, language):
        """The tooltips' words in ``language``."""
        self.language = language
        self.show_step(self._walk, self._step)

    @property
    def focused(self):
        return self._focus

    def focus(self, node_id):
        """Fade all but the paths through ``node_id`` (None: show everything again)."""
        self._focus = lineage(self.shown, node_id) if node_id is not None else None
        self.show_step(self._walk, self._step)

    def _frame(self, nodes, pos, width_px=640):
        """Fit the whole graph with boxes kept in proportion, for a plot about ``width_px`` wide:
        the browser fits it to the plot's real size, or opens a graph too big to read whole on its
        output end, and sizes the labels (see _FONT_JS: it runs on every change of the frame)."""
        fig = self.figure
        xs = [p[0] for p in pos.values()] or [0.0]
        ys = [p[1] for p in pos.values()] or [0.0]
        x0, x1 = min(xs) - NODE_W, max(xs) + NODE_W
        y0, y1 = min(ys) - NODE_H * 1.5, max(ys) + NODE_H * 1.5
        frames = self.frames.data  # open module calls: their outlines and title tabs in view too
        for fx, fy, ty in zip(frames["xs"], frames["ys"], frames["ty"]):
            x0, x1 = min(x0, min(fx) - NODE_H), max(x1, max(fx) + NODE_H)
            y0, y1 = min(y0, min(fy) - NODE_H), max(y1, max(fy) + NODE_H, ty + TAB_H / 2 + NODE_H)
        out = next((n for n in nodes if n["kind"] == "output"), nodes[-1]) if nodes else None
        ox, oy = pos[out["id"]] if out else (x1, (y0 + y1) / 2)
        fig.tags = [x0, x1, y0, y1, ox, oy]  # what the browser fits to the plot's real size (see _FONT_JS)
        self._fit_height()
        height_px = self.height - TOOLBAR_PX
        unit = max((x1 - x0) / width_px, (y1 - y0) / height_px)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        full = (cx - unit * width_px / 2, cx + unit * width_px / 2, cy - unit * height_px / 2, cy + unit * height_px / 2)
        fig.x_range.update(start=full[0], end=full[1], reset_start=full[0], reset_end=full[1])
        fig.y_range.update(start=full[2], end=full[3], reset_start=full[2], reset_end=full[3])
