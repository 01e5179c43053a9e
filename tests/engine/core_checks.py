"""Core autograd checks that need nothing but the engine and NumPy.

pytest runs them in CPython (test_core_checks.py); the browser tests run the very same
functions inside the static site's Pyodide (NumPy 2.0.2), so the engine is proven on the
runtime users get. Every check asserts specific values, names or messages.
"""
import gc
import math
import warnings
import weakref

import numpy as np

import engine as torch


def check_tutorial_mean():
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    out = torch.mean(x * x)
    assert repr(out) == "tensor(7.5000, grad_fn=<MeanBackward0>)", repr(out)
    out.backward()
    assert repr(x.grad) == "tensor([[0.5000, 1.0000],\n        [1.5000, 2.0000]])", repr(x.grad)


def check_accumulation_and_zero():
    inp = torch.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(torch.ones_like(inp), retain_graph=True)
    assert inp.grad.tolist()[0] == [4.0, 2.0, 2.0, 2.0, 2.0]
    out.backward(torch.ones_like(inp), retain_graph=True)
    assert inp.grad.tolist()[0] == [8.0, 4.0, 4.0, 4.0, 4.0]
    inp.grad.zero_()
    out.backward(torch.ones_like(inp), retain_graph=True)
    assert inp.grad.tolist()[1] == [2.0, 4.0, 2.0, 2.0, 2.0]


def check_graph_structure():
    x = torch.ones(1)
    w = torch.ones(1, requires_grad=True)
    b = torch.ones(1, requires_grad=True)
    y = w * x
    z = y + b
    assert (x.is_leaf, w.is_leaf, y.is_leaf, z.is_leaf) == (True, True, False, False)
    assert type(z.grad_fn).__name__ == "AddBackward0"
    (n0, i0), (n1, i1) = z.grad_fn.next_functions
    assert type(n0).__name__ == "MulBackward0" and n0 is y.grad_fn and i0 == 0
    assert type(n1).__name__ == "AccumulateGrad" and n1.variable is b and i1 == 0
    assert y.grad_fn.next_functions[1] == (None, 0)
    assert repr(z.grad_fn).startswith("<AddBackward0 object at 0x")


def check_second_backward_error_keeps_grads():
    x = torch.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    out.backward()
    try:
        out.backward()
    except RuntimeError as e:
        assert str(e).startswith("Trying to backward through the graph a second time"), str(e)
    else:
        raise AssertionError("no error on the second backward")
    assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]


def check_vjp_and_non_scalar_error():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * x
    try:
        y.backward()
    except RuntimeError as e:
        assert str(e) == "grad can be implicitly created only for scalar outputs"
    else:
        raise AssertionError("non-scalar backward without gradient did not raise")
    y.backward(torch.tensor([1., 1 / 2., 1 / 3.]))
    assert np.allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def check_create_graph_third_order():
    x = torch.tensor(2.0, requires_grad=True)
    (d1,) = torch.autograd.grad(x ** 4, x, create_graph=True)
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    (d3,) = torch.autograd.grad(d2, x)
    assert (d1.item(), d2.item(), d3.item()) == (32.0, 48.0, 48.0)


def check_hooks_and_retain_grad():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 3
    y.retain_grad()
    seen = []
    handle = y.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
    y.sum().backward()
    assert seen == [[1.0, 1.0]] and y.grad.tolist() == [2.0, 2.0] and x.grad.tolist() == [6.0, 6.0]
    handle.remove()
    z = x * 3
    z.sum().backward()
    assert x.grad.tolist() == [9.0, 9.0]


def check_nonleaf_grad_warning():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert y.grad is None
    assert w and "is not a leaf Tensor is being accessed" in str(w[0].message)


def check_no_grad_and_detach():
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    with torch.no_grad():
        assert (x ** 2).requires_grad is False
    y = x.detach()
    assert y.requires_grad is False and bool(x.eq(y).all())

    @torch.no_grad()
    def f(t):
        return t * 2

    assert f(x).requires_grad is False


def check_leaf_inplace_error():
    x = torch.ones(2, requires_grad=True)
    try:
        x.add_(1)
    except RuntimeError as e:
        assert str(e) == "a leaf Variable that requires grad is being used in an in-place operation."
    else:
        raise AssertionError("in-place on a leaf did not raise")


def check_custom_function():
    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    a = torch.ones(3, requires_grad=True)
    b = MulConstant.apply(a, 5)
    assert type(b.grad_fn).__name__ == "MulConstantBackward"
    b.backward(torch.ones_like(a))
    assert a.grad.tolist() == [5.0, 5.0, 5.0]


