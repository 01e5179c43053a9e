"""The five autograd tutorials run unchanged with ``torch`` bound to the engine and show what
PyTorch 2.13 shows, cell by cell.

Every notebook runs twice per comparison, once on real PyTorch and once on the engine, through
``tests/torch_binding.run_cells``. Random numbers are made identical by a ``RandomTape``: one run
records what its ``rand``/``randn`` drew and the other replays those values, in both directions
(PyTorch's draws fed to the engine, and the engine's draws fed to PyTorch), so even the cells that
print random tensors must match character for character. A third pair of runs lets each side use
its own generator; then the cells that do not show random values must still match exactly.

The literal expectations (the outputs the tutorials print, where PyTorch 2.13 still prints them)
are checked against the engine everywhere and against PyTorch when it is installed.
"""
import re

import numpy as np
import pytest

from torch_binding import RandomTape, run_cells
from tutorial_cells import NB_002, NB_003, NOTEBOOKS, NONLEAF_GRAD_WARNING

import engine

SEED = 0
DIRECTIONS = ("torch_draws", "engine_draws")


def normalise(text):
    text = re.sub(r"0x[0-9a-fA-F]+", "0x…", text)
    return re.sub(r"id:\d+", "id:…", text)


_cache = {}


def run_pair(torch, nb, direction, seed=SEED):
    """(torch outputs, engine outputs, torch namespace, engine namespace) for one notebook."""
    key = (nb.name, direction, seed)
    if key not in _cache:
        torch.manual_seed(seed)
        engine.manual_seed(seed)
        tape = RandomTape()
        t_ns, e_ns = {}, {}
        if direction == "torch_draws":
            t_out = run_cells(nb.cells, tape.recording(torch), t_ns)
            e_out = run_cells(nb.cells, tape.replaying(engine), e_ns)
        elif direction == "engine_draws":
            e_out = run_cells(nb.cells, tape.recording(engine), e_ns)
            t_out = run_cells(nb.cells, tape.replaying(torch), t_ns)
        else:  # each side draws from its own generator
            t_out = run_cells(nb.cells, torch, t_ns)
            e_out = run_cells(nb.cells, engine, e_ns)
        if direction != "own_draws":
            assert tape.exhausted, "the replaying run drew fewer random tensors than the recording run"
        _cache[key] = (t_out, e_out, t_ns, e_ns)
    return _cache[key]


_engine_cache = {}


def engine_outputs(nb):
    if nb.name not in _engine_cache:
        engine.manual_seed(SEED)
        ns = {}
        _engine_cache[nb.name] = (run_cells(nb.cells, engine, ns), ns)
    return _engine_cache[nb.name]


def compared_cells():
    for nb in NOTEBOOKS.values():
        for i in range(len(nb.cells)):
            if i not in nb.unchecked:
                yield pytest.param(nb.name, i, id=f"{nb.name[:3]}-cell{i}")


def expected_cells():
    for nb in NOTEBOOKS.values():
        for i in sorted(nb.expected):
            yield pytest.param(nb.name, i, id=f"{nb.name[:3]}-cell{i}")


# ---------------------------------------------------------------- the engine alone (no torch needed)


def test_cells_were_copied_whole():
    assert [len(nb.cells) for nb in NOTEBOOKS.values()] == [6, 7, 28, 23, 3]
    assert sum(len(nb.expected) for nb in NOTEBOOKS.values()) >= 50


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_cell_runs_on_the_engine(name):
    nb = NOTEBOOKS[name]
    outputs, _ = engine_outputs(nb)
    assert len(outputs) == len(nb.cells)
    for i, out in enumerate(outputs):
        assert not re.search(r"^\w*(Error|Exception): ", out, re.M), f"cell {i} failed:\n{out}"


@pytest.mark.parametrize("name,i", list(expected_cells()))
def test_engine_shows_the_tutorial_output(name, i):
    nb = NOTEBOOKS[name]
    outputs, _ = engine_outputs(nb)
    assert normalise(outputs[i]) == nb.expected[i]


def test_magics_are_skipped():
    assert run_cells(["%matplotlib inline", "!pip list", "1 + 1"], engine) == ["", "", "2\n"]


def test_last_expression_shown_as_a_notebook_shows_it():
    out = run_cells(["x = torch.ones(2)\nx * 2", "x * 2;", "None", "print(1)\nx.sum().item()", "y = x"], engine)
    assert out == ["tensor([2., 2.])\n", "", "", "1\n2.0\n", ""]


def test_imports_resolve_to_the_given_module():
    ns = {}
    out = run_cells(
        [
            "import torch\nimport torch.autograd as autograd\nfrom torch.autograd import variable",
            "from torch.autograd.function import Function\nimport torch.nn.functional as F",
            "from torch.autograd import Variable\nimport numpy as np",
            "torch.__name__, autograd.__name__, F.__name__",
        ],
        engine,
        ns,
    )
    assert ns["torch"] is engine
    assert ns["autograd"] is engine.autograd
    assert ns["variable"] is engine.autograd.variable
    assert ns["Function"] is engine.autograd.Function
    assert ns["F"] is engine.nn.functional
    assert ns["Variable"] is engine.autograd.Variable
    assert ns["np"] is np
    assert out[-1] == "('engine', 'engine.autograd', 'engine.nn.functional')\n"


