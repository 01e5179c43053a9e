"""Module calls as boxes: which nodes each nn.Module call made, the picture with calls collapsed or
open, a backward step on that picture, the app's control and share links."""
import math

import pytest
from needs import require

from playground.model.links import LinkError, decode, encode
from playground.model.modules import BOX, Collapsed
from playground.model.steps import state_at

MLP = """\
import torch.nn as nn

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)) * 2)

model = MLP()
x = torch.randn(2, 3)
loss = model(x).pow(2).mean()
"""


def label_of(graph):
    return {n["id"]: n["label"] for n in graph["nodes"]}


def groups(snap):
    names = label_of(snap.graph)
    return [(g["id"], g["label"], g["type"], g["parent"], sorted(names[m] for m in g["members"]))
            for g in snap.graph["groups"]]


def test_each_module_call_owns_the_nodes_it_made_and_its_parameters(session):
    snap = session.run(MLP)
    assert snap.ok, snap.error
    linear = ["AccumulateGrad", "AccumulateGrad", "AddmmBackward0", "TBackward0"]
    assert groups(snap) == [
        # ReLU made one node: too small for a box, so it stays in the call around it
        ("m0", "model", "MLP", None, ["MulBackward0", "ReluBackward0"]),
        ("m1", "model.fc1", "Linear", "m0", sorted(linear + ["model.fc1.bias", "model.fc1.weight"])),
        ("m3", "model.fc2", "Linear", "m0", sorted(linear + ["model.fc2.bias", "model.fc2.weight"])),
    ]
    assert snap.graph["groups"][1]["about"] == "Linear(in_features=3, out_features=4, bias=True)"


def test_code_without_module_calls_has_no_groups(session):
    assert "groups" not in session.run("x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n").graph
    # a call under no_grad makes no node: no group either
    snap = session.run("import torch.nn as nn\nm = nn.Linear(2, 2)\nwith torch.no_grad():\n    y = m(torch.ones(2))\n"
                       "z = (m.weight * 2).sum()\n")
    assert snap.graph["groups"] == []


def test_a_module_called_twice_is_two_calls_and_its_shared_parameters_stay_outside_them(session):
    snap = session.run("import torch.nn as nn\nlayer = nn.Linear(2, 2)\nx = torch.ones(1, 2)\n"
                       "out = layer(torch.tanh(layer(x))).sum()\n")
    names = label_of(snap.graph)
    assert [(g["label"], sorted(names[m] for m in g["members"])) for g in snap.graph["groups"]] == [
        ("layer #1", ["AddmmBackward0", "TBackward0"]), ("layer #2", ["AddmmBackward0", "TBackward0"])]


def test_modules_in_a_list_and_unnamed_ones(session):
    snap = session.run("import torch.nn as nn\nlayers = [nn.Linear(2, 2), nn.Linear(2, 2)]\nx = torch.ones(1, 2)\n"
                       "out = nn.Linear(2, 1)(layers[1](layers[0](x))).sum()\n")
    assert [(g["label"], g["type"]) for g in snap.graph["groups"]] == [
        ("layers[0]", "Linear"), ("layers[1]", "Linear"), ("Linear", "Linear")]  # (no name: its type)


def test_a_parameter_also_used_outside_the_module_stays_outside(session):
    snap = session.run("import torch.nn as nn\nm = nn.Linear(2, 2)\nx = torch.ones(1, 2)\n"
                       "out = m(x).sum() + m.weight.sum()\n")
    names = label_of(snap.graph)
    (group,) = snap.graph["groups"]
    assert sorted(names[m] for m in group["members"]) == ["AccumulateGrad", "AddmmBackward0", "TBackward0", "m.bias"]


