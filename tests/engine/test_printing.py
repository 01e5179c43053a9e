"""engine._printing must print tensors character for character like PyTorch 2.13.

The literal tests run everywhere; the comparisons with real PyTorch use the
``torch_ref`` fixture from tests/conftest.py (skipped without torch, required in CI)
and carry the ``torch`` marker.
"""

import contextlib
import doctest

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine._printing as printing
from engine._printing import format_tensor, get_printoptions, printoptions, set_printoptions

DEFAULT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


@contextlib.contextmanager
def both_printoptions(torch, **kwargs):
    """Apply the same print options to torch and to engine._printing, restoring both afterwards."""
    old_torch = torch._tensor_str.get_printoptions()
    old_ours = get_printoptions()
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        torch.set_printoptions(**old_torch)
        set_printoptions(**old_ours)


@contextlib.contextmanager
def default_dtype(torch, dtype):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def ours_for(torch, t):
    """format_tensor called with everything PyTorch knows about ``t``."""
    grad_fn_name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return format_tensor(
        t.detach().numpy(),
        str(t.dtype).removeprefix("torch."),
        requires_grad=t.requires_grad,
        grad_fn_name=grad_fn_name,
        default_dtype_name=str(torch.get_default_dtype()).removeprefix("torch."),
    )


def assert_same(torch, t):
    assert ours_for(torch, t) == repr(t)


# --- literal expectations: no torch needed ------------------------------------------------


def f32(x):
    return np.array(x, dtype=np.float32)


LITERAL_CASES = [
    (f32(27.0), "float32", {"grad_fn_name": "MeanBackward0"}, "tensor(27., grad_fn=<MeanBackward0>)"),
    (
        f32([[1, 2], [3, 4]]),
        "float32",
        {"requires_grad": True},
        "tensor([[1., 2.],\n        [3., 4.]], requires_grad=True)",
    ),
    (f32(7.5), "float32", {}, "tensor(7.5000)"),
    (np.array([1.5, -2.0]), "float64", {}, "tensor([ 1.5000, -2.0000], dtype=torch.float64)"),
    (f32([-0.0, 1.5]), "float32", {}, "tensor([-0.0000, 1.5000])"),
    (f32([0.0, -0.0]), "float32", {}, "tensor([0., -0.])"),
    (f32(np.nan), "float32", {}, "tensor(nan)"),
    (f32([np.nan, np.inf, -np.inf, 1.0]), "float32", {}, "tensor([nan, inf, -inf, 1.])"),
    (f32([np.nan, np.inf, -np.inf, 1.5]), "float32", {}, "tensor([   nan,    inf,   -inf, 1.5000])"),
    (f32([1e-5, 1.0, 2.0]), "float32", {}, "tensor([1.0000e-05, 1.0000e+00, 2.0000e+00])"),
    (np.array([[-1, 20], [300, 4]]), "int64", {}, "tensor([[ -1,  20],\n        [300,   4]])"),
    (np.array(3, dtype=np.int32), "int32", {}, "tensor(3, dtype=torch.int32)"),
    (np.array([True, False, True]), "bool", {}, "tensor([ True, False,  True])"),
    (np.array([1.0, 2.0], dtype=np.float16), "float16", {}, "tensor([1., 2.], dtype=torch.float16)"),
    (f32([]), "float32", {}, "tensor([])"),
    (np.zeros((0, 3), dtype=np.float32), "float32", {}, "tensor([], size=(0, 3))"),
    (np.zeros((2, 0, 3), dtype=np.float32), "float32", {}, "tensor([], size=(2, 0, 3))"),
    (np.zeros(0, dtype=np.int64), "int64", {}, "tensor([], dtype=torch.int64)"),
    (np.arange(2000), "int64", {}, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        np.arange(24, dtype=np.float32).reshape(2, 3, 4),
        "float32",
        {},
        "tensor([[[ 0.,  1.,  2.,  3.],\n"
        "         [ 4.,  5.,  6.,  7.],\n"
        "         [ 8.,  9., 10., 11.]],\n"
        "\n"
        "        [[12., 13., 14., 15.],\n"
        "         [16., 17., 18., 19.],\n"
        "         [20., 21., 22., 23.]]])",
    ),
    (
        np.arange(16).reshape(2, 2, 2, 2),
        "int64",
        {},
        "tensor([[[[ 0,  1],\n"
        "          [ 2,  3]],\n"
        "\n"
        "         [[ 4,  5],\n"
        "          [ 6,  7]]],\n"
        "\n"
        "\n"
        "        [[[ 8,  9],\n"
        "          [10, 11]],\n"
        "\n"
        "         [[12, 13],\n"
        "          [14, 15]]]])",
    ),
    (
        np.arange(30, dtype=np.float32) / np.float32(7),
        "float32",
        {},
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
        "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
        "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
        "        3.8571, 4.0000, 4.1429])",
    ),
    (
        f32(
            [
                [0.33891, 0.49468, 0.080797, 0.25656, 0.29529],
                [0.5, 0.25, 0.125, 0.0625, 0.03125],
                [0.088726, 0.69701, 0.80164, 0.97221, 0.00042239],
            ]
        ),
        "float32",
        {"grad_fn_name": "AddBackward0"},
        "tensor([[3.3891e-01, 4.9468e-01, 8.0797e-02, 2.5656e-01, 2.9529e-01],\n"
        "        [5.0000e-01, 2.5000e-01, 1.2500e-01, 6.2500e-02, 3.1250e-02],\n"
        "        [8.8726e-02, 6.9701e-01, 8.0164e-01, 9.7221e-01, 4.2239e-04]],\n"
        "       grad_fn=<AddBackward0>)",
    ),
    (
        np.arange(1200, dtype=np.float32).reshape(30, 40),
        "float32",
        {},
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 3.7000e+01, 3.8000e+01,\n"
        "         3.9000e+01],\n"
        "        [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 7.7000e+01, 7.8000e+01,\n"
        "         7.9000e+01],\n"
        "        [8.0000e+01, 8.1000e+01, 8.2000e+01,  ..., 1.1700e+02, 1.1800e+02,\n"
        "         1.1900e+02],\n"
        "        ...,\n"
        "        [1.0800e+03, 1.0810e+03, 1.0820e+03,  ..., 1.1170e+03, 1.1180e+03,\n"
        "         1.1190e+03],\n"
        "        [1.1200e+03, 1.1210e+03, 1.1220e+03,  ..., 1.1570e+03, 1.1580e+03,\n"
        "         1.1590e+03],\n"
        "        [1.1600e+03, 1.1610e+03, 1.1620e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
        "         1.1990e+03]])",
    ),
]


