"""torch.compile against PyTorch 2.13 (backend "aot_eager": AOTAutograd's graph, without inductor's C
compiler): the same values and grads, one CompiledFunctionBackward node whose next_functions are the
graph's inputs in PyTorch's order, PyTorch's errors."""
import pytest
from needs import require

import engine

pytestmark = pytest.mark.torch
torch = require("torch", "pip install torch==2.13.0: the reference every comparison needs")

@pytest.fixture(autouse=True)
def _validation_restored():
    """torch.compile turns distributions' argument checks off for the process (PyTorch's dynamo does):
    on again for the tests after these."""
    yield
    for T in (torch, engine):
        T.distributions.Distribution.set_default_validate_args(True)


SETUP = """
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.0, 2.0, 3.0])
G = torch.tensor([0.25, 4.0, -2.0], requires_grad=True)
"""

SCENARIOS = {
    "grad_and_plain_args": """
f = torch.compile(lambda x, w: (x.sin() * w).sum(), backend="aot_eager")
y = f(x, w)
y.backward()
""",
    "plain_arg_first": """
f = torch.compile(lambda a, b: (a.exp() * b).sum(), backend="aot_eager")
y = f(w, x)
y.backward()
""",
    "global_leaf": """
g = torch.compile(lambda a: (a * G).sum(), backend="aot_eager")
y = g(x)
y.backward()
""",
    "outside_non_leaf": """
h = x * 2
q = torch.compile(lambda a: (a * h).sum(), backend="aot_eager")
y = q(w.requires_grad_())
y.backward()
""",
    "several_outputs": """
k = torch.compile(lambda a: (a * 2, a.sum(), a.detach() + 1, 3), backend="aot_eager")
p, s, d, n = k(x)
(p.sum() + s).backward()
""",
    "input_returned": """
k = torch.compile(lambda a: a, backend="aot_eager")
same = k(x) is x
""",
    "unused_input": """
u = torch.compile(lambda a, b: (a * 2).sum(), backend="aot_eager")
y = u(x, G)
y.backward()
""",
    "list_and_keyword": """
v = torch.compile(lambda xs, scale=None: (xs[0] * xs[1] * scale).sum(), backend="aot_eager")
scale = torch.tensor(2.0, requires_grad=True)
y = v([x, G], scale=scale)
y.backward()
""",
    "retain_graph": """
u = torch.compile(lambda a: (a * a).sum(), backend="aot_eager")
y = u(x)
y.backward(retain_graph=True)
y.backward()
""",
    "twice": """
u = torch.compile(lambda a: (a * a).sum(), backend="aot_eager")
y = u(x)
y.backward()
y.backward()
""",
    "create_graph": """
u = torch.compile(lambda a: (a ** 3).sum(), backend="aot_eager")
y = u(x)
gx, = torch.autograd.grad(y, x, create_graph=True)
gx.sum().backward()
""",
    "no_grad": """
u = torch.compile(lambda a: (a * 3).sum(), backend="aot_eager")
with torch.no_grad():
    y = u(x)
""",
    "decorator": """
@torch.compile(backend="aot_eager")
def mean_exp(a):
    return a.exp().mean()

y = mean_exp(x)
y.backward()
name = mean_exp.__name__
""",
    "linear": """
torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
clin = torch.compile(lin, backend="aot_eager")
keys = list(clin.state_dict())
names = [n for n, _ in clin.named_parameters()]
same_weight = clin.weight is lin.weight
out = clin(x)
out.sum().backward()
lw, lb = lin.weight, lin.bias
""",
    "sequential": """
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
out = torch.compile(net, backend="aot_eager")(x)
out.backward()
w0, b0, w2, b2 = net.parameters()
""",
    "invalid_backend": "torch.compile(lambda a: a, backend='foo')",
    "invalid_mode": "torch.compile(lambda a: a, mode='fastest')",
    "mode_and_options": "torch.compile(lambda a: a, mode='max-autotune', options={'a': 1})",
    "not_callable": "torch.compile(3)",
    "backends": "backends = torch._dynamo.list_backends(), torch.compiler.list_backends()",
}


