"""The static site built by build.py, in Chromium: it shows a first view at once, becomes
interactive with Python running in a Web Worker, fetches nothing from any host but its own,
logs no error, and works offline after one visit.

Assertions tied to what the app shows are marked APP-SPECIFIC: they read the Bokeh
ColumnDataSource named ``graph_nodes`` and press the button labelled ``Run``.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

READY_TIMEOUT_MS = 180_000  # cold start under a loaded 2-core CI machine
READY = "() => window.__site && (window.__site.ready || window.__site.error !== null)"
# The live document (the only one: the first view is the sketch, plain HTML).
NODES = """() => {
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const src = doc.get_model_by_name('graph_nodes');
  return src ? JSON.stringify(src.data) : null;
}"""


def wait_ready(page):
    page.wait_for_function(READY, timeout=READY_TIMEOUT_MS)
    state = page.evaluate("() => ({error: window.__site.error, marks: window.__site.marks})")
    assert state["error"] is None, f"the page reported: {state['error']}"
    return state["marks"]


def nodes(page):
    data = page.evaluate(NODES)
    assert data is not None, "no ColumnDataSource named graph_nodes in the live document"
    return json.loads(data)


# APP-SPECIFIC: code that gives a graph unlike the app's first example.
NEW_CODE = "import torch\na = torch.ones(3, requires_grad=True)\nb = (a * 2).sum()\n"


def edit_and_run(page):
    """APP-SPECIFIC: replace the code in the editor, press Run, wait until graph_nodes changes."""
    before = page.evaluate(NODES)
    page.locator(".ace_text-input").first.focus()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(NEW_CODE)  # insert_text: no auto-indent
    page.get_by_role("button", name="Run").click()
    page.wait_for_function(f"() => ({NODES})() !== {json.dumps(before)}", timeout=30_000)
    return nodes(page)


def test_first_view_then_interactive(built_site, site_server, context, recorder):
    # The banner is in the HTML itself, so it shows before any script has run.
    html = (built_site / "index.html").read_text(encoding="utf-8")
    assert '<body class="pn-loading pg-loading">' in html and "Loading Python…" in html

    page = context.new_page()
    page.goto(site_server.url)
    marks = wait_ready(page)
    # The sketch is painted at once, live (the engine in the worker) before the app is built.
    assert 0 < marks["first_view"] < marks["quick"] < marks["doc_ready"] <= marks["interactive"], marks
    assert not page.locator("#pg-loading").is_visible()
    assert page.evaluate("document.body.className") == ""  # Panel's readiness flag is gone too
    assert page.evaluate("Bokeh.documents.length") == 1
    assert page.locator("#pg-sketch").count() == 0  # the app took its place

    before = nodes(page)
    after = edit_and_run(page)
    assert after != before
    # APP-SPECIFIC: a column per node attribute, one value per node.
    assert len({len(v) for v in after.values()}) == 1 and len(next(iter(after.values()))) > 0

    assert recorder.foreign() == [], f"requests to other hosts: {recorder.foreign()}"
    assert recorder.errors == [], f"console errors: {recorder.errors}"
    # Python ran in the worker: nothing but the page and its own scripts came before it.
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in recorder.urls)


def test_a_phone_lays_the_page_out_at_its_own_width(browser, site_server, recorder):
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    recorder.attach(phone)
    try:
        page = phone.new_page()
        page.goto(site_server.url)
        wait_ready(page)
        # Without width=device-width a phone lays the page out 980 px wide and shrinks it.
        assert page.evaluate("() => [window.innerWidth, document.documentElement.scrollWidth]") == [390, 390]
        plot = page.evaluate("""() => { const fig = Bokeh.documents[0].get_model_by_name('graph_figure');
                                         return fig.inner_width; }""")
        assert 300 < plot < 390
    finally:
        phone.close()
    assert recorder.errors == [], f"console errors: {recorder.errors}"


def test_works_offline_after_one_visit(site_server, context, recorder):
    page = context.new_page()
    page.goto(site_server.url)
    wait_ready(page)
    page.wait_for_function("() => window.__site.offlineReady", timeout=60_000)

    context.set_offline(True)
    try:
        page.reload()
        wait_ready(page)
        edit_and_run(page)
    finally:
        context.set_offline(False)
    assert recorder.foreign() == [], f"requests to other hosts: {recorder.foreign()}"
    assert recorder.errors == [], f"console errors: {recorder.errors}"


def test_every_shipped_file_is_from_this_origin(built_site):
    """No file of the site names another host as something to load."""
    import re

    pattern = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""")
    for path in [built_site / "index.html", built_site / "worker.js", built_site / "sw.js"]:
        assert not pattern.search(path.read_text(encoding="utf-8")), path
    lock = json.loads((built_site / "pyodide" / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():
        assert "/" not in entry["file_name"], entry
        assert (built_site / "pyodide" / entry["file_name"]).exists(), entry