@pytest.mark.parametrize(("data", "dtype_name", "kwargs", "expected"), LITERAL_CASES)
def test_literal(data, dtype_name, kwargs, expected):
    assert format_tensor(data, dtype_name, **kwargs) == expected


def test_default_dtype_float64_literal():
    assert format_tensor(np.array([1.0]), "float64", default_dtype_name="float64") == "tensor([1.])"
    assert format_tensor(f32([1.0]), "float32", default_dtype_name="float64") == "tensor([1.], dtype=torch.float32)"
    assert format_tensor(f32([]), "float32", default_dtype_name="float64") == "tensor([], dtype=torch.float32)"


def test_dtype_name_aliases():
    assert format_tensor(np.array([1.0]), "torch.float64") == "tensor([1.], dtype=torch.float64)"
    assert format_tensor(np.array([1.0]), "double") == "tensor([1.], dtype=torch.float64)"
    assert format_tensor(np.array([1]), "long") == "tensor([1])"


def test_printoptions_state():
    assert get_printoptions() == DEFAULT_OPTIONS
    with printoptions(precision=2, sci_mode=False):
        assert get_printoptions()["precision"] == 2
        assert format_tensor(f32([1e-5, 1.0]), "float32") == "tensor([0.00, 1.00])"
    assert get_printoptions() == DEFAULT_OPTIONS
    try:
        set_printoptions(profile="short")
        assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 2, "edgeitems": 2}
        set_printoptions(profile="full")
        assert get_printoptions() == {**DEFAULT_OPTIONS, "threshold": float("inf")}
        set_printoptions(sci_mode=True)
        assert get_printoptions()["sci_mode"] is True
        # Like torch, any call without sci_mode resets it to automatic.
        set_printoptions(precision=3)
        assert get_printoptions()["sci_mode"] is None
    finally:
        set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTIONS


def test_printoptions_literal_effects():
    with printoptions(threshold=5):
        assert format_tensor(np.arange(10), "int64") == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    with printoptions(edgeitems=0, threshold=5):
        assert format_tensor(np.arange(10), "int64") == "tensor([...], size=(10,))"
    with printoptions(linewidth=20):
        assert format_tensor(np.arange(10), "int64") == "tensor([0, 1, 2, 3,\n        4, 5, 6, 7,\n        8, 9])"