def test_a_module_that_raises_leaves_the_last_good_groups_and_no_hooks(session, torch_module):
    session.run(MLP)
    snap = session.run(MLP + "model.fc1(torch.ones(2))\n")
    assert not snap.ok and "mat1 and mat2 shapes cannot be multiplied" in snap.error["message"]
    assert [g["label"] for g in snap.graph["groups"]] == ["model", "model.fc1", "model.fc2"]
    # the recorder's hooks are gone once a run ends: a call outside a run is not recorded
    calls = session._calls
    torch_module.nn.Linear(2, 2)(torch_module.ones(2, requires_grad=True))
    assert session._calls is calls and len(calls) == 4


def test_collapsed_calls_are_boxes_and_open_ones_are_frames(session):
    graph = session.run(MLP).graph
    closed = Collapsed(graph)
    assert [n["label"] for n in closed.graph["nodes"]] == ["x", "loss", "MeanBackward0", "PowBackward0", "model"]
    box = closed.graph["nodes"][-1]
    assert box["id"] == BOX + "m0" and box["kind"] == "module" and box["shape_text"] == "MLP"
    assert box["value"].startswith("MLP(\n  (fc1): Linear(in_features=3, out_features=4, bias=True)")
    assert box["value"].endswith("14 nodes inside: AddmmBackward0 ×2, AccumulateGrad ×4, MulBackward0, TBackward0 ×2, "
                                 "ReluBackward0; parameters: model.fc1.weight, model.fc1.bias, model.fc2.weight, "
                                 "model.fc2.bias\n(tap to open)")
    # edges are redrawn to the box, without loops or repeats: x feeds the model, the model feeds pow
    edges = {(e["from"], e["to"], e["kind"]) for e in closed.graph["edges"]}
    names = label_of(closed.graph)
    assert {(names[a], names[b], k) for a, b, k in edges} == {
        ("loss", "MeanBackward0", "grad_fn"), ("MeanBackward0", "PowBackward0", "next"),
        ("PowBackward0", "model", "next")}  # (x does not require grad: no edge to it)
    assert len(edges) == len(closed.graph["edges"])
    assert closed.frames == []

    one = Collapsed(graph, {"m0"})
    assert sorted(n["label"] for n in one.graph["nodes"] if n["kind"] == "module") == ["model.fc1", "model.fc2"]
    assert [(f["label"], f["depth"], len(f["members"])) for f in one.frames] == [("model", 0, 4)]  # 2 nodes + 2 boxes

    both = Collapsed(graph, {"m0", "m1", "m3"})
    assert not any(n["kind"] == "module" for n in both.graph["nodes"])
    assert both.graph["nodes"] == [{**n, "x": both.graph["nodes"][i]["x"], "y": both.graph["nodes"][i]["y"]}
                                   for i, n in enumerate(graph["nodes"])]
    assert [(f["label"], f["depth"], len(f["members"])) for f in both.frames] == [
        ("model", 0, 14), ("model.fc1", 1, 6), ("model.fc2", 1, 6)]
    # a closed call hides its sub-calls whatever they are set to
    assert [n["label"] for n in Collapsed(graph, {"m1"}).graph["nodes"]][-1] == "model"


def test_a_backward_step_on_boxes(session):
    session.run(MLP)
    snap = session.backward("loss")
    graph, walk = snap.graph, snap.walk
    names = label_of(graph)
    order = [names[s["node"]] for s in walk["steps"]]
    k = order.index("AddmmBackward0") + 1  # fc2's
    view = Collapsed(graph, {"m0"})
    state = state_at(graph, walk, k)
    nodes, flows = view.at_step(state["nodes"], state["flows"])
    by_label = {n["label"]: n for n in nodes}
    assert by_label["model.fc2"]["step"] == "current"
    assert by_label["model.fc1"]["step"] == "pending"
    assert by_label["MulBackward0"]["step"] == "pending"
    assert by_label["PowBackward0"]["step"] == "done"
    # fc2's Addmm passes grads to MulBackward0 (outside the box) and to the AccumulateGrad of its bias and
    # (through TBackward0) weight, inside it: only the first is drawn
    assert [(names.get(f["from"], f["from"]), names[f["to"]]) for f in flows] == [(BOX + "m3", "MulBackward0")]
    # nodes keep the positions of the picture
    assert {(n["x"], n["y"]) for n in nodes} == {(n["x"], n["y"]) for n in view.graph["nodes"]}
    last = view.at_step(*[state_at(graph, walk, len(walk["steps"]))[key] for key in ("nodes", "flows")])[0]
    # (the walk ends at the AccumulateGrad of a parameter of fc1)
    assert {n["label"]: n.get("step") for n in last if n["kind"] == "module"} == {"model.fc1": "current",
                                                                                   "model.fc2": "done"}


