import json
import time

import pytest

from playground.model import examples
from playground.model.examples import EXAMPLES, default_example
from playground.model.session import InProcessSession, Snapshot, SubprocessSession

DEFAULT = default_example().code
KEYS = {"code", "ok", "error", "stdout", "result", "graph", "inspector", "outputs", "default_output",
        "last_backward", "grad_history", "backward_count", "walk", "stale", "replay", "action", "gradcheck"}


def rows(snap):
    return {r["name"]: r for r in snap.inspector}


def strip_toggle(row):  # toggleability follows the code in the editor
    return {k: v for k, v in row.items() if not k.startswith("toggle")}


def history(snap, label):
    return [e["grad"] for h in snap.grad_history if h["label"] == label for e in h["entries"]]


def test_empty_session_snapshot(session):
    snap = session.snapshot()
    assert snap.ok and snap.graph["nodes"] == [] and snap.outputs == [] and snap.default_output is None
    assert set(snap.to_dict()) == KEYS


def test_run_default_example(session):
    snap = session.run(DEFAULT)
    assert snap.ok and snap.error is None and snap.action == "run"
    data = snap.to_dict()
    assert set(data) == KEYS
    assert json.loads(json.dumps(data)) == data
    assert Snapshot.from_dict(data) == snap
    assert snap.outputs == ["out", "y", "z"] and snap.default_output == "out"
    assert [n["label"] for n in snap.graph["nodes"] if n["kind"] == "output"] == ["out"]
    nodes = {n["id"]: n for n in snap.graph["nodes"]}
    assert all(isinstance(n["x"], float) and isinstance(n["y"], float) for n in nodes.values())
    for e in snap.graph["edges"]:  # backward edges point right-to-left on screen
        assert nodes[e["from"]]["x"] > nodes[e["to"]]["x"]
    x = rows(snap)["x"]
    assert x == {
        "name": "x", "node": "t:x", "kind": "leaf", "shape": [2, 2], "shape_text": "2×2",
        "dtype": "torch.float32", "value": "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)",
        "requires_grad": True, "is_leaf": True, "grad_fn": None, "grad": "not computed yet",
        "grad_state": "not_computed", "retains_grad": None, "origin": None, "toggleable": True,
        "toggle_reason": None,
    }
    assert rows(snap)["z"]["grad_fn"] == "MulBackward0" and rows(snap)["z"]["toggleable"] is False
    assert snap.backward_count == 0 and snap.grad_history == []


def test_backward_then_second_backward_without_retain_graph(session):
    session.run(DEFAULT)
    snap = session.backward("out", None, retain_graph=False, create_graph=False)
    assert snap.ok and snap.backward_count == 1
    assert rows(snap)["x"]["grad"] == "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    assert snap.last_backward == {"output": "out", "gradient": None, "retain_graph": False, "create_graph": False}
    freed = [n["freed"] for n in snap.graph["nodes"] if n["label"] == "MulBackward0"]
    assert freed == [True, True]
    nodes_before = snap.graph["nodes"]

    again = session.backward("out", None, retain_graph=False, create_graph=False)
    assert not again.ok
    assert again.error["type"] == "RuntimeError"
    assert "Trying to backward through the graph a second time" in again.error["message"]
    assert "retain_graph" in again.error["hint"]["en"] and "run the code again" in again.error["hint"]["en"]
    assert again.error["hint"]["zh"]
    assert rows(again)["x"]["grad"] == rows(snap)["x"]["grad"]
    assert again.graph["nodes"] == nodes_before
    assert again.backward_count == 1 and again.code == DEFAULT


def test_accumulation_and_zero_grad(session):
    session.run("inp = torch.eye(2, requires_grad=True)\nout = (inp + 1).pow(2)\n")
    session.backward("out", "torch.ones_like(inp)", retain_graph=True)
    snap = session.backward("out", "torch.ones_like(inp)", retain_graph=True)
    assert history(snap, "inp") == ["tensor([[4., 2.],\n        [2., 4.]])", "tensor([[8., 4.],\n        [4., 8.]])"]
    assert snap.grad_history[0]["entries"][1]["values"] == [[8.0, 4.0], [4.0, 8.0]]
    zero = session.zero_grad()
    assert zero.ok and zero.action == "zero_grad"
    assert rows(zero)["inp"]["grad"] == "tensor([[0., 0.],\n        [0., 0.]])"
    last = session.backward("out", "torch.ones_like(inp)", retain_graph=True)
    entries = last.grad_history[0]["entries"]
    assert [(e["count"], e["event"]) for e in entries] == [(1, "backward"), (2, "backward"), (2, "zero_grad"), (3, "backward")]
    assert entries[-1]["grad"] == entries[0]["grad"]
    assert last.replay["actions"] == [
        {"op": "backward", "output": "out", "gradient": "torch.ones_like(inp)", "retain_graph": True, "create_graph": False},
        {"op": "backward", "output": "out", "gradient": "torch.ones_like(inp)", "retain_graph": True, "create_graph": False},
        {"op": "zero_grad"},
        {"op": "backward", "output": "out", "gradient": "torch.ones_like(inp)", "retain_graph": True, "create_graph": False},
    ]