def test_doctests():
    failures, _ = doctest.testmod(printing)
    assert failures == 0
    assert get_printoptions() == DEFAULT_OPTIONS


# --- comparisons with PyTorch ------------------------------------------------------------


def _ops_cases():
    """name -> function building a torch tensor (seeded inside each function)."""

    def seeded(fn):
        def build(torch):
            torch.manual_seed(0)
            return fn(torch)

        return build

    cases = {
        # The autograd tutorial: out = ((x + 2) * (x + 2) * 3).mean() prints tensor(27., grad_fn=<MeanBackward0>).
        "tutorial_mean": lambda torch: (((torch.ones(2, 2, requires_grad=True) + 2) ** 2) * 3).mean(),
        "tutorial_mul": lambda torch: (torch.ones(2, 2, requires_grad=True) + 2) * (torch.ones(2, 2) + 2) * 3,
        "requires_grad_leaf": lambda torch: torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
        "scalar_7_5": lambda torch: torch.tensor(7.5),
        "float64": lambda torch: torch.tensor([1.5, -2.25], dtype=torch.float64),
        "float64_grad": lambda torch: torch.tensor([1.5, -2.25], dtype=torch.float64, requires_grad=True) * 2,
        "float16": lambda torch: torch.tensor([0.1, 1000.0, -3.0], dtype=torch.float16),
        "int64": lambda torch: torch.tensor([[-1, 20], [300, 4]]),
        "int32": lambda torch: torch.tensor([1, -2, 3], dtype=torch.int32),
        "int16": lambda torch: torch.tensor([[1], [-32768]], dtype=torch.int16),
        "int8": lambda torch: torch.tensor([-128, 127], dtype=torch.int8),
        "uint8": lambda torch: torch.tensor([0, 255], dtype=torch.uint8),
        "bool": lambda torch: torch.tensor([[True, False], [False, False]]),
        "bool_scalar": lambda torch: torch.tensor(True),
        "neg_zero": lambda torch: torch.tensor([-0.0, 0.0, 1.5]),
        "neg_zero_only": lambda torch: torch.tensor([-0.0]),
        "neg_zero_scalar": lambda torch: torch.tensor(-0.0),
        "nan_inf_int": lambda torch: torch.tensor([float("nan"), float("inf"), -float("inf"), 2.0]),
        "nan_inf_frac": lambda torch: torch.tensor([float("nan"), -float("inf"), 0.25]),
        "nan_inf_sci": lambda torch: torch.tensor([float("nan"), float("inf"), 1e-7, 3.0]),
        "only_nan": lambda torch: torch.tensor([float("nan"), float("nan")]),
        "sci_small": lambda torch: torch.tensor([1e-5, 1.0, 2.0]),
        "sci_big": lambda torch: torch.tensor([1e9, 1.0]),
        "sci_ratio": lambda torch: torch.tensor([0.001, 1.5]),
        "sci_int_mode": lambda torch: torch.tensor([1.0, 100000.0]),
        "big_ints_f64": lambda torch: torch.tensor([123456789.0, -1.0], dtype=torch.float64),
        "tiny_f64": lambda torch: torch.tensor([5e-324, 1e308], dtype=torch.float64),
        "rounding_f32": lambda torch: torch.tensor([0.00015, 0.12345, 2.00005, 1.99995]),
        "rounding_f64": lambda torch: torch.tensor([0.00015, 0.12345, 2.00005, 1.99995], dtype=torch.float64),
        "empty_1d": lambda torch: torch.zeros(0),
        "empty_2d": lambda torch: torch.zeros(0, 3),
        "empty_3d": lambda torch: torch.zeros(2, 0, 3),
        "empty_int": lambda torch: torch.zeros(0, dtype=torch.int64),
        "empty_bool_2d": lambda torch: torch.zeros(0, 3, dtype=torch.bool),
        "empty_f64": lambda torch: torch.zeros(0, dtype=torch.float64),
        "empty_grad": lambda torch: torch.zeros(0, 3, requires_grad=True),
        "arange_3d": lambda torch: torch.arange(24.0).reshape(2, 3, 4),
        "arange_4d": lambda torch: torch.arange(16).reshape(2, 2, 2, 2),
        "long_row": lambda torch: torch.arange(30.0) / 7,
        "long_row_ints": lambda torch: torch.arange(-100, 100),
        "long_row_grad": lambda torch: torch.arange(30.0, requires_grad=True) / 7,
        "summarised_ints": lambda torch: torch.arange(2000),
        "summarised_2d": lambda torch: torch.arange(1200.0).reshape(30, 40),
        "summarised_3d": lambda torch: torch.arange(2 * 10 * 60).reshape(2, 10, 60) - 600,
        "summarised_tall": lambda torch: torch.arange(3000.0).reshape(1000, 3) / 3,
        "rand_5x5_sci_grad": seeded(
            lambda torch: torch.rand(5, 5, requires_grad=True) * torch.tensor([1.0, 1, 1, 1, 1e-3]) + 0
        ),
        "randn_3d": seeded(lambda torch: torch.randn(2, 3, 4)),
        "randn_4d": seeded(lambda torch: torch.randn(2, 2, 3, 3, dtype=torch.float64)),
        "randn_big": seeded(lambda torch: torch.randn(50, 50) * 1e5),
        "randn_wide_grad": seeded(lambda torch: torch.randn(3, 30, requires_grad=True).relu()),
        "randint": seeded(lambda torch: torch.randint(-1000, 1000, (4, 7))),
        "mixed_magnitudes": lambda torch: torch.tensor([[1e-10, -3.5e12], [0.0, float("nan")]], dtype=torch.float64),
        "huge_f32": lambda torch: torch.tensor([3.4e38, -1.0]),
    }
    return cases


