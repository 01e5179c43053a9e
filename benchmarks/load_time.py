#!/usr/bin/env python3
"""Page load time of the static site, against a bare Pyodide + NumPy page, in one run.

    python benchmarks/load_time.py [--site site/] [--app playground/app.py] [--runs 3]

Headless Chromium (/usr/bin/chromium) on 127.0.0.1, a fresh browser context (cold cache) for
every cold run; the two pages take turns so a busy machine slows both alike.
  (a) bare:  a page whose Web Worker boots the site's own Pyodide (same files, same lock) and
             imports NumPy; nothing else.
  (b) app:   first view (the sketch of the default example is painted); interactive (the sketch is
             live: new code typed, Run clicked, its graph redrawn); full app (the Panel app has
             taken over: new code typed in its editor, Run clicked, graph_nodes changed); and a
             re-run of a 50-node example in the full app (click to graph_nodes changed). Cold,
             then warm (same context, second visit: service worker + caches).
Prints medians, the ratios to (a), and where the app's time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import build  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

BARE_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>bare Pyodide + NumPy</title>
<script>
window.__bare = {};
const worker = new Worker("bare-worker.js");
worker.onmessage = (e) => { window.__bare[e.data.type] = performance.now(); window.__bare.msg = e.data.msg; };
</script></head><body>bare Pyodide + NumPy</body></html>
"""
BARE_WORKER = """importScripts("../pyodide/pyodide.js");
(async () => {
  const pyodide = await loadPyodide({ indexURL: "../pyodide/", packages: ["numpy"] });
  pyodide.runPython("import numpy");
  postMessage({ type: "ready" });
})().catch((e) => postMessage({ type: "error", msg: String(e) }));
"""
BENCH_FILES = {"/__bench__/bare.html": ("text/html", BARE_HTML),
               "/__bench__/bare-worker.js": ("text/javascript", BARE_WORKER)}

# The live document is the last one. APP-SPECIFIC: the app's graph is the ColumnDataSource
# named graph_nodes and its button is labelled Run.
NODES = """() => {
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const src = doc && doc.get_model_by_name('graph_nodes');
  return src ? JSON.stringify(src.data) : null;
}"""
# APP-SPECIFIC: code whose graph differs from the first example's, typed before pressing Run.
NEW_CODE = "import torch\na = torch.ones(3, requires_grad=True)\nb = (a * 2).sum()\n"
# APP-SPECIFIC: a 50-node graph; the re-run changes a constant, so every value changes.
FIFTY = ("import torch\nx = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\ny = x\n"
         "for i in range(15):\n    y = torch.tanh(y * {scale} + 0.1)\nout = y.sum()\n")
SKETCH_GRAPH = "() => document.getElementById('pg-sk-graph').innerHTML"
TIMEOUT_MS = 240_000


