"""The gradient check: autograd's gradient beside finite differences from re-runs of the code."""
import pytest

from playground.model import gradcheck
from playground.model.runner import Runner
from playground.model.session import InProcessSession

WRONG_CUBE = """import torch
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x * g   # should be 3 * x ** 2 * g
x = torch.tensor([1.0, 2.0, -0.5], dtype=torch.float64, requires_grad=True)
y = Cube.apply(x).sum()
"""


def _check(torch_module, code, output, gradient=None, **kw):
    return gradcheck.check(Runner(torch_module, time_limit=2.0), code, output, gradient, torch_module.nn.Module, **kw)


def _rows(result, label):
    leaf = next(leaf for leaf in result["leaves"] if leaf["label"] == label)
    return {r["index"]: r for r in leaf["rows"]}


def test_the_default_example_agrees_in_float32(torch_module):
    code = "import torch\nx = torch.ones(2, 2, requires_grad=True)\ny = x + 2\nz = y * y * 3\nout = z.mean()\n"
    result = _check(torch_module, code, "out")
    assert (result["checked"], result["total"], result["disagree"], result["error"]) == (4, 4, 0, None)
    assert result["weighed"] is None  # a scalar output: the function is out itself
    rows = _rows(result, "x")
    assert list(rows) == ["[0, 0]", "[0, 1]", "[1, 0]", "[1, 1]"]
    for r in rows.values():
        assert r["autograd"] == 4.5 and r["numeric"] == pytest.approx(4.5, abs=2e-3) and r["ok"]
    assert result["leaves"][0]["eps"] == 1e-3 and result["leaves"][0]["rtol"] == 1e-2


def test_a_wrong_custom_backward_is_caught_where_it_is_wrong(torch_module):
    result = _check(torch_module, WRONG_CUBE, "y")
    rows = _rows(result, "x")
    # 3x and 3x² agree at x = 1 only; float64 leaves and output: PyTorch gradcheck's eps and rtol
    assert [r["ok"] for r in rows.values()] == [True, False, False]
    assert [r["autograd"] for r in rows.values()] == [3.0, 6.0, -1.5]
    assert [r["numeric"] for r in rows.values()] == pytest.approx([3.0, 12.0, 0.75], abs=1e-6)
    assert result["disagree"] == 2 and result["leaves"][0]["eps"] == 1e-6
    # The right backward passes.
    fixed = _check(torch_module, WRONG_CUBE.replace("3 * x * g", "3 * x ** 2 * g"), "y")
    assert fixed["disagree"] == 0 and fixed["checked"] == 3


def test_a_kink_shows_autograd_taking_one_side(torch_module):
    code = "import torch\nx = torch.tensor([0.0, 2.0], requires_grad=True)\ny = x.relu() * 3\n"
    result = _check(torch_module, code, "y")
    assert result["weighed"] == "ones"  # Backward's default for a non-scalar: torch.ones_like(y)
    rows = _rows(result, "x")
    assert (rows["[0]"]["autograd"], rows["[0]"]["ok"]) == (0.0, False)
    assert rows["[0]"]["numeric"] == pytest.approx(1.5, abs=1e-3)  # the average of 0 and 3
    assert rows["[1]"]["ok"] and rows["[1]"]["autograd"] == 3.0


def test_the_gradient_weighs_the_output_and_module_parameters_are_leaves(torch_module):
    code = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nm = nn.Linear(3, 2)\n"
            "w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\nunused = torch.ones(2, requires_grad=True)\n"
            "out = m(w).tanh()\n")
    result = _check(torch_module, code, "out", "torch.tensor([1.0, -2.0])")
    assert result["weighed"] == "torch.tensor([1.0, -2.0])"
    assert [(leaf["label"], leaf["shape"], leaf["unused"]) for leaf in result["leaves"]] == [
        ("m.weight", "2×3", False), ("m.bias", "2", False), ("w", "3", False), ("unused", "2", True)]
    assert result["disagree"] == 0 and result["checked"] == result["total"] == 11
    # autograd's side is torch.autograd.grad with the gradient as grad_outputs
    bias = _rows(result, "m.bias")
    ns = Runner(torch_module).run(code).namespace
    expected = torch_module.autograd.grad(ns["out"], ns["m"].bias, torch_module.tensor([1.0, -2.0]))[0].tolist()
    assert [bias["[0]"]["autograd"], bias["[1]"]["autograd"]] == pytest.approx(expected, rel=1e-6)