def _describe(ns, T):
    """What users see of the names a scenario leaves: values, grads, grad_fns and their edges, the
    tensors an edge leads to named by their variables."""
    names = {id(v): k for k, v in ns.items() if isinstance(v, T.Tensor)}

    def edge(e):
        node, nr = e
        if node is None:
            return None, nr
        if type(node).__name__ == "AccumulateGrad":
            return "leaf " + names.get(id(node.variable), "?"), nr
        return node.name(), nr

    out = {}
    for k, v in sorted(ns.items()):
        if k.startswith("__") or k == "torch" or callable(v) and not isinstance(v, T.Tensor):
            continue
        if isinstance(v, T.Tensor):
            fn = v.grad_fn
            grad = v.grad if v.is_leaf or v.retains_grad else None
            out[k] = (v.flatten().tolist(), None if grad is None else grad.flatten().tolist(), v.requires_grad,
                      None if fn is None else (fn.name(), [edge(e) for e in fn.next_functions]))
        elif isinstance(v, (bool, int, float, str, list, tuple)):
            out[k] = v
    return out


def _run(T, code):
    ns = {"torch": T}
    try:
        exec(SETUP + code, ns)
        error = None
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        error = (type(e).__name__, str(e))
    return _describe(ns, T), error


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_matches_torch(name):
    got, got_error = _run(engine, SCENARIOS[name])
    want, want_error = _run(torch, SCENARIOS[name])
    assert got_error == want_error
    assert got.keys() == want.keys()
    for k in want:
        g, w = got[k], want[k]
        if isinstance(w, tuple) and len(w) == 4:
            assert g[0] == pytest.approx(w[0], rel=1e-6), k
            assert (g[1] is None) == (w[1] is None), k
            if w[1] is not None:
                assert g[1] == pytest.approx(w[1], rel=1e-6), k
            assert g[2:] == w[2:], k
        else:
            assert g == w, k


def test_one_node_for_the_call():
    ns = {"torch": engine}
    exec(SETUP + SCENARIOS["grad_and_plain_args"], ns)
    y, x = ns["y"], ns["x"]
    assert repr(y) == "tensor(1.5244, grad_fn=<CompiledFunctionBackward>)"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.CompiledFunctionBackward object at 0x")
    assert y.grad_fn.next_functions[0][0].variable is x
    assert x.grad.tolist() == pytest.approx([0.8775825, 1.0806046, -1.2484405])


def test_default_backend_and_eager():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    assert engine.compile(lambda a: a * 2)(x).grad_fn.name() == "CompiledFunctionBackward"
    assert engine.compile(lambda a: a * 2, mode="reduce-overhead")(x).grad_fn.name() == "CompiledFunctionBackward"
    assert engine.compile(lambda a: a * 2, backend="eager")(x).grad_fn.name() == "MulBackward0"
    f = lambda a: a  # noqa: E731
    assert engine.compile(f, disable=True) is f


def test_module_wrapper():
    lin = engine.nn.Linear(3, 2)
    clin = engine.compile(lin)
    assert type(clin).__module__ == "torch._dynamo.eval_frame"
    assert repr(clin) == "OptimizedModule(\n  (_orig_mod): Linear(in_features=3, out_features=2, bias=True)\n)"
    assert clin._orig_mod is lin and clin.training
    clin.eval()
    assert not lin.training


def test_is_compiling_inside_the_call():
    seen = []

    @engine.compile
    def f(a):
        seen.append(engine.compiler.is_compiling())
        return a + 1

    f(engine.ones(2, requires_grad=True))
    assert seen == [True] and not engine.compiler.is_compiling()


def test_custom_backend_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="custom backend"):
        engine.compile(lambda a: a, backend=lambda gm, inputs: gm.forward)


def test_inner_graph_freed_with_the_node():
    import gc
    import weakref

    x = engine.randn(4, requires_grad=True)
    y = engine.compile(lambda a: (a.exp() * a).sum())(x)
    inner = weakref.ref(y.grad_fn.saved_tensors[0])
    y.backward()
    gc.collect()
    assert inner() is None


def test_first_compile_turns_distribution_checks_off(monkeypatch):
    """As PyTorch's dynamo does at the first torch.compile of a process (TorchPatcher.patch), only then."""
    monkeypatch.setattr(engine._compile, "_patched", [False])
    Normal = engine.distributions.Normal
    with pytest.raises(ValueError, match="Expected parameter scale"):
        Normal(0.0, -1.0)
    engine.compile(lambda a: a)
    assert Normal(0.0, -1.0).scale.item() == -1.0
    engine.distributions.Distribution.set_default_validate_args(True)
    engine.compile(lambda a: a)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        Normal(0.0, -1.0)
