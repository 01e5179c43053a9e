"""The playground under ``panel serve``: a person's flows in Debian's Chromium."""
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from pathlib import Path
from playground_page import PlaygroundPage

from playground.model import examples, links

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.browser


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def panel_server():
    port = _free_port()
    cmd = [sys.executable, "-m", "panel", "serve", str(ROOT / "playground" / "app.py"), "--address", "127.0.0.1",
           "--port", str(port), "--allow-websocket-origin", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    url = f"http://127.0.0.1:{port}/app"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read(100)
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read())
            time.sleep(0.3)
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture()
def app(context, panel_server, recorder):
    page = context.new_page()
    pg = PlaygroundPage(page).open(panel_server)
    yield pg
    assert recorder.foreign() == [], f"requests left 127.0.0.1: {recorder.foreign()}"


def test_default_example_graph(app):
    data = app.nodes()
    assert data["label"][:4] == ["x", "y", "z", "out"]
    assert {"AddBackward0", "MulBackward0", "MeanBackward0", "AccumulateGrad"} <= set(data["label"])
    assert app.node("x")["kind"] == "leaf"
    assert app.node("out")["kind"] == "output"
    assert app.node("AccumulateGrad")["kind"] == "accumulate"
    assert app.node("x")["grad"] == "not computed yet"
    edges = app.source("graph_edges")
    assert len(edges["start"]) >= 8


def test_backward_twice_accumulates_then_zero(app):
    app.run("import torch\nx = torch.ones(2, 2, requires_grad=True)\nout = (x * x * 2).sum()\n")
    app.wait_for(lambda d: "MulBackward0" in d["label"] and "SumBackward0" in d["label"], what="new graph")
    app.check("retain_graph")
    app.click("Backward")
    app.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[4., 4.]"), what="grad 4")
    app.click("Backward")
    data = app.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[8., 8.]"), what="grad 8")
    assert data["grad"][data["label"].index("x")] == "tensor([[8., 8.],\n        [8., 8.]])"
    app.click("Zero grad")
    app.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[0., 0.]"), what="zeroed grad")
    app.page.get_by_text("Gradient history").click()
    history = app.page.locator(".ap-hist").first.inner_text()
    assert "backward #1" in history and "backward #2" in history and "zero_grad" in history


