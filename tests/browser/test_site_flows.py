"""The playground as users get it: the built static site, Python in the page's Pyodide worker.
The same flows as under panel serve, plus the engine's core checks run in that Pyodide."""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playground_page import PlaygroundPage

from tests.engine import core_checks

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
READY_MS = 180_000  # a cold start on a loaded 2-core CI machine


@pytest.fixture()
def site(context, site_server, recorder):
    page = context.new_page()
    page.goto(site_server.url)
    page.wait_for_function("() => window.__site && (window.__site.ready || window.__site.error !== null)",
                           timeout=READY_MS)
    assert page.evaluate("window.__site.error") is None
    pg = PlaygroundPage(page, timeout=READY_MS)
    pg.wait_ready()
    yield pg
    assert recorder.foreign() == [], f"requests left 127.0.0.1: {recorder.foreign()}"
    assert recorder.errors == [], f"console errors: {recorder.errors}"


def test_example_toggle_and_accumulation(site):
    data = site.nodes()
    assert data["label"][:4] == ["x", "y", "z", "out"]
    site.run("import torch\na = torch.ones(2)\nw = torch.ones(2, requires_grad=True)\nloss = (a * w * w).sum()\n")
    site.wait_for(lambda d: "a" in d["label"] and "loss" in d["label"], what="new graph")
    assert site.node("a")["kind"] == "const"
    site.toggle("a")
    site.wait_for(lambda d: d["kind"][d["label"].index("a")] == "leaf", what="a is a leaf")
    site.check("retain_graph")
    site.click("Backward")
    site.wait_for(lambda d: d["grad"][d["label"].index("w")] == "tensor([2., 2.])", what="first grads")
    site.click("Backward")
    data = site.wait_for(lambda d: d["grad"][d["label"].index("w")] == "tensor([4., 4.])", what="accumulated")
    assert data["grad"][data["label"].index("a")] == "tensor([2., 2.])"


_RESET_JS = """() => {
  const fig = Bokeh.documents[Bokeh.documents.length - 1].get_model_by_name('graph_figure');
  for (const root of Object.values(Bokeh.index)) {
    const stack = [root];
    while (stack.length) {
      const v = stack.pop();
      if (v.model === fig) { v.reset(); return true; }  // what the Reset tool does
      for (const c of (v.child_views || [])) stack.push(c);
    }
  }
  return false;
}"""


def fitted(f):
    """The plot's frame keeps boxes in proportion and its labels are sized to them."""
    from playground.views.graph import FONT_PER_BOX_PX, NODE_W
    ux, uy = (f["x"][1] - f["x"][0]) / f["width"], (f["y"][1] - f["y"][0]) / f["height"]
    font = min(12, FONT_PER_BOX_PX * NODE_W / ux)
    return abs(ux / uy - 1) < 0.01 and abs(f["font"] - (round(font, 1) if font >= 5 else 0)) < 0.11


def whole(f):
    """The plot shows the whole graph."""
    x0, x1, y0, y1, ox, oy = f["tags"]
    eps = 1e-6 * (x1 - x0)
    return f["x"][0] <= x0 + eps and f["x"][1] >= x1 - eps and f["y"][0] <= y0 and f["y"][1] >= y1