OPS_CASES = _ops_cases()


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(OPS_CASES))
def test_matches_torch(torch_ref, name):
    assert_same(torch_ref, OPS_CASES[name](torch_ref))


PRINTOPTION_SETTINGS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": False},
    {"sci_mode": True},
    {"linewidth": 40},
    {"linewidth": 10},
    {"profile": "full"},
    {"profile": "short"},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"edgeitems": 0},
    {"threshold": 5, "edgeitems": 0},
    {"profile": "short", "precision": 6, "linewidth": 60},
]


@pytest.mark.torch
@pytest.mark.parametrize("options", PRINTOPTION_SETTINGS, ids=str)
@pytest.mark.parametrize("name", sorted(OPS_CASES))
def test_matches_torch_with_printoptions(torch_ref, options, name):
    with both_printoptions(torch_ref, **options):
        assert_same(torch_ref, OPS_CASES[name](torch_ref))
    assert get_printoptions() == DEFAULT_OPTIONS


@pytest.mark.torch
@pytest.mark.parametrize("name", ["requires_grad_leaf", "float64", "empty_1d", "empty_f64", "scalar_7_5", "float16"])
def test_matches_torch_default_float64(torch_ref, name):
    with default_dtype(torch_ref, torch_ref.float64):
        assert_same(torch_ref, OPS_CASES[name](torch_ref))
        assert_same(torch_ref, OPS_CASES[name](torch_ref).float())


@pytest.mark.torch
def test_get_printoptions_matches_torch(torch_ref):
    assert get_printoptions() == torch_ref._tensor_str.get_printoptions()
    for options in PRINTOPTION_SETTINGS:
        with both_printoptions(torch_ref, **options):
            assert get_printoptions() == torch_ref._tensor_str.get_printoptions()


# --- property tests against PyTorch -------------------------------------------------------

NICE_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 1e-5, -1e-5, 1e-4, 1e8, 1e9, -1e12, 1000.0, 0.001, 123.456]
SPECIAL_FLOATS = [float("nan"), float("inf"), -float("inf")]

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def float_elements(width):
    tiny = st.floats(min_value=2.0**-40, max_value=2.0**-10, width=width)
    finite = st.one_of(
        st.floats(width=width, allow_nan=False, allow_infinity=False),
        st.floats(min_value=-10.0, max_value=10.0, width=width),
        tiny,
        tiny.map(lambda v: -v),
        st.integers(-10_000, 10_000).map(float),
        st.sampled_from(NICE_FLOATS),
    )
    return st.one_of(finite, finite, finite, st.sampled_from(SPECIAL_FLOATS))