def test_errors_and_warnings_are_shown_and_the_notebook_goes_on():
    out = run_cells(
        [
            "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad",
            "x.numpy()",
            "x.sum().backward()\nx.grad",
        ],
        engine,
    )
    assert out[0] == NONLEAF_GRAD_WARNING
    assert out[1] == (
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
    )
    assert out[2] == "tensor([1., 1.])\n"


def test_version_cell_just_runs():
    outputs, _ = engine_outputs(NB_003)
    assert outputs[0] == repr(engine.__version__) + "\n"
    assert outputs[0].startswith("'2.13.0")


def test_next_functions_point_at_the_same_nodes():
    """002 cell 21: the first edge of z's AddBackward0 is y.grad_fn itself (same address)."""
    outputs, ns = engine_outputs(NB_002)
    (y_fn,) = re.findall(r"0x[0-9a-f]+", outputs[20])
    mul_fn, acc_b = re.findall(r"0x[0-9a-f]+", outputs[21])
    assert mul_fn == y_fn
    acc_w, = re.findall(r"0x[0-9a-f]+", outputs[22])
    assert acc_w != acc_b  # w's and b's AccumulateGrad are different nodes


def test_accumulate_grad_variable_is_the_leaf_itself():
    """003 cells 14-17: AccumulateGrad.variable is x (same id), shown as x is."""
    outputs, ns = engine_outputs(NB_003)
    ids = re.findall(r"id:(\d+)", outputs[16])
    assert len(ids) == 2 and ids[0] == ids[1]
    assert ns["x_leaf"].variable is ns["x"]
    assert outputs[15] == repr(ns["x"]) + "\n"
    assert outputs[15].endswith("requires_grad=True)\n")


def test_random_cells_recomputed_from_their_inputs():
    """The values the random cells show follow from the drawn tensors (engine's own draws)."""
    _, ns = engine_outputs(NB_003)
    x, y, z = ns["x"], ns["y"], ns["z"]
    assert x.shape == (5, 5) and x.dtype is engine.float32 and x.requires_grad and x.is_leaf
    assert ((x.detach().numpy() >= 0) & (x.detach().numpy() < 1)).all()
    assert type(z.grad_fn).__name__ == "AddBackward0"
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), 3 * y.detach().numpy() ** 2, rtol=1e-6)
    a, b = ns["a"], ns["b"]
    assert type(b.grad_fn).__name__ == "MulConstantBackward"
    np.testing.assert_allclose(b.detach().numpy(), 5 * a.detach().numpy(), rtol=1e-6)

    outputs, ns = engine_outputs(NB_002)
    x, w = ns["x"], ns["w"]
    assert re.fullmatch(
        r"\(tensor\(\[ ?-?\d\.\d{4}, +-?\d\.\d{4}, +-?\d\.\d{4}\]\), tensor\(\[1\., 1\., 1\.\]\), None\)\n"
        + re.escape(NONLEAF_GRAD_WARNING),
        outputs[27],
    )
    np.testing.assert_array_equal(x.grad.numpy(), w.detach().numpy())


def test_random_cells_have_the_tutorials_shape():
    """The random cells print what the tutorials show, up to the drawn values (engine's own draws)."""
    outputs, ns = engine_outputs(NOTEBOOKS["001_9221e7995355f3f6"])
    w_grad, b_grad = outputs[3].split("tensor(")[1:]
    rows = re.findall(r"\[([^\[\]]+)\]", w_grad)
    assert len(rows) == 5 and len(set(rows)) == 1  # x is ones: every row of w.grad is b.grad
    assert b_grad == "[" + rows[0] + "])\n"
    np.testing.assert_allclose(ns["w"].grad.numpy(), np.tile(ns["b"].grad.numpy(), (5, 1)), rtol=1e-6)

    outputs, _ = engine_outputs(NB_003)
    num = r" ?-?\d+\.\d{4}"
    row5 = r"\[" + ", ".join([num] * 5) + r"\]"
    matrix = r"tensor\(\[" + row5 + r"(,\n        " + row5 + r"){4}\]"
    assert re.fullmatch(matrix + r", requires_grad=True\)\n", outputs[1])
    assert re.fullmatch(matrix + r", requires_grad=True\)\n", outputs[2])
    assert re.fullmatch(r"tensor\(\d+\.\d{4}, grad_fn=<SumBackward0>\)\n", outputs[3])
    assert outputs[5].endswith("grad_fn=<AddBackward0>)\n") and outputs[5].count("\n") >= 5
    assert re.fullmatch(matrix + r"\)\n", outputs[6])
    a_line, b_line = outputs[20].split("\n", 2)[0], outputs[20].split("\n")[3]
    assert a_line.startswith("a:tensor([[") and outputs[20].count("requires_grad=True)") == 1
    assert b_line.startswith("b:tensor([[") and outputs[20].endswith("grad_fn=<MulConstantBackward>)\n")