@pytest.mark.parametrize("width", [400, 1280])
def test_the_graph_fits_the_plots_real_size_and_keeps_the_zoom_across_backward(site, width):
    from playground.views.graph import READABLE_PX
    site.page.set_viewport_size({"width": width, "height": 900})
    site.wait_for(lambda d: fitted(site.frame()), what="boxes in proportion, labels sized to them")
    f = site.frame()
    x0, x1, y0, y1, ox, oy = f["tags"]
    enlarge = site.page.get_by_role("button", name="⤢ Enlarge graph", exact=True)
    if width >= 1000:  # the whole graph, filling the plot on one axis
        assert enlarge.is_visible()
        assert whole(f)
        assert min((f["x"][1] - f["x"][0]) / (x1 - x0), (f["y"][1] - f["y"][0]) / (y1 - y0)) < 1.01
    else:  # a phone: too small to read whole, so it opens readable on the output end, the graph's right edge
        assert enlarge.is_hidden()  # (the graph has the page's width already)
        assert not whole(f) and f["font"] >= READABLE_PX - 0.05
        assert f["x"][0] < ox < f["x"][1] and abs(f["x"][1] - x1) < 1e-6 * (x1 - x0)
        assert site.page.evaluate(_RESET_JS)
        site.wait_for(lambda d: whole(site.frame()) and fitted(site.frame()), what="Reset: the whole graph")
    site.page.evaluate("""() => { const doc = Bokeh.documents[Bokeh.documents.length - 1];
        const xr = doc.get_model_by_name('graph_figure').x_range; xr.setv({start: xr.start + 1, end: xr.end + 1}); }""")
    panned = site.frame()
    site.click("Backward")
    site.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[4.5000"), what="the grads")
    assert site.frame()["x"] == panned["x"]


SEQUENTIAL = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
              "model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3))\n"
              "x = torch.randn(5, 4)\ny = torch.tensor([0, 2, 1, 0, 1])\n"
              "loss = nn.functional.cross_entropy(model(x), y) + 0.01 * sum((p ** 2).sum() for p in model.parameters())\n")


def test_the_enlarged_graph_spans_the_page_shows_more_and_its_link_keeps_it(site, context):
    from playground.views.graph import READABLE_PX
    site.run(SEQUENTIAL)
    site.wait_for(lambda d: "loss" in d["label"] and "model" in d["label"], what="the model's graph, as boxes")
    # beside the code the whole graph's labels would be too small: it opens readable on its output end
    site.wait_for(lambda d: fitted(site.frame()) and not whole(site.frame()), what="the output end")
    narrow = site.frame()
    assert narrow["font"] >= READABLE_PX - 0.05 and narrow["width"] < 800
    site.click("⤢ Enlarge graph")
    site.wait_for(lambda d: site.frame()["width"] > 1200 and fitted(site.frame()) and whole(site.frame()),
                  what="the whole graph across the page")
    assert site.frame()["font"] > narrow["font"]  # and larger than the output end was
    url = site.shared_url(lambda state: state["wide"])
    other = PlaygroundPage(context.new_page(), timeout=READY_MS)
    other.page.goto(url)
    other.wait_ready()
    other.wait_for(lambda d: "model" in d["label"] and other.frame()["width"] > 1200 and whole(other.frame()),
                   what="the link's wide graph")
    site.click("⤡ Side by side")
    site.wait_for(lambda d: site.frame()["width"] == narrow["width"] and fitted(site.frame())
                  and not whole(site.frame()), what="the output end beside the code again")


def test_an_exercise_is_checked_on_a_fresh_run(site):
    answer = site.page.locator(".ap-exercise input")
    answer.fill("4.5")
    answer.press("Enter")  # the check presses Backward itself: the graph shows x's grad
    site.wait_for(lambda d: d["grad"][d["label"].index("x")].startswith("tensor([[4.5000"), what="the check's Backward")
    verdict = site.page.locator(".ap-verdict")
    verdict.filter(has_text="✗ Not quite: y.grad = None").wait_for()
    answer.fill("None")
    site.click("Check")
    site.page.locator(".ap-right").filter(has_text="✓ Right: y.grad = None").wait_for()
    site.shared_url(lambda state: [a["op"] for a in state["actions"]] == ["backward"])  # the link replays it


