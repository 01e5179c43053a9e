"""The static site's sketch: live as soon as the engine is up in the worker, before Panel has
loaded; then the full app takes over the very same session (grads, code, link).

``window.__pgHold`` keeps the sketch live until the test lets the app in, so the steps do not
race the handoff on a fast machine."""
import pytest
from playground_page import PlaygroundPage

from playground.model import links

pytestmark = pytest.mark.browser

READY_MS = 180_000
CODE = "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = (x ** 2).sum()\n"


def open_held(context, url):
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.add_init_script("window.__pgHold = true")
    page.goto(url)
    page.wait_for_function("() => window.__site && (window.__site.quick || window.__site.error !== null)",
                           timeout=READY_MS)
    assert page.evaluate("window.__site.error") is None
    return page


def sketch_command(page, button):
    done = page.evaluate("window.__site.quickCommands || 0")
    page.click(f"#pg-sketch button[data-pg={button}]")
    page.wait_for_function(f"() => (window.__site.quickCommands || 0) > {done}")


def release(page):
    page.evaluate("window.__pgHold = false")
    pg = PlaygroundPage(page, timeout=READY_MS)
    pg.wait_ready()
    page.wait_for_function("() => !document.getElementById('pg-sketch')")
    return pg


def test_sketch_runs_code_before_panel_and_the_app_carries_on(built_site, site_server, context, recorder):
    # Before Python: the sketch is in the HTML with its controls off.
    html = (built_site / "index.html").read_text(encoding="utf-8")
    assert 'id="pg-sketch"' in html and 'data-pg="run" class="pg-sk-primary" disabled' in html

    page = open_held(context, site_server.url)
    assert page.evaluate("window.__site.ready") is False
    assert page.evaluate("typeof window.Bokeh") == "undefined"  # Panel's page is not even loaded
    assert page.is_enabled("#pg-sketch button[data-pg=run]")
    assert "MeanBackward0" in page.inner_text("#pg-sk-graph")  # the default example, live

    # Typed as a person types: Tab indents (Python needs it), Ctrl+Enter runs.
    page.fill("#pg-sk-code", "")
    page.focus("#pg-sk-code")
    page.keyboard.insert_text("for _ in range(1):\n")
    page.keyboard.press("Tab")
    page.keyboard.insert_text("pass\n" + CODE)
    done = page.evaluate("window.__site.quickCommands || 0")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => (window.__site.quickCommands || 0) > {done}")
    assert page.input_value("#pg-sk-code") == "for _ in range(1):\n    pass\n" + CODE
    graph = page.inner_text("#pg-sk-graph")
    assert "PowBackward0" in graph and "SumBackward0" in graph and "MeanBackward0" not in graph
    assert page.inner_text("#pg-sk-status") == "5 nodes · 0 backward calls"

    sketch_command(page, "backward")
    assert page.inner_text("#pg-sk-status") == "5 nodes · 1 backward call"
    assert "∇ [2., 4., 6.]" in page.inner_text("#pg-sk-graph")
    assert "tensor([2., 4., 6.])" in page.inner_text("#pg-sk-tensors")

    # A second Backward without retain_graph: PyTorch's error, the grads stay.
    sketch_command(page, "backward")
    assert "Trying to backward through the graph a second time" in page.inner_text("#pg-sk-output")
    assert page.inner_text("#pg-sk-status") == "5 nodes · 1 backward call"

    # The address bar holds the state: a link to exactly this.
    state = links.decode(page.evaluate("location.hash"))
    assert state["code"] == "for _ in range(1):\n    pass\n" + CODE and [a["op"] for a in state["actions"]] == ["backward"]

    pg = release(page)
    assert pg.node("x")["grad"] == "tensor([2., 4., 6.])"  # the same session, not a re-run from scratch
    assert page.evaluate("window.__site.marks.quick < window.__site.marks.interactive")
    assert recorder.foreign() == [], f"requests left 127.0.0.1: {recorder.foreign()}"
    assert recorder.errors == [], f"console errors: {recorder.errors}"


def test_sketch_opens_a_shared_link_and_hands_over_unrun_code(site_server, context, recorder):
    state = links.validate({"code": "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * w).sum()\n",
                            "output": "loss", "example": "basics", "language": "zh",
                            "actions": [{"op": "backward", "output": "loss"}], "wide": True})
    page = open_held(context, site_server.url + "#" + links.encode(state))
    assert page.input_value("#pg-sk-code") == state["code"]
    graph, code = (page.locator(where).bounding_box() for where in ("#pg-sk-graph", "#pg-sk-code"))
    assert graph["y"] + graph["height"] <= code["y"] and graph["width"] > 1000  # the link's enlarged graph
    assert page.inner_text("#pg-sk-status") == "5 个节点 · 1 次 backward"  # in the link's language
    assert page.inner_text("#pg-sketch .pg-sk-head small") == "看 PyTorch 的自动求导如何工作"
    assert "∇ [2., 2.]" in page.inner_text("#pg-sk-graph")

    # Typed but not run when the app arrives: the app runs it.
    page.fill("#pg-sk-code", "import torch\nv = torch.ones(4, requires_grad=True)\ns = v.sum()\n")
    pg = release(page)
    data = pg.wait_for(lambda d: "v" in d["label"] and "s" in d["label"], what="the unrun code, run by the app")
    assert "w" not in data["label"]
    assert recorder.errors == [], f"console errors: {recorder.errors}"


def test_a_broken_link_shows_why_in_the_sketch(site_server, context):
    page = open_held(context, site_server.url + "#v1.not-a-real-link")
    assert "This link is damaged" in page.inner_text("#pg-sk-output")
    assert "MeanBackward0" in page.inner_text("#pg-sk-graph")  # the default example instead


def test_code_typed_but_not_run_survives_a_reload(site_server, context):
    page = open_held(context, site_server.url)
    draft = "import torch\nk = torch.ones(2, requires_grad=True)\nm = (k * 5).sum()\n"
    page.fill("#pg-sk-code", draft)
    page.reload()
    page.wait_for_function("() => window.__site && window.__site.quick")
    assert page.input_value("#pg-sk-code") == draft
    assert "MeanBackward0" in page.inner_text("#pg-sk-graph")  # typed, not run: the graph is the last run's

    # In the full app too: typed in its editor, not run, then a reload.
    pg = release(page)
    pg.wait_for(lambda d: "k" in d["label"], what="the draft, run when the app took over")
    second = "import torch\nq = torch.ones(3, requires_grad=True)\nr = q.sum()\n"
    pg.set_code(second)
    page.wait_for_timeout(300)
    page.evaluate("window.__pgHold = true")
    page.reload()
    page.wait_for_function("() => window.__site && window.__site.quick")
    assert page.input_value("#pg-sk-code") == second


def test_the_sketch_answers_while_panel_is_still_importing(site_server, context):
    """The worker suspends Panel's import (stack switching) to run the sketch's commands."""
    page = open_held(context, site_server.url)
    sketch_command(page, "backward")
    page.wait_for_function("() => window.__site.marks.warm_done !== undefined")
    marks = page.evaluate("window.__site.marks")
    assert marks["quick"] < marks["quick_reply"] < marks["warm_done"], marks
    assert page.inner_text("#pg-sk-status") == "9 nodes · 1 backward call"
