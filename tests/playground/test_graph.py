import sys

import pytest

from playground.model import graph as G
from playground.model.examples import default_example
from playground.model.program import analyse


def build(runner, code, output=None):
    res = runner.run(code)
    assert res.ok, res.error
    analysis = analyse(code)
    named = G.collect_tensors(res.namespace, runner.torch.Tensor, analysis.order)
    return res.namespace, G.trace(named, output, analysis.origins)


def by_label(graph):
    return {n["label"]: n for n in graph.nodes}


def edge_set(graph, kind=None):
    labels = {n["id"]: n["label"] for n in graph.nodes}
    return sorted(
        (labels[e["from"]], labels[e["to"]], e["index"], e["slot"])
        for e in graph.edges
        if kind is None or e["kind"] == kind
    )


def test_default_example_nodes_and_edges(runner):
    ns, graph = build(runner, default_example().code, output="out")
    nodes = by_label(graph)
    assert {k: nodes[k]["kind"] for k in ("x", "y", "z", "out")} == {
        "x": "leaf", "y": "tensor", "z": "tensor", "out": "output"}
    functions = sorted(n["label"] for n in graph.nodes if n["kind"] == "function")
    assert functions == ["AddBackward0", "MeanBackward0", "MulBackward0", "MulBackward0"]
    assert [n["label"] for n in graph.nodes if n["kind"] == "accumulate"] == ["AccumulateGrad"]
    assert nodes["x"]["shape_text"] == "2×2" and nodes["x"]["shape"] == [2, 2]
    assert nodes["out"]["shape_text"] == "scalar"
    assert nodes["x"]["value"] == repr(ns["x"])
    assert nodes["x"]["dtype"] == "torch.float32"
    assert nodes["z"]["grad_fn"] == "MulBackward0"
    assert edge_set(graph, "grad_fn") == [
        ("out", "MeanBackward0", 0, 0), ("y", "AddBackward0", 0, 0), ("z", "MulBackward0", 0, 0)]
    assert edge_set(graph, "variable") == [("AccumulateGrad", "x", 0, 0)]
    nexts = edge_set(graph, "next")
    assert ("MeanBackward0", "MulBackward0", 0, 0) in nexts
    # y * y: both inputs of the inner MulBackward0 come from y's AddBackward0
    assert nexts.count(("MulBackward0", "AddBackward0", 0, 0)) == 1
    assert ("MulBackward0", "AddBackward0", 0, 1) in nexts
    assert ("AddBackward0", "AccumulateGrad", 0, 0) in nexts
    assert len(graph.nodes) == 9 and not graph.truncated


def test_x_squared_plus_y_cubed(runner):
    code = "x = torch.rand(5, 5, requires_grad=True)\ny = torch.rand(5, 5, requires_grad=True)\nz = x**2 + y**3"
    ns, graph = build(runner, code)
    ids = {n["id"]: n for n in graph.nodes}
    add = next(n for n in graph.nodes if n["label"] == "AddBackward0")
    pows = [e for e in graph.edges if e["from"] == add["id"]]
    assert [ids[e["to"]]["label"] for e in pows] == ["PowBackward0", "PowBackward0"]
    assert [e["slot"] for e in pows] == [0, 1]
    leaves = []
    for e in pows:
        (acc_edge,) = [f for f in graph.edges if f["from"] == e["to"]]
        assert ids[acc_edge["to"]]["kind"] == "accumulate"
        (var_edge,) = [f for f in graph.edges if f["from"] == acc_edge["to"]]
        assert var_edge["kind"] == "variable"
        leaves.append(ids[var_edge["to"]]["label"])
    assert leaves == ["x", "y"]
    # AccumulateGrad.variable is the very tensor bound to the name
    acc = ns["z"].grad_fn.next_functions[0][0].next_functions[0][0]
    assert acc.variable is ns["x"]


