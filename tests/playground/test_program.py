import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.model.program import NotToggleable, analyse, set_requires_grad, toggleable_names


@pytest.mark.parametrize(
    "code, name, on, expected",
    [
        ("x = torch.ones(2, 2, requires_grad=True)\n", "x", False, "x = torch.ones(2, 2)\n"),
        ("x = torch.ones(2, 2)\n", "x", True, "x = torch.ones(2, 2, requires_grad=True)\n"),
        ("w = torch.randn(5, 3)\n", "w", True, "w = torch.randn(5, 3, requires_grad=True)\n"),
        ("x = torch.ones(requires_grad=True, size=(2,))\n", "x", False, "x = torch.ones(size=(2,))\n"),
        ("x = torch.ones(2, requires_grad=False)\n", "x", True, "x = torch.ones(2, requires_grad=True)\n"),
        ("x = torch.tensor(1.0, requires_grad=flag)\n", "x", True, "x = torch.tensor(1.0, requires_grad=True)\n"),
        ("x = torch.ones(2, requires_grad=True)\n", "x", True, "x = torch.ones(2, requires_grad=True)\n"),
        ("x = torch.ones(2)\n", "x", False, "x = torch.ones(2)\n"),
        ("x = torch.randn()\n", "x", True, "x = torch.randn(requires_grad=True)\n"),
        ("x = torch.ones(\n    2,\n    2,\n)\n", "x", True, "x = torch.ones(\n    2,\n    2, requires_grad=True,\n)\n"),
        ("x = torch.ones(\n    2,\n    requires_grad=True,\n)\n", "x", False, "x = torch.ones(\n    2,\n)\n"),
        # non-ASCII before the call: ast columns are UTF-8 bytes
        ("s = '梯度'; w = torch.randn(5, 3)  # 权重\n", "w", True,
         "s = '梯度'; w = torch.randn(5, 3, requires_grad=True)  # 权重\n"),
        ("x = torch.ones(2)\r\ny = x * 2\r\n", "x", True, "x = torch.ones(2, requires_grad=True)\r\ny = x * 2\r\n"),
        # aliases and other factories
        ("import torch as T\nx = T.zeros(3)\n", "x", True, "import torch as T\nx = T.zeros(3, requires_grad=True)\n"),
        ("from torch import ones\nx = ones(3)\n", "x", True, "from torch import ones\nx = ones(3, requires_grad=True)\n"),
        ("from torch.autograd import Variable\nv = Variable(t)\n", "v", True,
         "from torch.autograd import Variable\nv = Variable(t, requires_grad=True)\n"),
        # the tutorial's requires_grad_ statement decides, so it is what gets edited
        ("x = torch.tensor([[1., 2.]])\nx.requires_grad_(True)\n", "x", False,
         "x = torch.tensor([[1., 2.]])\nx.requires_grad_(False)\n"),
        ("x = torch.tensor([1.])\nx.requires_grad_()\n", "x", False, "x = torch.tensor([1.])\nx.requires_grad_(False)\n"),
        ("x = torch.ones(2)\nx.requires_grad = True\n", "x", False, "x = torch.ones(2)\nx.requires_grad = False\n"),
        ("x = torch.randn(3).requires_grad_()\n", "x", False, "x = torch.randn(3).requires_grad_(False)\n"),
        ("x1 = torch.from_numpy(a)\n", "x1", True, "x1 = torch.from_numpy(a).requires_grad_()\n"),
        # inside a top-level with block
        ("with torch.no_grad():\n    c = torch.ones(2)\n", "c", True,
         "with torch.no_grad():\n    c = torch.ones(2, requires_grad=True)\n"),
        # the last assignment counts
        ("x = torch.ones(1)\nx = torch.zeros(1)\n", "x", True, "x = torch.ones(1)\nx = torch.zeros(1, requires_grad=True)\n"),
    ],
)
def test_toggle_edits_exact_text(code, name, on, expected):
    assert set_requires_grad(code, name, on) == expected


@pytest.mark.parametrize(
    "code, name, words",
    [
        ("y = x * 2\n", "y", "comes from `x * 2`"),
        ("x = np.ones(2)\n", "x", "comes from `np.ones(2)`"),
        ("for i in range(3):\n    x = torch.ones(2)\n", "x", "inside a loop"),
        ("a, b = torch.ones(2), torch.ones(2)\n", "a", "unpacked"),
        ("x = torch.ones(2)\n", "nope", "no top-level assignment to nope"),
        ("x = torch.ones(2\n", "x", "syntax error"),
        ("def x():\n    pass\n", "x", "function"),
    ],
)
def test_not_toggleable_says_why(code, name, words):
    with pytest.raises(NotToggleable) as info:
        set_requires_grad(code, name, True)
    assert words in str(info.value)


def test_toggleable_names_and_order():
    code = "x = torch.ones(2)\ny = x * 2\nz = y.detach()\nx = torch.ones(3)\n"
    names = toggleable_names(code)
    assert list(names) == ["y", "z", "x"]
    assert names["x"] is None and "comes from" in names["y"]


def test_origins():
    code = (
        "x = torch.ones(2, requires_grad=True)\ny = x.detach()\nv = x.data\n"
        "with torch.no_grad():\n    n = x * 2\n    f = torch.zeros(1)\n"
        "with torch.set_grad_enabled(False):\n    m = x + 1\n"
    )
    assert analyse(code).origins == {"y": "detach", "v": "detach", "n": "no_grad", "m": "no_grad"}


ident = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda s: s not in {"if", "in", "is", "or", "as", "def", "for", "and", "not", "del", "try"})
args = st.lists(st.sampled_from(["2", "3", "(2, 3)", "dtype=torch.float64", "device='cpu'"]), max_size=3).map(
    lambda xs: ", ".join(sorted(xs, key=lambda a: "=" in a)))
comment = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=20)


@settings(max_examples=100, deadline=None)
@given(name=ident, call_args=args, before=comment, after=comment, factory=st.sampled_from(["ones", "zeros", "randn", "rand"]))
def test_toggle_on_then_off_restores_the_code(name, call_args, before, after, factory):
    code = f"# {before}\n{name} = torch.{factory}({call_args})  # {after}\nprint({name})\n"
    on = set_requires_grad(code, name, True)
    assert "requires_grad=True" in on
    assert on.startswith(f"# {before}\n") and on.endswith(f"  # {after}\nprint({name})\n")
    assert set_requires_grad(on, name, False) == code