def test_errors_and_endless_loop_leave_the_page_working(site):
    before = site.nodes()["label"]
    site.run("import torch\nx = torch.ones(3)\nx.item()\n")
    site.page.get_by_text("a Tensor with 3 elements cannot be converted to Scalar").first.wait_for()
    site.run("while True:\n    pass\n")
    site.page.get_by_text("stopped").first.wait_for(timeout=30_000)
    site.wait_for(lambda d: d["label"] == before, what="the last good graph kept")
    site.run("import torch\nq = torch.ones(1, requires_grad=True)\nr = q * 3\n")
    site.wait_for(lambda d: "q" in d["label"], what="the page still runs code")


_RECORD_PATCHES_JS = """() => {
  window.__posted = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.type === "patch") window.__posted.push(JSON.stringify(msg.patch));
    return post.call(this, msg, ...rest);
  };
}"""


def test_run_clicked_while_python_is_busy_runs_the_code_typed_before_the_click(site):
    """Changes made while Python works wait their turn; the click must wait too, or Python would
    take it before the text typed ahead of it and run the editor's older code."""
    site.page.evaluate(_RECORD_PATCHES_JS)
    site.run("import time\nt0 = time.perf_counter()\nwhile time.perf_counter() - t0 < 1.5:\n    pass\n")
    typed = "import torch\nlate = torch.ones(2, requires_grad=True)\n"
    site.run(typed)  # while the loop above still runs
    site.wait_for(lambda d: d["label"] == ["late"], what="the typed code's graph")
    events = [e for p in site.page.evaluate("window.__posted") for e in json.loads(p)["events"]]
    clicks = [i for i, e in enumerate(events) if e.get("msg_data", {}).get("name") == "button_click"]
    typed_at = next(i for i, e in enumerate(events) if e.get("attr") == "code_input" and e.get("new") == typed)
    assert len(clicks) == 2 and typed_at < clicks[1], (typed_at, clicks)


def test_stuck_python_offers_a_restart_that_restores_the_last_state(site):
    """A single call the time limit cannot interrupt (here a C-level sleep) keeps the worker
    busy; the page offers a restart, which reopens the last good state from the URL."""
    site.run("import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * 3).sum()\n")
    site.wait_for(lambda d: "w" in d["label"], what="w graph")
    site.run("import time\ntime.sleep(40)\n")
    site.page.get_by_role("button", name="Restart Python").click(timeout=60_000)
    site.wait_ready()
    data = site.wait_for(lambda d: "w" in d["label"] and "loss" in d["label"], what="state restored after restart")
    assert data["kind"][data["label"].index("w")] == "leaf"


def test_share_link_round_trip(site, context):
    site.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    site.wait_for(lambda d: "w" in d["label"], what="w graph")
    site.click("Backward")
    site.wait_for(lambda d: d["grad"][d["label"].index("w")] == "tensor([2., 2., 2.])", what="w grad")
    site.click("Copy link")
    url = site.shared_url(lambda state: [a["op"] for a in state["actions"]] == ["backward"])
    assert "#v1." in url
    other = PlaygroundPage(context.new_page(), timeout=READY_MS)
    other.page.goto(url)
    other.wait_ready()
    data = other.wait_for(lambda d: "w" in d["label"] and d["grad"][d["label"].index("w")] == "tensor([2., 2., 2.])",
                          timeout=60, what="restored state")
    assert "loss" in data["label"]


def test_gradient_check_in_the_browser_and_its_link(site, context):
    code = ("import torch\nclass Cube(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        ctx.save_for_backward(x)\n        return x ** 3\n    @staticmethod\n    def backward(ctx, g):\n"
            "        x, = ctx.saved_tensors\n        return 3 * x * g\n"
            "x = torch.tensor([1.0, 2.0, -0.5], requires_grad=True)\ny = Cube.apply(x).sum()\n")
    site.run(code)
    site.wait_for(lambda d: "CubeBackward" in d["label"], what="the custom Function's node")
    site.page.locator(".bk-tab", has_text="Gradient check").click()
    site.click("Check gradients")
    site.page.get_by_text("✗ 2 of the 3 elements checked disagree.").wait_for()
    assert site.page.locator("tr.ap-check-bad").count() == 2
    url = site.shared_url(lambda state: state["check"] == {"output": "y", "gradient": None})
    other = PlaygroundPage(context.new_page(), timeout=READY_MS)
    other.page.goto(url)
    other.wait_ready()
    other.page.get_by_text("✗ 2 of the 3 elements checked disagree.").wait_for(timeout=60_000)