RESIDUAL = """\
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))

model = nn.Sequential(Block(4), Block(4), nn.Linear(4, 1))
x = torch.randn(3, 4)
loss = model(x).pow(2).mean()
"""
DEEP = "import torch.nn as nn\nmodel = nn.Sequential(*[nn.Sequential(nn.Linear(2, 2), nn.Tanh()) for _ in range(20)])\n" \
       "loss = model(torch.ones(1, 2)).sum()\n"


def inside(px, py, x, y):
    """Whether (x, y) lies in the outline (NaN-separated pieces), by ray casting."""
    hits, piece = 0, []
    for a, b in list(zip(px, py)) + [(math.nan, math.nan)]:
        if math.isnan(a):
            for (x0, y0), (x1, y1) in zip(piece, piece[1:] + piece[:1]):
                if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                    hits += 1
            piece = []
        else:
            piece.append((a, b))
    return hits % 2 == 1


@pytest.mark.parametrize("code, opened", [(RESIDUAL, ["model", "model.0", "model.0.ff", "model.1"]),
                                          (DEEP, ["model", "model.3", "model.4", "model.4.0"])])
def test_an_open_frame_covers_its_nodes_and_no_other(session, code, opened):
    from playground.views.graph import frame_data
    from playground.views.look import bands, positions

    graph = session.run(code).graph
    ids = {g["label"]: g["id"] for g in graph["groups"]}
    view = Collapsed(graph, {ids[label] for label in opened})
    nodes = view.graph["nodes"]
    pos = positions(nodes)
    data = frame_data(view.frames, pos, bands(nodes))
    assert data["title"] == ["▾ " + label for label in opened]
    for f, px, py in zip(view.frames, data["xs"], data["ys"]):
        members = set(f["members"])
        assert members and {i for i, (x, y) in pos.items() if inside(px, py, x, y)} == members, f["label"]
    if code == DEEP:  # 24 layers wrap into two bands: the model's frame is drawn in each
        assert set(bands(nodes).values()) == {0, 1}
        assert sum(math.isnan(x) for x in data["xs"][0]) == 1


def test_links_keep_the_open_modules():
    state = decode(encode({"code": "x = 1", "modules": ["m0", "m12"]}))
    assert state["modules"] == ["m0", "m12"]
    assert decode(encode({"code": "x = 1"}))["modules"] is None  # not chosen: big graphs start with boxes
    assert decode(encode({"code": "x = 1", "modules": False}))["modules"] is False  # every node, as chosen
    for damaged in (["model"], True):
        with pytest.raises(LinkError, match="'modules' should list module calls"):
            encode({"code": "", "modules": damaged})
    with pytest.raises(LinkError, match="'modules' should be a list or true/false or null"):
        encode({"code": "", "modules": "m0"})


# ----- the app -----

pn = require("panel", "pip install -e '.[test]'")


@pytest.fixture
def app(torch_module):
    from playground.app import Playground
    from playground.model.session import InProcessSession

    return Playground(session=InProcessSession(torch_module, time_limit=2.0))


def shown(app):
    return app.graph.nodes.data["label"]


def tap(app, label):
    app.graph.nodes.selected.indices = [shown(app).index(label)]