def check_bce_with_logits_stable():
    z = torch.tensor([100.0, -100.0, 0.0], requires_grad=True)
    y = torch.tensor([0.0, 1.0, 1.0])
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    assert type(loss.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    assert abs(loss.item() - (100 + 100 + np.log(2)) / 3) < 1e-3
    loss.backward()
    assert np.allclose(z.grad.numpy(), [1 / 3, -1 / 3, -1 / 6], atol=1e-6)


def check_long_chain_is_iterative():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def check_saved_tensors_released():
    x = torch.ones(1000, requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    node = y.grad_fn
    ref = weakref.ref(z.grad_fn.next_functions[0][0])
    z.backward()
    assert node._saved is None and node._freed
    del z, y, node
    gc.collect()
    assert ref() is None


def check_random_is_pytorchs():
    """PyTorch's generator on NumPy's MT19937 (Pyodide's NumPy too): PyTorch 2.13's own draws."""
    torch.manual_seed(0)
    assert repr(torch.randn(3)) == "tensor([ 1.5410, -0.2934, -2.1788])"
    assert repr(torch.rand(3)) == "tensor([0.4556, 0.6323, 0.3489])"
    assert torch.randint(0, 10, (5,)).tolist() == [6, 6, 9, 8, 6]
    assert torch.randperm(6).tolist() == [0, 4, 1, 3, 2, 5]
    torch.manual_seed(1)
    assert repr(torch.randn(20)[:4]) == "tensor([-1.5256, -0.7502, -0.6540, -1.6095])"
    assert repr(torch.randn(20, dtype=torch.float64)[-2:]) == "tensor([ 0.5238, -0.6942], dtype=torch.float64)"



def check_nn_and_optim_step():
    """A seeded nn.Sequential trained by SGD with momentum: PyTorch 2.13's parameters, losses and reprs."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    assert repr(model[0].weight) == ("Parameter containing:\ntensor([[-0.0043,  0.3097, -0.4752],\n"
                                     "        [-0.4249, -0.2224,  0.1548]], requires_grad=True)")
    x, y = torch.tensor([[1., 2., 3.], [4., 5., 6.]]), torch.tensor([[1.], [2.]])
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(repr(loss))
    assert losses == ["tensor(3.1749, grad_fn=<MseLossBackward0>)", "tensor(3.0518, grad_fn=<MseLossBackward0>)",
                      "tensor(2.8281, grad_fn=<MseLossBackward0>)"]
    assert repr(model[2].weight) == "Parameter containing:\ntensor([[-0.0628,  0.1924]], requires_grad=True)"
    assert model[2].weight._version == 4 and model[2].weight.grad_fn is None
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert repr(model) == ("Sequential(\n  (0): Linear(in_features=3, out_features=2, bias=True)\n  (1): ReLU()\n"
                           "  (2): Linear(in_features=2, out_features=1, bias=True)\n)")

def check_layers_hooks_and_save_load():
    """Conv, batch norm, pooling, an LSTM cell, saved-tensor hooks and torch.save/load: PyTorch 2.13's values."""
    import io

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(8, 1))
    x = torch.randn(2, 1, 6, 6)
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
        out = net(x).pow(2).mean()
    out.backward()
    assert round(out.item(), 4) == 0.2051, out
    assert round(net[0].weight.grad.sum().item(), 4) == 3.6954, net[0].weight.grad
    assert (2, 1, 6, 6) in packed and (2, 8) in packed, packed
    buf = io.BytesIO()
    torch.save(net.state_dict(), buf)
    names = []
    fn = net[3](net[2](net[1](net[0](x)))).grad_fn
    while fn is not None:
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    assert names == ["MaxPool2DWithIndicesBackward0", "ReluBackward0", "NativeBatchNormBackward0",
                     "ConvolutionBackward0"], names
    h, c = torch.nn.LSTMCell(3, 2)(torch.randn(1, 3))
    assert [round(v, 4) for v in h.tolist()[0]] == [0.0521, 0.1186], h
    buf.seek(0)
    state = torch.load(buf)
    assert [round(v, 4) for v in state["1.running_mean"].tolist()] == [-0.0191, -0.001], state
    assert int(state["1.num_batches_tracked"]) == 1
    # NumPy functions that take only intp (32 bits in Pyodide) indices
    assert torch.bincount(torch.tensor([1, 2, 2])).tolist() == [0, 1, 2]
    assert torch.histc(torch.tensor([1.0, 2.0, 2.0]), bins=2, min=0, max=2).tolist() == [0.0, 3.0]


# ----- Where Pyodide's NumPy differs: intp is 32 bits (np.take, np.repeat refuse int64 indices),
# WebAssembly has no floating-point flags (np.linalg raises nothing for a singular matrix) and
# saturates float-to-int conversions -----

def check_interpolate():
    import engine.nn.functional as F

    x = torch.arange(12.).view(1, 1, 3, 4)
    got = F.interpolate(x, size=(2, 6), mode="bilinear").flatten().tolist()
    assert np.allclose(got, [1.0, 1.5, 2.1666667, 2.8333333, 3.5, 4.0, 7.0, 7.5, 8.1666670, 8.8333330, 9.5, 10.0]), got
    got = F.interpolate(x, size=(2, 3), mode="bilinear", antialias=True).flatten().tolist()
    assert np.allclose(got, [1.8, 3.0, 4.2, 6.8, 8.0, 9.2]), got
    y = F.interpolate(x.requires_grad_(), scale_factor=2, mode="nearest")
    assert y.shape == (1, 1, 6, 8) and y.grad_fn.name() == "UpsampleNearest2DBackward0"
    u = torch.tensor([[[[3, 200], [255, 0]]]], dtype=torch.uint8)
    got = F.interpolate(u, size=(3, 3), mode="bilinear").flatten().tolist()
    assert got == [3, 102, 200, 129, 115, 100, 255, 128, 0], got


def check_integer_indices():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce's beta warning)
        t = torch.zeros(3, 2).index_reduce(0, torch.tensor([0, 2, 0]), torch.tensor([[1., 2.], [3., 4.], [5., 6.]]),
                                           "amax")
    assert t.tolist() == [[5.0, 6.0], [0.0, 0.0], [3.0, 4.0]], t.tolist()
    assert torch.arange(6.).view(3, 2).index_select(0, torch.tensor([2, 0])).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    assert torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist() == [0, 0, 2]


def check_conversions():
    assert torch.tensor([-4.0, 300.0]).to(torch.uint8).tolist() == [252, 44]
    assert torch.frexp(torch.tensor([float("inf"), float("nan"), 8.0])).exponent.tolist() == [0, 0, 4]


def check_singular_matrices():
    singular = torch.tensor([[1., 2.], [2., 4.]])
    for call, message in ((lambda: torch.linalg.inv(singular), "linalg.inv: The diagonal element 2 is zero"),
                          (lambda: torch.linalg.solve(singular, torch.tensor([1., 1.])),
                           "torch.linalg.solve: The solver failed because the input matrix is singular.")):
        try:
            call()
        except RuntimeError as e:
            assert type(e).__name__ == "_LinAlgError" and str(e).startswith(message), str(e)
        else:
            raise AssertionError("no error for a singular matrix")
    assert torch.linalg.inv_ex(singular).info.item() == 2


def check_relu_keeps_signed_zero_and_nan():
    # PyTorch's relu passes -0. and nan through; both the small and the large (vector loop) sizes
    for n in (1, 5000):
        x = torch.tensor([-0.0, 0.0, -2.0, 3.0, float("nan"), float("-inf")] * n, requires_grad=True)
        y = torch.relu(x)
        head = y[:6].tolist()
        assert [math.copysign(1.0, v) for v in head[:4]] == [-1.0, 1.0, 1.0, 1.0], head
        assert head[2:4] == [0.0, 3.0] and math.isnan(head[4]) and head[5] == 0.0, head
        y.sum().backward()
        assert x.grad[:6].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 0.0], x.grad[:6].tolist()