def test_non_scalar_output_defaults_to_ones_like(session):
    session.run("x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\n")
    snap = session.backward("y", "", retain_graph=False)
    assert snap.ok and snap.last_backward["gradient"] == "torch.ones_like(y)"
    assert rows(snap)["x"]["grad"] == "tensor([2., 4., 6.])"


def test_gradient_text_is_evaluated_in_the_namespace(session):
    session.run("x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\nv = torch.tensor([1., 1/2., 1/3.])\n")
    snap = session.backward("y", "v")
    assert rows(snap)["x"]["grad"] == "tensor([2., 2., 2.])"


def test_bad_gradient_and_unknown_output(session):
    session.run(DEFAULT)
    bad = session.backward("out", "torch.ones(")
    assert bad.error["kind"] == "syntax" and len(bad.graph["nodes"]) == 9
    wrong = session.backward("z", "torch.ones(3)")
    assert wrong.error["type"] == "RuntimeError" and wrong.error["hint"] is not None
    missing = session.backward("nope")
    assert missing.error["kind"] == "input" and "nope" in missing.error["message"]
    assert rows(missing)["x"]["grad"] == "not computed yet"


def test_backward_before_run(session):
    snap = session.backward("out")
    assert snap.error["kind"] == "input"


def test_errors_keep_the_last_good_state(session):
    session.run(DEFAULT)
    good = session.backward("out", retain_graph=True)
    for code, kind in [("x = (1 +\n", "syntax"), ("x = torch.ones(2)\nx.nope()\n", "exception"),
                       ("while True:\n    pass\n", "timeout"), ("x = [0] * 10**10\n", "memory")]:
        snap = session.run(code)
        assert not snap.ok and snap.error["kind"] == kind
        assert snap.code == code and snap.stale
        assert snap.graph == good.graph
        assert [strip_toggle(r) for r in snap.inspector] == [strip_toggle(r) for r in good.inspector]
        assert snap.backward_count == 1 and snap.replay["code"] == DEFAULT
    # the live graph still works after the errors
    after = session.backward("out", retain_graph=True)
    assert after.ok and history(after, "x")[-1] == "tensor([[9., 9.],\n        [9., 9.]])"


def test_toggle_edits_code_and_reruns(session):
    session.run(DEFAULT)
    off = session.toggle("x", False)
    assert off.ok and off.action == "toggle"
    assert "x = torch.ones(2, 2)\n" in off.code
    assert rows(off)["x"]["kind"] == "const" and off.outputs == []
    on = session.toggle("x", True)
    assert on.code == DEFAULT and on.outputs == ["out", "y", "z"]
    refused = session.toggle("z", True)
    assert refused.error["kind"] == "toggle" and "comes from `y * y * 3`" in refused.error["message"]
    assert refused.code == DEFAULT and refused.graph == on.graph


def test_restore_replays_actions(session):
    session.run("inp = torch.eye(2, requires_grad=True)\nout = (inp + 1).pow(2)\n")
    session.backward("out", None, True)
    session.backward("out", None, True)
    original = session.zero_grad()
    other = InProcessSession(session.torch)
    restored = other.restore(original.replay["code"], original.replay["actions"])
    assert restored.ok and restored.action == "restore"
    assert restored.grad_history == original.grad_history
    assert restored.backward_count == 2


def test_hook_output_and_retain_grad(session):
    session.run(
        "x = torch.ones(2, requires_grad=True)\ny = x * 3\ny.retain_grad()\n"
        "y.register_hook(lambda g: print('hook saw', g))\nout = y.sum()\n"
    )
    snap = session.backward("out")
    assert snap.stdout == "hook saw tensor([1., 1.])\n"
    assert rows(snap)["y"]["grad"] == "tensor([1., 1.])" and rows(snap)["y"]["retains_grad"] is True


