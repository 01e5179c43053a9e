"""Backward one node at a time: the walk the session records, the graph at each step, the pane
that explains a step, the app's step control and the step in share links."""
import re

import pytest
from needs import require

from playground.model import links
from playground.model.examples import default_example
from playground.model.links import LinkError, decode, encode
from playground.model.steps import MAX_STEPS, state_at

DEFAULT = default_example().code  # x = ones(2, 2); y = x + 2; z = y * y * 3; out = z.mean()
G = "tensor([[{0}, {0}],\n        [{0}, {0}]])"


def labels(snap):
    return {n["id"]: n["label"] for n in snap.graph["nodes"]}


def test_the_walk_of_the_default_example(session):
    session.run(DEFAULT)
    snap = session.backward("out")
    walk, names = snap.walk, labels(snap)
    assert not walk["too_big"]
    # autograd's order: the latest-made node first, AccumulateGrad as soon as its grad is complete
    assert [names[s["node"]] for s in walk["steps"]] == [
        "MeanBackward0", "MulBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"]
    mean, times3, square, add, acc = walk["steps"]
    assert mean["received"] == [{"shape": "scalar", "text": "tensor(1.)"}]
    assert [(names[g["to"]], g["slot"], g["text"]) for g in mean["sent"]] == [("MulBackward0", 0, G.format("0.2500"))]
    assert times3["sent"][1] is None  # the 3 needs no grad
    # what each rule computes with, read while the node ran (grad_fn._saved_*: freed right after)
    assert mean["saved"] == [["self_sym_numel", "4"], ["self_sym_sizes", "(2, 2)"]]
    assert square["saved"] == [["other", "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"]] * 1 + [
        ["self", "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"]]
    # y * y: both inputs are y, so AddBackward0 gets two grads, and receives their sum
    assert [(g["to"], g["slot"], g["text"]) for g in square["sent"]] == [
        (add["node"], 0, G.format("2.2500")), (add["node"], 1, G.format("2.2500"))]
    assert add["received"] == [{"shape": "2×2", "text": G.format("4.5000")}]
    ex = default_example()  # what its explanation tells learners to look for
    assert "2.25" in ex.explain_en and "2.25" in ex.explain_zh and "AddBackward0 receives their sum" in ex.explain_en
    assert acc["leaf"] == "t:x" and acc["sent"] == []
    assert acc["leaf_grad"] == {"shape": "2×2", "text": G.format("4.5000")}
    assert walk["before"]["t:x"] == {"grad_state": "not_computed", "grad": "not computed yet"}
    assert walk["ready"] == {"t:out": 0, "t:z": 1, "t:y": 3, "t:x": 4}


def _numbers(text):
    return [float(v) for v in re.findall(r"-?\d+\.?\d*(?:e[-+]\d+)?", text.split("tensor(", 1)[-1])]


def test_the_walk_is_pytorchs(torch_module_name):
    """The same steps in the same order, each node's grads to the same children, as real PyTorch's
    engine runs them (values to the printed digits: tanh's float32 kernels differ in the last)."""
    from playground.model.session import InProcessSession

    require("torch", "the reference the engine is compared with")
    code = ("import torch\nw = torch.tensor([1., -2., 3.], requires_grad=True)\nb = torch.tensor(0.5, requires_grad=True)\n"
            "h = torch.tanh(w * 2 + b)\nr = h.relu()\nr.retain_grad()\nloss = (h * h).sum() + h[1] * w.sum() + r.sum()\n")
    walks, values = [], []
    for name in ("engine", "torch"):
        session = InProcessSession(require(name, ""), time_limit=5.0)
        assert session.run(code).ok
        snap = session.backward("loss", retain_graph=True)
        assert snap.ok, snap.error
        names = labels(snap)
        steps = snap.walk["steps"]
        walks.append(([(names[s["node"]], [g and g["shape"] for g in s["received"]],
                        [g and (g["to"], g["slot"], g["shape"]) for g in s["sent"]], s.get("leaf"),
                        [name for name, _ in s["saved"]]) for s in steps],
                      snap.walk["ready"]))
        values.append([_numbers(g["text"]) for s in steps for g in s["received"] + s["sent"] if g])
    assert walks[0] == walks[1]
    assert [w[0] for w in walks[0][0]] == [
        "AddBackward0", "SumBackward0", "AddBackward0", "MulBackward0", "SumBackward0", "SelectBackward0",
        "SumBackward0", "MulBackward0", "ReluBackward0", "TanhBackward0", "AddBackward0", "AccumulateGrad",
        "MulBackward0", "AccumulateGrad"]
    assert walks[0][1] == {"t:loss": 0, "t:r": 8, "t:h": 9, "t:b": 11, "t:w": 13}
    for ours, ref in zip(*values):
        assert ours == pytest.approx(ref, rel=1e-4)