def test_grad_text_before_and_after_backward(runner):
    ns, graph = build(runner, "inp = torch.eye(2, requires_grad=True)\nout = (inp + 1).pow(2)")
    node = by_label(graph)["inp"]
    assert node["grad"] == "not computed yet" and node["grad_state"] == "not_computed"
    assert by_label(graph)["out"]["grad_state"] == "not_retained"
    out, inp = ns["out"], ns["inp"]
    out.backward(runner.torch.ones_like(inp), retain_graph=True)
    first = by_label(G.trace([("inp", inp), ("out", out)]))["inp"]["grad"]
    out.backward(runner.torch.ones_like(inp), retain_graph=True)
    second = by_label(G.trace([("inp", inp), ("out", out)]))["inp"]["grad"]
    assert first == "tensor([[4., 2.],\n        [2., 4.]])"
    assert second == "tensor([[8., 4.],\n        [4., 8.]])"
    assert G.grad_values(inp) == [[8.0, 4.0], [4.0, 8.0]]


def test_retained_non_leaf_grad(runner):
    ns, graph = build(runner, "x = torch.ones(2, requires_grad=True)\ny = x * 3\ny.retain_grad()\nout = y.sum()")
    assert by_label(graph)["y"]["grad_state"] == "not_computed"
    assert by_label(graph)["y"]["retains_grad"] is True
    ns["out"].backward()
    graph = G.trace([("y", ns["y"])])
    assert by_label(graph)["y"]["grad"] == "tensor([1., 1.])"


def test_const_and_detached(runner):
    code = (
        "x = torch.ones(2, requires_grad=True)\nc = torch.zeros(2)\ny = x * 2\nd = y.detach()\n"
        "with torch.no_grad():\n    n = x * 2\n"
    )
    _, graph = build(runner, code)
    kinds = {n["label"]: (n["kind"], n["origin"]) for n in graph.nodes if n["names"]}
    assert kinds == {"x": ("leaf", None), "c": ("const", None), "y": ("tensor", None),
                     "d": ("detached", "detach"), "n": ("detached", "no_grad")}
    assert by_label(graph)["c"]["grad"] == "none: requires_grad is False"


def test_same_tensor_under_two_names_is_one_node(runner):
    _, graph = build(runner, "a = torch.ones(1, requires_grad=True)\nb = a\nc = a * 2")
    assert by_label(graph)["a, b"]["names"] == ["a", "b"]
    assert graph.by_label["a"] == graph.by_label["b"]


def test_unnamed_leaf_from_accumulate_grad(runner):
    _, graph = build(runner, "x = torch.ones(3)\nout = (torch.ones(3, requires_grad=True) * x).sum()")
    (leaf,) = [n for n in graph.nodes if n["kind"] == "leaf"]
    assert leaf["names"] == [] and leaf["label"] == "3" and leaf["id"].startswith("u")


def test_containers_modules_and_create_graph_grads(runner):
    has_modules = hasattr(runner.torch.nn, "Linear")
    code = (
        "import torch.nn as nn\n"
        + ("lin = nn.Linear(2, 1)\n" if has_modules else "")
        + "xs = [torch.ones(2, requires_grad=True), 5]\n"
        "d = {'w': torch.ones(1, requires_grad=True)}\n"
        + ("out = lin(xs[0]).sum()\n" if has_modules else "out = xs[0].sum()\n")
        + "x = torch.tensor(3.0, requires_grad=True)\n"
        "(x ** 3).backward(create_graph=True)\n"
    )
    res = runner.run(code)
    assert res.ok, res.error
    module_type = getattr(runner.torch.nn, "Module", None)
    named = dict(G.collect_tensors(res.namespace, runner.torch.Tensor, module_type=module_type))
    assert {"xs[0]", "d['w']", "out", "x", "x.grad"} <= set(named)
    if has_modules:
        assert {"lin.weight", "lin.bias"} <= set(named)
    graph = G.trace(list(named.items()))
    grad_node = by_label(graph)["x.grad"]
    assert grad_node["kind"] == "tensor" and grad_node["grad_fn"] is not None


