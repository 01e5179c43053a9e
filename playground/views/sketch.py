"""The sketch: the playground as plain HTML + SVG, with no Panel or Bokeh.

build.py inlines it in the static site, so the default example's code and graph are painted with
the first frame. As soon as Python (engine and model only) is up in the page's worker, the sketch
comes alive (playground.quick): code can be edited and run, Backward and Zero grad work, and the
graph is redrawn, while Panel and Bokeh still load. The full app then takes its place. Same
geometry and colours as the live graph (views.look).
"""
from html import escape

from playground.model.graph import with_output

from . import panels
from .look import NODE_H, NODE_W, STYLE, caption, grad_short, positions
from .style import CSS

_PX = 38  # pixels per figure unit in the sketch


def graph_svg(graph, language="en"):
    nodes, edges = graph.get("nodes", []), graph.get("edges", [])
    if not nodes:
        return '<div class="ap-note">No graph yet: run code that makes a tensor with requires_grad=True.</div>'
    pos = positions(nodes)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, y1 = min(xs) - NODE_W, max(ys) + NODE_H * 1.5
    width, height = (max(xs) - min(xs) + 2 * NODE_W) * _PX, (max(ys) - min(ys) + 3 * NODE_H) * _PX

    def px(x, y):
        return (x - x0) * _PX, (y1 - y) * _PX

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
             f'width="100%" style="max-height:420px" role="img" aria-label="computation graph">',
             '<defs><marker id="pg-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#94a3b8"/></marker></defs>']
    for e in edges:
        if e.get("kind") == "saved" or e["to"] not in pos or e["from"] not in pos:
            continue
        (xa, ya), (xb, yb) = pos[e["to"]], pos[e["from"]]
        side = NODE_W / 2 if xb > xa else -NODE_W / 2 if xb < xa else 0
        (ax, ay), (bx, by) = px(xa + side, ya), px(xb - side, yb)
        parts.append(f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="#94a3b8" '
                     'stroke-width="1.4" marker-end="url(#pg-arrow)"/>')
    w, h = NODE_W * _PX, NODE_H * _PX
    for n in nodes:
        fill, line, text = STYLE.get(n["kind"], STYLE["function"])
        cx, cy = px(*pos[n["id"]])
        opacity = ' opacity="0.35"' if n.get("freed") else ""
        parts.append(f'<g data-node="{escape(str(n["id"]))}"{opacity}><title>{escape(n["label"])}</title>'
                     f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
                     f'fill="{fill}" stroke="{line}" stroke-width="{2.5 if n["kind"] == "output" else 1.2}"/>')
        lines = caption(n, language).split("\n")
        for i, label in enumerate(lines):
            dy = (i - (len(lines) - 1) / 2) * 13
            parts.append(f'<text x="{cx:.1f}" y="{cy + dy + 4:.1f}" text-anchor="middle" font-size="11" '
                         f'font-family="system-ui, sans-serif" fill="{text}">{escape(label)}</text>')
        glimpse = grad_short(n)
        if glimpse:
            parts.append(f'<text class="pg-sk-grad" x="{cx:.1f}" y="{cy + h / 2 + 13:.1f}" text-anchor="middle" '
                         f'font-size="10" font-family="system-ui, sans-serif" fill="#15803d">{escape(glimpse)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def parts(snapshot, language="en", output=None):
    """The sketch's live regions for ``snapshot``: what the page swaps in after each command.
    ``output``: the tensor Backward starts from (default: the snapshot's own choice)."""
    snapshot = with_output(snapshot, output)
    return {
        "code": snapshot.get("code") or "",
        "graph": graph_svg(snapshot.get("graph") or {}, language),
        "output": panels.output_html(snapshot, language),
        "tensors": panels.inspector_html(snapshot, language),
        "status": panels.status_text(snapshot, language),
        "backward_output": output or snapshot.get("default_output") or "",
    }


def sketch_html(snapshot, title, explanation):
    """The whole sketch for ``snapshot``, controls disabled until Python answers."""
    p = parts(snapshot)
    off = ' disabled title="Python is loading"'
    return (
        f'<div id="pg-sketch"><style>{CSS}</style>'
        f'<div class="pg-sk-head">∂ Autograd Playground <small>{escape(panels.TAGLINE["en"])}</small></div>'
        '<div class="pg-sk-body"><div class="pg-sk-left">'
        f'<div class="pg-sk-title">{escape(title)}</div><p>{escape(explanation)}</p>'
        f'<textarea id="pg-sk-code" spellcheck="false" autocomplete="off" wrap="off" aria-label="code" readonly>'
        f'{escape(p["code"])}</textarea>'
        f'<div class="pg-sk-bar"><button data-pg="run" class="pg-sk-primary"{off}>Run</button>'
        '<span class="ap-status">Ctrl+Enter runs</span></div>'
        f'<div id="pg-sk-output">{p["output"]}</div></div>'
        '<div class="pg-sk-right"><div class="pg-sk-bar"><span class="pg-sk-section">COMPUTATION GRAPH</span>'
        f'<span id="pg-sk-status" class="ap-status">{escape(p["status"])}</span></div>'
        f'<div id="pg-sk-graph">{p["graph"]}</div>'
        f'<div class="pg-sk-bar"><button data-pg="backward" class="pg-sk-go"{off}>Backward</button>'
        f'<button data-pg="zero_grad" class="pg-sk-warn"{off}>Zero grad</button>'
        f'<span class="ap-status">of <b id="pg-sk-backward-output">{escape(p["backward_output"])}</b></span></div>'
        "</div></div>"  # the tensors span both columns, as the app's tabs do
        f'<div class="pg-sk-foot"><div class="pg-sk-section">TENSORS</div><div id="pg-sk-tensors">{p["tensors"]}</div>'
        "</div></div>"
    )