def test_embed_code_shows_this_state_in_a_course_page(site, context, site_server, serve_folder, tmp_path):
    site.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    site.wait_for(lambda d: "w" in d["label"], what="w graph")
    site.click("Backward")
    site.wait_for(lambda d: d["grad"][d["label"].index("w")] == "tensor([2., 2., 2.])", what="w grad")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server.url.rstrip("/"))
    site.click("Embed")
    site.page.get_by_text("Embed code copied").wait_for()
    html = site.page.evaluate("navigator.clipboard.readText()")
    assert html.startswith(f'<iframe src="{site_server.url}?embed#v1.') and html.endswith("></iframe>"), html
    link = html.split("#", 1)[1].split('"', 1)[0]
    assert site.page.evaluate("location.hash") == "#" + link  # the state on screen, Backward included

    (tmp_path / "index.html").write_text(f"<!doctype html><meta charset=utf-8><link rel=icon href=data:,><title>Lesson 3</title>{html}")
    page = context.new_page()
    page.goto(serve_folder(tmp_path).url)  # a course page on another origin
    page.wait_for_function("() => document.querySelector('iframe').contentWindow !== null")
    for _ in range(300):  # (the frame is about:blank until its navigation commits)
        frame = next((f for f in page.frames if "?embed" in f.url), None)
        if frame is not None:
            break
        page.wait_for_timeout(100)
    assert frame is not None, [f.url for f in page.frames]
    embedded = PlaygroundPage(frame, timeout=READY_MS)
    embedded.wait_ready()
    data = embedded.wait_for(lambda d: "w" in d["label"] and d["grad"][d["label"].index("w")] == "tensor([2., 2., 2.])",
                             what="the sender's state in the frame")
    assert "loss" in data["label"]
    out = frame.get_by_role("link", name="Open in a new tab ↗")
    out.wait_for()
    assert out.get_attribute("href") == f"{site_server.url}#{link}" and out.get_attribute("target") == "_blank"
    assert frame.get_by_role("button", name="Copy link").count() == 0
    assert frame.get_by_text("see PyTorch's autograd work").count() == 0
    box = page.locator("iframe").bounding_box()
    assert frame.evaluate("document.documentElement.scrollWidth") <= box["width"]  # nothing sticks out sideways


def _current(d):
    """The label of the node the backward steps point at (outlined: line width 3.5)."""
    return d["label"][d["line_width"].index(3.5)] if 3.5 in d["line_width"] else None


