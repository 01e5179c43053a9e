"""A static HTML + SVG picture of a snapshot: the page's first view while scripts still load.

build.py inlines it into the static site so a visitor sees the default example's code and graph
within the first paint; the live Bokeh view replaces it. Same geometry and colours as the live
graph (views.graph), no script.
"""
from html import escape

from .graph import NODE_H, NODE_W, STYLE, _caption, positions

_PX = 38  # pixels per figure unit in the sketch


def graph_svg(graph):
    nodes, edges = graph.get("nodes", []), graph.get("edges", [])
    if not nodes:
        return ""
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
        parts.append(f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
                     f'fill="{fill}" stroke="{line}" stroke-width="{2.5 if n["kind"] == "output" else 1.2}"/>')
        lines = _caption(n).split("\n")
        for i, label in enumerate(lines):
            dy = (i - (len(lines) - 1) / 2) * 13
            parts.append(f'<text x="{cx:.1f}" y="{cy + dy + 4:.1f}" text-anchor="middle" font-size="11" '
                         f'font-family="system-ui, sans-serif" fill="{text}">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def sketch_html(snapshot, title, explanation):
    """The first view: title, explanation, code and graph of ``snapshot``, as plain HTML."""
    return (
        '<div id="pg-sketch" aria-hidden="true">'
        '<div class="pg-sk-head">∂ Autograd Playground <small>see PyTorch\'s autograd work</small></div>'
        '<div class="pg-sk-body"><div class="pg-sk-left">'
        f'<div class="pg-sk-title">{escape(title)}</div><p>{escape(explanation)}</p>'
        f'<pre>{escape(snapshot.get("code") or "")}</pre></div>'
        f'<div class="pg-sk-right"><div class="pg-sk-section">COMPUTATION GRAPH</div>{graph_svg(snapshot.get("graph") or {})}'
        "</div></div></div>"
    )