def test_state_at_each_step(session):
    session.run(DEFAULT)
    snap = session.backward("out")
    graph, walk = snap.graph, snap.walk
    ids = {n["label"]: n["id"] for n in graph["nodes"] if n["kind"] != "function"}
    first = state_at(graph, walk, 0)
    assert first["current"] is None and first["flows"] == [] and first["n"] == 5
    steps = {n["id"]: n.get("step") for n in first["nodes"]}
    assert {steps[s["node"]] for s in walk["steps"]} == {"pending"}
    x = next(n for n in first["nodes"] if n["id"] == ids["x"])
    assert x["grad_state"] == "not_computed" and x["grad"] == "not computed yet"  # as before backward

    third = state_at(graph, walk, 3)
    states = [next(n["step"] for n in third["nodes"] if n["id"] == s["node"]) for s in walk["steps"]]
    assert states == ["done", "done", "current", "pending", "pending"]
    assert [(f["from"], f["to"], f["slot"]) for f in third["flows"]] == [
        (walk["steps"][2]["node"], walk["steps"][3]["node"], 0), (walk["steps"][2]["node"], walk["steps"][3]["node"], 1)]
    # a node that ran has freed its saved tensors (no retain_graph); one still to run has not
    freed = {n["id"]: n["freed"] for n in third["nodes"] if n["kind"] == "function"}
    assert freed[walk["steps"][2]["node"]] is True and freed[walk["steps"][3]["node"]] is False

    last = state_at(graph, walk, 99)  # clamped to the end: the graph as it is now
    assert last["k"] == 5 and last["current"]["leaf"] == ids["x"]
    x = next(n for n in last["nodes"] if n["id"] == ids["x"])
    assert x["grad"] == G.format("4.5000")


def test_accumulating_backward_shows_the_old_grad_until_its_step(session):
    session.run(DEFAULT)
    session.backward("out", retain_graph=True)
    snap = session.backward("out", retain_graph=True)
    x = snap.walk["before"]["t:x"]
    assert x == {"grad_state": "computed", "grad": G.format("4.5000")}
    assert snap.walk["steps"][-1]["leaf_grad"]["text"] == G.format("9.")
    at = {k: next(n for n in state_at(snap.graph, snap.walk, k)["nodes"] if n["id"] == "t:x")["grad"] for k in (4, 5)}
    assert at == {4: G.format("4.5000"), 5: G.format("9.")}


def test_walk_lasts_until_the_next_run_or_zero_grad(session):
    session.run(DEFAULT)
    assert session.snapshot().walk is None
    walk = session.backward("out").walk
    failed = session.backward("out")  # the second time without retain_graph: PyTorch's error
    assert not failed.ok and failed.walk == walk  # the last good backward's steps stay
    assert session.zero_grad().walk is None
    session.run(DEFAULT)
    assert session.backward("out", retain_graph=True).walk is not None
    assert session.run(DEFAULT).walk is None


def test_hooks_the_user_set_are_in_the_steps_and_ours_are_gone(session):
    code = ("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = x * 3\n"
            "y.register_hook(lambda g: g * 10)\nout = y.sum()\n")
    session.run(code)
    snap = session.backward("out")
    names = labels(snap)
    mul = next(s for s in snap.walk["steps"] if names[s["node"]] == "MulBackward0")
    assert mul["received"][0]["text"] == "tensor([10., 10.])"  # after the tensor hook
    assert mul["sent"][0]["text"] == "tensor([30., 30.])"
    fn = session._ns["out"].grad_fn
    assert not getattr(fn, "_hooks", None)  # the recorder's hooks were removed


def test_a_graph_too_big_to_step_through(session):
    session.run(f"import torch\nx = torch.ones(2, requires_grad=True)\ny = x\nfor _ in range({MAX_STEPS}):\n"
                "    y = y * 1.0\nout = y.sum()\n")
    snap = session.backward("out")
    assert snap.ok and snap.walk == {"steps": [], "before": {}, "ready": {}, "too_big": True}
    assert snap.graph["nodes"]  # the graph itself is shown as always