def test_freed_after_backward_without_retain_graph(runner):
    code = "x = torch.ones(2, requires_grad=True)\ny = x * x\nout = y.sum()"
    ns, graph = build(runner, code)
    mul = next(n for n in graph.nodes if n["label"] == "MulBackward0")
    assert mul["freed"] is False
    assert mul["saved"] == ["other", "self"]  # grad_fn._saved_other and _saved_self, in the engine as in torch
    ns["out"].backward(retain_graph=True)
    graph = G.trace([("out", ns["out"])])
    assert next(n for n in graph.nodes if n["label"] == "MulBackward0")["freed"] is False
    ns["out"].backward()
    graph = G.trace([("out", ns["out"])])
    assert next(n for n in graph.nodes if n["label"] == "MulBackward0")["freed"] is True
    # SumBackward0 saved no tensor: nothing to free
    assert next(n for n in graph.nodes if n["label"] == "SumBackward0")["freed"] is False


def test_freed_custom_function(runner):
    code = (
        "class Sq(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, t):\n        ctx.save_for_backward(t)\n        return t * t\n"
        "    @staticmethod\n    def backward(ctx, g):\n        (t,) = ctx.saved_tensors\n        return 2 * t * g\n"
        "x = torch.ones(2, requires_grad=True)\ny = Sq.apply(x)\n"
    )
    ns, graph = build(runner, code)
    assert by_label(graph)["SqBackward"]["freed"] is False
    ns["y"].sum().backward()
    assert by_label(G.trace([("y", ns["y"])]))["SqBackward"]["freed"] is True


class FakeNode:
    """Engine-style node: ``_freed`` says whether backward released it."""

    def __init__(self, name, nexts=(), freed=False):
        self._name, self.next_functions, self._freed = name, tuple(nexts), freed

    def name(self):
        return self._name


def test_engine_freed_flag_is_used():
    assert G.is_freed(FakeNode("MulBackward0", freed=True)) is True
    assert G.is_freed(FakeNode("MulBackward0", freed=False)) is False


def test_cpp_style_names_are_shortened():
    assert G.node_name(FakeNode("torch::autograd::AccumulateGrad")) == "AccumulateGrad"


class FakeTensor:
    """Just enough of a tensor for graph.trace (the engine is plain Python objects too)."""

    dtype = "torch.float32"
    grad = None
    retains_grad = False

    def __init__(self, grad_fn=None, requires_grad=True):
        self.grad_fn, self.requires_grad, self.is_leaf = grad_fn, requires_grad, grad_fn is None
        self.shape = (2,)

    def __repr__(self):
        return "tensor([1., 1.])"


class FakeAccumulate(FakeNode):
    def __init__(self, variable):
        super().__init__("torch::autograd::AccumulateGrad")
        self.variable = variable


def test_100k_node_chain_is_walked_without_recursion():
    x = FakeTensor()
    node = FakeAccumulate(x)
    for _ in range(100_000):
        node = FakeNode("MulBackward0", [(node, 0)])
    y = FakeTensor(node)
    limit = sys.getrecursionlimit()
    graph = G.trace([("x", x), ("y", y)], "y")
    assert sys.getrecursionlimit() == limit
    assert len(graph.nodes) == 100_003  # x, y, 100,000 MulBackward0, AccumulateGrad
    assert len(graph.edges) == 100_002
    assert by_label(graph)["y"]["kind"] == "output"
    small = G.trace([("x", x), ("y", y)], "y", max_functions=100)
    assert small.truncated and sum(n["kind"] == "function" for n in small.nodes) == 100
    ids = {n["id"] for n in small.nodes}
    assert all(e["from"] in ids and e["to"] in ids for e in small.edges)