class BenchHandler(build.SiteHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        if path in BENCH_FILES:
            ctype, body = BENCH_FILES[path]
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            super().do_GET()


def serve(site: Path):
    server = build.make_server(site, port=0, handler=BenchHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def check_requests(urls: list[str]) -> None:
    from urllib.parse import urlsplit

    foreign = [u for u in urls if urlsplit(u).scheme in ("http", "https") and urlsplit(u).hostname != "127.0.0.1"]
    if foreign:
        raise SystemExit(f"requests to other hosts: {foreign}")


def bare_run(browser, base: str) -> dict:
    ctx = browser.new_context()
    urls: list[str] = []
    ctx.on("request", lambda r: urls.append(r.url))
    page = ctx.new_page()
    try:
        page.goto(base + "__bench__/bare.html")
        page.wait_for_function("() => window.__bare.ready || window.__bare.error", timeout=TIMEOUT_MS)
        bare = page.evaluate("() => window.__bare")
        if "error" in bare:
            raise SystemExit(f"bare page failed: {bare.get('msg')}")
        check_requests(urls)
        return {"ready": bare["ready"] / 1000}
    finally:
        ctx.close()


def type_and_run(page, code: str, *, sketch: bool) -> tuple[float, float]:
    """Type ``code`` into the sketch's editor or the app's, click Run; seconds until the graph
    changed, and the time (s from navigation start) it did."""
    probe = SKETCH_GRAPH if sketch else NODES
    before = page.evaluate(probe)
    if sketch:
        page.fill("#pg-sk-code", code)
        t0 = page.evaluate("() => performance.now()")
        page.click("#pg-sketch button[data-pg=run]")
    else:
        page.locator(".ace_text-input").first.focus()
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(code)
        t0 = page.evaluate("() => { window.__site.pythonMs = 0; return performance.now(); }")
        page.get_by_role("button", name="Run").click()
    page.wait_for_function(f"() => ({probe})() !== {json.dumps(before)}", timeout=60_000, polling=5)
    t1 = page.evaluate("() => performance.now()")
    return (t1 - t0) / 1000, t1 / 1000


def app_visit(page, base: str) -> dict:
    page.goto(base)
    page.wait_for_function("() => window.__site && (window.__site.quick || window.__site.error !== null)",
                           timeout=TIMEOUT_MS)
    _, interactive = type_and_run(page, NEW_CODE, sketch=True)
    page.wait_for_function("() => window.__site && (window.__site.ready || window.__site.error !== null)",
                           timeout=TIMEOUT_MS)
    site = page.evaluate("() => window.__site")
    if site["error"] is not None:
        raise SystemExit(f"app failed: {site['error']}")
    _, full = type_and_run(page, FIFTY.format(scale=0.9), sketch=False)
    rerun, _ = type_and_run(page, FIFTY.format(scale=0.8), sketch=False)
    rerun_python = page.evaluate("window.__site.pythonMs") / 1000
    m = site["marks"]
    return {
        "first_view": m["first_view"] / 1000, "interactive": interactive, "full": full, "rerun50": rerun,
        "rerun50_python": rerun_python,
        "marks": {k: v / 1000 for k, v in m.items()}, "python": site.get("timings", {}),
    }


def app_run(browser, base: str) -> tuple[dict, dict]:
    ctx = browser.new_context()
    urls: list[str] = []
    ctx.on("request", lambda r: urls.append(r.url))
    page = ctx.new_page()
    try:
        cold = app_visit(page, base)
        page.wait_for_function("() => window.__site.offlineReady", timeout=TIMEOUT_MS)
        page.close()
        warm = app_visit(ctx.new_page(), base)
        check_requests(urls)
        return cold, warm
    finally:
        ctx.close()


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--site", type=Path, help="an already built site (default: build --app into a temp dir)")
    p.add_argument("--app", type=Path, default=ROOT / "playground" / "app.py")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="load-time-") as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build.build(args.app, site)
        report = json.loads((site / "build.json").read_text())
        server, base = serve(site)
        from playwright.sync_api import sync_playwright

        bare, cold, warm = [], [], []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            bare_run(browser, base)  # let the OS cache the files: every run then reads from memory
            for i in range(args.runs):
                bare.append(bare_run(browser, base))
                c, w = app_run(browser, base)
                cold.append(c)
                warm.append(w)
                print(f"run {i + 1}: bare {bare[-1]['ready']:.2f} s | app cold: first view {c['first_view']:.2f} s, "
                      f"interactive {c['interactive']:.2f} s, full app {c['full']:.2f} s, 50-node re-run "
                      f"{c['rerun50'] * 1000:.0f} ms | warm: {w['first_view']:.2f} s, {w['interactive']:.2f} s, "
                      f"{w['full']:.2f} s", flush=True)
            browser.close()
        server.shutdown()

    b = median(bare, "ready")
    load = os.getloadavg()[0]
    print(f"\nLoad time, median of {args.runs} (s, from navigation start; 127.0.0.1, headless Chromium;"
          f" {os.cpu_count()} cores, load average {load:.1f})")
    print(f"  {'':34}{'first view':>11}{'interactive':>13}{'full app':>10}{'50-node re-run':>16}")
    print(f"  {'(a) bare Pyodide + NumPy':34}{'':>11}{b:13.2f}")
    for name, rows in (("(b) app, cold", cold), ("(b) app, warm (service worker)", warm)):
        print(f"  {name:34}{median(rows, 'first_view'):11.2f}{median(rows, 'interactive'):13.2f}"
              f"{median(rows, 'full'):10.2f}{median(rows, 'rerun50') * 1000:13.0f} ms")
    print(f"  ratio to (a), interactive: cold {median(cold, 'interactive') / b:.2f}, warm {median(warm, 'interactive') / b:.2f}"
          f";  full app: cold {median(cold, 'full') / b:.2f}, warm {median(warm, 'full') / b:.2f}")
    print("\nWhere the app's cold time goes (medians, s):")
    meaning = {
        "boot": "page script starts, Web Worker created",
        "worker_start": "worker running; wheels start downloading and unzipping (unzip.js)",
        "first_view": "static sketch of the default example painted",
        "bokeh_view": "BokehJS has drawn the pre-rendered view",
        "wheels_unzipped": "every pure-Python wheel fetched and unzipped",
        "pyodide_ready": "runtime booted, NumPy installed",
        "installed": "wheels written into site-packages",
        "prelude_done": "shims applied",
        "quick_ready": "engine and model imported, link or default example run in the worker",
        "quick": "the sketch is live (Run, Backward, Zero grad)",
        "sketch_run": "new code typed in the sketch, Run clicked, its graph redrawn",
        "warm_done": "Panel, Bokeh and the app's modules imported (a few at a time)",
        "doc_ready": "app run (carrying on the sketch's session) and serialised in the worker",
        "rendered": "live document drawn by the page, the sketch removed",
        "interactive": "live document linked to Python",
        "app_run": "50-node code typed in the app's editor, Run clicked, graph_nodes changed",
    }
    marks = {k: statistics.median(r["marks"].get(k, float("nan")) for r in cold) for k in cold[0]["marks"]}
    marks["sketch_run"] = median(cold, "interactive")
    marks["app_run"] = median(cold, "full")
    for k, v in sorted(marks.items(), key=lambda kv: kv[1]):
        print(f"  {v:6.2f}  {k:16} {meaning.get(k, '')}")
    print("  in the worker's Python: " + ", ".join(
        f"{k} {statistics.median(r['python'].get(k, float('nan')) for r in cold):.2f} s"
        for k in ("quick_start", "warm_imports", "run_app", "write_doc")))
    print(f"  50-node re-run: {median(cold, 'rerun50') * 1000:.0f} ms from click to graph_nodes changed, of which "
          f"{median(cold, 'rerun50_python') * 1000:.0f} ms in the worker's Python (the editor's last keystrokes, "
          "the run, trace, layout and the document patch)")
    size = report["first_visit"]
    print(f"\nA first visit downloads {size['bytes'] / 1e6:.2f} MB ({size['gzip'] / 1e6:.2f} MB gzip-compressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