def test_backward_steps_and_their_link(site, context):
    site.click("Backward")
    site.wait_for(lambda d: _current(d) == "AccumulateGrad", what="the last step outlined")
    assert "step 5 of 5: AccumulateGrad" in site.step_text()
    button = site.page.locator(".ap-player button.previous")
    button.hover()  # the player's buttons say what they do
    assert button.evaluate("b => getComputedStyle(b, '::after').content") == '"previous step (←)"'
    site.step("previous")
    site.step("previous")
    data = site.wait_for(lambda d: _current(d) == "MulBackward0" and "step 3 of 5" in site.step_text(), what="step 3")
    assert data["grad_short"][data["label"].index("x")] == ""  # x.grad not computed yet at step 3
    flows = site.source("graph_flows")
    assert flows["text"] == ["∇ [[2.2500, 2.2500], … + [[2.2500, 2…", ""]
    site.tap("AddBackward0")  # a node tapped: the steps jump to it
    site.wait_for(lambda d: _current(d) == "AddBackward0" and "step 4 of 5" in site.step_text(), what="step 4")
    site.page.keyboard.press("ArrowLeft")  # the keys step too, from anywhere but a text field
    site.wait_for(lambda d: _current(d) == "MulBackward0" and "step 3 of 5" in site.step_text(), what="← to step 3")
    site.page.keyboard.press("Home")
    site.wait_for(lambda d: _current(d) is None and "Nothing has run yet" in site.step_text(), what="step 0")
    site.step("next")
    site.wait_for(lambda d: _current(d) == "MeanBackward0", what="step 1")
    site.page.locator(".ace_content").click()  # in the editor the arrows move the caret, not the steps
    site.page.keyboard.press("ArrowRight")
    site.page.keyboard.press("End")
    time.sleep(1.0)
    assert "step 1 of 5" in site.step_text() and _current(site.source("graph_nodes")) == "MeanBackward0"
    url = site.shared_url(lambda state: state["step"] == 1)  # the link follows the step
    other = PlaygroundPage(context.new_page(), timeout=READY_MS)
    other.page.goto(url)
    other.wait_ready()
    other.wait_for(lambda d: _current(d) == "MeanBackward0" and "step 1 of 5" in other.step_text(), timeout=60,
                   what="the link reopens at step 1")


MLP = """\
import torch.nn as nn

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

model = MLP()
loss = model(torch.randn(2, 3)).pow(2).mean()
"""
MODULES_BOX = "modules as boxes (tap one to open it, its tab to close it)"


def _modules(data):
    return [label for label, kind in zip(data["label"], data["kind"]) if kind == "module"]


def test_module_boxes_open_close_step_and_link(site, context):
    site.run(MLP)
    site.wait_for(lambda d: "AddmmBackward0" in d["label"], what="the MLP's graph")
    site.check(MODULES_BOX)
    site.wait_for(lambda d: _modules(d) == ["model"] and "AddmmBackward0" not in d["label"], what="one box")
    site.tap("model")
    site.wait_for(lambda d: sorted(_modules(d)) == ["model.fc1", "model.fc2"], what="the model opened")
    assert site.source("graph_frames")["title"] == ["▾ model"]
    site.tap("model.fc1")
    site.wait_for(lambda d: _modules(d) == ["model.fc2"] and "AddmmBackward0" in d["label"], what="fc1 opened")
    site.tap_tab("▾ model")  # closes the model and what is open inside it
    site.wait_for(lambda d: _modules(d) == ["model"], what="the model closed")
    assert site.source("graph_frames")["title"] == []
    site.tap("model")
    site.wait_for(lambda d: sorted(_modules(d)) == ["model.fc1", "model.fc2"], what="the model opened again")
    site.click("Backward")
    site.step("first")
    for _ in range(3):
        site.step("next")
    data = site.wait_for(lambda d: _current(d) == "model.fc2" and "step 3 of 11" in site.step_text(),
                         what="step 3 inside fc2's box")
    assert "AddmmBackward0 (in model.fc2)" in site.step_text()
    assert data["line"][data["label"].index("model.fc1")] == "#cbd5e1"  # still to run: a ghost
    url = site.shared_url(lambda state: state["modules"] == ["m0"] and state["step"] == 3)
    other = PlaygroundPage(context.new_page(), timeout=READY_MS)
    other.page.goto(url)
    other.wait_ready()
    other.wait_for(lambda d: _current(d) == "model.fc2" and sorted(_modules(d)) == ["model.fc1", "model.fc2"],
                   timeout=60, what="the link reopens the open model at step 3")


ENGINE_CHECKS_PAGE = "__engine_checks.html"