def test_second_backward_without_retain_graph_shows_pytorch_error(app):
    app.click("Backward")
    app.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[4.5000"), what="first grads")
    app.click("Backward")
    app.page.get_by_text("Trying to backward through the graph a second time").first.wait_for()
    data = app.nodes()
    # Nothing lost: the grads of the first call stay, and the freed nodes are marked.
    assert data["grad"][data["label"].index("x")].startswith("tensor([[4.5000")
    assert any(data["freed"])


def test_toggle_requires_grad_edits_code_and_graph(app):
    app.run("import torch\na = torch.ones(2)\nb = torch.ones(2, requires_grad=True)\nc = (a * b).sum()\n")
    app.wait_for(lambda d: "a" in d["label"] and "c" in d["label"], what="graph with a, b, c")
    assert app.node("a")["kind"] == "const"
    app.toggle("a")
    app.wait_for(lambda d: d["kind"][d["label"].index("a")] == "leaf", what="a becomes a leaf")
    app.page.locator(".ace_content").filter(has_text="a = torch.ones(2, requires_grad=True)").wait_for()


def test_errors_keep_the_last_good_graph(app):
    before = app.nodes()["label"]
    app.run("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2\n")
    app.page.get_by_text("SyntaxError (line 3)").first.wait_for()
    app.wait_for(lambda d: d["label"] == before, what="the last good graph kept")
    app.run("import torch\nx = torch.ones(3)\nx.item()\n")
    app.page.get_by_text("a Tensor with 3 elements cannot be converted to Scalar").first.wait_for()
    app.wait_for(lambda d: d["label"] == before, what="the last good graph kept")
    app.run("while True:\n    pass\n")
    app.page.get_by_text("stopped").first.wait_for(timeout=20_000)
    app.run("<script>alert(1)</script>")
    app.page.get_by_text("SyntaxError").first.wait_for()
    assert app.page.locator("script:text('alert(1)')").count() == 0
    # Still working afterwards.
    app.run("import torch\nq = torch.ones(1, requires_grad=True)\nr = q * 3\n")
    app.wait_for(lambda d: "q" in d["label"], what="recovered graph")


def test_backward_steps(app):
    app.click("Backward")
    app.wait_for(lambda d: 3.5 in d["line_width"], what="a step outlined")
    app.step("previous")
    app.step("previous")
    data = app.wait_for(lambda d: d["label"][d["line_width"].index(3.5)] == "MulBackward0"
                        and "step 3 of 5" in app.step_text(), what="step 3")
    assert data["fill"][data["label"].index("AccumulateGrad")] == "#f8fafc"  # not run yet: a ghost
    assert "passed on → to AddBackward0, input 1" in app.step_text()
    app.page.keyboard.press("ArrowRight")  # the arrow keys step as the buttons do
    app.wait_for(lambda d: d["label"][d["line_width"].index(3.5)] == "AddBackward0"
                 and "step 4 of 5" in app.step_text(), what="→ to step 4")


def test_share_link_round_trip(app, context):
    app.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    app.wait_for(lambda d: "w" in d["label"], what="w graph")
    app.click("Backward")
    app.wait_for(lambda d: d["grad"][d["label"].index("w")].startswith("tensor([2., 2., 2.])"), what="w grad")
    app.click("Copy link")
    url = app.shared_url(lambda state: [a["op"] for a in state["actions"]] == ["backward"])
    assert "#v1." in url
    other = PlaygroundPage(context.new_page()).open(url)
    data = other.wait_for(lambda d: "w" in d["label"] and d["grad"][d["label"].index("w")].startswith("tensor([2."),
                          what="restored state")
    assert data["grad"][data["label"].index("w")] == "tensor([2., 2., 2.])"


def test_malformed_link_loads_default_with_message(app, context, panel_server):
    page = context.new_page()
    page.goto(panel_server + "#v1.this-is-not-a-link")
    pg = PlaygroundPage(page)
    pg.wait_ready()
    page.get_by_text("This link is damaged").first.wait_for()
    assert pg.nodes()["label"][:4] == ["x", "y", "z", "out"]


_TABLE_JS = """box => ({
  headers: Array.from(box.querySelectorAll('th')).map(th => th.textContent),
  scroll: box.scrollWidth, width: box.clientWidth,
  cut: Array.from(box.querySelectorAll('.ap-cellpre')).filter(p => p.scrollWidth > p.clientWidth + 1)
    .map(p => p.textContent)})"""


def test_the_tensor_table_shows_every_column_and_whole_values_at_laptop_width(app, context, panel_server):
    # The tabs span both columns: at 1280 px the attention example's eight tensors fit, each repr
    # (up to "grad_fn=<SoftmaxBackward0>)") on its lines, with nothing to scroll sideways for.
    ex = examples.get_example("attention")
    state = dict(links.DEFAULTS, code=ex.code, example="attention", output=ex.output)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    pg = PlaygroundPage(page).open(panel_server + "#" + links.encode(state))
    pg.wait_for(lambda d: "weights" in d["label"], what="the attention graph")
    pg.click("Backward")
    pg.wait_for(lambda d: d["grad"][d["label"].index("v")].startswith("tensor([[0.5989"), what="v.grad")
    # (Playwright's CSS locators reach into the shadow roots Panel renders into)
    table = page.locator(".ap-scroll", has=page.locator(".ap-table")).first.evaluate(_TABLE_JS)
    assert table["headers"] == ["name", "value", ".grad", "grad_fn", "requires_grad", "is_leaf"]
    assert table["scroll"] <= table["width"] + 1, table
    assert table["cut"] == []


def test_a_link_to_an_example_without_a_question_hides_the_default_ones(app, context, panel_server):
    # The page opens on the default example, whose "Try it" question is shown; a link's first
    # restore must hide it for an example without one (it stayed, under panel serve).
    ex = examples.get_example("module")
    page = context.new_page()
    pg = PlaygroundPage(page).open(panel_server + "#" + links.encode(
        dict(links.DEFAULTS, code=ex.code, example="module", output=ex.output)))
    pg.wait_for(lambda d: "model.weight" in d["label"], what="the module example's graph")
    page.locator(".ap-explain-title", has_text="nn.Linear and an optimizer step").first.wait_for()
    page.locator(".ap-exercise").first.wait_for(state="hidden", timeout=10_000)