def check_large_tensors_own_their_storage():
    # Large factory tensors sit on 64-byte boundaries; their storage is their own bytes, no padding.
    made = {"tensor": torch.tensor(np.ones((64, 64), np.float32)), "zeros": torch.zeros(64, 64),
            "randn": torch.randn(64, 64), "clone": torch.ones(64, 64).clone(), "linear": torch.nn.Linear(64, 64).weight}
    for name, t in made.items():
        assert t.data_ptr() % 64 == 0, name
        assert t.untyped_storage().nbytes() == 64 * 64 * 4 and t.untyped_storage().data_ptr() == t.data_ptr(), name
    v = made["zeros"].view(-1)[64:]
    assert v.storage_offset() == 64 and v.untyped_storage().data_ptr() == made["zeros"].data_ptr()
    r = torch.zeros(4096)
    r.resize_(2)
    r.resize_(4096)
    assert r.shape == (4096,) and r.sum().item() == 0.0


def check_range_factories_step_as_pytorch():
    # linspace steps from each end to the middle with fused multiply-adds; logspace takes C's pow
    assert torch.linspace(0, 1, 7)[4].item() == 0.6666666269302368
    assert torch.linspace(2.7, -3.2, 4, dtype=torch.int64).tolist() == [2, 0, -1, -3]
    assert torch.logspace(0, 3, 4, dtype=torch.uint8).tolist() == [1, 10, 100, 232]
    assert torch.logspace(-2, 2, 5, dtype=torch.float64).tolist() == [0.01, 0.1, 1.0, 10.0, 100.0]
    # arange: each 256-bit vector of PyTorch's kernel steps on from its first element, rounded
    assert torch.arange(0, 4, 0.1)[9].item() == 0.9000000357627869 and torch.arange(0, 1, 0.1)[9].item() == 0.8999999761581421


CHECKS = {name: fn for name, fn in sorted(globals().items()) if name.startswith("check_")}


def run_all():
    """{name: "ok" or the error}: what the Pyodide test reads back."""
    results = {}
    for name, fn in CHECKS.items():
        try:
            fn()
            results[name] = "ok"
        except Exception as exc:  # noqa: BLE001 - report every failure, not just the first
            results[name] = f"{type(exc).__name__}: {exc}"
    return results

