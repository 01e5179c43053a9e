"""The quick start (playground.quick): the sketch driven by a session before Panel is loaded, and
its handoff to the app. No browser: the page only swaps in the regions these return."""
import pytest

from playground import quick
from playground.model import examples, links
from playground.views import sketch

CODE = "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = (x ** 2).sum()\n"


@pytest.fixture()
def q():
    started = quick.start("")
    yield started
    quick._current = None


def test_default_example_opens_with_its_settings(q):
    ex = examples.default_example()
    view = q.view()
    assert view["code"] == ex.code
    assert view["title"] == ex.title("en") and view["explain"] == ex.explain("en")
    assert view["status"] == "9 nodes · 0 backward calls"
    assert view["backward_output"] == ex.output
    assert "MeanBackward0" in view["graph"] and view["graph"].startswith("<svg")
    assert view["notice"] == ""
    assert links.decode(view["link"])["code"] == ex.code


def test_run_backward_and_zero_grad(q):
    view = q.command("run", CODE)
    assert view["status"] == "5 nodes · 0 backward calls"
    assert "PowBackward0" in view["graph"] and "MeanBackward0" not in view["graph"]
    assert view["backward_output"] == "y"

    view = q.command("backward", CODE)
    assert view["status"] == "5 nodes · 1 backward call"
    assert "∇ [2., 4., 6.]" in view["graph"] and "tensor([2., 4., 6.])" in view["tensors"]
    assert 'opacity="0.35"' in view["graph"]  # PowBackward0's saved tensors were freed
    assert [a["op"] for a in links.decode(view["link"])["actions"]] == ["backward"]

    view = q.command("backward", CODE)
    assert "Trying to backward through the graph a second time" in view["output"]
    assert view["status"] == "5 nodes · 1 backward call"

    view = q.command("zero_grad", CODE)
    assert "tensor([0., 0., 0.])" in view["tensors"]
    assert [a["op"] for a in links.decode(view["link"])["actions"]] == ["backward", "zero_grad"]


def test_backward_runs_edited_code_first(q):
    view = q.command("backward", CODE)
    assert view["code"] == CODE
    assert view["status"] == "5 nodes · 1 backward call"


def test_errors_keep_the_last_good_graph(q):
    q.command("run", CODE)
    view = q.command("run", "y = (\n")
    assert "SyntaxError" in view["output"]
    assert "PowBackward0" in view["graph"]
    # Backward on a stale graph is not attempted: the code shown did not run.
    assert q.command("backward", "y = (\n")["status"] == "5 nodes · 0 backward calls"


def test_a_shared_link_is_reopened_with_its_actions(q):
    state = links.validate({"code": CODE, "output": "y", "example": "leaf", "language": "zh",
                            "actions": [{"op": "backward", "output": "y"}]})
    view = quick.start(links.encode(state)).view()
    assert view["code"] == CODE and view["status"] == "5 个节点 · 1 次 backward"  # in the link's language
    leaf = examples.get_example("leaf")
    assert view["title"] == leaf.title("zh") and view["explain"] == leaf.explain("zh")
    assert view["wide"] is False and view["tagline"] == "看 PyTorch 的自动求导如何工作"
    assert quick.start(links.encode({**state, "wide": True})).view()["wide"] is True  # drawn as the app will


def test_a_link_whose_action_fails_says_so_and_keeps_what_ran(q):
    state = links.validate({"code": "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\n",
                            "actions": [{"op": "backward", "output": "y"}, {"op": "backward", "output": "y"}]})
    started = quick.start(links.encode(state))
    view = started.view()
    assert view["notice"] == ("One of this link's actions failed (RuntimeError: Trying to backward through the graph "
                              "a second time (or directly access saved tensors after they have already been freed)); "
                              "the page shows the state before it.")
    given = quick.handoff()
    assert given["notice"] == view["notice"] and len(given["state"]["actions"]) == 1  # the one that ran


def test_a_broken_link_says_why_and_opens_the_default(q):
    started = quick.start("#v1.not-a-real-link")
    view = started.view()
    assert view["notice"].startswith("This link is damaged") and "default example" in view["notice"]
    assert view["code"] == examples.default_example().code


def test_finish_runs_unrun_code_and_handoff_carries_the_session(q):
    q.command("backward", CODE)
    assert q.finish(CODE) is None  # nothing new: the sketch shows it already
    draft = "import torch\nv = torch.ones(4, requires_grad=True)\ns = v.sum()\n"
    view = q.finish(draft)
    assert view["code"] == draft and view["status"] == "4 nodes · 0 backward calls"

    given = quick.handoff()
    assert given["session"] is q.session and given["state"]["code"] == draft
    assert given["link"] == view["link"] and links.decode(given["link"]) == given["state"]
    assert quick.handoff() == {}  # once only: a second app starts afresh


def test_static_sketch_has_its_controls_off_until_python_answers():
    ex = examples.default_example()
    html = sketch.sketch_html(quick.QuickStart().snapshot, ex.title("en"), ex.explain("en"))
    assert html.count(" disabled ") == 3 and "readonly" in html
    assert 'id="pg-sk-code"' in html and "MeanBackward0" in html
    assert "<script" not in html


def test_the_sketch_draws_the_links_output_as_the_output(q):
    ex = examples.get_example("attention")
    q = quick.start("#" + links.encode(dict(links.DEFAULTS, code=ex.code, example="attention", output="loss")))
    view = q.view()
    assert view["backward_output"] == "loss"
    assert '<b>loss</b> <span class="ap-badge" style="background:#16a34a">output</span>' in view["tensors"]
    assert '<b>fused</b> <span class="ap-badge" style="background:#6b7280">non-leaf</span>' in view["tensors"]