def test_the_app_opens_and_closes_module_boxes_and_links_them(app):
    assert not app.modules_box.visible  # the default example calls no module
    app.run(MLP)
    assert app.modules_box.visible and not app.modules_box.value  # a small graph: every node drawn
    assert "AddmmBackward0" in shown(app)
    app.modules_box.value = True
    assert shown(app) == ["x", "loss", "MeanBackward0", "PowBackward0", "model"]
    assert app.link_state()["modules"] == []
    tap(app, "model")
    assert sorted(label for label, kind in zip(shown(app), app.graph.nodes.data["kind"]) if kind == "module") == [
        "model.fc1", "model.fc2"]
    tap(app, "model.fc1")
    assert app.graph.frames.data["title"] == ["▾ model", "▾ model.fc1"]
    assert app.link_state()["modules"] == ["m0", "m1"]
    # the tab of the outer frame closes it and what is open inside it
    app.graph.frames.selected.indices = [0]
    assert shown(app)[-1] == "model" and app.link_state()["modules"] == []
    app.modules_box.value = False
    assert "AddmmBackward0" in shown(app) and app.link_state()["modules"] is False  # (the user's choice)
    assert app.graph.frames.data["title"] == []


def test_a_link_reopens_the_open_modules_at_a_step(app):
    app.run(MLP)
    app.modules_box.value = True
    tap(app, "model")
    app.backward()
    app.step_player.value = 2
    state = app.link_state()
    assert state["modules"] == ["m0"] and state["step"] == 2

    from playground.app import Playground
    from playground.model.session import InProcessSession

    other = Playground(session=InProcessSession(app.session.torch, time_limit=2.0), state=decode(encode(state)))
    assert other.modules_box.value and other.link_state()["modules"] == ["m0"]
    assert shown(other) == shown(app) and other.graph.nodes.data["line"] == app.graph.nodes.data["line"]


BIG = "import torch.nn as nn\nmodel = nn.Sequential(*[nn.Linear(4, 4) for _ in range(8)])\n" \
      "loss = model(torch.ones(1, 4)).sum()\n"


def test_a_big_graph_of_modules_opens_with_boxes(app):
    app.run(BIG)
    assert app.modules_box.value and shown(app)[-1] == "model"
    assert len(app.snapshot["graph"]["nodes"]) > 40
    assert app.link_state()["modules"] == []
    tap(app, "model")
    assert [label for label, kind in zip(shown(app), app.graph.nodes.data["kind"]) if kind == "module"] == [
        f"model.{i}" for i in range(8)]
    # once the user has chosen, a re-run keeps the choice, and so does a link
    app.modules_box.value = False
    app.run(app.editor.value + "\n")
    assert not app.modules_box.value and app.link_state()["modules"] is False
    assert not reopened(app, app.link_state()).modules_box.value


def test_a_state_that_chose_nothing_leaves_boxes_automatic(app):
    # the static site starts the app on the quick start's state: the default example, modules not chosen
    fresh = reopened(app, {**decode(encode({"code": "x = torch.ones(2, requires_grad=True)\n"}))})
    assert fresh.link_state()["modules"] is None and not fresh.modules_box.visible
    fresh.run(BIG)
    assert fresh.modules_box.value and shown(fresh)[-1] == "model"


def reopened(app, state):
    from playground.app import Playground
    from playground.model.session import InProcessSession

    return Playground(session=InProcessSession(app.session.torch, time_limit=2.0), state=decode(encode(state)))


def test_the_step_pane_names_the_module_call_that_made_the_node(app):
    app.run(MLP)
    app.backward()
    walk, names = app.snapshot["walk"], label_of(app.snapshot["graph"])
    order = [names[s["node"]] for s in walk["steps"]]
    app.step_player.value = order.index("AddmmBackward0") + 1
    assert "step 3 of 12: AddmmBackward0 <span class=\"ap-muted\">(in model.fc2)</span>" in app.step_pane.object
    app.step_player.value = order.index("PowBackward0") + 1  # made outside every module
    assert "PowBackward0 <span class=\"ap-muted ap-step-hint\">" in app.step_pane.object
    app.language_toggle.value = "zh"
    app.step_player.value = order.index("MulBackward0") + 1
    assert "(属于 model)" in app.step_pane.object