@st.composite
def arrays(draw):
    kind = draw(st.sampled_from(["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]))
    shape = draw(shapes)
    if kind in ("float32", "float64"):
        elements = float_elements(32 if kind == "float32" else 64)
    elif kind == "float16":
        elements = st.one_of(
            st.floats(width=16),
            st.integers(-2048, 2048).map(float),
            st.sampled_from([v for v in NICE_FLOATS if abs(v) < 60000]),  # float16 tops out at 65504
        )
    elif kind == "bool":
        elements = st.booleans()
    else:
        info = np.iinfo(kind)
        elements = st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-5, 5).filter(lambda v: v >= info.min))
    return draw(hnp.arrays(dtype=np.dtype(kind), shape=shape, elements=elements))


def check_array(torch, arr, grad_kind):
    t = torch.from_numpy(arr.copy())
    if grad_kind != "none" and t.dtype.is_floating_point:
        t = t.clone().requires_grad_(True)
        if grad_kind == "op":
            t = t * 1
    assert_same(torch, t)


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.torch
@SETTINGS
@given(arr=arrays(), grad_kind=st.sampled_from(["none", "leaf", "op"]))
def test_hypothesis_matches_torch(torch_ref, arr, grad_kind):
    check_array(torch_ref, arr, grad_kind)


option_sets = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.integers(0, 60),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(5, 120),
        "sci_mode": st.sampled_from([None, True, False]),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)


@pytest.mark.torch
@SETTINGS
@given(arr=arrays(), grad_kind=st.sampled_from(["none", "op"]), options=option_sets)
def test_hypothesis_matches_torch_with_printoptions(torch_ref, arr, grad_kind, options):
    with both_printoptions(torch_ref, **options):
        check_array(torch_ref, arr, grad_kind)


@pytest.mark.torch
@settings(max_examples=100, deadline=None)
@given(arr=arrays())
def test_hypothesis_matches_torch_default_float64(torch_ref, arr):
    with default_dtype(torch_ref, torch_ref.float64):
        check_array(torch_ref, arr, "none")


# The namespaces whose classes users print (``type(model)``, ``torch.optim.SGD``, ...).
CLASS_NAMESPACES = ["", ".nn", ".nn.modules", ".nn.parameter", ".nn.utils.rnn", ".nn.utils.parametrize", ".optim",
                    ".optim.lr_scheduler", ".optim.swa_utils", ".autograd", ".autograd.graph", ".autograd.function",
                    ".autograd.forward_ad", ".autograd.grad_mode", ".autograd.anomaly_mode", ".utils.data",
                    ".utils.hooks", ".distributions", ".distributions.constraints", ".distributions.transforms"]


@pytest.mark.torch
def test_classes_print_with_pytorchs_module_paths(torch_ref, et):
    """``type(model)`` is ``<class 'torch.nn.modules.linear.Linear'>``, not the engine's own path."""
    import importlib

    compared = []
    for ns in CLASS_NAMESPACES:
        ours, theirs = importlib.import_module("engine" + ns), importlib.import_module("torch" + ns)
        for name in dir(theirs):
            cls = getattr(theirs, name)
            if name.startswith("_") or not isinstance(cls, type) or not isinstance(getattr(ours, name, None), type):
                continue
            assert repr(getattr(ours, name)) == repr(cls), f"torch{ns}.{name}"
            compared.append(name)
    assert {"Linear", "Sequential", "SGD", "StepLR", "no_grad", "Generator", "Node", "Function", "DataLoader",
            "Normal", "RemovableHandle", "Variable"} <= set(compared) and len(compared) > 250
    model = et.nn.Sequential(et.nn.Linear(2, 1))
    assert repr(type(model[0])) == "<class 'torch.nn.modules.linear.Linear'>"
    assert repr(type(et.optim.Adam(model.parameters()))) == "<class 'torch.optim.adam.Adam'>"


def test_classes_imported_straight_from_their_module_print_as_pytorchs():
    """A module imported by its own path (``from torch.optim.lr_scheduler import StepLR``), before
    anything else loaded it, renames its classes too; plain pickle still finds them."""
    import subprocess
    import sys

    import engine

    code = ("import pickle, engine\n"
            "from engine.optim.lr_scheduler import StepLR\n"
            "import engine.distributions.normal as normal\n"
            "print(StepLR, normal.Normal)\n"
            "d = pickle.loads(pickle.dumps(normal.Normal(engine.tensor(0.0), engine.tensor(2.0))))\n"
            "print(type(d) is normal.Normal, d.scale)\n"
            "print('torch' in __import__('sys').modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=engine.__path__[0] + "/..")
    assert out.stdout.splitlines() == ["<class 'torch.optim.lr_scheduler.StepLR'> "
                                       "<class 'torch.distributions.normal.Normal'>", "True tensor(2.)", "False"], \
        out.stderr