def test_create_graph_shows_the_grad_graph(session):
    session.run("x = torch.tensor(3.0, requires_grad=True)\ny = x ** 3\n")
    snap = session.backward("y", create_graph=True)
    assert "x.grad" in rows(snap) and "x.grad" in snap.outputs
    assert snap.default_output == "y"
    second = session.backward("x.grad")
    assert second.ok
    assert rows(second)["x"]["grad"].startswith("tensor(45.")  # 27 + 6x = 27 + 18


def test_named_tensor_order_follows_the_code(session):
    snap = session.run("z = torch.ones(1, requires_grad=True)\na = z * 2\nb = a * 2\nz2 = b.sum()\nz = z\n")
    assert [r["name"] for r in snap.inspector] == ["a", "b", "z2", "z"]
    assert snap.default_output == "z2"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.key)
def test_examples_run_and_backward(session, example):
    snap = session.run(example.code)
    assert snap.ok, snap.error
    assert example.output in snap.outputs
    done = session.backward(example.output, example.gradient, example.retain_graph, example.create_graph)
    assert done.ok, done.error
    assert done.backward_count == 1


def test_sampling_example_shows_the_reparameterisation(session):
    """What its text promises: a graph through the sample, none through sample(), mu.grad = 2z."""
    ex = next(e for e in EXAMPLES if e.key == "sampling")
    snap = session.run(ex.code)
    r = rows(snap)
    assert r["z"]["grad_fn"] == "AddBackward0" and r["s"]["grad_fn"] is None
    assert r["z"]["value"] == "tensor([ 2.0410, -1.2934], grad_fn=<AddBackward0>)"
    names = {n["label"] for n in snap.graph["nodes"]}
    assert {"AddBackward0", "MulBackward0", "ExpBackward0", "mu", "log_sigma"} <= names
    done = session.backward("loss", None, False, False)
    assert rows(done)["mu"]["grad"] == "tensor([ 4.0820, -2.5869])"
    assert rows(done)["log_sigma"]["grad"] == "tensor([6.2903, 0.7591])"


def test_forward_ad_example_shows_the_jvp_equal_to_a_grad_entry(session):
    """What its text promises: jvp = sin(1) + cos(1), the first entry of x.grad after Backward."""
    ex = next(e for e in EXAMPLES if e.key == "forward_ad")
    snap = session.run(ex.code)
    r = rows(snap)
    assert r["jvp"]["value"] == "tensor(1.3818)"
    assert r["y"]["value"] == "tensor(3.0834)"  # no graph, and the level has exited: no tangent
    assert r["dual"]["grad_fn"] is None
    done = session.backward("loss", None, False, False)
    assert rows(done)["x"]["grad"] == "tensor([ 1.3818,  0.0770, -2.8289])"


def test_attention_example_shows_what_its_text_says(session):
    """The weights, the fused call's equal output and graph, and v.grad as the weights' column sums."""
    ex = next(e for e in EXAMPLES if e.key == "attention")
    snap = session.run(ex.code)
    r = rows(snap)
    assert r["weights"]["grad_fn"] == "SoftmaxBackward0"
    assert r["out"]["value"].startswith("tensor([[1.2033, 1.0000],")
    assert r["fused"]["value"] == r["out"]["value"]
    labels = [n["label"] for n in snap.graph["nodes"]]
    assert {"PermuteBackward0", "SafeSoftmaxBackward0", "MulBackward1", "SoftmaxBackward0", "DivBackward0"} <= set(labels)
    assert "TBackward0" not in labels
    done = session.backward("loss", None, False, False)
    assert rows(done)["v"]["grad"] == ("tensor([[0.5989, 0.5989],\n        [0.5989, 0.5989],\n"
                                       "        [0.8022, 0.8022]])")
    for number in ("0.5989", "0.8022", "PermuteBackward0", "SafeSoftmaxBackward0",
                   "ScaledDotProductFlashAttentionForCpuBackward0"):
        assert number in ex.explain_en and number in ex.explain_zh


def test_examples_are_bilingual():
    keys = [e.key for e in EXAMPLES]
    assert len(keys) == len(set(keys)) and keys[0] == "basics"
    for e in EXAMPLES:
        assert e.title_en and e.explain_en and e.title_zh and e.explain_zh
        assert any("\u4e00" <= ch <= "\u9fff" for ch in e.explain_zh)