def test_printing_stops_at_a_budget(session, monkeypatch):
    """Printing a grad costs far more than computing it: a backward prints its first grads in full
    and the rest by their first values."""
    from playground.model import steps

    monkeypatch.setattr(steps, "PRINT_BUDGET", 10)
    session.run("import torch\nx = torch.arange(6.).requires_grad_()\nout = (x * 2).sum()\n")
    walk = session.backward("out").walk
    texts = [g["text"] for s in walk["steps"] for g in s["received"] + s["sent"] if g]
    assert texts[:2] == ["tensor(1.)", "tensor([1., 1., 1., 1., 1., 1.])"]  # 1 + 6 elements
    assert texts[2] == "tensor([1., 1., 1., 1., ...])  (the first 4 of 6 values: too many grads to print them all)"


def test_step_in_links():
    state = {**links.DEFAULTS, "code": "x = 1", "step": 3}
    assert decode(encode(state))["step"] == 3
    assert decode(encode({"code": "x"}))["step"] is None
    for bad in (-1, True, "2"):
        with pytest.raises(LinkError, match="step"):
            encode({"code": "x", "step": bad})


# ----- the app -----

@pytest.fixture
def app(torch_module):
    require("panel", "pip install -e '.[test]'")
    from playground.app import Playground
    from playground.model.session import InProcessSession

    return Playground(session=InProcessSession(torch_module, time_limit=2.0))


def _node(app, label):
    data = app.graph.nodes.data
    return [{k: v[i] for k, v in data.items()} for i, lab in enumerate(data["label"]) if lab == label]


def test_app_steps_through_the_last_backward(app):
    assert not app.step_player.visible
    app.backward_button.clicks += 1
    assert app.step_player.visible and app.step_player.end == 5 and app.step_player.value == 5
    assert "Backward, step 5 of 5: AccumulateGrad" in app.step_pane.object
    assert "x.grad after this step" in app.step_pane.object

    # after the walk, each grad_fn node shows under it the grad it received (its output's grad)
    received = {m["grad_short"] for m in _node(app, "MulBackward0")}
    assert received == {"∇ [[0.2500, 0.2500], …", "∇ [[0.7500, 0.7500], …"}  # (as wide as a column)
    assert _node(app, "MeanBackward0")[0]["grad_short"] == "∇ 1."
    assert _node(app, "MeanBackward0")[0]["grad_title"] == "grad it received in backward"
    assert _node(app, "AccumulateGrad")[0]["grad_short"] == ""  # x shows it, as its .grad

    app.step_player.value = 3  # the y * y node
    pane = app.step_pane.object
    assert "Backward, step 3 of 5: MulBackward0" in pane
    assert "passed on → to AddBackward0, input 0" in pane and "passed on → to AddBackward0, input 1" in pane
    assert "saved for backward" in pane and "[3., 3.]], grad_fn=&lt;AddBackward0&gt;)" in pane
    muls = _node(app, "MulBackward0")
    assert sorted(m["line_width"] for m in muls) == [1.2, 3.5]  # the current one outlined
    assert _node(app, "AddBackward0")[0]["fill"] == "#f8fafc"  # still to run: a ghost
    assert _node(app, "AddBackward0")[0]["grad_short"] == ""  # nothing received yet
    assert _node(app, "x")[0]["grad_short"] == ""  # not computed yet at this step
    # two arrows into AddBackward0, labelled once under it with what it receives: their sum
    assert app.graph.flows.data["text"] == ["∇ [[2.2500, 2.2500], … + [[2.2500, 2…", ""]
    assert app.graph.flows.data["end"] == [_node(app, "AddBackward0")[0]["index"]] * 2

    app.step_player.value = 4
    assert "the sum of the 2 grads its consumers passed on" in app.step_pane.object

    app.step_player.value = 0
    assert "Nothing has run yet" in app.step_pane.object and app.graph.flows.data["text"] == []

    app.language_toggle.value = "zh"
    assert "反向传播：第 0 / 5 步" in app.step_pane.object