def test_big_leaves_are_sampled_evenly_and_the_time_budget_stops_the_reruns(torch_module):
    code = "import torch\nw = torch.linspace(-1, 1, 200, requires_grad=True)\nb = torch.zeros(1, requires_grad=True)\n" \
           "loss = (w.sin() + b).pow(2).sum()\n"
    result = _check(torch_module, code, "loss")
    assert result["total"] == 201 and result["checked"] == 47 + 1 and result["disagree"] == 0
    assert list(_rows(result, "w"))[:3] == ["[0]", "[4]", "[9]"] and list(_rows(result, "w"))[-1] == "[199]"
    assert list(_rows(result, "b")) == ["[0]"]
    stopped = _check(torch_module, code, "loss", budget=0.0)
    assert stopped["timed_out"] and stopped["checked"] == 0
    # A slow run: the check stops before a pair of re-runs would overrun the budget.
    slow = _check(torch_module, "import time\n" + code + "time.sleep(0.2)\n", "loss", budget=1.5)
    assert slow["timed_out"] and 1 <= slow["checked"] <= 4


@pytest.mark.parametrize("code, output, kind, message", [
    ("import torch\nx = torch.ones(2)\ny = x * 2\n", "y", "output", "y"),
    ("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n", "y", "autograd",
     "RuntimeError: Trying to backward through the graph a second time"),
    ("import torch\ny = torch.ones(2, requires_grad=True).sum()\n", "y", "leaves", "y"),
    ("import torch\nx = torch.ones(1, requires_grad=True)\ny = torch.ones(2, requires_grad=True).sum()\n", "y",
     "leaves", "y"),
])
def test_what_cannot_be_checked_says_why(torch_module, code, output, kind, message):
    result = _check(torch_module, code, output)
    assert result["error"]["kind"] == kind and result["error"]["message"].startswith(message)


def test_a_rerun_that_goes_another_way_is_shown_as_failed(torch_module):
    code = ("import torch\nx = torch.tensor([1.0, 0.0], requires_grad=True)\n"
            "y = (x * 2).sum() if x[1] == 0 else None\n")
    result = _check(torch_module, code, "y")
    rows = _rows(result, "x")
    assert rows["[0]"]["ok"] and rows["[0]"]["numeric"] == pytest.approx(2.0, abs=1e-3)
    assert rows["[1]"]["failed"] == "the re-run gave no y of shape scalar" and result["disagree"] == 1
    code = "import torch\nx = torch.tensor([1.0, 0.0], requires_grad=True)\nassert x[1] == 0\ny = (x * 2).sum()\n"
    assert _rows(_check(torch_module, code, "y"), "x")["[1]"]["failed"] == "AssertionError"


def test_the_session_keeps_its_tensors_and_random_state(torch_module):
    session = InProcessSession(torch_module, time_limit=2.0)
    session.run("import torch\nx = torch.randn(3, requires_grad=True)\ny = (x * x).sum()\n")
    session.backward("y")
    before = {r["name"]: r["grad"] for r in session.snapshot().inspector}
    state = torch_module.get_rng_state()
    snap = session.gradcheck("y")
    assert snap.ok and snap.action == "gradcheck" and snap.gradcheck["disagree"] == 0
    assert {r["name"]: r["grad"] for r in snap.inspector} == before and snap.backward_count == 1
    assert torch_module.equal(torch_module.get_rng_state(), state)
    assert session.backward("y").gradcheck is not None  # it stays until the code runs again
    assert session.run("import torch\n").gradcheck is None


def test_the_check_crosses_to_the_child_process(torch_module_name):
    from playground.model.session import SubprocessSession

    with SubprocessSession(torch_module_name, time_limit=2.0) as session:
        session.run(WRONG_CUBE)
        snap = session.gradcheck("y", "")
        assert snap.ok and snap.gradcheck["disagree"] == 2 and snap.gradcheck["checked"] == 3
        assert [r["autograd"] for r in snap.gradcheck["leaves"][0]["rows"]] == [3.0, 6.0, -1.5]