def test_how_edited_code_stands_to_its_example():
    basics, module = examples.get_example("basics"), examples.get_example("module")
    assert examples.explained_names(basics) == {"x", "y", "z", "out"}
    assert examples.explained_names(module) == {"model", "optimizer", "x", "loss"}
    assert examples.relation(basics, None) == "same"
    assert examples.relation(basics, "\n" + basics.code.replace("\n", "  \n") + "\n\n") == "same"
    # What the text asks for (another line, other numbers) keeps the text beside the code.
    assert examples.relation(basics, basics.code + "out.backward()\n") == "edited"
    assert examples.relation(module, module.code + "loss.backward()\noptimizer.step()\n") == "edited"
    assert examples.relation(basics, basics.code.replace("torch.ones(2, 2", "torch.zeros(3")) == "edited"
    assert examples.relation(basics, basics.code + "y = (\n") == "edited"  # (a typo does not fold it away)
    # Code without a variable the text talks about would be misread beside it.
    assert examples.relation(basics, basics.code.replace("out", "result")) == "apart"
    assert examples.relation(basics, "import torch\nw = torch.ones(3, requires_grad=True)\nloss = w.sum()\n") == "apart"


# --- SubprocessSession -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def child(torch_module_name):
    s = SubprocessSession(torch_module_name, time_limit=1.5, wall_timeout=3.0, memory_mb=1024)
    yield s
    s.close()


def test_subprocess_run_and_accumulate(child):
    snap = child.run(DEFAULT)
    assert snap.ok and snap.outputs == ["out", "y", "z"]
    child.backward("out", None, True)
    snap = child.backward("out", None, True)
    assert history(snap, "x") == ["tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])",
                                  "tensor([[9., 9.],\n        [9., 9.]])"]
    assert child.snapshot() == snap


def test_subprocess_endless_python_loop(child):
    child.run(DEFAULT)
    before = child.backward("out", None, True)
    started = time.monotonic()
    snap = child.run("while True:\n    pass\n")
    assert time.monotonic() - started < 6  # stopped inside the child at 1.5 s, no restart (which takes longer)
    assert snap.error["kind"] == "timeout" and snap.code == "while True:\n    pass\n"
    assert snap.graph == before.graph and snap.backward_count == 1


def test_subprocess_hang_in_c_is_killed_and_state_restored(child):
    child.run(DEFAULT)
    before = child.backward("out", None, True)
    started = time.monotonic()
    snap = child.run("x = sum(range(10**13))\n")  # one C call: only the parent's wall clock stops it
    elapsed = time.monotonic() - started
    assert elapsed < 3.0 + 30  # wall timeout + restarting a torch child
    assert snap.error["kind"] == "timeout" and "3 s" in snap.error["message"]
    assert snap.error["hint"]["en"] == "The last good state was restored."
    assert snap.code == "x = sum(range(10**13))\n" and snap.stale
    assert snap.backward_count == 1 and snap.grad_history == before.grad_history
    # the restored child is live: backward works on the replayed graph
    again = child.backward("out", None, True)
    assert again.ok and again.backward_count == 2


def test_subprocess_memory_bombs(child):
    child.run(DEFAULT)
    for code in ("x = [0] * 10**10\n", "x = [0] * 10**9\n", "x = torch.ones(30000, 30000)\n"):
        snap = child.run(code)
        assert snap.error["kind"] == "memory", snap.error
        assert len(snap.graph["nodes"]) == 9


def test_subprocess_code_cannot_start_processes_or_fill_the_disk(child, tmp_path):
    child.run(DEFAULT)
    for code in ("import os\nos.fork()\n", "import os\nos.system('true')\n",
                 "import subprocess\nsubprocess.run(['true'])\n"):
        snap = child.run(code)
        assert snap.error["type"] == "PermissionError", snap.error
        assert snap.error["message"] == "The playground does not let code start processes."
        assert len(snap.graph["nodes"]) == 9
    big = tmp_path / "big.bin"
    snap = child.run(f"with open({str(big)!r}, 'wb') as f:\n    f.write(b'0' * (32 * 1024 * 1024))\n")
    assert snap.error["type"] == "OSError" and "File too large" in snap.error["message"], snap.error
    assert big.stat().st_size <= 16 * 1024 * 1024
    assert child.run("print('alive')").stdout == "alive\n"