def test_dir_lists_what_the_tutorial_talks_about():
    outputs, _ = engine_outputs(NB_003)
    for name in ("grad", "grad_fn", "is_leaf", "requires_grad", "backward", "data", "detach",
                 "register_hook", "retain_grad"):
        assert repr(name) in outputs[8]
    for cell in (11, 13):
        for name in ("__call__", "metadata", "name", "next_functions", "register_hook", "requires_grad"):
            assert repr(name) in outputs[cell]


# ---------------------------------------------------------------- against real PyTorch


@pytest.mark.torch
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name,i", list(compared_cells()))
def test_cell_matches_torch(torch_ref, name, i, direction):
    nb = NOTEBOOKS[name]
    t_out, e_out, _, _ = run_pair(torch_ref, nb, direction)
    assert normalise(e_out[i]) == normalise(t_out[i]), f"cell {i}:\n{nb.cells[i]}"


@pytest.mark.torch
@pytest.mark.parametrize("name,i", list(expected_cells()))
def test_torch_shows_the_tutorial_output(torch_ref, name, i):
    """The literal expectations are PyTorch 2.13's own output, not just the engine's."""
    nb = NOTEBOOKS[name]
    t_out, _, _, _ = run_pair(torch_ref, nb, "torch_draws")
    assert normalise(t_out[i]) == nb.expected[i]


@pytest.mark.torch
@pytest.mark.parametrize("seed", [SEED, 1, 42])
@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_cell_matches_with_the_same_seed(torch_ref, name, seed):
    """Each side draws from its own generator, seeded alike: the engine's generator is PyTorch's,
    so even the cells that print rand / randn values show PyTorch's numbers."""
    nb = NOTEBOOKS[name]
    t_out, e_out, _, _ = run_pair(torch_ref, nb, "own_draws", seed)
    for i in range(len(nb.cells)):
        if i not in nb.unchecked:
            assert normalise(e_out[i]) == normalise(t_out[i]), f"cell {i}:\n{nb.cells[i]}"


@pytest.mark.torch
@pytest.mark.parametrize("seed", [1, 2, 3, 7, 42])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", [nb.name for nb in NOTEBOOKS.values() if nb.random_cells])
def test_random_notebooks_match_for_other_seeds(torch_ref, name, direction, seed):
    nb = NOTEBOOKS[name]
    t_out, e_out, _, _ = run_pair(torch_ref, nb, direction, seed)
    for i in range(len(nb.cells)):
        if i not in nb.unchecked:
            assert normalise(e_out[i]) == normalise(t_out[i]), f"cell {i}:\n{nb.cells[i]}"


def _describe(torch, value):
    """What a namespace entry is, comparable across the two libraries."""
    if isinstance(value, (torch.Tensor, engine.Tensor)):
        fn = value.grad_fn
        grad = value.grad if value.is_leaf or value.retains_grad else None
        return {
            "shape": tuple(value.shape),
            "dtype": str(value.dtype),
            "requires_grad": value.requires_grad,
            "is_leaf": value.is_leaf,
            "grad_fn": None if fn is None else type(fn).__name__,
            "next": None if fn is None else tuple(
                (None if f is None else type(f).__name__, n) for f, n in fn.next_functions),
            "values": value.detach().numpy().tolist(),
            "grad": None if grad is None else grad.numpy().tolist(),
        }
    return None


@pytest.mark.torch
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_final_namespaces_agree(torch_ref, name, direction):
    """Every tensor a notebook leaves behind: shape, dtype, flags, node names, values and grads."""
    nb = NOTEBOOKS[name]
    _, _, t_ns, e_ns = run_pair(torch_ref, nb, direction)
    t_names = sorted(k for k, v in t_ns.items() if isinstance(v, torch_ref.Tensor))
    e_names = sorted(k for k, v in e_ns.items() if isinstance(v, engine.Tensor))
    assert e_names == t_names and t_names
    for k in t_names:
        t, e = _describe(torch_ref, t_ns[k]), _describe(torch_ref, e_ns[k])
        t_values, e_values = np.array(t.pop("values")), np.array(e.pop("values"))
        t_grad, e_grad = t.pop("grad"), e.pop("grad")
        assert e == t, k
        np.testing.assert_allclose(e_values, t_values, rtol=1e-6, atol=1e-7, err_msg=k)
        assert (e_grad is None) == (t_grad is None), k
        if t_grad is not None:
            np.testing.assert_allclose(np.array(e_grad), np.array(t_grad), rtol=1e-6, atol=1e-7, err_msg=k)


@pytest.mark.torch
def test_grad_fn_dir_has_torchs_public_names(torch_ref):
    t_out, e_out, _, _ = run_pair(torch_ref, NB_003, "torch_draws")
    for cell in (11, 13):
        t_public = {n for n in eval(t_out[cell]) if not n.startswith("_")}
        e_public = {n for n in eval(e_out[cell]) if not n.startswith("_")}
        assert t_public <= e_public