def test_app_tapping_a_node_focuses_its_paths_and_jumps_to_its_step(app):
    app.run("import torch\na = torch.ones(2, requires_grad=True)\nb = torch.ones(2, requires_grad=True)\n"
            "out = (a * 2 + b * 3).sum()\n")
    app.graph.nodes.selected.indices = [app.graph.nodes.data["label"].index("a")]
    assert not app.step_player.visible  # no backward yet: a tap only focuses
    data = app.graph.nodes.data
    faded = sorted(label for label, alpha in zip(data["label"], data["alpha"]) if alpha != 1.0)
    assert faded == ["AccumulateGrad", "MulBackward0", "b"]  # b's branch: off a's paths
    edges = app.graph.edges.data
    assert edges["alpha"].count(0.12) == 3  # b -> its AccumulateGrad -> b * 3 -> the sum
    app.graph.nodes.selected.indices = []  # a tap on the background: everything again
    assert set(app.graph.nodes.data["alpha"]) == {1.0}
    app.run(DEFAULT + "\n")
    labels = app.graph.nodes.data["label"]
    app.backward_button.clicks += 1
    app.graph.nodes.selected.indices = [labels.index("AddBackward0")]
    assert app.step_player.value == 4 and "step 4 of 5: AddBackward0" in app.step_pane.object
    app.graph.nodes.selected.indices = [labels.index("x")]  # a leaf: the step of its AccumulateGrad
    assert app.step_player.value == 5
    app.graph.nodes.selected.indices = [labels.index("z")]  # a non-leaf: the step of its grad_fn
    assert app.step_player.value == 2
    app.run(DEFAULT + "\n\n")  # a new graph: no focus left over
    assert set(app.graph.nodes.data["alpha"]) == {1.0} and app.graph.nodes.selected.indices == []


def test_app_step_goes_into_the_link_and_back(app, torch_module):
    from playground.app import Playground
    from playground.model.session import InProcessSession

    app.backward_button.clicks += 1
    assert app.link_state()["step"] is None  # the last step is the default
    app.step_player.value = 2
    state = decode(encode(app.link_state()))
    assert state["step"] == 2
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.restore(state)
    assert other.step_player.value == 2 and "step 2 of 5" in other.step_pane.object
    assert other.graph.flows.data["text"] == app.graph.flows.data["text"]


def test_app_hides_the_steps_after_zero_grad_and_run(app):
    app.retain_box.value = True
    app.backward_button.clicks += 1
    app.zero_button.clicks += 1
    assert not app.step_player.visible and not app.graph.flows.data["text"]
    app.backward_button.clicks += 1
    assert app.step_player.visible
    app.run(DEFAULT + "\n")
    assert not app.step_player.visible


# ----- backward called by the code itself (as tutorials do) -----

def test_a_backward_the_code_calls_is_stepped_through_as_the_buttons_is(session):
    by_button = session.run(DEFAULT) and session.backward("out")
    by_code = session.run(DEFAULT + "out.backward()\n")
    assert by_code.ok and by_code.backward_count == 1 and by_code.default_output == "out"
    walk = dict(by_code.walk)
    assert walk.pop("source") == {"line": len(DEFAULT.splitlines()) + 1, "calls": 1}
    assert walk == by_button.walk and len(walk["steps"]) == 5
    assert [(h["label"], [(e["count"], e["event"], e["grad"]) for e in h["entries"]]) for h in by_code.grad_history] == [
        ("x", [(1, "run", G.format("4.5000"))])]
    assert session.backward("out").error["type"] == "RuntimeError"  # the code's backward freed the graph


def test_the_last_of_the_codes_backward_calls_shows_its_values_as_they_were_then(session):
    """A training loop: the steps are the last backward's, with the weight it saw (the optimizer
    has stepped it since) and the grad it left (zeroed since)."""
    original = session.torch.Tensor.backward
    code = ("import torch\nw = torch.ones(2, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
            "for i in range(3):\n    opt.zero_grad()\n    loss = (w * w * 3).sum()\n    loss.backward()\n"
            "    opt.step()\nw.grad.zero_()\n")
    snap = session.run(code)
    assert snap.ok and snap.backward_count == 3 and snap.walk["source"] == {"line": 7, "calls": 3}
    names = labels(snap)
    assert [(names[s["node"]], s["saved"], s.get("leaf_grad")) for s in snap.walk["steps"]] == [
        ("SumBackward0", [["self_sym_sizes", "(2,)"]], None),
        ("MulBackward0", [["other", "tensor(3)"], ["self", "None"]], None),
        ("MulBackward0", [["other", "tensor([0.1600, 0.1600], requires_grad=True)"],
                          ["self", "tensor([0.1600, 0.1600], requires_grad=True)"]], None),
        ("AccumulateGrad", [], {"shape": "2", "text": "tensor([0.9600, 0.9600])"})]
    assert session._ns["w"].tolist() == pytest.approx([0.064, 0.064])  # (0.16 - 0.1 * 0.96, stepped since)
    assert snap.walk["before"]["t:w"] == {"grad_state": "not_computed", "grad": "not computed yet"}  # zero_grad: None
    assert session.torch.Tensor.backward is original  # put back after the run