def test_long_torch_chain(torch_module):
    # Real torch segfaults freeing a graph deeper than ~50,000 nodes once Python wrappers of
    # its nodes were made (a torch limit, not ours), so torch gets 20,000 here.
    x = torch_module.ones(2, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    graph = G.trace([("x", x), ("y", y)], "y")
    assert len(graph.nodes) == 20_003


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_grad_values_are_json_safe(torch_module, value):
    x = torch_module.ones(2, requires_grad=True)
    x.grad = torch_module.tensor([value, 1.0])
    assert G.grad_values(x) == [str(value), 1.0]


def test_lineage_is_the_paths_through_a_node(session):
    """Focusing a node keeps what it was computed from and what was computed from it; a named
    tensor goes with its grad_fn."""
    from playground.model.graph import lineage

    snap = session.run("import torch\na = torch.ones(2, requires_grad=True)\nb = torch.ones(2, requires_grad=True)\n"
                       "c = a * 2\nd = b * 3\nout = (c + d).sum()\n")
    graph = snap.graph
    ids = {n["label"]: n["id"] for n in graph["nodes"] if n["kind"] not in ("function", "accumulate")}
    names = {n["id"]: n["label"] for n in graph["nodes"]}

    def focus(label):
        return sorted(names[i] for i in lineage(graph, ids[label]))

    on_a = ["AccumulateGrad", "AddBackward0", "MulBackward0", "SumBackward0", "a", "c", "out"]
    assert focus("c") == on_a and focus("a") == on_a  # b and d are off a's paths
    assert focus("out") == sorted(names.values())  # everything leads to the output
    mul_of_d = next(e["to"] for e in graph["edges"] if e["kind"] == "grad_fn" and e["from"] == ids["d"])
    assert lineage(graph, mul_of_d) == lineage(graph, ids["d"])


def test_with_output_moves_the_output_to_the_tensor_picked(runner):
    # Before any Backward the session marks the last tensor made; the user may pick another.
    code = ("x = torch.ones(2, requires_grad=True)\nc = torch.zeros(2)\nloss = (x * 3).sum()\n"
            "side = x * 2\n")
    _, graph = build(runner, code, output="side")
    inspector = [{"name": n["label"], "node": n["id"], **{k: n[k] for k in ("kind", "requires_grad", "is_leaf", "origin")}}
                 for n in graph.nodes if n["names"]]  # (as the session's tensor table rows carry them)
    snap = {"graph": graph.to_dict(), "inspector": inspector, "default_output": "side"}
    kinds = lambda s: {n["label"]: n["kind"] for n in s["graph"]["nodes"] if n["names"]}  # noqa: E731
    assert kinds(snap) == {"x": "leaf", "c": "const", "loss": "tensor", "side": "output"}
    moved = G.with_output(snap, "loss")
    assert kinds(moved) == {"x": "leaf", "c": "const", "loss": "output", "side": "tensor"}
    assert {r["name"]: r["kind"] for r in moved["inspector"]} == kinds(moved)
    assert kinds(snap)["side"] == "output"  # (the snapshot given is left as it was)
    assert G.with_output(snap, "nowhere") is snap
    assert kinds(G.with_output(moved, "side")) == kinds(snap)


def test_a_long_node_name_breaks_before_backward_instead_of_losing_its_end():
    from playground.views.look import caption

    def shown(label, **more):
        return caption({"kind": "function", "label": label, **more})

    assert shown("MseLossBackward0") == "MseLossBackward0"  # (fits one line)
    assert shown("SafeSoftmaxBackward0") == "SafeSoftmax\nBackward0"
    assert shown("MulConstantBackward") == "MulConstant\nBackward"  # a custom Function's node
    assert shown("CubeBackwardBackward") == "CubeBackward\nBackward"
    assert shown("BinaryCrossEntropyWithLogitsBackward0") == "BinaryCrossEntr…\nBackward0"
    assert shown("SomeVeryLongCustomName") == "SomeVeryLongCus…"
    assert shown("SafeSoftmaxBackward0", freed=True) == "SafeSoftmaxBack…\n(freed)"  # (two lines fit a box)