def test_subprocess_survives_os_exit(child):
    child.run(DEFAULT)
    snap = child.run("import os\nos._exit(1)\n")
    assert snap.error["kind"] == "crash" and "exit code 1" in snap.error["message"]
    assert len(snap.graph["nodes"]) == 9 and snap.code == "import os\nos._exit(1)\n"
    assert child.run("print('alive')").stdout == "alive\n"


def test_subprocess_user_writes_to_fd_1(child):
    snap = child.run("import os\nos.write(1, b'{not json}\\n')\nprint('fine')\n")
    assert snap.ok and snap.stdout == "fine\n"


def test_subprocess_toggle(child):
    child.run(DEFAULT)
    snap = child.toggle("x", False)
    assert snap.ok and "x = torch.ones(2, 2)\n" in snap.code and child.code == snap.code
    refused = child.toggle("out", True)
    assert refused.error["kind"] == "toggle"


def test_subprocess_restore_from_a_link(child):
    code = "inp = torch.eye(2, requires_grad=True)\nout = (inp + 1).pow(2)\n"
    action = {"op": "backward", "output": "out", "gradient": None, "retain_graph": True, "create_graph": False}
    snap = child.restore(code, [action, action])
    assert snap.ok and snap.action == "restore" and snap.backward_count == 2
    assert history(snap, "inp")[-1] == "tensor([[8., 4.],\n        [4., 8.]])"


def test_module_example_trains(session):
    # The example's promise: model.weight/model.bias label the leaves, and one SGD step lowers the loss.
    ex = next(e for e in EXAMPLES if e.key == "module")
    snap = session.run(ex.code + "loss.backward()\noptimizer.step()\noptimizer.zero_grad()\n"
                                 "loss2 = nn.functional.mse_loss(model(x), y)\n")
    assert snap.ok, snap.error
    rows = {r["name"]: r for r in snap.inspector}
    assert {"model.weight", "model.bias"} <= set(rows)
    assert rows["loss"]["value"].startswith("tensor(9.5098") and rows["loss2"]["value"].startswith("tensor(0.2243")
    assert "9.51" in ex.explain_en and "0.22" in ex.explain_en


def test_an_action_that_prints_nothing_keeps_the_run_output_in_view():
    s = InProcessSession()
    snap = s.run("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\nprint('ran')\ny\n")
    assert (snap.stdout, snap.result) == ("ran\n", "tensor(6., grad_fn=<SumBackward0>)")
    snap = s.backward("y")
    assert snap.ok and (snap.stdout, snap.result) == ("ran\n", "tensor(6., grad_fn=<SumBackward0>)")
    snap = s.zero_grad()
    assert snap.ok and snap.stdout == "ran\n"
    # a hook's print replaces it; an error shows with what the failing action printed
    s.run("import torch\nx = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: print('hook', g))\n"
          "y = (x * 3).sum()\nprint('ran')\n")
    assert s.backward("y").stdout == "hook tensor([3., 3.])\n"
    snap = s.backward("y")
    assert not snap.ok and snap.stdout == "" and "second time" in snap.error["message"]


def test_subprocess_module_calls_cross_to_the_parent(child):
    snap = child.run("import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))\n"
                     "loss = model(torch.ones(1, 2)).sum()\n")
    assert [(g["id"], g["label"], g["type"], g["parent"]) for g in snap.graph["groups"]] == [
        ("m0", "model", "Sequential", None), ("m1", "model.0", "Linear", "m0"), ("m3", "model.2", "Linear", "m0")]
    assert snap.graph["groups"][0]["about"].startswith("Sequential(\n  (0): Linear(in_features=2, out_features=3")


def test_the_checkpoint_example_reruns_its_block_in_backward(session):
    snap = session.run(examples.get_example("checkpoint").code)
    assert snap.stdout == "block runs\nblock runs\n"
    labels = [n["label"] for n in snap.graph["nodes"]]
    assert "CheckpointFunctionBackward" in labels and "ExpBackward0" in labels  # reentrant: one node; else block's
    snap = session.backward("loss", None, False, False)
    assert snap.stdout == "block runs\nblock runs\n"  # each checkpoint ran block again
    x = next(n for n in snap.graph["nodes"] if n["label"] == "x")
    assert x["grad"] == "tensor([ 2.2916, -5.8401,  0.7460])"  # 2 · 3eˣ·cos(3eˣ), as PyTorch gives