def _in_sites_pyodide(context, site_server, files, code):
    """``code``'s value (a string), run in a page with the site's own Pyodide and engine, ``files``
    ({path: text}) written into its file system first."""
    context.route(site_server.url + ENGINE_CHECKS_PAGE, lambda route: route.fulfill(
        content_type="text/html", body='<!doctype html><script src="pyodide/pyodide.js"></script>'))
    page = context.new_page()
    page.goto(site_server.url + ENGINE_CHECKS_PAGE)
    return page.evaluate("""async ([files, code]) => {
        const py = await loadPyodide({indexURL: new URL("pyodide/", location.href).href});
        await py.loadPackage(["numpy", "autograd-playground"]);
        for (const [path, text] of Object.entries(files)) {
            py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
            py.FS.writeFile(path, text);
        }
        return py.runPython(code);
    }""", [files, code])


def test_engine_core_checks_in_the_sites_pyodide(context, site_server, recorder):
    """The engine on the runtime users get: the site's own Pyodide 0.27.7 and NumPy 2.0.2."""
    source = (ROOT / "tests" / "engine" / "core_checks.py").read_text(encoding="utf-8")
    result = _in_sites_pyodide(context, site_server, {"/tmp/core_checks.py": source}, """
import json, sys
import numpy
sys.path.insert(0, "/tmp")
import core_checks
json.dumps({"numpy": numpy.__version__, "python": sys.version.split()[0], "results": core_checks.run_all()})
""")
    out = json.loads(result)
    assert out["numpy"] == "2.0.2" and out["python"].startswith("3.12")
    failed = {k: v for k, v in out["results"].items() if v != "ok"}
    assert failed == {}
    assert sorted(out["results"]) == sorted(core_checks.CHECKS)  # every check ran there
    assert recorder.foreign() == []


# Where the site's NumPy (its own LAPACK) gives other results than CPython's, both right: singular
# vectors' signs (U and V flip together; PyTorch's match CPython's here).
PYODIDE_DIFFERS = {"test_linalg_more.VALUES.torch.svd", "test_linalg_more.GRADS.torch.svd V only"}


def _normal(x):
    if isinstance(x, str):  # (addresses and file paths differ from one runtime to the other)
        return re.sub(r" from '[^']*'", "", re.sub(r"0x[0-9a-f]+", "0x", x))
    return [_normal(v) for v in x] if isinstance(x, list) else x


def _near(a, b):
    """Equal, floats to 1e-5: Pyodide's NumPy rounds some float32 kernels (a transformer layer's dozens
    of them) to other last bits; a bug shows as another dtype, error or value."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-5 * (1 + abs(b)) or a != a and b != b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_near(x, y) for x, y in zip(a, b))
    return a == b


def test_every_case_table_in_the_sites_pyodide(context, site_server, recorder):
    """Every table of cases in the engine's test files (tests/engine/case_tables.py), run in the site's
    Pyodide and in CPython: the same results, errors and warnings (NumPy there has 32-bit indices and
    no floating-point flags; this found np.take's int64 indices, silent singular matrices, float to
    uint8 casts and bool cumsums in int32)."""
    files = {f"/tmp/src/tests/{p.relative_to(ROOT / 'tests').as_posix()}": p.read_text(encoding="utf-8")
             for p in [*(ROOT / "tests" / "engine").glob("*.py"), ROOT / "tests" / "needs.py",
                       ROOT / "tests" / "torch_binding.py"]}
    there, failed = json.loads(_in_sites_pyodide(context, site_server, files, """
import json, sys
sys.path.insert(0, "/tmp/src")
from tests.engine import case_tables
json.dumps(case_tables.run_all())
"""))
    here, _ = json.loads(subprocess.run([sys.executable, "-m", "tests.engine.case_tables"], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)
    assert list(failed) == ["test_special"]  # (it needs PyTorch at import)
    here = {k: v for k, v in here.items() if not k.startswith("test_special.")}
    assert sorted(there) == sorted(here) and len(here) > 3000
    differ = sorted(k for k in here if not _near(_normal(here[k]), _normal(there[k])))
    assert differ == sorted(PYODIDE_DIFFERS), [(k, str(here[k])[:300], str(there[k])[:300]) for k in differ
                                                if k not in PYODIDE_DIFFERS]
    assert recorder.foreign() == []