def test_a_codes_backward_that_fails_or_is_not_drawn_leaves_no_steps(session):
    original = session.torch.Tensor.backward
    failed = session.run(DEFAULT + "out.backward()\nout.backward()\n")
    assert not failed.ok and failed.error["type"] == "RuntimeError"
    assert session.torch.Tensor.backward is original
    snap = session.run(DEFAULT + "(x * 2).sum().backward()\n")  # a tensor the graph cannot show
    assert snap.ok and snap.backward_count == 1 and snap.walk is None and snap.default_output == "out"
    x = next(n for n in snap.graph["nodes"] if n["label"] == "x")
    assert x["grad"] == G.format("2.")
    snap = session.run(DEFAULT + "(out * 2).backward()\n")  # as d2l's l.sum().backward(): out's part is drawn
    names = labels(snap)
    assert [names[s["node"]] for s in snap.walk["steps"]] == [
        "MeanBackward0", "MulBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"]
    assert snap.walk["steps"][0]["received"] == [{"shape": "scalar", "text": "tensor(2.)"}]


def test_torch_autograd_backward_in_the_code_is_stepped_through_too(session):
    by_button = session.run(DEFAULT) and session.backward("out")
    autograd = session.torch.autograd
    original = autograd.backward
    line = len(DEFAULT.splitlines()) + 1
    for call in ("torch.autograd.backward(out)", "torch.autograd.backward([out], [torch.tensor(1.)])"):
        snap = session.run(DEFAULT + call + "\n")
        assert snap.ok and snap.backward_count == 1 and snap.default_output == "out"
        walk = dict(snap.walk)
        assert walk.pop("source") == {"line": line, "calls": 1}
        assert walk == by_button.walk
    snap = session.run(DEFAULT + "torch.autograd.backward([out, x.sum()])\n")  # two roots: counted, not stepped
    assert snap.ok and snap.backward_count == 1 and snap.walk is None
    assert session.run(DEFAULT + "torch.autograd.backward()\n").error["type"] == "TypeError"  # its own message
    assert autograd.backward is original


def test_app_steps_through_the_backward_the_code_called(app):
    code = DEFAULT + "print(x.grad)\nout.backward()\n"
    app.run(code)
    assert app.step_player.visible and app.step_player.value == app.step_player.end == 5
    assert app.output_select.value == "out"
    assert "9 nodes · 1 backward call<" in app.status.object
    line = len(DEFAULT.splitlines()) + 2
    assert f"Backward (line {line}), step 5 of 5: AccumulateGrad" in app.step_pane.object
    app.step_player.value = 0
    assert f"This is the backward() your code called on line {line}. Nothing has run yet." in app.step_pane.object
    app.language_toggle.value = "zh"
    assert f"这是你的代码在第 {line} 行调用的 backward()。还没有节点运行" in app.step_pane.object
    assert f"反向传播（第 {line} 行）：第 0 / 5 步" in app.step_pane.object

    app.language_toggle.value = "en"
    app.run(DEFAULT + "for _ in range(2):\n    out.backward(retain_graph=True)\n")
    assert "9 nodes · 2 backward calls<" in app.status.object
    app.step_player.value = 0
    assert f"This is the last of the 2 backward() calls your code made, on line {line}." in app.step_pane.object
    assert _node(app, "x")[0]["grad"].startswith("tensor([[4.5000")  # before its step: the first call's grad
    app.backward_button.clicks += 1  # a press carries on the count; its walk replaces the code's
    assert "9 nodes · 3 backward calls<" in app.status.object and "Backward, step 5 of 5" in app.step_pane.object


def test_the_status_counts_in_words():
    from playground.views.panels import status_text

    def status(n, calls, lang="en"):
        return status_text({"graph": {"nodes": [{}] * n}, "backward_count": calls}, lang)

    assert [status(1, 1), status(2, 0), status(9, 2)] == [
        "1 node · 1 backward call", "2 nodes · 0 backward calls", "9 nodes · 2 backward calls"]
    assert status(1, 1, "zh") == "1 个节点 · 1 次 backward"
