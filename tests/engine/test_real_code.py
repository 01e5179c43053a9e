"""What real tutorial code does, end to end, against PyTorch 2.13 (``/work/shared/notes/real-code.md``).

Each case is a snippet the way tutorials, textbooks and course notebooks write it, run with
``torch`` bound to the engine through ``tests/torch_binding.run_cells``. Its output (prints, the
repr of a last expression, warnings, the error that stopped it) must equal ``EXPECTED``, which is
PyTorch 2.13's own output: ``test_engine_output`` checks the engine everywhere, and
``test_torch_output`` checks the literal against real PyTorch when it is installed. Object
addresses are normalised to ``0x…``. Random values never reach the output, except in the 60-minute
blitz snippet, which runs on identical draws through a ``RandomTape``.

Bullets of real-code.md, and the cases covering them:

- ``device=``/``dtype=`` on every factory, ``torch.float``/``torch.double``, ``.double()``,
  ``.float()``, ``set_default_device``: factories_device_dtype, device_object, dtype_aliases,
  double_float_casts, set_default_device, set_default_dtype
- ``torch.Tensor([...])``, ``torch.FloatTensor``, ``Variable``, shapes as tuples, ints, ``size=``,
  ``x.size()``: legacy_tensor, legacy_typed, legacy_variable, shape_arguments
- 0-d tensors: zero_dim_basics, zero_dim_sgd, zero_dim_errors
- printing: print_decimals, print_scientific, print_wrapping, print_dtype_suffix, set_printoptions,
  fstrings, numpy_printing
- reflected scalar ops: reflected_ops, reflected_grads
- ``.data``, boolean masks, row assignment: data_inplace, boolean_mask, row_assignment
- custom Functions: function_ctx_style, function_setup_context (CubeBackward / CubeBackwardBackward,
  ``Fn.apply`` aliased, a Function inside another's backward), function_save_none,
  function_materialize, function_multiple_outputs, function_in_backward, function_more (MyReLU and
  LegendrePolynomial3 from the PyTorch tutorials, needs_input_grad, mark_non_differentiable,
  once_differentiable)
- ``gradcheck``/``gradgradcheck`` with ``eps=``/``atol=``: gradcheck, gradcheck_messages, gradcheck_forms
- ``autograd.functional``: functional_jacobian, jacobian_more
- classics: blitz (random, see ``test_blitz_*``), blitz_requires_grad, manual_sgd, micrograd_neuron
- around them, the same code's neighbours: type_reprs, backward_errors, no_grad_variants,
  retain_grad_hooks, detach_and_clone, grad_function, numpy_interop, device_more, shapes_more,
  data_more, inplace_errors, mask_more, mask_write_grad, legacy_more, tensor_inference,
  copy_construct_warning, operator_operands, print_suffix_wrap, grad_fn_names, view_inplace, float64_precision
"""
import re

import numpy as np
import pytest

from torch_binding import RandomTape, run_cells

import engine

CASES = {}


def case(name, code):
    assert name not in CASES
    CASES[name] = code.strip("\n")


def lines(name, exprs, setup=""):
    """A case that shows each expression's repr, or the error it raises."""
    case(name, setup + "\nfor expr in " + repr(exprs) + """:
    try:
        print(expr, "->", repr(eval(expr)))
    except Exception as e:
        print(expr, "->", type(e).__name__, e)
""")


# ---- device= / dtype= keywords
case("factories_device_dtype", '''
dev = torch.device("cpu")
print(torch.zeros(2, 2, device=dev, dtype=torch.float64))
print(torch.ones((2,), device="cpu", dtype=torch.double))
print(torch.empty(3, device=dev, dtype=torch.float).shape, torch.empty(3, device=dev).dtype)
print(torch.full((2,), 1.5, device=dev, dtype=torch.float64))
print(torch.full((2,), 7, device="cpu"))
print(torch.eye(2, device="cpu", dtype=torch.float64))
print(torch.arange(3, device=dev, dtype=torch.float32))
print(torch.arange(0, 1, 0.25, device=dev))
print(torch.linspace(0, 1, 5, device=dev, dtype=torch.float64))
print(torch.logspace(0, 2, 3, device=dev))
print(torch.tensor([1, 2], device="cpu", dtype=torch.float))
print(torch.tensor(3, device=dev))
print(torch.as_tensor([1., 2.], device=dev, dtype=torch.float64))
print(torch.rand(2, device=dev, dtype=torch.float64).dtype, torch.rand(2, device=dev).dtype)
print(torch.randn(2, 2, device="cpu", dtype=torch.double, requires_grad=True).dtype)
print(torch.randint(0, 5, (3,), device=dev).dtype, torch.randint(5, (2, 2), device=dev, dtype=torch.float32).dtype)
print(torch.randperm(4, device=dev).dtype, torch.normal(0., 1., size=(2,), device=dev).shape)
x = torch.ones(2, 3)
print(torch.zeros_like(x, device=dev, dtype=torch.float64))
print(torch.ones_like(x, dtype=torch.long, device="cpu"))
print(torch.full_like(x, 2.5, device=dev))
print(torch.empty_like(x, device=dev).shape, torch.rand_like(x, dtype=torch.float64).dtype, torch.randn_like(x, device=dev).shape)
print(x.new_zeros(2, device=dev), x.new_ones((1, 2), dtype=torch.float64), x.new_tensor([1, 2], device=dev))
print(x.new_full((2,), 3., device=dev))
''')
case("device_object", '''
dev = torch.device("cpu")
print(dev, repr(dev), dev.type, dev.index)
print(torch.device("cpu") == torch.device("cpu"))
x = torch.ones(2)
print(x.device, x.device == dev, x.is_cuda)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device)
print(x.to(device), x.to(dev) is x, x.cpu() is x)
print(x.to("cpu", torch.float64))
print(x.to(device=dev, dtype=torch.double))
print(x.to(torch.float16).dtype, x.to(torch.int64))
''')
case("dtype_aliases", '''
print(torch.float is torch.float32, torch.double is torch.float64, torch.long is torch.int64)
print(torch.float, torch.double, torch.half, torch.long, torch.int, torch.bool)
print(repr(torch.float32), torch.float32.is_floating_point, torch.int64.is_floating_point)
print(torch.get_default_dtype())
x = torch.ones(2, dtype=torch.float)
print(x.dtype, x.dtype == torch.float32, x.dtype == torch.float)
''')
case("double_float_casts", '''
x = torch.tensor([1.5, 2.5], requires_grad=True)
y = x.double()
print(y, y.dtype)
z = (y * 2).float()
print(z, z.grad_fn, z.grad_fn.next_functions[0][0].name())
print(x.float() is x, x.double().double().dtype)
z.sum().backward()
print(x.grad, x.grad.dtype)
i = torch.tensor([1.7, -2.7])
print(i.long(), i.int(), i.half(), i.bool(), torch.tensor([1, 0]).float())
print(torch.tensor([1, 2]).double().requires_grad_())
''')
case("set_default_device", '''
print(torch.set_default_device("cpu"))
x = torch.zeros(2)
print(x.device, torch.tensor([1.]).device, torch.get_default_device())
torch.set_default_device(torch.device("cpu"))
print(torch.ones(1).device)
torch.set_default_device(None)
''')
case("set_default_dtype", '''
torch.set_default_dtype(torch.float64)
x = torch.tensor([1.5, 2.0])
print(x, x.dtype, torch.ones(2), torch.zeros(1, dtype=torch.float32))
print(torch.tensor(3.5), torch.arange(3.), torch.Tensor([1]).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5]).dtype)
''')

# ---- legacy constructors
case("legacy_tensor", '''
print(torch.Tensor([1, 2, 3]))
print(torch.Tensor([[1, 2], [3, 4]]).dtype)
print(torch.Tensor(2, 3).shape, torch.Tensor(torch.Size([2, 3])).shape, torch.Tensor((2, 3)))
print(torch.Tensor(), torch.Tensor([]).shape)
t = torch.Tensor([2.0])
print(t, t.requires_grad, t.is_leaf, t.grad_fn)
print(torch.Tensor(3).shape, type(torch.Tensor([1])) is torch.Tensor, isinstance(t, torch.Tensor))
print(torch.Tensor(torch.tensor([1, 2])))
print(torch.Tensor(5.0) if False else "ok")
''')
case("legacy_typed", '''
print(torch.FloatTensor([[1, 2], [3, 4]]))
print(torch.FloatTensor(2, 2).shape, torch.FloatTensor(2, 2).dtype)
print(torch.DoubleTensor([1, 2]), torch.LongTensor([1, 2]), torch.LongTensor([1.7]))
print(torch.IntTensor([3]), torch.ByteTensor([1, 0]), torch.BoolTensor([True]))
print(torch.FloatTensor(torch.tensor([1., 2.])))
x = torch.FloatTensor([1., 2.]).requires_grad_()
print(x, x.type(), torch.tensor([1, 2]).type(), x.double().type())
''')
case("legacy_variable", '''
from torch.autograd import Variable
v = Variable(torch.ones(2, 2), requires_grad=True)
print(v)
print(type(v) is torch.Tensor, isinstance(v, Variable), v.is_leaf, v.grad_fn)
w = Variable(torch.Tensor([3.]))
print(w, w.requires_grad)
y = (v * 3).sum()
y.backward()
print(v.grad, v.data)
u = torch.autograd.Variable(torch.tensor([1., 2.]), requires_grad=True)
print((u ** 2).sum(), torch.autograd.Variable(u) is u)
''')
case("shape_arguments", '''
x = torch.ones(2, 3)
print(torch.zeros((2, 3)).shape, torch.zeros([2, 3]).shape, torch.zeros(2, 3).shape)
print(torch.zeros(size=(2, 3)).shape, torch.ones(x.size()).shape, torch.randn(x.size()).shape)
print(torch.rand(size=(2,)).shape, torch.empty(x.shape).shape, torch.zeros(torch.Size([4])).shape)
print(torch.full(size=(2,), fill_value=3.), torch.zeros(x.size(0), 1).shape, torch.randn(3, 1).shape)
print(torch.zeros(()), torch.ones([]), torch.zeros(0).shape, torch.zeros(2, 0).shape)
print(x.size(), x.size(0), x.size(-1), x.shape[1], x.shape, tuple(x.shape), list(x.size()))
print(x.view(x.size(0), -1).shape, x.reshape(x.size()).shape, x.view(-1).shape, x.view(3, 2).shape)
print(x.new_zeros(x.size()).shape, x.numel(), x.dim(), x.ndim, len(x), x.size() == (2, 3))
print(torch.Size([2, 3]), torch.Size([2, 3]).numel(), x.shape[1:], type(x.shape[1:]).__name__)
''')

# ---- 0-d tensors
case("zero_dim_basics", '''
t = torch.full((), 2.5, dtype=torch.float64, requires_grad=True)
print(t, t.shape, t.dim(), t.numel())
r = torch.randn(())
print(r.shape, r.dim(), r.dtype, torch.rand(()).shape, torch.zeros(()).item())
s = torch.tensor(3.7)
print(float(s), int(s), bool(s), s.item(), s.tolist(), round(float(s), 2))
print(bool(torch.tensor(0.)), bool(torch.tensor([0.5])), float(torch.tensor([[2.]])))
if torch.tensor(0.5) > 0:
    print("positive")
n = torch.tensor(1.0)
steps = 0
while n < 100:
    n = n * 3
    steps += 1
print(n, steps)
print(torch.tensor(2) * 3, torch.tensor(True), torch.tensor(5).dtype)
print(s > 3, (s > 3).item(), type((s > 3).item()).__name__, type(s.item()).__name__)
''')
case("zero_dim_sgd", '''
a = torch.tensor(1.0, requires_grad=True)
lr = 0.1
for step in range(3):
    loss = (a - 3) ** 2
    loss.backward()
    with torch.no_grad():
        a -= lr * a.grad
    print(step, loss, a.grad)
    a.grad.zero_()
print(a, a.is_leaf, a.grad_fn, a.requires_grad)
b = torch.full((), 0.5, requires_grad=True)
c = b.exp() * 2
c.backward()
print(c, b.grad, b.grad.shape)
''')
# ---- printing
case("print_decimals", '''
print(torch.tensor([1.23456789, 2.0]))
print(torch.tensor(27.), torch.tensor([27.]), torch.tensor(7.5), torch.tensor(1/3))
print(torch.tensor([1., 2.5, -3.]))
print(torch.tensor([-0.0, 1.5]), torch.tensor([0.5, 1.5]) * -0.0)
print(torch.tensor([[1., -1.], [0.25, 100.]]))
print(torch.tensor([float("nan"), 1., float("inf"), -float("inf")]))
print(torch.tensor([1, -20, 300]), torch.tensor([True, False]))
print(torch.tensor(-0.0), torch.tensor([0.]), torch.tensor([123456.]))
''')
case("print_scientific", '''
print(torch.tensor([1e-5, 1.0]))
print(torch.tensor([1e10]), torch.tensor([1e8, 1.]), torch.tensor([1e7, 1.]))
print(torch.tensor([0.0001, 1000.]), torch.tensor([0.0001, 1000.1]))
print(torch.tensor(1e-5), torch.tensor(-0.00001234), torch.tensor(12345678.9))
print(torch.tensor([1e-12, -3.5e-8, 0.]))
print(torch.tensor([1e-5, 1.0], dtype=torch.float64))
''')
case("print_wrapping", '''
print(torch.arange(30.))
print(torch.arange(40.) / 7)
print(torch.arange(25).reshape(5, 5) * 1000)
print(torch.arange(12.).reshape(2, 2, 3))
x = torch.arange(24.).reshape(2, 12).requires_grad_()
print(x * 1.5)
print(torch.arange(2000))
print(torch.ones(1001))
''')
case("print_dtype_suffix", '''
print(torch.tensor([1., 2.], dtype=torch.float64))
x = torch.ones(2, dtype=torch.double, requires_grad=True)
print(x)
print(x * 2)
print(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2]), torch.tensor([1., 2.], dtype=torch.float16))
print(torch.tensor(3., dtype=torch.float64), torch.tensor([], dtype=torch.float64), torch.tensor([]))
print(torch.zeros(2, 0, dtype=torch.float64), torch.tensor([[]]))
print(torch.tensor([True]), torch.tensor([1], dtype=torch.uint8), torch.tensor([1.5], dtype=torch.float64).sum())
''')
case("set_printoptions", '''
x = torch.tensor([1.23456789, -2.5, 1e-3])
torch.set_printoptions(precision=2)
print(x)
torch.set_printoptions(precision=6)
print(x)
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-6, 1.0]), torch.tensor([-0.00001, 0.5]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 2.0]))
torch.set_printoptions(profile="default")
print(x, torch.tensor([1e-6, 1.0]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(20.).reshape(4, 5))
torch.set_printoptions(linewidth=40)
print(torch.arange(20.))
torch.set_printoptions(profile="short")
print(torch.arange(10.) / 3)
torch.set_printoptions(profile="full")
print(torch.arange(1002)[-3:])
torch.set_printoptions(profile="default")
print(torch.arange(10.) / 3)
''')
case("fstrings", '''
t = torch.tensor(3.14159)
print(f"{t}")
print(f"{t:.3f}", f"{t:.2e}", f"{t:>10.1f}", f"{t:g}")
loss = torch.tensor(0.123456, requires_grad=True) * 2
print(f"loss: {loss}")
print(f"loss: {loss.item():.2f}", "{:.4f}".format(loss.item()), "{}".format(loss))
m = torch.tensor([[1., 2.], [3., 4.]])
print(f"m = {m}")
print(f"{m!r}", str(m) == repr(m))
print("value: " + str(t), "%s" % t, "%.2f" % t)
print(f"{torch.tensor(5)}", f"{torch.tensor(5):03d}", f"{torch.tensor(True)}")
try:
    f"{m:.2f}"
except TypeError as e:
    print("TypeError:", e)
''')
case("numpy_printing", '''
x = torch.tensor([1., 2.5], requires_grad=True)
a = x.detach().numpy()
print(a)
print(repr(a), a.dtype, type(a).__name__)
y = x * 2
y.sum().backward()
print(x.grad.numpy(), repr(x.grad.numpy()))
print(torch.tensor(2.5).numpy(), repr(torch.tensor(2.5).numpy()))
print(torch.arange(6).reshape(2, 3).numpy(), torch.tensor([1., 2.], dtype=torch.float64).numpy())
print(torch.tensor([0.1, 0.2]).numpy(), torch.tensor([1e-5, 1.]).numpy())
print(x.data.numpy(), x.tolist(), torch.tensor([[1, 2]]).tolist())
try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
''')

# ---- reflected scalar ops
case("reflected_ops", '''
b = torch.tensor([1., 2.], requires_grad=True)
ops = {"4.2 - b": 4.2 - b, "10.0 / b": 10.0 / b, "2 * b": 2 * b, "2 + b": 2 + b, "2 ** b": 2 ** b,
       "b ** 2": b ** 2, "b - 1": b - 1, "b / 2": b / 2, "-b": -b, "abs(b)": abs(b), "b @ b": b @ b,
       "1 - b": 1 - b, "b + b": b + b, "b * b": b * b, "b / b": b / b, "b ** b": b ** b, "b ** 0.5": b ** 0.5}
for k, v in ops.items():
    print(k, "=", v)
''')
case("reflected_grads", '''
b = torch.tensor([1., 2.], requires_grad=True)
c = 4.2 - b
print(c.grad_fn, c.grad_fn.name(), c.grad_fn.next_functions)
c.sum().backward()
print(b.grad)
b.grad = None
f = 10.0 / b
print(f.grad_fn.next_functions)
f.sum().backward()
print(b.grad)
b.grad = None
(2 ** b).sum().backward()
print(b.grad)
x = torch.tensor([0., 1.], requires_grad=True)
e = torch.Tensor.exp(x)
print(e, torch.Tensor.sum(e), torch.Tensor.add(x, 1), torch.Tensor.mul(x, x))
e.sum().backward()
print(x.grad)
print(torch.exp(x).grad_fn, torch.Tensor.pow(x, 2).grad_fn)
''')

# ---- .data, masks, row assignment
case("data_inplace", '''
x = torch.ones(3, requires_grad=True)
x.data *= 100
print(x, x._version)
y = (x * 2).sum()
y.backward()
print(x.grad)
x.grad.data.zero_()
print(x.grad)
w = torch.tensor([1., 2.], requires_grad=True)
(w ** 2).sum().backward()
w.data -= 0.1 * w.grad.data
print(w, w.grad, w.data, w.data.requires_grad, w.is_leaf)
w.data = torch.zeros(2)
print(w)
w.grad.data.zero_()
print(w.grad)
''')
case("boolean_mask", '''
x = torch.tensor([1., -2., 3.], requires_grad=True)
d = torch.tensor([2., 0., 4.])
mask = d != 0
print(mask, x[mask], x[mask].grad_fn)
safe = torch.zeros_like(x)
safe[mask] = x[mask] / d[mask]
print(safe)
safe.sum().backward()
print(x.grad)
x.grad = None
y = torch.where(mask, x / d, torch.zeros_like(x))
print(y)
y.sum().backward()
print(x.grad)
t = torch.tensor([-1., 2., -3.])
t[t < 0] = 0
print(t, t[t > 0], (t > 0).sum(), x[x > 0])
''')
case("row_assignment", '''
t = torch.zeros(2, 3)
t[0] = 1
t[1] = torch.tensor([1., 2., 3.])
t[:, 0] = 5
print(t)
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.zeros(2, 2)
y[0] = x
y[1] = x * 3
print(y, y.grad_fn.name())
y.sum().backward()
print(x.grad)
z = torch.ones(3, 2)
z[1, 1] = 7
z[-1] = torch.tensor(9.)
print(z)
''')

# ---- custom Functions
case("function_ctx_style", '''
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

x = torch.tensor([0., 1.], requires_grad=True)
exp = Exp.apply
y = exp(x)
print(y, y.grad_fn, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
''')
case("function_setup_context", '''
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad, x)


class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(grad, x):
        return grad * 3 * x ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        grad, x = ctx.saved_tensors
        return grad_output * 3 * x ** 2, grad_output * grad * 6 * x


x = torch.tensor(2., requires_grad=True)
cube = Cube.apply
y = cube(x)
print(y, type(y.grad_fn).__name__)
gx, = torch.autograd.grad(y, x, create_graph=True)
print(gx, type(gx.grad_fn).__name__)
ggx, = torch.autograd.grad(gx, x)
print(ggx)
print(torch.autograd.gradcheck(Cube.apply, (torch.tensor([1.5, -0.5], dtype=torch.double, requires_grad=True),)))
print(torch.autograd.gradgradcheck(Cube.apply, (torch.tensor([1.5, -0.5], dtype=torch.double, requires_grad=True),)))
''')
case("function_save_none", '''
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, bias=None):
        ctx.save_for_backward(None, w)
        return x * w if bias is None else x * w + bias

    @staticmethod
    def backward(ctx, grad):
        nothing, w = ctx.saved_tensors
        print("saved:", nothing, w)
        return grad * w, None, None

x = torch.tensor([1., 2.], requires_grad=True)
w = torch.tensor([3., 4.])
Scale.apply(x, w).sum().backward()
print(x.grad)
''')
case("function_materialize", '''
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads:", g1, g2)
        out = torch.zeros(2)
        if g1 is not None:
            out = out + 2 * g1
        if g2 is not None:
            out = out + 3 * g2
        return out

class SplitM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads:", g1, g2)
        return 2 * g1 + 3 * g2

x = torch.tensor([1., 2.], requires_grad=True)
a, b = Split.apply(x)
print(a, b, a.grad_fn is b.grad_fn, a.output_nr, b.output_nr)
a.sum().backward()
print(x.grad)
x.grad = None
a, b = SplitM.apply(x)
b.sum().backward()
print(x.grad)
''')
case("function_multiple_outputs", '''
class MinMax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        lo, hi = x.min(), x.max()
        ctx.save_for_backward(x, lo, hi)
        return lo, hi

    @staticmethod
    def backward(ctx, glo, ghi):
        x, lo, hi = ctx.saved_tensors
        return glo * (x == lo).float() + ghi * (x == hi).float()

x = torch.tensor([3., 1., 2.], requires_grad=True)
lo, hi = MinMax.apply(x)
print(lo, hi)
(hi - lo).backward()
print(x.grad)
print(lo.grad_fn.next_functions)
''')
case("function_in_backward", '''
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return Double.apply(x) * g

class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, g):
        return 2 * g

x = torch.tensor([1., 3.], requires_grad=True)
y = Square.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(y, g)
g.sum().backward()
print(x.grad)
''')

# ---- gradcheck
case("gradcheck", '''
from torch.autograd import gradcheck, gradgradcheck
inp = (torch.tensor([0.3, -1.2, 2.0], dtype=torch.double, requires_grad=True),)
print(gradcheck(torch.sin, inp, eps=1e-6, atol=1e-4))
print(gradgradcheck(torch.sin, inp, eps=1e-6, atol=1e-4))
a = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.double, requires_grad=True)
b = torch.tensor([[0.5], [-1.]], dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (a, b), eps=1e-6, atol=1e-4, rtol=1e-3))
print(torch.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (a, b)))

class BadExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x

print(gradcheck(BadExp.apply, inp, eps=1e-6, atol=1e-4, raise_exception=False))
''')

# ---- functional
case("functional_jacobian", '''
from torch.autograd.functional import jacobian, vjp
def f(x):
    return x ** 2 + 1
x = torch.tensor([1., 2., 3.])
print(jacobian(f, x))
def g(a, b):
    return a * b + b
a = torch.tensor([1., 2.])
b = torch.tensor([3., 4.])
J = jacobian(g, (a, b))
print(type(J).__name__, len(J))
print(J)
print(torch.autograd.functional.jacobian(lambda x: x.sum(), x))
print(jacobian(lambda x: (x ** 3).sum(), torch.tensor(2.)))
out, v = vjp(f, x, v=torch.ones(3))
print(out, v)
out, grads = torch.autograd.functional.vjp(g, (a, b), v=torch.tensor([1., 0.5]))
print(out, grads)
print(vjp(lambda x: x.sum(), x))
''')

# ---- classics
case("blitz_requires_grad", '''
x = torch.randn(3, requires_grad=True)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.detach().requires_grad, x.eq(x.detach()).all())
''')
case("manual_sgd", '''
x = torch.linspace(-1, 1, 20).reshape(-1, 1)
y = 3 * x + 2
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(60):
    loss = ((x * w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 20 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
print(w, b)
print(w.grad, b.grad, w.is_leaf, w.grad_fn)
''')
case("micrograd_neuron", '''
x1 = torch.Tensor([2.0]).double()                ; x1.requires_grad = True
x2 = torch.Tensor([0.0]).double()                ; x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double()               ; w1.requires_grad = True
w2 = torch.Tensor([1.0]).double()                ; w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double()  ; b.requires_grad = True
n = x1*w1 + x2*w2 + b
o = torch.tanh(n)

print(o.data.item())
o.backward()

print('---')
print('x2', x2.grad.item())
print('w2', w2.grad.item())
print('x1', x1.grad.item())
print('w1', w1.grad.item())
print(o, n.grad_fn, o.grad_fn)
''')
# ---- beyond the bullets: what the same code also touches
case("type_reprs", '''
x = torch.ones(2, requires_grad=True)
print(type(x), type(x.shape), type(x.dtype), type(x.device), type(x.grad_fn))
y = x * 2
print(type(y.grad_fn), type(y.grad_fn).__name__, y.grad_fn.name(), type(y.grad_fn.next_functions[0][0]))
print(torch.Tensor, torch.Size, torch.dtype, torch.device, torch.autograd.Function.__name__)
print(x.__class__.__name__, isinstance(x.shape, tuple), repr(torch.Size([])))
''')
case("zero_dim_errors", '''
for expr in ["len(torch.tensor(2.))", "iter(torch.tensor(2.))", "float(torch.ones(2))", "int(torch.ones(2))",
             "bool(torch.ones(2))", "bool(torch.tensor([]))", "torch.ones(3).item()", "torch.tensor([]).item()",
             "torch.tensor(2.)[0]", "torch.tensor(2.).size(1)", "torch.tensor([1., 2.]).__index__()",
             "[1, 2, 3][torch.tensor(1)]", "range(torch.tensor(3))", "torch.tensor(2.).view(1)", "torch.tensor(2.).unsqueeze(0)",
             "torch.tensor(2.5).sum(0)", "torch.tensor(2.5).t()", "torch.tensor(3.).expand(2)",
             "torch.tensor(2.)[0:1]", "torch.tensor(2.)[None]", "torch.tensor(2.)[...]"]:
    try:
        print(expr, "->", eval(expr))
    except Exception as e:
        print(expr, "->", type(e).__name__, e)
''')
case("backward_errors", '''
x = torch.ones(2, requires_grad=True)
y = x * 2
for code in ["y.backward()", "torch.ones(2).backward()", "x.grad.zero_()", "(x*x).sum().backward(); (x*x).sum().backward()",
             "z = (x * x).sum(); z.backward(); z.backward()", "x.add_(1)", "torch.ones(2, dtype=torch.long, requires_grad=True)",
             "y.requires_grad = False", "torch.tensor([1, 2]).requires_grad_()", "y.backward(torch.ones(3))"]:
    try:
        exec(code)
        print(code, "-> ok")
    except Exception as e:
        print(code, "->", type(e).__name__, e)
''')
case("no_grad_variants", '''
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
with torch.enable_grad():
    print((x * 2).requires_grad)
@torch.no_grad()
def f(t):
    return t * 3
print(f(x), f(x).requires_grad)
with torch.inference_mode():
    print((x + 1).requires_grad)
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
print((x * 2).requires_grad)
''')
case("retain_grad_hooks", '''
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
z = (y ** 2).sum()
h = y.register_hook(lambda g: print("hook got", g))
z.backward()
print(y.grad, x.grad, y.is_leaf, y.retains_grad)
h.remove()
''')
case("detach_and_clone", '''
x = torch.tensor([1., 2.], requires_grad=True)
d = x.detach()
d[0] = 10
print(x, d)
c = x.clone()
print(c, c.grad_fn)
e = x.detach().clone()
e += 1
print(x, e, e.requires_grad)
print(x.detach().numpy(), x.clone().detach().requires_grad_(True))
''')
case("grad_function", '''
x = torch.tensor(3., requires_grad=True)
y = x ** 3
dy, = torch.autograd.grad(y, x, create_graph=True)
print(dy)
d2, = torch.autograd.grad(dy, x)
print(d2)
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
ga, gb = torch.autograd.grad((a * b).sum(), [a, b])
print(ga, gb)
print(torch.autograd.grad((a ** 2).sum(), a, retain_graph=True))
try:
    torch.autograd.grad((a * 2).sum(), [a, b])
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.autograd.grad((a * 2).sum(), [a, b], allow_unused=True))
''')
case("gradcheck_messages", '''
import warnings
from torch.autograd import gradcheck

class BadExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x

x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
try:
    gradcheck(BadExp.apply, (x,), eps=1e-6, atol=1e-4)
except Exception as e:
    print(type(e).__name__, e)
print(gradcheck(torch.exp, (torch.tensor([0.5, 1.0], requires_grad=True),), eps=1e-3, atol=1e-2, raise_exception=False))
''')
case("jacobian_more", '''
from torch.autograd.functional import jacobian, vjp, hessian
x = torch.tensor([1., 2.])
print(jacobian(lambda x: (x[0] * x[1], x[0] + x[1]), x))
print(jacobian(lambda a, b: a @ b, (torch.eye(2), x)))
print(jacobian(lambda x: x.exp(), torch.tensor([[0., 1.]])).shape)
print(hessian(lambda x: (x ** 3).sum(), x))
print(vjp(lambda x: x * 2, x, v=torch.tensor([1., -1.])))
print(vjp(lambda a, b: a * b, (x, x), v=torch.ones(2))[1])
J = jacobian(lambda x: x ** 2, torch.tensor([3.], requires_grad=True), create_graph=True)
print(J, J.requires_grad)
''')

# ---- more of the same, one expression per line
lines("numpy_interop", ["np.exp(torch.tensor([1., 2.]))", "np.sqrt(torch.tensor(4.))", "np.isnan(torch.tensor([1., float('nan')]))", "np.round(torch.tensor([1.4, 2.6]))", "np.float64(2.) - torch.ones(2, requires_grad=True)", "np.float64(2.) < torch.tensor([1., 3.])", "np.exp(torch.ones(1, requires_grad=True))", "np.float64(2.) * torch.ones(2)", "torch.ones(2) * np.float64(2.)",
    "np.float32(2.) + torch.ones(2)", "np.array(torch.tensor([1., 2.]))", "np.asarray(torch.tensor([1, 2]))", "math.sqrt(torch.tensor(4.))",
    "np.float32(torch.tensor(1.5))", "torch.tensor(np.float64(1.5))", "torch.tensor(np.array([1, 2]))", "torch.tensor(np.array(3.5))",
    "torch.from_numpy(np.array([1., 2.]))", "torch.ones(2) + np.array([1., 2.])", "torch.tensor([np.float32(1.), np.float32(2.)])", "torch.tensor(np.int64(3))", "torch.ones(np.int64(2))", "np.sum(torch.tensor([1., 2.]))",
    "torch.ones(2, requires_grad=True) * np.float64(2.)", "np.mean(torch.tensor([1., 2.]).numpy())", "round(torch.tensor(2.567), 2)", "round(torch.tensor(2.567))",
    "torch.tensor([1., 2.]).numpy().tolist()", "list(torch.tensor([1., 2.]))", "torch.tensor([1, 2]).tolist()[0] + 1", "[float(v) for v in torch.tensor([1., 2.])]",
    "torch.tensor(2.) == 2", "torch.tensor(2.) == 2.0", "2 == torch.tensor(2.)", "max(torch.tensor(3.), torch.tensor(1.))", "sorted([torch.tensor(3.), torch.tensor(1.)])",
    "int(torch.tensor(3.9))", "int(torch.tensor(-3.9))", "-torch.tensor(0.)", "abs(torch.tensor(-2.))", "'%d' % torch.tensor(3)", "'%.3f' % torch.tensor(3.)",
    "'{:d}'.format(torch.tensor(7))", "torch.tensor(2.5).round()", "torch.tensor([0.5, 1.5, 2.5]).round()", "divmod(torch.tensor(7.), 2)"], setup="import math, warnings\nimport numpy as np\n# PyTorch's own __array_wrap__ predates NumPy 2 and warns about it; that is not what is compared\nwarnings.filterwarnings('ignore', category=DeprecationWarning)")
lines("device_more", ["torch.device('cuda:0')", "torch.device('cpu', 0)", "str(torch.device('cpu'))", "torch.ones(2).is_cpu",
    "torch.zeros(2, device='cuda')", "torch.ones(2).cuda()", "torch.ones(2).to('cuda')", "torch.cuda.is_available()", "torch.cuda.device_count()",
    "torch.ones(2).device.type", "torch.ones(2).to(torch.device('cpu')).device", "torch.ones(2, device=torch.device('cpu', 0)).device",
    "torch.backends.mps.is_available()", "torch.ones(2).to('cpu', non_blocking=True)", "torch.ones(2).to(torch.ones(1, dtype=torch.float64))",
    "torch.device('gpu')", "torch.ones(2).pin_memory()" ])
# ---- the set-up lines real code runs first: which device, seeds everywhere, reproducibility switches
case("device_and_seed_boilerplate", """
import random
import numpy as np
import torch.backends.cudnn as cudnn

def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

set_seed(42)
cudnn.enabled = True
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(f"Using {device} device", torch.backends.cudnn.deterministic, cudnn.benchmark)
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled(), torch.rand(2, device=device))
with torch.random.fork_rng():
    print(torch.rand(1))
print(torch.rand(1), torch.random.initial_seed())
import warnings
warnings.filterwarnings("ignore", message="torch.set_default_tensor_type")
torch.set_default_tensor_type(torch.DoubleTensor)
print(torch.tensor([1.5]).dtype, torch.zeros(1))
torch.set_default_tensor_type("torch.FloatTensor")
print(torch.get_default_dtype())
torch.use_deterministic_algorithms(False)
""")
lines("runtime_switches", [
    "torch.cuda.device_count()", "torch.cuda.is_initialized()", "torch.cuda.empty_cache()",
    "torch.cuda.memory_allocated()", "torch.cuda.current_device()", "torch.cuda.get_device_name(0)",
    "torch.cuda.synchronize()", "torch.cuda.is_bf16_supported()", "torch.cuda.manual_seed('a')",
    "torch.cuda.get_rng_state()", "torch.cuda.set_rng_state(torch.get_rng_state())",
    "[f.__name__ for f in (torch.cuda.current_device, torch.cuda.get_device_name, torch.cuda.synchronize)]",
    "torch.backends.cudnn.is_available()", "torch.backends.cudnn.version()", "torch.backends.cudnn.enabled",
    "torch.backends.cudnn.allow_tf32", "torch.backends.mps.is_built()", "torch.backends.cuda.is_built()",
    "torch.backends.cuda.matmul.allow_tf32", "torch.accelerator.is_available()",
    "torch.accelerator.current_accelerator()", "torch.accelerator.device_count()",
    "torch.accelerator.current_device_index()", "torch.accelerator.synchronize()", "torch.version.cuda",
    "torch.version.hip", "torch.are_deterministic_algorithms_enabled()", "torch.use_deterministic_algorithms(1)",
    "torch.use_deterministic_algorithms(True, warn_only=True)",
    "torch.is_deterministic_algorithms_warn_only_enabled()", "torch.use_deterministic_algorithms(False)",
    "torch.is_deterministic_algorithms_warn_only_enabled()", "torch.get_float32_matmul_precision()",
    "torch.set_float32_matmul_precision('high')", "torch.get_float32_matmul_precision()",
    "torch.set_float32_matmul_precision(1)", "torch.set_float32_matmul_precision('fast')",
    "torch.get_float32_matmul_precision()", "torch.set_float32_matmul_precision('highest')",
    "torch.set_default_tensor_type(torch.LongTensor)", "torch.set_default_tensor_type(torch.float64)",
    "torch.set_default_tensor_type('torch.Foo')", "torch.get_default_dtype()", "type(torch.random.get_rng_state())",
    "torch.random.manual_seed(3).initial_seed()"],
    setup="import warnings\nwarnings.filterwarnings('ignore', message='torch.set_default_tensor_type')")
# ---- the deprecated hook form of spectral norm, as GAN tutorials use it: start, graph, power iteration
case("spectral_norm_hook", """
import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm, remove_spectral_norm

torch.manual_seed(0)
m = spectral_norm(nn.Linear(5, 4))
print(sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()), list(m.state_dict()))
print(m.weight_u, m.weight_v)
x = torch.randn(3, 5)
y = m(x)
print(y)
print(m.weight.grad_fn, [type(f).__name__ for f, _ in m.weight.grad_fn.next_functions])
sig = m.weight.grad_fn.next_functions[1][0]
print(sig.name(), [type(f).__name__ if f else None for f, _ in sig.next_functions])
y.sum().backward()
print(m.weight_orig.grad)
print(m.weight_u)
for _ in range(20):
    m(x)
print(torch.linalg.matrix_norm(m.weight.detach(), 2), torch.linalg.svdvals(m.weight_orig.detach())[0])
m.eval()
u = m.weight_u.clone()
m(x)
print(torch.equal(u, m.weight_u))
c = spectral_norm(nn.ConvTranspose2d(2, 3, 2), n_power_iterations=2)
print(c.weight_u.shape, c.weight_v.shape, c(torch.randn(1, 2, 3, 3)).shape)
print(c.weight.grad_fn.next_functions[1][0].next_functions[1][0].next_functions[0][0].next_functions[0][0])
remove_spectral_norm(m)
print(type(m.weight), sorted(n for n, _ in m.named_parameters()), list(m.state_dict()))
print(m.weight)
for bad in (lambda: spectral_norm(spectral_norm(nn.Linear(2, 2))), lambda: spectral_norm(nn.Linear(2, 2), n_power_iterations=0),
            lambda: remove_spectral_norm(nn.Linear(2, 2)), lambda: spectral_norm(nn.Linear(2, 2, bias=False), name="bias")):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
m2 = spectral_norm(nn.Linear(5, 4))
m3 = spectral_norm(nn.Linear(5, 4))
m3.load_state_dict(m2.state_dict())
print(torch.equal(m3(x), m2(x)))
""")

case("checkpoint", """
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

calls = []
def block(t):
    calls.append("run")
    a = t.exp()
    print("  after exp")
    return (a * 3).sin()

x = torch.tensor([0.5, 0.25, -2.0], requires_grad=True)
y = checkpoint(block, x)  # no use_reentrant: PyTorch's warning, and the reentrant way
print(y, [n.name() if n else None for n, _ in y.grad_fn.next_functions])
print("backward:")
y.sum().backward()
print(x.grad, calls)

x.grad = None
y = checkpoint(block, x, use_reentrant=False)  # the function's own nodes; the rerun stops at the last save
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
print(y.grad_fn._saved_self)  # read outside a backward: a rerun of its own
print("backward:")
y.sum().backward(retain_graph=True)
y.sum().backward()
print(x.grad, calls)

try:
    torch.autograd.grad(checkpoint(block, x, use_reentrant=True).sum(), x)
except RuntimeError as e:
    print("RuntimeError", e)
print(torch.autograd.grad(checkpoint(block, x, use_reentrant=False).sum(), x))
print(checkpoint(block, torch.ones(2), use_reentrant=True).requires_grad)
with torch.no_grad():
    print(checkpoint(block, x, use_reentrant=False).requires_grad)
for kw in [dict(use_reentrant=True, k=1), dict(use_reentrant=True, debug=True),
           dict(use_reentrant=False, determinism_check="shapes")]:
    try:
        checkpoint(block, x, **kw)
    except ValueError as e:
        print("ValueError", e)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
inp = torch.randn(2, 3, requires_grad=True)
out = checkpoint_sequential(model, 2, inp)
out.sum().backward()
print(out, inp.grad, model[0].weight.grad, sep="\\n")
out = checkpoint_sequential(model, 3, inp, use_reentrant=False)
print(out.grad_fn.name(), [n.name() for n, _ in out.grad_fn.next_functions])
out.sum().backward()
print(inp.grad)

h = x * 1
out = checkpoint(torch.exp, h, use_reentrant=False)
h.add_(1)
try:
    out.sum().backward()
except RuntimeError as e:
    print("RuntimeError", str(e)[:140])
runs = []
def changing(t):
    runs.append(1)
    return t.exp() if len(runs) == 1 else t.reshape(3, 1).exp()
try:
    checkpoint(changing, x, use_reentrant=False).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, str(e)[:330])
""")
# ---- nn.Buffer (PyTorch 2.5+): module state assigned as an attribute, persistent or not
case("buffers", """
import torch
import torch.nn as nn


class RunningNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.mean = nn.Buffer(torch.zeros(n))
        self.count = nn.Buffer(torch.tensor(0), persistent=False)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.mean.mul_(0.9).add_(0.1 * x.mean(0))
                self.count += 1
        return (x - self.mean) * self.weight


torch.manual_seed(0)
m = RunningNorm(3)
x = torch.randn(4, 3)
m(x).sum().backward()
print(m.mean, m.count, m.weight.grad)
print(list(m.state_dict()), [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()])
b = nn.Buffer(torch.ones(2, requires_grad=True))
print(type(b), isinstance(b, nn.Buffer), isinstance(torch.ones(2), nn.Buffer), b.persistent, b.requires_grad, b.is_leaf)
print(nn.Buffer(), nn.Buffer().persistent, isinstance(nn.Parameter(torch.ones(1)), nn.Buffer))
m.mean = torch.full((3,), 5.)  # a plain tensor keeps the slot a buffer
m.extra = nn.Buffer(torch.ones(1), persistent=False)
print(sorted(m.state_dict()), sorted(n for n, _ in m.named_buffers()), m.mean)
m.extra = torch.zeros(1)  # stays non-persistent
print(sorted(m.state_dict()), m.extra)
try:
    m.mean = [1., 2.]
except TypeError as e:
    print("TypeError", e)
try:
    nn.Buffer([1., 2.])
except AttributeError as e:
    print("AttributeError", e)


class Old(nn.Module):
    def register_buffer(self, name, tensor):
        super().register_buffer(name, tensor)


o = Old()
o.a = nn.Buffer(torch.ones(1))
try:
    o.b = nn.Buffer(torch.ones(1), persistent=False)
except RuntimeError as e:
    print("RuntimeError", e)
print(list(o.state_dict()))
m2 = RunningNorm(3)
m2.load_state_dict(m.state_dict())
print(m2.mean, m2.count)
print(m)
""")
# ---- an imbalanced dataset drawn evenly: WeightedRandomSampler with class weights, and its errors
case("weighted_sampler", """
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
torch.manual_seed(0)
labels = torch.tensor([0] * 8 + [1] * 2)
counts = torch.bincount(labels)
class_weights = 1.0 / counts.float()
sample_weights = class_weights[labels]
sampler = WeightedRandomSampler(sample_weights, num_samples=len(sample_weights), replacement=True)
ds = TensorDataset(torch.arange(10.).unsqueeze(1), labels)
loader = DataLoader(ds, batch_size=4, sampler=sampler)
for xb, yb in loader:
    print(xb.squeeze(1), yb)
print(len(sampler), len(loader), sampler.weights.dtype, sampler.weights)
print(list(WeightedRandomSampler([1, 2, 3], 3, replacement=False, generator=torch.Generator().manual_seed(1))))
for bad in [dict(weights=[1., 2.], num_samples=0), dict(weights=[1., 2.], num_samples=2, replacement=1),
            dict(weights=[[1., 2.]], num_samples=1), dict(weights=[1., 2.], num_samples=True)]:
    try:
        WeightedRandomSampler(**bad)
    except ValueError as e:
        print("ValueError", e)
for w, n in (([1., 2.], 3), ([1., -2.], 1)):
    try:
        list(WeightedRandomSampler(w, n, replacement=False))
    except RuntimeError as e:
        print("RuntimeError", e)
""")
# ---- torch.testing.assert_close, as peers' tests and tutorials check a result: every message
lines("testing_assert_close", [
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]))',
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.]))',
    'torch.testing.assert_close(torch.tensor([[1., 2.], [3, 4]]), torch.tensor([[1., 2.5], [3.5, 4]]))',
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64))',
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2., 3.]))',
    'torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3]))', 'torch.testing.assert_close(1.0, 1.1)',
    'torch.testing.assert_close(1, 2)', 'torch.testing.assert_close(torch.tensor(1.), 1.0)',
    'torch.testing.assert_close([torch.tensor(1.), torch.tensor(2.)], [torch.tensor(1.), torch.tensor(2.5)])',
    "torch.testing.assert_close({'a': torch.tensor(1.)}, {'a': torch.tensor(1.5)})",
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), rtol=0.1)',
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), rtol=0.1, atol=0)',
    "torch.testing.assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')]))",
    "torch.testing.assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')]), equal_nan=True)",
    "torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), msg='custom')",
    'torch.testing.assert_close(torch.tensor([1., 2.], requires_grad=True), torch.tensor([1., 2.]))',
    'torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64), check_dtype=False)',
    'torch.testing.assert_close(torch.tensor([1., 2.]), [1., 2.])',
    'torch.testing.assert_close(torch.tensor([True, False]), torch.tensor([True, True]))',
    "torch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., float('inf')]))",
    "torch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., -float('inf')]))",
    'torch.testing.assert_close(torch.zeros(2,3)[:, 1], torch.zeros(2))',
    'torch.testing.assert_close(torch.tensor([1e-6]), torch.tensor([2e-6]))',
    'torch.testing.assert_close(torch.tensor(3.), torch.tensor(4.))',
    'torch.testing.assert_close((1., 2.), (1., 2.5))', 'torch.testing.assert_close([1., 2.], (1., 2.))',
    "torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), msg=lambda m: 'X' + m[:5])",
    'torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1., 2.]))',
    'torch.testing.assert_close(None, None)', "torch.testing.assert_close('a', 'a')",
    'torch.testing.assert_close(torch.ones(3, 4) , torch.ones(3, 4) + torch.arange(12.).reshape(3,4) * 1e-3)',
    'torch.testing.assert_close([torch.tensor(1.), None], [torch.tensor(2.), 1])',
    "torch.testing.assert_close([torch.tensor(1.), 'a'], [torch.tensor(2.), 'a'])",
    'torch.testing.assert_close([1, 2], [1])', "torch.testing.assert_close({'a': 1}, {'b': 1, 'a': 1})",
    'torch.testing.assert_close(np.array([1., 2.]), np.array([1., 2.5]))',
    'torch.testing.assert_close(np.array([1., 2.]), torch.tensor([1., 2.]))',
    'torch.testing.assert_close(torch.nn.Parameter(torch.tensor([1., 2.])), torch.tensor([1., 3.]))',
    'torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 5]), rtol=0.1, atol=0.5)',
    'torch.testing.assert_close(torch.tensor([[1, 0], [3, 4]]), torch.tensor([[1, 2], [0, 4]]))',
    'torch.testing.assert_close(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([1., 2.0000001], dtype=torch.float64))',
    'torch.testing.assert_close(torch.tensor([1., 2.], dtype=torch.float16), torch.tensor([1., 2.01], dtype=torch.float16))',
    'torch.testing.assert_close(True, False)', 'torch.testing.assert_close(1, 1.0)',
    'torch.testing.assert_close(1, 1.0, check_dtype=True)',
    'torch.testing.assert_close(torch.ones(2).t(), torch.ones(2), check_stride=True)',
    'torch.testing.assert_close(torch.ones(2, 2).t(), torch.ones(2, 2), check_stride=True)',
    'torch.testing.assert_close(torch.tensor([0., 1.]), torch.tensor([1., 1.]))',
    "torch.testing.assert_close(torch.tensor(float('nan')), torch.tensor(1.))",
    'torch.testing.assert_close(np.float32(1.5), 1.5)'], setup="import numpy as np")
lines("shapes_more", ["torch.zeros(3.0)", "torch.zeros((2,), (3,))", "torch.zeros(*[2, 3]).shape", "torch.randn(*torch.ones(2, 3).shape).shape",
    "torch.zeros(2, 3).new(2, 3).shape", "torch.zeros(2).new([1, 2])", "torch.arange(6).view(2, -1)", "torch.arange(6).view(-1, 4)",
    "torch.arange(6).reshape(4, -1)", "torch.empty((2, 3)).fill_(1)", "torch.ones(2, 3).size()[0]", "torch.ones(2, 3).size(dim=1)",
    "torch.zeros(-1)", "torch.ones(2, 3).view(6, 1).squeeze()", "torch.ones(2, 3)[:, None].shape", "torch.ones(2, 3).unsqueeze(-1).shape",
    "torch.ones(2, 3).T.shape", "torch.ones(2, 3).t().shape", "torch.ones(5).view(1, -1)", "torch.ones(2, 3).flatten()", "torch.ones(2, 3).numel()",
    "torch.zeros(2, 3).shape == (2, 3)", "torch.zeros(2, 3).shape == torch.Size([2, 3])", "torch.Size([2, 3]) + (4,)", "torch.ones(1, 3).expand(2, -1)",
    "torch.ones(2, 1) + torch.ones(3)", "torch.ones(2, 3) + torch.ones(2)", "torch.ones(2, 3) @ torch.ones(2)", "torch.ones(3).view(3, 1, 1).shape"])
lines("data_more", ["w.data.fill_(0.5)", "w", "w.data.copy_(torch.tensor([1., 2.]))", "w", "w.data.add_(-0.5 * torch.ones(2))", "w",
    "w.data.sub_(torch.ones(2))", "w", "w.data.mul_(10)", "w", "w.data[0] = 3", "w", "w.data.requires_grad", "w.data.is_leaf", "w.data.grad_fn",
    "w.data._version", "w._version", "w.data is w.data", "w.grad", "w.grad.data.zero_()", "w.grad.zero_()",
    "w.data.clamp_(min=0)", "w", "w.data.zero_()", "w"], setup="w = torch.tensor([1., -2.], requires_grad=True)")
lines("inplace_errors", ["w.add_(1)", "w[0] = 5", "w.zero_()", "w.data.add_(1)", "x.add_(1)", "x", "x[0] = 5", "x", "y.mul_(2)", "y", "y.grad_fn",
    "w.exp_()", "w += 1", "torch.ones(2).add_(torch.ones(2, dtype=torch.float64))", "torch.ones(2, dtype=torch.long).add_(1.5)", "torch.ones(2).add_(torch.ones(3))"],
    setup="w = torch.tensor([1., -2.], requires_grad=True)\nx = torch.zeros(2)\ny = w * 1")
lines("mask_more", ["x[mask]", "x[~mask]", "x[mask].sum()", "x.masked_fill(mask, 0.)", "x.masked_fill(~mask, float('-inf'))", "torch.where(x > 0, x, torch.zeros_like(x))",
    "torch.where(x > 0, x, 0.)", "torch.where(x > 0)", "x[x > 0].mean()", "(x > 0).float()", "(x > 0).sum()", "(x > 0).any()", "(x > 0).all()", "mask.dtype",
    "x[torch.tensor([0, 2])]", "x[[0, 2]]", "x[1:]", "x[-1]", "x[::2]", "x.clamp(min=0)", "torch.relu(x)", "x.nonzero()", "mask.nonzero(as_tuple=True)",
    "x[mask.nonzero().squeeze()]", "x.gt(0)"], setup="x = torch.tensor([1., -2., 3.], requires_grad=True)\nmask = x > 0")
case("mask_write_grad", '''
x = torch.tensor([1., -2., 3.], requires_grad=True)
y = x * 1
y[y < 0] = 0
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
z = torch.zeros(3)
z[x.detach() > 0] = x[x > 0] * 2
print(z)
z.sum().backward()
print(x.grad)
out = x.clone()
out[0] = 10.
out[1:] *= 2
print(out)
out.sum().backward()
print(x.grad)
m = torch.zeros(2, 3)
m[:, 1] = torch.tensor([5., 6.])
m[0, :] += 1
m[m > 5] = -1
print(m)
''')
lines("legacy_more", ["Variable(torch.ones(2), volatile=True)", "Variable(torch.ones(2)).data", "Variable([1, 2])", "Variable()",
    "torch.autograd.Variable(torch.ones(1), requires_grad=True).grad", "torch.FloatTensor(2, 3).zero_()", "torch.LongTensor(3).zero_()",
    "torch.FloatTensor([1]).type(torch.DoubleTensor)", "torch.ones(2).type(torch.LongTensor)", "torch.ones(2).type('torch.DoubleTensor')",
    "torch.ones(2).type(torch.float64)", "torch.ones(2).type()", "torch.Tensor([1, 2]).long()", "torch.Tensor([[1], [2]]).shape",
    "torch.ByteTensor([1, 0]).bool()", "torch.FloatTensor(np.array([1, 2]))", "torch.Tensor(np.float32(3))", "torch.DoubleTensor(2).fill_(3)",
    "isinstance(torch.ones(1), torch.FloatTensor)", "isinstance(torch.ones(1, dtype=torch.float64), torch.FloatTensor)", "torch.is_tensor(Variable(torch.ones(1)))"],
    setup="import numpy as np\nfrom torch.autograd import Variable")
lines("tensor_inference", ["torch.tensor(np.float64(1.5))", "torch.tensor(np.float32(1.5))", "torch.tensor(np.int32(3))",
    "torch.tensor(np.bool_(True))", "torch.tensor([np.float64(1.), 2.])", "torch.tensor([np.int32(1), 2])",
    "torch.tensor([np.float32(1.), np.float64(2.)])", "torch.tensor([1, np.float64(2.)])", "torch.tensor(np.array([[1., 2.]]))",
    "torch.tensor([torch.tensor(1., dtype=torch.float64), 2.])", "torch.tensor([torch.tensor(1), 2.5])", "torch.tensor([True, 2])",
    "torch.tensor([[]])", "torch.tensor([1.5, 2])", "torch.tensor((1, 2.))", "torch.tensor([torch.tensor([1.]), torch.tensor([2.])])",
    "torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])", "torch.tensor([torch.tensor([1., 2.]), torch.tensor([3., 4.])])",
    "torch.stack([torch.tensor([1., 2.]), torch.tensor([3., 4.])])", "torch.tensor([[1, 2], [3]])", "torch.tensor([[1., 2.], 3.])",
    "torch.tensor([1., [2., 3.]])", "torch.tensor([[[1], [2]], [[1], [2, 3]]])", "torch.tensor('a')", "torch.as_tensor(np.float64(2.))",
    "torch.as_tensor(torch.tensor([1, 2]), dtype=torch.float32)", "torch.as_tensor([1, 2], dtype=torch.float64)",
    "torch.full((2,), np.float64(1.5))", "torch.tensor(float('nan'))", "torch.tensor(10**20)", "torch.tensor([10**20])",
    "torch.Tensor([1, [2, 3]])", "torch.tensor(None)", "torch.tensor([None])", "torch.tensor(['a'])", "torch.tensor({})"],
    setup="import numpy as np")
case("copy_construct_warning", '''
t = torch.tensor([1., 2.], requires_grad=True)
u = torch.tensor(t)
print(u, u.requires_grad, u is t)
v = t.new_tensor(t)
print(v, v.requires_grad)
w = t.detach().clone()
print(w, torch.as_tensor(t) is t, torch.Tensor(t.detach()))
''')
lines("operator_operands", ["torch.ones(2) + None", "torch.ones(2) * 'a'", "torch.ones(2) == None", "torch.ones(2) != None",
    "torch.ones(2) + [1, 2]", "torch.ones(2) == 'a'", "None in [torch.ones(1)]", "torch.ones(2) + np.ones(2)",
    "torch.ones(2) + torch.tensor(np.float64(1.))", "torch.tensor(True) + 1", "torch.ones(2) < 3", "torch.tensor([True, False]) & True",
    "torch.tensor([1, 2]) / 2", "torch.tensor([1, 2]) // 2", "torch.tensor([5, 7]) % 3", "1 / torch.tensor([1, 2])",
    "torch.tensor([1, 2]) * 1.5", "torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2])"],
      setup="import warnings\nimport numpy as np\nwarnings.filterwarnings('ignore', category=DeprecationWarning)")

# ---- printing around grad_fn suffixes, node names, in-place on views, float64 precision
case("print_suffix_wrap", '''
x = torch.arange(8.).reshape(2, 4).requires_grad_()
print(x * 1000.5)
print((x + 1e-5) * 3)
print(torch.arange(10.).double().requires_grad_() * 1.5)
print(torch.arange(14.).double() * 1.5)
print(torch.arange(5.).reshape(1, 5).double().requires_grad_() * 123456.789)
print(torch.linspace(-1, 1, 9, dtype=torch.float64, requires_grad=True).exp())
print(torch.tensor([[1e-5, 2.], [3., 4.]], requires_grad=True) * 2)
print(torch.tensor([1, 2, 3], dtype=torch.int32) * 100000)
print(torch.tensor([[True, False], [False, True]]))
print(torch.zeros(0, 3, requires_grad=True))
print(torch.tensor([float("inf"), 1e-5, -2.]))
print(torch.tensor([1e-5, 1e5]), torch.tensor([0.1, 0.25, 100000.]), torch.tensor([123.456, -0.001]))
print(torch.tensor([2.**40, 1.]), torch.tensor([10**10, 1]), torch.tensor([-1e-10]))
torch.set_printoptions(precision=10)
print(torch.tensor([1/3, 2/3], dtype=torch.float64), torch.tensor(1/3))
torch.set_printoptions(profile="default")
x = torch.randn(3, 4, 5)
print(x.shape, torch.zeros(2, 3, 4, 5, 6).sum(dim=(1, 3)).shape)
''')
case("grad_fn_names", '''
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
v = torch.tensor([1., -1.], requires_grad=True)
exprs = {
    "x.pow(2)": x.pow(2), "torch.pow(2, x)": torch.pow(2, x), "x.sqrt()": x.sqrt(), "x.exp()": x.exp(), "x.log()": x.log(),
    "x.sigmoid()": x.sigmoid(), "torch.tanh(x)": torch.tanh(x), "x.relu()": x.relu(), "x.sum(0)": x.sum(0), "x.mean(1)": x.mean(1),
    "x.max()": x.max(), "x.max(0)[0]": x.max(0)[0], "x.min(1).values": x.min(1).values, "x.t()": x.t(), "x.T": x.T, "x.view(-1)": x.view(-1),
    "x.reshape(4)": x.reshape(4), "x.flatten()": x.flatten(), "x[0]": x[0], "x[:, 1]": x[:, 1], "x[0, 1]": x[0, 1], "x.unsqueeze(0)": x.unsqueeze(0),
    "x.squeeze()": x.squeeze(), "x @ x": x @ x, "x.mm(x)": x.mm(x), "x @ v": x @ v, "x.matmul(v)": x.matmul(v), "v.dot(v)": v.dot(v),
    "x.clamp(min=2)": x.clamp(min=2), "x.abs()": x.abs(), "x.norm()": x.norm(), "v.norm(p=1)": v.norm(p=1), "x.softmax(0)": x.softmax(0),
    "torch.cat([x, x])": torch.cat([x, x]), "torch.stack([v, v])": torch.stack([v, v]), "x.expand(2, 2, 2)": x.expand(2, 2, 2),
    "x.repeat(1, 2)": x.repeat(1, 2), "x.transpose(0, 1)": x.transpose(0, 1), "x.permute(1, 0)": x.permute(1, 0), "x.std()": x.std(),
    "x.var(0)": x.var(0), "x.prod()": x.prod(), "x.cumsum(0)": x.cumsum(0), "x.sin()": x.sin(), "x.cos()": x.cos(), "-x": -x,
    "x.neg()": x.neg(), "x.reciprocal()": x.reciprocal(), "x.square()": x.square(), "x * v": x * v, "x + v": x + v,
    "x.sub(v, alpha=2)": x.sub(v, alpha=2), "x.add(1, alpha=3)": x.add(1, alpha=3), "torch.where(x > 2, x, v)": torch.where(x > 2, x, v),
    "x.masked_fill(x > 2, 0)": x.masked_fill(x > 2, 0), "x.gather(1, torch.tensor([[0], [1]]))": x.gather(1, torch.tensor([[0], [1]])),
    "x.index_select(0, torch.tensor([1]))": x.index_select(0, torch.tensor([1])), "x.log_softmax(1)": x.log_softmax(1),
    "x.logsumexp(1)": x.logsumexp(1), "x.detach()": x.detach(), "x.clone()": x.clone(), "x.float()": x.float(), "x.to(torch.float64)": x.to(torch.float64),
    "x.split(1)[0]": x.split(1)[0], "x.chunk(2, 1)[1]": x.chunk(2, 1)[1], "x.unbind()[0]": x.unbind()[0], "x.narrow(0, 0, 1)": x.narrow(0, 0, 1),
    "x.contiguous()": x.contiguous(), "x.flip(0)": x.flip(0), "x.amax(0)": x.amax(0), "x.argmax()": x.argmax(),
}
for k, y in exprs.items():
    print(k, "->", None if y.grad_fn is None else type(y.grad_fn).__name__, y.grad_fn.next_functions if y.grad_fn is not None else "")
''')
case("view_inplace", '''
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = x * 1
y[0].mul_(10)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
z = x.clone()
z.T[0] = 0
print(z, z.grad_fn)
w = x.detach()
w[1, 1] = 100
print(x)
try:
    x[0] = 1
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.view(-1).add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    x[0, 0] = -1
print(x, x.grad_fn, x.is_leaf)
a = torch.ones(3, requires_grad=True)
b = a.exp()
b.add_(1)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
c = a.sigmoid()
c.mul_(2)
try:
    c.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
''')
case("float64_precision", '''
torch.set_printoptions(precision=10)
print(torch.tensor([1/3, 2/3], dtype=torch.float64), torch.tensor(0.1, dtype=torch.float64))
print(torch.DoubleTensor([0.1]), torch.Tensor([0.1]).double(), torch.tensor([0.1]).double())
print(torch.tensor(0.1, dtype=torch.float64).item(), torch.tensor(0.1).item(), torch.tensor([0.1], dtype=torch.double).tolist())
torch.set_default_dtype(torch.float64)
print(torch.tensor([0.1]), torch.tensor(1/3).item(), torch.ones(1).dtype)
torch.set_default_dtype(torch.float32)
torch.set_printoptions(profile="default")
''')

# ---- gradcheck call forms, the official custom-Function examples
case("gradcheck_forms", '''
from torch.autograd import gradcheck, gradgradcheck
import torch.nn.functional as F
x = torch.tensor([0.5, -1.5, 2.0], dtype=torch.double, requires_grad=True)
print(gradcheck(torch.sigmoid, x))
print(gradcheck(torch.sigmoid, (x,), eps=1e-6, atol=1e-4, rtol=1e-3, raise_exception=True))
print(gradcheck(lambda t: F.relu(t) * 2, (x,), fast_mode=True))
print(gradcheck(lambda a, b: a * b, (x, torch.tensor(3., dtype=torch.double, requires_grad=True))))
print(gradcheck(lambda a, k: a ** k, (x, 3)))
print(gradcheck(lambda a: (a.sum(), a * 2), (x,)))
print(gradgradcheck(lambda a: a ** 3, (x,), eps=1e-6, atol=1e-4))
print(gradgradcheck(lambda a: a ** 3, (x,), grad_outputs=(torch.ones(3, dtype=torch.double, requires_grad=True),)))
w = torch.randn(3, 2, dtype=torch.double, requires_grad=True)
print(gradcheck(lambda a, w: F.linear(a.unsqueeze(0), w.t()), (x, w)))
print(gradcheck(lambda a: a.abs(), (torch.tensor([0.5, -0.5], dtype=torch.double, requires_grad=True),)))
try:
    gradcheck(lambda a: a * 2, (torch.tensor([1., 2.], dtype=torch.double),))
except Exception as e:
    print(type(e).__name__, e)
''')
case("function_more", '''
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input

relu = MyReLU.apply
x = torch.tensor([-1., 0.5, 2.], requires_grad=True)
y = relu(x) * 3
print(y, y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)

class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

P3 = LegendrePolynomial3.apply
a = torch.full((), 0.0, dtype=torch.float, requires_grad=True)
b = torch.full((), -1.0, requires_grad=True)
xs = torch.linspace(-1, 1, 5)
y_pred = a + b * P3(xs)
loss = (y_pred - torch.sin(xs)).pow(2).sum()
print(y_pred, loss)
loss.backward()
print(a.grad, b.grad)
with torch.no_grad():
    a -= 0.01 * a.grad
    b -= 0.01 * b.grad
    a.grad = None
    b.grad = None
print(f"Result: y = {a.item()} + {b.item()} * P3(x)")

class NeedsGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, k):
        print("needs_input_grad:", ctx.needs_input_grad)
        ctx.mark_non_differentiable
        return x * y * k

    @staticmethod
    def backward(ctx, g):
        return g, None, None

print(NeedsGrad.apply(torch.ones(1, requires_grad=True), torch.ones(1), 2.0))
class NonDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        return x.max(), idx

    @staticmethod
    def backward(ctx, g, gi):
        return torch.ones(3) * g

m, i = NonDiff.apply(torch.tensor([1., 5., 2.], requires_grad=True))
print(m, i, i.requires_grad, m.grad_fn)
from torch.autograd.function import once_differentiable
class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
z = torch.tensor([3.], requires_grad=True)
g, = torch.autograd.grad(Once.apply(z), z, create_graph=True)
print(g, g.requires_grad, g.grad_fn)
''')


EXPECTED = {
    "factories_device_dtype": """\
tensor([[0., 0.],
        [0., 0.]], dtype=torch.float64)
tensor([1., 1.], dtype=torch.float64)
torch.Size([3]) torch.float32
tensor([1.5000, 1.5000], dtype=torch.float64)
tensor([7, 7])
tensor([[1., 0.],
        [0., 1.]], dtype=torch.float64)
tensor([0., 1., 2.])
tensor([0.0000, 0.2500, 0.5000, 0.7500])
tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000], dtype=torch.float64)
tensor([  1.,  10., 100.])
tensor([1., 2.])
tensor(3)
tensor([1., 2.], dtype=torch.float64)
torch.float64 torch.float32
torch.float64
torch.int64 torch.float32
torch.int64 torch.Size([2])
tensor([[0., 0., 0.],
        [0., 0., 0.]], dtype=torch.float64)
tensor([[1, 1, 1],
        [1, 1, 1]])
tensor([[2.5000, 2.5000, 2.5000],
        [2.5000, 2.5000, 2.5000]])
torch.Size([2, 3]) torch.float64 torch.Size([2, 3])
tensor([0., 0.]) tensor([[1., 1.]], dtype=torch.float64) tensor([1., 2.])
tensor([3., 3.])
""",
    "device_object": """\
cpu device(type='cpu') cpu None
True
cpu True False
cpu
tensor([1., 1.]) True True
tensor([1., 1.], dtype=torch.float64)
tensor([1., 1.], dtype=torch.float64)
torch.float16 tensor([1, 1])
""",
    "dtype_aliases": """\
True True True
torch.float32 torch.float64 torch.float16 torch.int64 torch.int32 torch.bool
torch.float32 True False
torch.float32
torch.float32 True True
""",
    "double_float_casts": """\
tensor([1.5000, 2.5000], dtype=torch.float64, grad_fn=<ToCopyBackward0>) torch.float64
tensor([3., 5.], grad_fn=<ToCopyBackward0>) <ToCopyBackward0 object at 0x…> MulBackward0
True torch.float64
tensor([2., 2.]) torch.float32
tensor([ 1, -2]) tensor([ 1, -2], dtype=torch.int32) tensor([ 1.7002, -2.6992], dtype=torch.float16) tensor([True, True]) tensor([1., 0.])
tensor([1., 2.], dtype=torch.float64, requires_grad=True)
""",
    "set_default_device": """\
None
cpu cpu cpu
cpu
""",
    "set_default_dtype": """\
tensor([1.5000, 2.0000]) torch.float64 tensor([1., 1.]) tensor([0.], dtype=torch.float32)
tensor(3.5000) tensor([0., 1., 2.]) torch.float64
torch.float32
""",
    "legacy_tensor": """\
tensor([1., 2., 3.])
torch.float32
torch.Size([2, 3]) torch.Size([2, 3]) tensor([2., 3.])
tensor([]) torch.Size([0])
tensor([2.]) False True None
torch.Size([3]) True True
tensor([1, 2])
ok
""",
    "legacy_typed": """\
tensor([[1., 2.],
        [3., 4.]])
torch.Size([2, 2]) torch.float32
tensor([1., 2.], dtype=torch.float64) tensor([1, 2]) tensor([1])
tensor([3], dtype=torch.int32) tensor([1, 0], dtype=torch.uint8) tensor([True])
tensor([1., 2.])
tensor([1., 2.], requires_grad=True) torch.FloatTensor torch.LongTensor torch.DoubleTensor
""",
    "legacy_variable": """\
tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
True True True None
tensor([3.]) False
tensor([[3., 3.],
        [3., 3.]]) tensor([[1., 1.],
        [1., 1.]])
tensor(5., grad_fn=<SumBackward0>) False
""",
    "shape_arguments": """\
torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([2, 3])
torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([2, 3])
torch.Size([2]) torch.Size([2, 3]) torch.Size([4])
tensor([3., 3.]) torch.Size([2, 1]) torch.Size([3, 1])
tensor(0.) tensor(1.) torch.Size([0]) torch.Size([2, 0])
torch.Size([2, 3]) 2 3 3 torch.Size([2, 3]) (2, 3) [2, 3]
torch.Size([2, 3]) torch.Size([2, 3]) torch.Size([6]) torch.Size([3, 2])
torch.Size([2, 3]) 6 2 2 2 True
torch.Size([2, 3]) 6 torch.Size([3]) Size
""",
    "zero_dim_basics": """\
tensor(2.5000, dtype=torch.float64, requires_grad=True) torch.Size([]) 0 1
torch.Size([]) 0 torch.float32 torch.Size([]) 0.0
3.700000047683716 3 True 3.700000047683716 3.700000047683716 3.7
False True 2.0
positive
tensor(243.) 5
tensor(6) tensor(True) torch.int64
tensor(True) True bool float
""",
    "zero_dim_sgd": """\
0 tensor(4., grad_fn=<PowBackward0>) tensor(-4.)
1 tensor(2.5600, grad_fn=<PowBackward0>) tensor(-3.2000)
2 tensor(1.6384, grad_fn=<PowBackward0>) tensor(-2.5600)
tensor(1.9760, requires_grad=True) True None True
tensor(3.2974, grad_fn=<MulBackward0>) tensor(3.2974) torch.Size([])
""",
    "print_decimals": """\
tensor([1.2346, 2.0000])
tensor(27.) tensor([27.]) tensor(7.5000) tensor(0.3333)
tensor([ 1.0000,  2.5000, -3.0000])
tensor([-0.0000, 1.5000]) tensor([-0., -0.])
tensor([[  1.0000,  -1.0000],
        [  0.2500, 100.0000]])
tensor([nan, 1., inf, -inf])
tensor([  1, -20, 300]) tensor([ True, False])
tensor(-0.) tensor([0.]) tensor([123456.])
""",
    "print_scientific": """\
tensor([1.0000e-05, 1.0000e+00])
tensor([1.0000e+10]) tensor([1.0000e+08, 1.0000e+00]) tensor([1.0000e+07, 1.0000e+00])
tensor([1.0000e-04, 1.0000e+03]) tensor([1.0000e-04, 1.0001e+03])
tensor(1.0000e-05) tensor(-1.2340e-05) tensor(12345679.)
tensor([ 1.0000e-12, -3.5000e-08,  0.0000e+00])
tensor([1.0000e-05, 1.0000e+00], dtype=torch.float64)
""",
    "print_wrapping": """\
tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,
        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,
        28., 29.])
tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,
        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,
        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,
        3.8571, 4.0000, 4.1429, 4.2857, 4.4286, 4.5714, 4.7143, 4.8571, 5.0000,
        5.1429, 5.2857, 5.4286, 5.5714])
tensor([[    0,  1000,  2000,  3000,  4000],
        [ 5000,  6000,  7000,  8000,  9000],
        [10000, 11000, 12000, 13000, 14000],
        [15000, 16000, 17000, 18000, 19000],
        [20000, 21000, 22000, 23000, 24000]])
tensor([[[ 0.,  1.,  2.],
         [ 3.,  4.,  5.]],

        [[ 6.,  7.,  8.],
         [ 9., 10., 11.]]])
tensor([[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
         12.0000, 13.5000, 15.0000, 16.5000],
        [18.0000, 19.5000, 21.0000, 22.5000, 24.0000, 25.5000, 27.0000, 28.5000,
         30.0000, 31.5000, 33.0000, 34.5000]], grad_fn=<MulBackward0>)
tensor([   0,    1,    2,  ..., 1997, 1998, 1999])
tensor([1., 1., 1.,  ..., 1., 1., 1.])
""",
    "print_dtype_suffix": """\
tensor([1., 2.], dtype=torch.float64)
tensor([1., 1.], dtype=torch.float64, requires_grad=True)
tensor([2., 2.], dtype=torch.float64, grad_fn=<MulBackward0>)
tensor([1, 2], dtype=torch.int32) tensor([1, 2]) tensor([1., 2.], dtype=torch.float16)
tensor(3., dtype=torch.float64) tensor([], dtype=torch.float64) tensor([])
tensor([], size=(2, 0), dtype=torch.float64) tensor([], size=(1, 0))
tensor([True]) tensor([1], dtype=torch.uint8) tensor(1.5000, dtype=torch.float64)
""",
    "set_printoptions": """\
tensor([ 1.23e+00, -2.50e+00,  1.00e-03])
tensor([ 1.234568e+00, -2.500000e+00,  1.000000e-03])
tensor([0.000001, 1.000000]) tensor([-0.000010,  0.500000])
tensor([1.500000e+00, 2.000000e+00])
tensor([ 1.2346e+00, -2.5000e+00,  1.0000e-03]) tensor([1.0000e-06, 1.0000e+00])
tensor([0, 1,  ..., 8, 9]) tensor([[ 0.,  1.,  ...,  3.,  4.],
        [ 5.,  6.,  ...,  8.,  9.],
        [10., 11.,  ..., 13., 14.],
        [15., 16.,  ..., 18., 19.]])
tensor([ 0.,  1.,  ..., 18., 19.])
tensor([0.00, 0.33, 0.67, 1.00, 1.33, 1.67, 2.00, 2.33, 2.67, 3.00])
tensor([ 999, 1000, 1001])
tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,
        3.0000])
""",
    "fstrings": """\
3.141590118408203
3.142 3.14e+00        3.1 3.14159
loss: 0.24691200256347656
loss: 0.25 0.2469 0.24691200256347656
m = tensor([[1., 2.],
        [3., 4.]])
tensor([[1., 2.],
        [3., 4.]]) True
value: tensor(3.1416) tensor(3.1416) 3.14
5 005 True
TypeError: unsupported format string passed to Tensor.__format__
""",
    "numpy_printing": """\
[1.  2.5]
array([1. , 2.5], dtype=float32) float32 ndarray
[2. 2.] array([2., 2.], dtype=float32)
2.5 array(2.5, dtype=float32)
[[0 1 2]
 [3 4 5]] [1. 2.]
[0.1 0.2] [1.e-05 1.e+00]
[1.  2.5] [1.0, 2.5] [[1, 2]]
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
""",
    "reflected_ops": """\
4.2 - b = tensor([3.2000, 2.2000], grad_fn=<RsubBackward1>)
10.0 / b = tensor([10.,  5.], grad_fn=<MulBackward0>)
2 * b = tensor([2., 4.], grad_fn=<MulBackward0>)
2 + b = tensor([3., 4.], grad_fn=<AddBackward0>)
2 ** b = tensor([2., 4.], grad_fn=<PowBackward2>)
b ** 2 = tensor([1., 4.], grad_fn=<PowBackward0>)
b - 1 = tensor([0., 1.], grad_fn=<SubBackward0>)
b / 2 = tensor([0.5000, 1.0000], grad_fn=<DivBackward0>)
-b = tensor([-1., -2.], grad_fn=<NegBackward0>)
abs(b) = tensor([1., 2.], grad_fn=<AbsBackward0>)
b @ b = tensor(5., grad_fn=<DotBackward0>)
1 - b = tensor([ 0., -1.], grad_fn=<RsubBackward1>)
b + b = tensor([2., 4.], grad_fn=<AddBackward0>)
b * b = tensor([1., 4.], grad_fn=<MulBackward0>)
b / b = tensor([1., 1.], grad_fn=<DivBackward0>)
b ** b = tensor([1., 4.], grad_fn=<PowBackward1>)
b ** 0.5 = tensor([1.0000, 1.4142], grad_fn=<PowBackward0>)
""",
    "reflected_grads": """\
<RsubBackward1 object at 0x…> RsubBackward1 ((<AccumulateGrad object at 0x…>, 0),)
tensor([-1., -1.])
((<ReciprocalBackward0 object at 0x…>, 0), (None, 0))
tensor([-10.0000,  -2.5000])
tensor([1.3863, 2.7726])
tensor([1.0000, 2.7183], grad_fn=<ExpBackward0>) tensor(3.7183, grad_fn=<SumBackward0>) tensor([1., 2.], grad_fn=<AddBackward0>) tensor([0., 1.], grad_fn=<MulBackward0>)
tensor([1.0000, 2.7183])
<ExpBackward0 object at 0x…> <PowBackward0 object at 0x…>
""",
    "data_inplace": """\
tensor([100., 100., 100.], requires_grad=True) 0
tensor([2., 2., 2.])
tensor([0., 0., 0.])
tensor([0.8000, 1.6000], requires_grad=True) tensor([2., 4.]) tensor([0.8000, 1.6000]) False True
tensor([0., 0.], requires_grad=True)
tensor([0., 0.])
""",
    "boolean_mask": """\
tensor([ True, False,  True]) tensor([1., 3.], grad_fn=<IndexBackward0>) <IndexBackward0 object at 0x…>
tensor([0.5000, 0.0000, 0.7500], grad_fn=<IndexPutBackward0>)
tensor([0.5000, 0.0000, 0.2500])
tensor([0.5000, 0.0000, 0.7500], grad_fn=<WhereBackward0>)
tensor([0.5000,    nan, 0.2500])
tensor([0., 2., 0.]) tensor([2.]) tensor(1) tensor([1., 3.], grad_fn=<IndexBackward0>)
""",
    "row_assignment": """\
tensor([[5., 1., 1.],
        [5., 2., 3.]])
tensor([[1., 2.],
        [3., 6.]], grad_fn=<CopySlices>) torch::autograd::CopySlices
tensor([4., 4.])
tensor([[1., 1.],
        [1., 7.],
        [9., 9.]])
""",
    "function_ctx_style": """\
tensor([1.0000, 2.7183], grad_fn=<ExpBackward>) <torch.autograd.function.ExpBackward object at 0x…> ExpBackward
tensor([1.0000, 2.7183])
""",
    "function_setup_context": """\
tensor(8., grad_fn=<CubeBackward>) CubeBackward
tensor(12., grad_fn=<CubeBackwardBackward>) CubeBackwardBackward
tensor(12.)
True
True
""",
    "function_save_none": """\
saved: None tensor([3., 4.])
tensor([3., 4.])
""",
    "function_materialize": """\
tensor([2., 4.], grad_fn=<SplitBackward>) tensor([3., 6.], grad_fn=<SplitBackward>) True 0 1
grads: tensor([1., 1.]) None
tensor([2., 2.])
grads: tensor([0., 0.]) tensor([1., 1.])
tensor([3., 3.])
""",
    "function_multiple_outputs": """\
tensor(1., grad_fn=<MinMaxBackward>) tensor(3., grad_fn=<MinMaxBackward>)
tensor([ 1., -1.,  0.])
((<AccumulateGrad object at 0x…>, 0),)
""",
    "function_in_backward": """\
tensor([1., 9.], grad_fn=<SquareBackward>) tensor([2., 6.], grad_fn=<MulBackward0>)
tensor([2., 2.])
""",
    "gradcheck": """\
True
True
True
True
False
""",
    "functional_jacobian": """\
tensor([[2., 0., 0.],
        [0., 4., 0.],
        [0., 0., 6.]])
tuple 2
(tensor([[3., 0.],
        [0., 4.]]), tensor([[2., 0.],
        [0., 3.]]))
tensor([1., 1., 1.])
tensor(12.)
tensor([ 2.,  5., 10.]) tensor([2., 4., 6.])
tensor([ 6., 12.]) (tensor([3., 2.]), tensor([2.0000, 1.5000]))
(tensor(6.), tensor([1., 1., 1.]))
""",
    "blitz_requires_grad": """\
True
True
False
False tensor(True)
""",
    "manual_sgd": """\
epoch 0: loss 7.3158
epoch 20: loss 0.1558
epoch 40: loss 0.0073
tensor([2.9696], requires_grad=True) tensor([2.0000], requires_grad=True)
tensor([0.]) tensor([0.]) True None
""",
    "micrograd_neuron": """\
0.7071066904050358
---
x2 0.5000001283844369
w2 0.0
x1 -1.5000003851533106
w1 1.0000002567688737
tensor([0.7071], dtype=torch.float64, grad_fn=<TanhBackward0>) <AddBackward0 object at 0x…> <TanhBackward0 object at 0x…>
""",
    "type_reprs": """\
<class 'torch.Tensor'> <class 'torch.Size'> <class 'torch.dtype'> <class 'torch.device'> <class 'NoneType'>
<class 'MulBackward0'> MulBackward0 MulBackward0 <class 'AccumulateGrad'>
<class 'torch.Tensor'> <class 'torch.Size'> <class 'torch.dtype'> <class 'torch.device'> Function
Tensor True torch.Size([])
""",
    "zero_dim_errors": """\
len(torch.tensor(2.)) -> TypeError len() of a 0-d tensor
iter(torch.tensor(2.)) -> TypeError iteration over a 0-d tensor
float(torch.ones(2)) -> ValueError only one element tensors can be converted to Python scalars
int(torch.ones(2)) -> ValueError only one element tensors can be converted to Python scalars
bool(torch.ones(2)) -> RuntimeError Boolean value of Tensor with more than one value is ambiguous
bool(torch.tensor([])) -> RuntimeError Boolean value of Tensor with no values is ambiguous
torch.ones(3).item() -> RuntimeError a Tensor with 3 elements cannot be converted to Scalar
torch.tensor([]).item() -> RuntimeError a Tensor with 0 elements cannot be converted to Scalar
torch.tensor(2.)[0] -> IndexError invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number
torch.tensor(2.).size(1) -> IndexError Dimension specified as 1 but tensor has no dimensions
torch.tensor([1., 2.]).__index__() -> TypeError only integer tensors of a single element can be converted to an index
[1, 2, 3][torch.tensor(1)] -> 2
range(torch.tensor(3)) -> range(0, 3)
torch.tensor(2.).view(1) -> tensor([2.])
torch.tensor(2.).unsqueeze(0) -> tensor([2.])
torch.tensor(2.5).sum(0) -> tensor(2.5000)
torch.tensor(2.5).t() -> tensor(2.5000)
torch.tensor(3.).expand(2) -> tensor([3., 3.])
torch.tensor(2.)[0:1] -> IndexError slice() cannot be applied to a 0-dim tensor.
torch.tensor(2.)[None] -> tensor([2.])
torch.tensor(2.)[...] -> tensor(2.)
""",
    "backward_errors": """\
y.backward() -> RuntimeError grad can be implicitly created only for scalar outputs
torch.ones(2).backward() -> RuntimeError element 0 of tensors does not require grad and does not have a grad_fn
x.grad.zero_() -> AttributeError 'NoneType' object has no attribute 'zero_'
(x*x).sum().backward(); (x*x).sum().backward() -> ok
z = (x * x).sum(); z.backward(); z.backward() -> RuntimeError Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
x.add_(1) -> RuntimeError a leaf Variable that requires grad is being used in an in-place operation.
torch.ones(2, dtype=torch.long, requires_grad=True) -> RuntimeError Only Tensors of floating point and complex dtype can require gradients
y.requires_grad = False -> RuntimeError you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().
torch.tensor([1, 2]).requires_grad_() -> RuntimeError only Tensors of floating point dtype can require gradients
y.backward(torch.ones(3)) -> RuntimeError Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).
""",
    "no_grad_variants": """\
False None True
False
True
tensor([3., 3.]) False
False
False
True
""",
    "retain_grad_hooks": """\
hook got tensor([ 6., 12.])
tensor([ 6., 12.]) tensor([18., 36.]) False True
""",
    "detach_and_clone": """\
tensor([10.,  2.], requires_grad=True) tensor([10.,  2.])
tensor([10.,  2.], grad_fn=<CloneBackward0>) <CloneBackward0 object at 0x…>
tensor([10.,  2.], requires_grad=True) tensor([11.,  3.]) False
[10.  2.] tensor([10.,  2.], requires_grad=True)
""",
    "grad_function": """\
tensor(27., grad_fn=<MulBackward0>)
tensor(18.)
tensor([3., 4.]) tensor([1., 2.])
(tensor([2., 4.]),)
RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.
(tensor([2., 2.]), None)
""",
    "gradcheck_messages": """\
GradcheckError Jacobian mismatch for output 0 with respect to input 0,
numerical:tensor([[1.6487, 0.0000],
        [0.0000, 2.7183]], dtype=torch.float64)
analytical:tensor([[0.5000, 0.0000],
        [0.0000, 1.0000]], dtype=torch.float64)

True
UserWarning: Input #0 requires gradient and is not a double precision floating point or complex. This check will likely fail if all the inputs are not of double precision floating point or complex. 
""",
    "jacobian_more": """\
(tensor([2., 1.]), tensor([1., 1.]))
(tensor([[[1., 2.],
         [0., 0.]],

        [[0., 0.],
         [1., 2.]]]), tensor([[1., 0.],
        [0., 1.]]))
torch.Size([1, 2, 1, 2])
tensor([[ 6.,  0.],
        [ 0., 12.]])
(tensor([2., 4.]), tensor([ 2., -2.]))
(tensor([1., 2.]), tensor([1., 2.]))
tensor([[6.]], grad_fn=<ViewBackward0>) True
""",
    "numpy_interop": """\
np.exp(torch.tensor([1., 2.])) -> tensor([2.7183, 7.3891])
np.sqrt(torch.tensor(4.)) -> tensor(2.)
np.isnan(torch.tensor([1., float('nan')])) -> tensor([0, 1], dtype=torch.uint8)
np.round(torch.tensor([1.4, 2.6])) -> tensor([1., 3.])
np.float64(2.) - torch.ones(2, requires_grad=True) -> tensor([1., 1.], grad_fn=<RsubBackward1>)
np.float64(2.) < torch.tensor([1., 3.]) -> tensor([False,  True])
np.exp(torch.ones(1, requires_grad=True)) -> RuntimeError Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
np.float64(2.) * torch.ones(2) -> tensor([2., 2.])
torch.ones(2) * np.float64(2.) -> tensor([2., 2.])
np.float32(2.) + torch.ones(2) -> tensor([3., 3.])
np.array(torch.tensor([1., 2.])) -> array([1., 2.], dtype=float32)
np.asarray(torch.tensor([1, 2])) -> array([1, 2])
math.sqrt(torch.tensor(4.)) -> 2.0
np.float32(torch.tensor(1.5)) -> np.float32(1.5)
torch.tensor(np.float64(1.5)) -> tensor(1.5000, dtype=torch.float64)
torch.tensor(np.array([1, 2])) -> tensor([1, 2])
torch.tensor(np.array(3.5)) -> tensor(3.5000, dtype=torch.float64)
torch.from_numpy(np.array([1., 2.])) -> tensor([1., 2.], dtype=torch.float64)
torch.ones(2) + np.array([1., 2.]) -> tensor([2., 3.], dtype=torch.float64)
torch.tensor([np.float32(1.), np.float32(2.)]) -> tensor([1., 2.])
torch.tensor(np.int64(3)) -> tensor(3)
torch.ones(np.int64(2)) -> tensor([1., 1.])
np.sum(torch.tensor([1., 2.])) -> TypeError sum() got an unexpected keyword argument 'axis'
torch.ones(2, requires_grad=True) * np.float64(2.) -> tensor([2., 2.], grad_fn=<MulBackward0>)
np.mean(torch.tensor([1., 2.]).numpy()) -> np.float32(1.5)
round(torch.tensor(2.567), 2) -> TypeError type Tensor doesn't define __round__ method
round(torch.tensor(2.567)) -> TypeError type Tensor doesn't define __round__ method
torch.tensor([1., 2.]).numpy().tolist() -> [1.0, 2.0]
list(torch.tensor([1., 2.])) -> [tensor(1.), tensor(2.)]
torch.tensor([1, 2]).tolist()[0] + 1 -> 2
[float(v) for v in torch.tensor([1., 2.])] -> [1.0, 2.0]
torch.tensor(2.) == 2 -> tensor(True)
torch.tensor(2.) == 2.0 -> tensor(True)
2 == torch.tensor(2.) -> tensor(True)
max(torch.tensor(3.), torch.tensor(1.)) -> tensor(3.)
sorted([torch.tensor(3.), torch.tensor(1.)]) -> [tensor(1.), tensor(3.)]
int(torch.tensor(3.9)) -> 3
int(torch.tensor(-3.9)) -> -3
-torch.tensor(0.) -> tensor(-0.)
abs(torch.tensor(-2.)) -> tensor(2.)
'%d' % torch.tensor(3) -> '3'
'%.3f' % torch.tensor(3.) -> '3.000'
'{:d}'.format(torch.tensor(7)) -> '7'
torch.tensor(2.5).round() -> tensor(2.)
torch.tensor([0.5, 1.5, 2.5]).round() -> tensor([0., 2., 2.])
divmod(torch.tensor(7.), 2) -> TypeError unsupported operand type(s) for divmod(): 'Tensor' and 'int'
""",
    "device_more": """\
torch.device('cuda:0') -> device(type='cuda', index=0)
torch.device('cpu', 0) -> device(type='cpu', index=0)
str(torch.device('cpu')) -> 'cpu'
torch.ones(2).is_cpu -> True
torch.zeros(2, device='cuda') -> AssertionError Torch not compiled with CUDA enabled
torch.ones(2).cuda() -> AssertionError Torch not compiled with CUDA enabled
torch.ones(2).to('cuda') -> AssertionError Torch not compiled with CUDA enabled
torch.cuda.is_available() -> False
torch.cuda.device_count() -> 0
torch.ones(2).device.type -> 'cpu'
torch.ones(2).to(torch.device('cpu')).device -> device(type='cpu')
torch.ones(2, device=torch.device('cpu', 0)).device -> device(type='cpu')
torch.backends.mps.is_available() -> False
torch.ones(2).to('cpu', non_blocking=True) -> tensor([1., 1.])
torch.ones(2).to(torch.ones(1, dtype=torch.float64)) -> tensor([1., 1.], dtype=torch.float64)
torch.device('gpu') -> RuntimeError Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: gpu
torch.ones(2).pin_memory() -> RuntimeError Cannot access accelerator device when none is available.
""",
    "shapes_more": """\
torch.zeros(3.0) -> TypeError zeros(): argument 'size' (position 1) must be tuple of ints, not float
torch.zeros((2,), (3,)) -> TypeError zeros() takes 1 positional argument but 2 were given
torch.zeros(*[2, 3]).shape -> torch.Size([2, 3])
torch.randn(*torch.ones(2, 3).shape).shape -> torch.Size([2, 3])
torch.zeros(2, 3).new(2, 3).shape -> torch.Size([2, 3])
torch.zeros(2).new([1, 2]) -> tensor([1., 2.])
torch.arange(6).view(2, -1) -> tensor([[0, 1, 2],
        [3, 4, 5]])
torch.arange(6).view(-1, 4) -> RuntimeError shape '[-1, 4]' is invalid for input of size 6
torch.arange(6).reshape(4, -1) -> RuntimeError shape '[4, -1]' is invalid for input of size 6
torch.empty((2, 3)).fill_(1) -> tensor([[1., 1., 1.],
        [1., 1., 1.]])
torch.ones(2, 3).size()[0] -> 2
torch.ones(2, 3).size(dim=1) -> 3
torch.zeros(-1) -> RuntimeError zeros: Dimension size must be non-negative.
torch.ones(2, 3).view(6, 1).squeeze() -> tensor([1., 1., 1., 1., 1., 1.])
torch.ones(2, 3)[:, None].shape -> torch.Size([2, 1, 3])
torch.ones(2, 3).unsqueeze(-1).shape -> torch.Size([2, 3, 1])
torch.ones(2, 3).T.shape -> torch.Size([3, 2])
torch.ones(2, 3).t().shape -> torch.Size([3, 2])
torch.ones(5).view(1, -1) -> tensor([[1., 1., 1., 1., 1.]])
torch.ones(2, 3).flatten() -> tensor([1., 1., 1., 1., 1., 1.])
torch.ones(2, 3).numel() -> 6
torch.zeros(2, 3).shape == (2, 3) -> True
torch.zeros(2, 3).shape == torch.Size([2, 3]) -> True
torch.Size([2, 3]) + (4,) -> torch.Size([2, 3, 4])
torch.ones(1, 3).expand(2, -1) -> tensor([[1., 1., 1.],
        [1., 1., 1.]])
torch.ones(2, 1) + torch.ones(3) -> tensor([[2., 2., 2.],
        [2., 2., 2.]])
torch.ones(2, 3) + torch.ones(2) -> RuntimeError The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
torch.ones(2, 3) @ torch.ones(2) -> RuntimeError size mismatch, got input (2), mat (2x3), vec (2)
torch.ones(3).view(3, 1, 1).shape -> torch.Size([3, 1, 1])
""",
    "data_more": """\
w.data.fill_(0.5) -> tensor([0.5000, 0.5000])
w -> tensor([0.5000, 0.5000], requires_grad=True)
w.data.copy_(torch.tensor([1., 2.])) -> tensor([1., 2.])
w -> tensor([1., 2.], requires_grad=True)
w.data.add_(-0.5 * torch.ones(2)) -> tensor([0.5000, 1.5000])
w -> tensor([0.5000, 1.5000], requires_grad=True)
w.data.sub_(torch.ones(2)) -> tensor([-0.5000,  0.5000])
w -> tensor([-0.5000,  0.5000], requires_grad=True)
w.data.mul_(10) -> tensor([-5.,  5.])
w -> tensor([-5.,  5.], requires_grad=True)
w.data[0] = 3 -> SyntaxError invalid syntax (<string>, line 1)
w -> tensor([-5.,  5.], requires_grad=True)
w.data.requires_grad -> False
w.data.is_leaf -> True
w.data.grad_fn -> None
w.data._version -> 0
w._version -> 0
w.data is w.data -> False
w.grad -> None
w.grad.data.zero_() -> AttributeError 'NoneType' object has no attribute 'data'
w.grad.zero_() -> AttributeError 'NoneType' object has no attribute 'zero_'
w.data.clamp_(min=0) -> tensor([0., 5.])
w -> tensor([0., 5.], requires_grad=True)
w.data.zero_() -> tensor([0., 0.])
w -> tensor([0., 0.], requires_grad=True)
""",
    "inplace_errors": """\
w.add_(1) -> RuntimeError a leaf Variable that requires grad is being used in an in-place operation.
w[0] = 5 -> SyntaxError invalid syntax (<string>, line 1)
w.zero_() -> RuntimeError a leaf Variable that requires grad is being used in an in-place operation.
w.data.add_(1) -> tensor([ 2., -1.])
x.add_(1) -> tensor([1., 1.])
x -> tensor([1., 1.])
x[0] = 5 -> SyntaxError invalid syntax (<string>, line 1)
x -> tensor([1., 1.])
y.mul_(2) -> tensor([ 2., -4.], grad_fn=<MulBackward0>)
y -> tensor([ 2., -4.], grad_fn=<MulBackward0>)
y.grad_fn -> <MulBackward0 object at 0x…>
w.exp_() -> RuntimeError a leaf Variable that requires grad is being used in an in-place operation.
w += 1 -> SyntaxError invalid syntax (<string>, line 1)
torch.ones(2).add_(torch.ones(2, dtype=torch.float64)) -> tensor([2., 2.])
torch.ones(2, dtype=torch.long).add_(1.5) -> RuntimeError result type Float can't be cast to the desired output type Long
torch.ones(2).add_(torch.ones(3)) -> RuntimeError The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0
""",
    "mask_more": """\
x[mask] -> tensor([1., 3.], grad_fn=<IndexBackward0>)
x[~mask] -> tensor([-2.], grad_fn=<IndexBackward0>)
x[mask].sum() -> tensor(4., grad_fn=<SumBackward0>)
x.masked_fill(mask, 0.) -> tensor([ 0., -2.,  0.], grad_fn=<MaskedFillBackward0>)
x.masked_fill(~mask, float('-inf')) -> tensor([1., -inf, 3.], grad_fn=<MaskedFillBackward0>)
torch.where(x > 0, x, torch.zeros_like(x)) -> tensor([1., 0., 3.], grad_fn=<WhereBackward0>)
torch.where(x > 0, x, 0.) -> tensor([1., 0., 3.], grad_fn=<WhereBackward0>)
torch.where(x > 0) -> (tensor([0, 2]),)
x[x > 0].mean() -> tensor(2., grad_fn=<MeanBackward0>)
(x > 0).float() -> tensor([1., 0., 1.])
(x > 0).sum() -> tensor(2)
(x > 0).any() -> tensor(True)
(x > 0).all() -> tensor(False)
mask.dtype -> torch.bool
x[torch.tensor([0, 2])] -> tensor([1., 3.], grad_fn=<IndexBackward0>)
x[[0, 2]] -> tensor([1., 3.], grad_fn=<IndexBackward0>)
x[1:] -> tensor([-2.,  3.], grad_fn=<SliceBackward0>)
x[-1] -> tensor(3., grad_fn=<SelectBackward0>)
x[::2] -> tensor([1., 3.], grad_fn=<SliceBackward0>)
x.clamp(min=0) -> tensor([1., 0., 3.], grad_fn=<ClampBackward1>)
torch.relu(x) -> tensor([1., 0., 3.], grad_fn=<ReluBackward0>)
x.nonzero() -> tensor([[0],
        [1],
        [2]])
mask.nonzero(as_tuple=True) -> (tensor([0, 2]),)
x[mask.nonzero().squeeze()] -> tensor([1., 3.], grad_fn=<IndexBackward0>)
x.gt(0) -> tensor([ True, False,  True])
""",
    "mask_write_grad": """\
tensor([1., 0., 3.], grad_fn=<IndexPutBackward0>) <IndexPutBackward0 object at 0x…>
tensor([1., 0., 1.])
tensor([2., 0., 6.], grad_fn=<IndexPutBackward0>)
tensor([3., 0., 3.])
tensor([10., -4.,  6.], grad_fn=<CopySlices>)
tensor([3., 2., 5.])
tensor([[ 1., -1.,  1.],
        [ 0., -1.,  0.]])
""",
    "legacy_more": """\
Variable(torch.ones(2), volatile=True) -> tensor([1., 1.])
Variable(torch.ones(2)).data -> tensor([1., 1.])
Variable([1, 2]) -> TypeError Variable data has to be a tensor, but got list
Variable() -> tensor([])
torch.autograd.Variable(torch.ones(1), requires_grad=True).grad -> None
torch.FloatTensor(2, 3).zero_() -> tensor([[0., 0., 0.],
        [0., 0., 0.]])
torch.LongTensor(3).zero_() -> tensor([0, 0, 0])
torch.FloatTensor([1]).type(torch.DoubleTensor) -> tensor([1.], dtype=torch.float64)
torch.ones(2).type(torch.LongTensor) -> tensor([1, 1])
torch.ones(2).type('torch.DoubleTensor') -> tensor([1., 1.], dtype=torch.float64)
torch.ones(2).type(torch.float64) -> tensor([1., 1.], dtype=torch.float64)
torch.ones(2).type() -> 'torch.FloatTensor'
torch.Tensor([1, 2]).long() -> tensor([1, 2])
torch.Tensor([[1], [2]]).shape -> torch.Size([2, 1])
torch.ByteTensor([1, 0]).bool() -> tensor([ True, False])
torch.FloatTensor(np.array([1, 2])) -> tensor([1., 2.])
torch.Tensor(np.float32(3)) -> TypeError new(): data must be a sequence (got numpy.float32)
torch.DoubleTensor(2).fill_(3) -> tensor([3., 3.], dtype=torch.float64)
isinstance(torch.ones(1), torch.FloatTensor) -> True
isinstance(torch.ones(1, dtype=torch.float64), torch.FloatTensor) -> False
torch.is_tensor(Variable(torch.ones(1))) -> True
UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` instead.
""",
    "tensor_inference": """\
torch.tensor(np.float64(1.5)) -> tensor(1.5000, dtype=torch.float64)
torch.tensor(np.float32(1.5)) -> tensor(1.5000)
torch.tensor(np.int32(3)) -> tensor(3, dtype=torch.int32)
torch.tensor(np.bool_(True)) -> tensor(True)
torch.tensor([np.float64(1.), 2.]) -> tensor([1., 2.], dtype=torch.float64)
torch.tensor([np.int32(1), 2]) -> tensor([1, 2])
torch.tensor([np.float32(1.), np.float64(2.)]) -> tensor([1., 2.], dtype=torch.float64)
torch.tensor([1, np.float64(2.)]) -> tensor([1., 2.], dtype=torch.float64)
torch.tensor(np.array([[1., 2.]])) -> tensor([[1., 2.]], dtype=torch.float64)
torch.tensor([torch.tensor(1., dtype=torch.float64), 2.]) -> tensor([1., 2.], dtype=torch.float64)
torch.tensor([torch.tensor(1), 2.5]) -> tensor([1.0000, 2.5000])
torch.tensor([True, 2]) -> tensor([1, 2])
torch.tensor([[]]) -> tensor([], size=(1, 0))
torch.tensor([1.5, 2]) -> tensor([1.5000, 2.0000])
torch.tensor((1, 2.)) -> tensor([1., 2.])
torch.tensor([torch.tensor([1.]), torch.tensor([2.])]) -> tensor([1., 2.])
torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])]) -> TypeError only integer tensors of a single element can be converted to an index
torch.tensor([torch.tensor([1., 2.]), torch.tensor([3., 4.])]) -> ValueError only one element tensors can be converted to Python scalars
torch.stack([torch.tensor([1., 2.]), torch.tensor([3., 4.])]) -> tensor([[1., 2.],
        [3., 4.]])
torch.tensor([[1, 2], [3]]) -> ValueError expected sequence of length 2 at dim 1 (got 1)
torch.tensor([[1., 2.], 3.]) -> TypeError not a sequence
torch.tensor([1., [2., 3.]]) -> TypeError must be real number, not list
torch.tensor([[[1], [2]], [[1], [2, 3]]]) -> ValueError expected sequence of length 1 at dim 2 (got 2)
torch.tensor('a') -> TypeError new(): invalid data type 'str'
torch.as_tensor(np.float64(2.)) -> tensor(2., dtype=torch.float64)
torch.as_tensor(torch.tensor([1, 2]), dtype=torch.float32) -> tensor([1., 2.])
torch.as_tensor([1, 2], dtype=torch.float64) -> tensor([1., 2.], dtype=torch.float64)
torch.full((2,), np.float64(1.5)) -> tensor([1.5000, 1.5000])
torch.tensor(float('nan')) -> tensor(nan)
torch.tensor(10**20) -> ValueError Overflow when unpacking long long
torch.tensor([10**20]) -> ValueError Overflow when unpacking long long
torch.Tensor([1, [2, 3]]) -> TypeError must be real number, not list
torch.tensor(None) -> RuntimeError Could not infer dtype of NoneType
torch.tensor([None]) -> RuntimeError Could not infer dtype of NoneType
torch.tensor(['a']) -> ValueError too many dimensions 'str'
torch.tensor({}) -> RuntimeError Could not infer dtype of dict
""",
    "copy_construct_warning": """\
tensor([1., 2.]) False False
tensor([1., 2.]) False
tensor([1., 2.]) True tensor([1., 2.])
UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).
UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).
""",
    "operator_operands": """\
torch.ones(2) + None -> TypeError unsupported operand type(s) for +: 'Tensor' and 'NoneType'
torch.ones(2) * 'a' -> TypeError only integer tensors of a single element can be converted to an index
torch.ones(2) == None -> False
torch.ones(2) != None -> True
torch.ones(2) + [1, 2] -> TypeError unsupported operand type(s) for +: 'Tensor' and 'list'
torch.ones(2) == 'a' -> False
None in [torch.ones(1)] -> False
torch.ones(2) + np.ones(2) -> tensor([2., 2.], dtype=torch.float64)
torch.ones(2) + torch.tensor(np.float64(1.)) -> tensor([2., 2.])
torch.tensor(True) + 1 -> tensor(2)
torch.ones(2) < 3 -> tensor([True, True])
torch.tensor([True, False]) & True -> tensor([ True, False])
torch.tensor([1, 2]) / 2 -> tensor([0.5000, 1.0000])
torch.tensor([1, 2]) // 2 -> tensor([0, 1])
torch.tensor([5, 7]) % 3 -> tensor([2, 1])
1 / torch.tensor([1, 2]) -> tensor([1.0000, 0.5000])
torch.tensor([1, 2]) * 1.5 -> tensor([1.5000, 3.0000])
torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2]) -> tensor([2, 4])
""",
    "print_suffix_wrap": """\
tensor([[   0.0000, 1000.5000, 2001.0000, 3001.5000],
        [4002.0000, 5002.5000, 6003.0000, 7003.5000]], grad_fn=<MulBackward0>)
tensor([[3.0000e-05, 3.0000e+00, 6.0000e+00, 9.0000e+00],
        [1.2000e+01, 1.5000e+01, 1.8000e+01, 2.1000e+01]],
       grad_fn=<MulBackward0>)
tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000], dtype=torch.float64, grad_fn=<MulBackward0>)
tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000],
       dtype=torch.float64)
tensor([[     0.0000, 123456.7890, 246913.5780, 370370.3670, 493827.1560]],
       dtype=torch.float64, grad_fn=<MulBackward0>)
tensor([0.3679, 0.4724, 0.6065, 0.7788, 1.0000, 1.2840, 1.6487, 2.1170, 2.7183],
       dtype=torch.float64, grad_fn=<ExpBackward0>)
tensor([[2.0000e-05, 4.0000e+00],
        [6.0000e+00, 8.0000e+00]], grad_fn=<MulBackward0>)
tensor([100000, 200000, 300000], dtype=torch.int32)
tensor([[ True, False],
        [False,  True]])
tensor([], size=(0, 3), requires_grad=True)
tensor([        inf,  1.0000e-05, -2.0000e+00])
tensor([1.0000e-05, 1.0000e+05]) tensor([1.0000e-01, 2.5000e-01, 1.0000e+05]) tensor([ 1.2346e+02, -1.0000e-03])
tensor([1.0995e+12, 1.0000e+00]) tensor([10000000000,           1]) tensor([-1.0000e-10])
tensor([0.3333333333, 0.6666666667], dtype=torch.float64) tensor(0.3333333433)
torch.Size([3, 4, 5]) torch.Size([2, 4, 6])
""",
    "grad_fn_names": """\
x.pow(2) -> PowBackward0 ((<AccumulateGrad object at 0x…>, 0),)
torch.pow(2, x) -> PowBackward2 ((<AccumulateGrad object at 0x…>, 0),)
x.sqrt() -> SqrtBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.exp() -> ExpBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.log() -> LogBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.sigmoid() -> SigmoidBackward0 ((<AccumulateGrad object at 0x…>, 0),)
torch.tanh(x) -> TanhBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.relu() -> ReluBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.sum(0) -> SumBackward1 ((<AccumulateGrad object at 0x…>, 0),)
x.mean(1) -> MeanBackward1 ((<AccumulateGrad object at 0x…>, 0),)
x.max() -> MaxBackward1 ((<AccumulateGrad object at 0x…>, 0),)
x.max(0)[0] -> MaxBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.min(1).values -> MinBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.t() -> TBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.T -> PermuteBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.view(-1) -> ViewBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.reshape(4) -> ViewBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.flatten() -> ViewBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x[0] -> SelectBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x[:, 1] -> SelectBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x[0, 1] -> SelectBackward0 ((<SelectBackward0 object at 0x…>, 0),)
x.unsqueeze(0) -> UnsqueezeBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.squeeze() -> SqueezeBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x @ x -> MmBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.mm(x) -> MmBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x @ v -> MvBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.matmul(v) -> MvBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
v.dot(v) -> DotBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.clamp(min=2) -> ClampBackward1 ((<AccumulateGrad object at 0x…>, 0),)
x.abs() -> AbsBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.norm() -> LinalgVectorNormBackward0 ((<AccumulateGrad object at 0x…>, 0),)
v.norm(p=1) -> LinalgVectorNormBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.softmax(0) -> SoftmaxBackward0 ((<AccumulateGrad object at 0x…>, 0),)
torch.cat([x, x]) -> CatBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
torch.stack([v, v]) -> StackBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.expand(2, 2, 2) -> ExpandBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.repeat(1, 2) -> RepeatBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.transpose(0, 1) -> TransposeBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.permute(1, 0) -> PermuteBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.std() -> StdBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.var(0) -> VarBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.prod() -> ProdBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.cumsum(0) -> CumsumBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.sin() -> SinBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.cos() -> CosBackward0 ((<AccumulateGrad object at 0x…>, 0),)
-x -> NegBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.neg() -> NegBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.reciprocal() -> ReciprocalBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.square() -> PowBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x * v -> MulBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x + v -> AddBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.sub(v, alpha=2) -> SubBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.add(1, alpha=3) -> AddBackward0 ((<AccumulateGrad object at 0x…>, 0), (None, 0))
torch.where(x > 2, x, v) -> WhereBackward0 ((<AccumulateGrad object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))
x.masked_fill(x > 2, 0) -> MaskedFillBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.gather(1, torch.tensor([[0], [1]])) -> GatherBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.index_select(0, torch.tensor([1])) -> IndexSelectBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.log_softmax(1) -> LogSoftmaxBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.logsumexp(1) -> LogsumexpBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.detach() -> None 
x.clone() -> CloneBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.float() -> None 
x.to(torch.float64) -> ToCopyBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.split(1)[0] -> SplitBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.chunk(2, 1)[1] -> SplitBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.unbind()[0] -> UnbindBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.narrow(0, 0, 1) -> SliceBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.contiguous() -> None 
x.flip(0) -> FlipBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.amax(0) -> AmaxBackward0 ((<AccumulateGrad object at 0x…>, 0),)
x.argmax() -> None 
""",
    "view_inplace": """\
tensor([[10., 20.],
        [ 3.,  4.]], grad_fn=<CopySlices>) <CopySlices object at 0x…>
tensor([[10., 10.],
        [ 1.,  1.]])
tensor([[0., 2.],
        [0., 4.]], grad_fn=<CopySlices>) <CopySlices object at 0x…>
tensor([[  1.,   2.],
        [  3., 100.]], requires_grad=True)
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
tensor([[ -1.,   2.],
        [  3., 100.]], requires_grad=True) None True
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).
""",
    "float64_precision": """\
tensor([0.3333333333, 0.6666666667], dtype=torch.float64) tensor(0.1000000000, dtype=torch.float64)
tensor([0.1000000000], dtype=torch.float64) tensor([0.1000000015], dtype=torch.float64) tensor([0.1000000015], dtype=torch.float64)
0.1 0.10000000149011612 [0.1]
tensor([0.1000000000]) 0.3333333333333333 torch.float64
""",
    "gradcheck_forms": """\
True
True
True
True
True
True
True
True
True
True
ValueError gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.
""",
    "function_more": """\
tensor([0.0000, 1.5000, 6.0000], grad_fn=<MulBackward0>) ((<torch.autograd.function.MyReLUBackward object at 0x…>, 0), (None, 0))
tensor([0., 3., 3.])
tensor([ 1.0000, -0.4375,  0.0000,  0.4375, -1.0000], grad_fn=<AddBackward0>) tensor(6.7855, grad_fn=<SumBackward0>)
tensor(0.) tensor(-7.2925)
Result: y = 0.0 + -0.9270748496055603 * P3(x)
needs_input_grad: (True, False, False)
tensor([2.], grad_fn=<NeedsGradBackward>)
tensor(5., grad_fn=<NonDiffBackward>) tensor(1) False <torch.autograd.function.NonDiffBackward object at 0x…>
tensor([6.]) False None
""",
}


BLITZ = """
x = torch.randn(3, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)

print(x.grad)
"""


# ---- Dive into Deep Learning (d2l): preliminaries, linear algebra, softmax from scratch, parameter
# management with lazy layers: d2l's own code (NumPy's axis/keepdims names among it), PyTorch's output
case('d2l_ndarray', '''
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X, x.reshape(-1, 4).shape)
print(torch.zeros((2, 3, 4)).shape, torch.ones((2, 3, 4)).sum())
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
print(X[-1], X[1:3])
X[1, 2] = 17
X[:2, :] = 12
print(X)
x = torch.tensor([1.0, 2, 4, 8]); y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)
print(torch.exp(x))
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1)); b = torch.arange(2).reshape((1, 2))
print(a, b, a + b)
before = id(Y); Y = Y + X; print(id(Y) == before)
Z = torch.zeros_like(Y); print('id(Z):', id(Z) == id(Z)); Z[:] = X + Y
before = id(X); X += Y; print(id(X) == before)
A = X.numpy(); B = torch.from_numpy(A); print(type(A), type(B))
a = torch.tensor([3.5]); print(a, a.item(), float(a), int(a))
''')
case('d2l_linalg', '''
x = torch.tensor(3.0); y = torch.tensor(2.0)
print(x + y, x * y, x / y, x**y)
x = torch.arange(3); print(x, x[2], len(x), x.shape)
A = torch.arange(6).reshape(3, 2); print(A, A.T)
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]]); print(A == A.T)
X = torch.arange(24).reshape(2, 3, 4); print(X)
A = torch.arange(6, dtype=torch.float32).reshape(2, 3); B = A.clone(); print(A, A + B, A * B)
a = 2; X = torch.arange(24).reshape(2, 3, 4); print(a + X, (a * X).shape)
x = torch.arange(3, dtype=torch.float32); print(x, x.sum())
print(A.shape, A.sum(), A.sum(axis=0), A.sum(axis=0).shape, A.sum(axis=1), A.sum(axis=[0, 1]) == A.sum())
print(A.mean(), A.sum() / A.numel(), A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True); print(sum_A, sum_A.shape, A / sum_A, A.cumsum(axis=0))
y = torch.ones(3, dtype=torch.float32); print(x, y, torch.dot(x, y), torch.sum(x * y))
print(A.shape, x.shape, torch.mv(A, x), A@x)
B = torch.ones(3, 4); print(torch.mm(A, B), A@B)
u = torch.tensor([3.0, -4.0]); print(torch.norm(u), torch.abs(u).sum(), torch.norm(torch.ones((4, 9))))
''')
case('d2l_softmax_scratch', '''
torch.manual_seed(0)
X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdims=True), X.sum(1, keepdims=True))
def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition
X = torch.rand((2, 5)); X_prob = softmax(X); print(X_prob, X_prob.sum(1))
W = torch.normal(0, 0.01, size=(6, 3), requires_grad=True); b = torch.zeros(3, requires_grad=True)
def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)
y = torch.tensor([0, 2]); y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])
def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()
print(cross_entropy(y_hat, y))
def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())
print(accuracy(y_hat, y) / len(y))
Xb = torch.rand(2, 6); l = cross_entropy(net(Xb), y); l.backward()
print(l, W.grad.shape, b.grad)
with torch.no_grad():
    for param in [W, b]:
        param -= 0.1 * param.grad / 2
        param.grad.zero_()
print(b)
''')
case('d2l_params', '''
from torch import nn
from torch.nn import functional as F
torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net[2].state_dict())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad == None)
print([(name, param.shape) for name, param in net.named_parameters()])
def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)
net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])
def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)
net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])
def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)
net[0].apply(init_xavier)
print(net[0].weight.data[0])
shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, X):
        return X - X.mean()
layer = CenteredLayer(); print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))
    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)
linear = MyLinear(5, 3); print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1)); print(net(torch.rand(2, 64)))
''')
EXPECTED['d2l_ndarray'] = "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.]) 12 torch.Size([12])\ntensor([[ 0.,  1.,  2.,  3.],\n        [ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]]) torch.Size([3, 4])\ntorch.Size([2, 3, 4]) tensor(24.)\ntensor([[2, 1, 4, 3],\n        [1, 2, 3, 4],\n        [4, 3, 2, 1]])\ntensor([ 8.,  9., 10., 11.]) tensor([[ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]])\ntensor([[12., 12., 12., 12.],\n        [12., 12., 12., 12.],\n        [ 8.,  9., 10., 11.]])\ntensor([ 3.,  4.,  6., 10.]) tensor([-1.,  0.,  2.,  6.]) tensor([ 2.,  4.,  8., 16.]) tensor([0.5000, 1.0000, 2.0000, 4.0000]) tensor([ 1.,  4., 16., 64.])\ntensor([2.7183e+00, 7.3891e+00, 5.4598e+01, 2.9810e+03])\ntensor([[ 0.,  1.,  2.,  3.],\n        [ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.],\n        [ 2.,  1.,  4.,  3.],\n        [ 1.,  2.,  3.,  4.],\n        [ 4.,  3.,  2.,  1.]]) tensor([[ 0.,  1.,  2.,  3.,  2.,  1.,  4.,  3.],\n        [ 4.,  5.,  6.,  7.,  1.,  2.,  3.,  4.],\n        [ 8.,  9., 10., 11.,  4.,  3.,  2.,  1.]])\ntensor([[False,  True, False,  True],\n        [False, False, False, False],\n        [False, False, False, False]]) tensor(66.)\ntensor([[0],\n        [1],\n        [2]]) tensor([[0, 1]]) tensor([[0, 1],\n        [1, 2],\n        [2, 3]])\nFalse\nid(Z): True\nTrue\n<class 'numpy.ndarray'> <class 'torch.Tensor'>\ntensor([3.5000]) 3.5 3.5 3\n"
EXPECTED['d2l_linalg'] = 'tensor(5.) tensor(6.) tensor(1.5000) tensor(9.)\ntensor([0, 1, 2]) tensor(2) 3 torch.Size([3])\ntensor([[0, 1],\n        [2, 3],\n        [4, 5]]) tensor([[0, 2, 4],\n        [1, 3, 5]])\ntensor([[True, True, True],\n        [True, True, True],\n        [True, True, True]])\ntensor([[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])\ntensor([[0., 1., 2.],\n        [3., 4., 5.]]) tensor([[ 0.,  2.,  4.],\n        [ 6.,  8., 10.]]) tensor([[ 0.,  1.,  4.],\n        [ 9., 16., 25.]])\ntensor([[[ 2,  3,  4,  5],\n         [ 6,  7,  8,  9],\n         [10, 11, 12, 13]],\n\n        [[14, 15, 16, 17],\n         [18, 19, 20, 21],\n         [22, 23, 24, 25]]]) torch.Size([2, 3, 4])\ntensor([0., 1., 2.]) tensor(3.)\ntorch.Size([2, 3]) tensor(15.) tensor([3., 5., 7.]) torch.Size([3]) tensor([ 3., 12.]) tensor(True)\ntensor(2.5000) tensor(2.5000) tensor([1.5000, 2.5000, 3.5000]) tensor([1.5000, 2.5000, 3.5000])\ntensor([[ 3.],\n        [12.]]) torch.Size([2, 1]) tensor([[0.0000, 0.3333, 0.6667],\n        [0.2500, 0.3333, 0.4167]]) tensor([[0., 1., 2.],\n        [3., 5., 7.]])\ntensor([0., 1., 2.]) tensor([1., 1., 1.]) tensor(3.) tensor(3.)\ntorch.Size([2, 3]) torch.Size([3]) tensor([ 5., 14.]) tensor([ 5., 14.])\ntensor([[ 3.,  3.,  3.,  3.],\n        [12., 12., 12., 12.]]) tensor([[ 3.,  3.,  3.,  3.],\n        [12., 12., 12., 12.]])\ntensor(5.) tensor(7.) tensor(6.)\n'
EXPECTED['d2l_softmax_scratch'] = 'tensor([[5., 7., 9.]]) tensor([[ 6.],\n        [15.]])\ntensor([[0.2222, 0.2917, 0.1478, 0.1544, 0.1840],\n        [0.2000, 0.1732, 0.2600, 0.1673, 0.1996]]) tensor([1.0000, 1.0000])\ntensor([0.1000, 0.5000])\ntensor(1.4979)\n0.5\ntensor(1.0961, grad_fn=<NegBackward0>) torch.Size([6, 3]) tensor([-0.1640,  0.3313, -0.1673])\ntensor([ 0.0082, -0.0166,  0.0084], requires_grad=True)\n'
EXPECTED['d2l_params'] = "torch.Size([2, 1])\nOrderedDict([('weight', tensor([[-0.1568, -0.0128,  0.2261,  0.3515,  0.1403,  0.0478,  0.2371, -0.2082]])), ('bias', tensor([0.0659]))])\n<class 'torch.nn.parameter.Parameter'> tensor([0.0659])\nTrue\n[('0.weight', torch.Size([8, 4])), ('0.bias', torch.Size([8])), ('2.weight', torch.Size([1, 8])), ('2.bias', torch.Size([1]))]\ntensor([-0.0045, -0.0057, -0.0056,  0.0059]) tensor(0.)\ntensor([1., 1., 1., 1.]) tensor(0.)\ntensor([-0.0127, -0.5325, -0.5454, -0.0390])\ntensor([True, True, True, True, True, True, True, True])\ntensor([True, True, True, True, True, True, True, True])\ntensor([-2., -1.,  0.,  1.,  2.])\nParameter containing:\ntensor([[ 1.3565,  0.7341,  0.8062],\n        [ 0.7410,  0.6088, -0.5560],\n        [ 0.5477,  0.4383,  0.0394],\n        [-1.1895, -0.5015, -0.1455],\n        [ 0.1522, -1.4437, -0.2284]], requires_grad=True)\ntensor([[0.7311, 0.0000, 0.0000],\n        [0.4176, 0.0000, 0.0000]])\ntensor([[13.2952],\n        [ 0.0000]])\n"
EXPECTED['device_and_seed_boilerplate'] = 'Using cpu device\nUsing cpu device True False\nTrue tensor([0.8823, 0.9150])\ntensor([0.3829])\ntensor([0.3829]) 42\ntorch.float64 tensor([0.])\ntorch.float32\n'
EXPECTED['runtime_switches'] = "torch.cuda.device_count() -> 0\ntorch.cuda.is_initialized() -> False\ntorch.cuda.empty_cache() -> None\ntorch.cuda.memory_allocated() -> 0\ntorch.cuda.current_device() -> AssertionError Torch not compiled with CUDA enabled\ntorch.cuda.get_device_name(0) -> AssertionError Torch not compiled with CUDA enabled\ntorch.cuda.synchronize() -> AssertionError Torch not compiled with CUDA enabled\ntorch.cuda.is_bf16_supported() -> False\ntorch.cuda.manual_seed('a') -> ValueError invalid literal for int() with base 10: 'a'\ntorch.cuda.get_rng_state() -> AssertionError Torch not compiled with CUDA enabled\ntorch.cuda.set_rng_state(torch.get_rng_state()) -> None\n[f.__name__ for f in (torch.cuda.current_device, torch.cuda.get_device_name, torch.cuda.synchronize)] -> ['current_device', 'get_device_name', 'synchronize']\ntorch.backends.cudnn.is_available() -> False\ntorch.backends.cudnn.version() -> None\ntorch.backends.cudnn.enabled -> True\ntorch.backends.cudnn.allow_tf32 -> True\ntorch.backends.mps.is_built() -> False\ntorch.backends.cuda.is_built() -> False\ntorch.backends.cuda.matmul.allow_tf32 -> False\ntorch.accelerator.is_available() -> False\ntorch.accelerator.current_accelerator() -> None\ntorch.accelerator.device_count() -> 0\ntorch.accelerator.current_device_index() -> RuntimeError Cannot access accelerator device when none is available.\ntorch.accelerator.synchronize() -> RuntimeError Cannot access accelerator device when none is available.\ntorch.version.cuda -> None\ntorch.version.hip -> None\ntorch.are_deterministic_algorithms_enabled() -> False\ntorch.use_deterministic_algorithms(1) -> TypeError _set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not int\ntorch.use_deterministic_algorithms(True, warn_only=True) -> None\ntorch.is_deterministic_algorithms_warn_only_enabled() -> True\ntorch.use_deterministic_algorithms(False) -> None\ntorch.is_deterministic_algorithms_warn_only_enabled() -> False\ntorch.get_float32_matmul_precision() -> 'highest'\ntorch.set_float32_matmul_precision('high') -> None\ntorch.get_float32_matmul_precision() -> 'high'\ntorch.set_float32_matmul_precision(1) -> RuntimeError set_float32_matmul_precision expects a str, but got int\ntorch.set_float32_matmul_precision('fast') -> None\ntorch.get_float32_matmul_precision() -> 'high'\ntorch.set_float32_matmul_precision('highest') -> None\ntorch.set_default_tensor_type(torch.LongTensor) -> TypeError only floating-point types are supported as the default type\ntorch.set_default_tensor_type(torch.float64) -> TypeError invalid type object: only floating-point types are supported as the default type\ntorch.set_default_tensor_type('torch.Foo') -> AttributeError module 'torch' has no attribute 'Foo'\ntorch.get_default_dtype() -> torch.float32\ntype(torch.random.get_rng_state()) -> <class 'torch.Tensor'>\ntorch.random.manual_seed(3).initial_seed() -> 3\nUserWarning: fast is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision call has no effect. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)\n"
EXPECTED['weighted_sampler'] = 'tensor([8., 7., 9., 8.]) tensor([1, 0, 1, 1])\ntensor([9., 2., 5., 8.]) tensor([1, 0, 0, 1])\ntensor([4., 7.]) tensor([0, 0])\n10 3 torch.float64 tensor([0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.1250, 0.5000,\n        0.5000], dtype=torch.float64)\n[0, 2, 1]\nValueError num_samples should be a positive integer value, but got num_samples=0\nValueError replacement should be a boolean value, but got replacement=1\nValueError weights should be a 1d sequence but given weights have shape (1, 2)\nValueError num_samples should be a positive integer value, but got num_samples=True\nRuntimeError cannot sample n_sample > prob_dist.size(-1) samples without replacement\nRuntimeError probability tensor contains either `inf`, `nan` or element < 0\n'
EXPECTED['buffers'] = "tensor([ 0.0527, -0.0284, -0.1029]) tensor(1) tensor([ 1.8985, -1.0229, -3.7031])\n['weight', 'mean'] ['mean', 'count'] ['weight']\n<class 'torch.Tensor'> True False True True True\ntensor([]) True False\n['mean', 'weight'] ['count', 'extra', 'mean'] tensor([5., 5., 5.])\n['mean', 'weight'] tensor([0.])\nTypeError cannot assign 'list' as buffer 'mean' (torch.nn.Buffer, torch.Tensor or None expected)\nAttributeError 'list' object has no attribute 'detach'\nRuntimeError Registering a non-persistent buffer on a Module subclass that implements register_buffer() without the persistent argument is not allowed.\n['a']\ntensor([5., 5., 5.]) tensor(0)\nRunningNorm()\n"
EXPECTED['spectral_norm_hook'] = "['bias', 'weight_orig'] ['weight_u', 'weight_v'] ['bias', 'weight_orig', 'weight_u', 'weight_v']\ntensor([-0.4860,  0.6243, -0.6076,  0.0696]) tensor([-0.2956,  0.1948, -0.4656, -0.7877,  0.1933])\ntensor([[-0.2559,  1.0774, -1.1824,  0.4484],\n        [ 0.1253,  0.2923,  0.3561,  0.2741],\n        [ 0.8119,  0.5555,  0.5595,  1.2794]], grad_fn=<AddmmBackward0>)\n<DivBackward0 object at 0x…> ['AccumulateGrad', 'DotBackward0']\nDotBackward0 [None, 'MvBackward0']\ntensor([[-1.0907,  0.3075,  2.8345, -2.7769,  2.9492],\n        [-1.5935,  0.4850,  0.6992, -3.7022,  2.1435],\n        [-1.0641,  0.2982,  2.9474, -2.7280,  2.9918],\n        [-1.4147,  0.4219,  1.4587, -3.3731,  2.4301]])\ntensor([-0.6121,  0.4218, -0.6667,  0.0541])\ntensor(1.0000) tensor(0.8313)\nTrue\ntorch.Size([3]) torch.Size([8]) torch.Size([1, 3, 4, 4])\n<CloneBackward0 object at 0x…>\n<class 'torch.nn.parameter.Parameter'> ['bias', 'weight'] ['bias', 'weight']\nParameter containing:\ntensor([[-0.0040,  0.2886, -0.4428, -0.3959, -0.2072],\n        [ 0.1443, -0.0107,  0.4265, -0.0477,  0.1423],\n        [-0.1626, -0.1057, -0.5139, -0.3563, -0.2218],\n        [ 0.0199,  0.2127,  0.3228, -0.3647, -0.2343]], requires_grad=True)\nRuntimeError Cannot register two spectral_norm hooks on the same parameter weight\nValueError Expected n_power_iterations to be positive, but got n_power_iterations=0\nValueError spectral_norm of 'weight' not found in Linear(in_features=2, out_features=2, bias=True)\nValueError `SpectralNorm` cannot be applied as parameter `bias` is None\nTrue\n"
EXPECTED['checkpoint'] = "  after exp\ntensor([-0.9728, -0.6522,  0.3949], grad_fn=<CheckpointFunctionBackward>) ['torch::autograd::AccumulateGrad']\nbackward:\n  after exp\ntensor([ 1.1458, -2.9201,  0.3730]) ['run', 'run']\n  after exp\nSinBackward0 MulBackward0\n  after exp\ntensor([4.9462, 3.8521, 0.4060], grad_fn=<MulBackward0>)\nbackward:\n  after exp\n  after exp\ntensor([ 2.2916, -5.8401,  0.7460]) ['run', 'run', 'run', 'run', 'run', 'run']\n  after exp\nRuntimeError When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without passing the `inputs` argument.\n  after exp\n  after exp\n(tensor([ 1.1458, -2.9201,  0.3730]),)\n  after exp\nFalse\n  after exp\nFalse\nValueError Unexpected keyword arguments: k\nValueError Passing `context_fn` or `debug` is only supported when use_reentrant=False.\nValueError determinism_check should be one of ['default', 'none'], but got shapes\ntensor([[-0.1603],\n        [-0.0331]], grad_fn=<AddmmBackward0>)\ntensor([[ 0.0000,  0.0000,  0.0000],\n        [-0.0020,  0.0782, -0.0087]])\ntensor([[ 0.0000,  0.0000,  0.0000],\n        [ 0.0000,  0.0000,  0.0000],\n        [-0.0598,  0.2882, -0.3683],\n        [ 0.0000,  0.0000,  0.0000]])\nAddmmBackward0 ['torch::autograd::AccumulateGrad', 'TanhBackward0', 'TBackward0']\ntensor([[ 0.0000,  0.0000,  0.0000],\n        [-0.0020,  0.0782, -0.0087]])\nRuntimeError one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 o\nCheckpointError torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass.\ntensor at position 0:\nsaved metadata: {'shape': torch.Size([3]), 'dtype': torch.float32, 'device': device(type='cpu')}\nrecomputed metadata: {'shape': torch.Size([3, 1]), 'dtype': torch.float32, 'device': devi\nUserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\nUserWarning: None of the inputs have requires_grad=True. Gradients will be None\nUserWarning: torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.\n"
EXPECTED['testing_assert_close'] = "torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.])) -> None\ntorch.testing.assert_close(torch.tensor([[1., 2.], [3, 4]]), torch.tensor([[1., 2.5], [3.5, 4]])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: 0.5 at index (0, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (0, 1) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64)) -> AssertionError The values for attribute 'dtype' do not match: torch.float32 != torch.float64.\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2., 3.])) -> AssertionError The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).\ntorch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3])) -> AssertionError Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 0.3333333432674408 at index (1,)\ntorch.testing.assert_close(1.0, 1.1) -> AssertionError Scalars are not close!\n\nExpected 1.1 but got 1.0.\nAbsolute difference: 0.10000000000000009 (up to 1e-07 allowed)\nRelative difference: 0.09090909090909098 (up to 1e-07 allowed)\ntorch.testing.assert_close(1, 2) -> AssertionError Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5\ntorch.testing.assert_close(torch.tensor(1.), 1.0) -> TypeError No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'float'>.\ntorch.testing.assert_close([torch.tensor(1.), torch.tensor(2.)], [torch.tensor(1.), torch.tensor(2.5)]) -> AssertionError Scalars are not close!\n\nExpected 2.5 but got 2.0.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\nRelative difference: 0.2 (up to 1.3e-06 allowed)\n\nThe failure occurred for item [1]\ntorch.testing.assert_close({'a': torch.tensor(1.)}, {'a': torch.tensor(1.5)}) -> AssertionError Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\nRelative difference: 0.3333333333333333 (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['a']\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), rtol=0.1) -> ValueError Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), rtol=0.1, atol=0) -> None\ntorch.testing.assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.tensor([1., float('nan')]), torch.tensor([1., float('nan')]), equal_nan=True) -> None\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), msg='custom') -> AssertionError custom\ntorch.testing.assert_close(torch.tensor([1., 2.], requires_grad=True), torch.tensor([1., 2.])) -> None\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64), check_dtype=False) -> None\ntorch.testing.assert_close(torch.tensor([1., 2.]), [1., 2.]) -> TypeError No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'list'>.\ntorch.testing.assert_close(torch.tensor([True, False]), torch.tensor([True, True])) -> AssertionError Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 1.0 at index (1,)\ntorch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., float('inf')])) -> None\ntorch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., -float('inf')])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.zeros(2,3)[:, 1], torch.zeros(2)) -> None\ntorch.testing.assert_close(torch.tensor([1e-6]), torch.tensor([2e-6])) -> None\ntorch.testing.assert_close(torch.tensor(3.), torch.tensor(4.)) -> AssertionError Scalars are not close!\n\nExpected 4.0 but got 3.0.\nAbsolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 0.25 (up to 1.3e-06 allowed)\ntorch.testing.assert_close((1., 2.), (1., 2.5)) -> AssertionError Scalars are not close!\n\nExpected 2.5 but got 2.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.2 (up to 1e-07 allowed)\n\nThe failure occurred for item [1]\ntorch.testing.assert_close([1., 2.], (1., 2.)) -> None\ntorch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), msg=lambda m: 'X' + m[:5]) -> AssertionError XTenso\ntorch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1., 2.])) -> AssertionError The values for attribute 'dtype' do not match: torch.int64 != torch.float32.\ntorch.testing.assert_close(None, None) -> None\ntorch.testing.assert_close('a', 'a') -> TypeError No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.\ntorch.testing.assert_close(torch.ones(3, 4) , torch.ones(3, 4) + torch.arange(12.).reshape(3,4) * 1e-3) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 11 / 12 (91.7%)\nGreatest absolute difference: 0.01100003719329834 at index (2, 3) (up to 1e-05 allowed)\nGreatest relative difference: 0.010880352929234505 at index (2, 3) (up to 1.3e-06 allowed)\ntorch.testing.assert_close([torch.tensor(1.), None], [torch.tensor(2.), 1]) -> AssertionError Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 0.5 (up to 1.3e-06 allowed)\n\nThe failure occurred for item [0]\ntorch.testing.assert_close([torch.tensor(1.), 'a'], [torch.tensor(2.), 'a']) -> TypeError No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.\n\nThe failure occurred for item [1]\ntorch.testing.assert_close([1, 2], [1]) -> AssertionError The length of the sequences mismatch: 2 != 1\ntorch.testing.assert_close({'a': 1}, {'b': 1, 'a': 1}) -> AssertionError The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\nAdditional keys in the actual mapping: []\ntorch.testing.assert_close(np.array([1., 2.]), np.array([1., 2.5])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-07 allowed)\nGreatest relative difference: 0.2 at index (1,) (up to 1e-07 allowed)\ntorch.testing.assert_close(np.array([1., 2.]), torch.tensor([1., 2.])) -> TypeError No comparison pair was able to handle inputs of type <class 'numpy.ndarray'> and <class 'torch.Tensor'>.\ntorch.testing.assert_close(torch.nn.Parameter(torch.tensor([1., 2.])), torch.tensor([1., 3.])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 5]), rtol=0.1, atol=0.5) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 3 at index (1,) (up to 0.5 allowed)\nGreatest relative difference: 0.6000000238418579 at index (1,) (up to 0.1 allowed)\ntorch.testing.assert_close(torch.tensor([[1, 0], [3, 4]]), torch.tensor([[1, 2], [0, 4]])) -> AssertionError Tensor-likes are not equal!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: 3 at index (1, 0)\nGreatest relative difference: inf at index (1, 0)\ntorch.testing.assert_close(torch.tensor([1., 2.], dtype=torch.float64), torch.tensor([1., 2.0000001], dtype=torch.float64)) -> None\ntorch.testing.assert_close(torch.tensor([1., 2.], dtype=torch.float16), torch.tensor([1., 2.01], dtype=torch.float16)) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.009765625 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.00485992431640625 at index (1,) (up to 0.001 allowed)\ntorch.testing.assert_close(True, False) -> AssertionError Booleans mismatch: True is not False\ntorch.testing.assert_close(1, 1.0) -> AssertionError The (d)types do not match: <class 'int'> != <class 'float'>.\ntorch.testing.assert_close(1, 1.0, check_dtype=True) -> AssertionError The (d)types do not match: <class 'int'> != <class 'float'>.\ntorch.testing.assert_close(torch.ones(2).t(), torch.ones(2), check_stride=True) -> None\ntorch.testing.assert_close(torch.ones(2, 2).t(), torch.ones(2, 2), check_stride=True) -> AssertionError The values for attribute 'stride()' do not match: (1, 2) != (2, 1).\ntorch.testing.assert_close(torch.tensor([0., 1.]), torch.tensor([1., 1.])) -> AssertionError Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)\ntorch.testing.assert_close(torch.tensor(float('nan')), torch.tensor(1.)) -> AssertionError Scalars are not close!\n\nExpected 1.0 but got nan.\nAbsolute difference: nan (up to 1e-05 allowed)\nRelative difference: nan (up to 1.3e-06 allowed)\ntorch.testing.assert_close(np.float32(1.5), 1.5) -> None\n"

# ---- d2l, further on: convolution and pooling from scratch (a kernel learned through a lazy conv),
# batch norm and an RNN step from scratch with gradient clipping
case('d2l_conv_scratch', '''
from torch import nn
def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y
X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(corr2d(X, K))
class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))
    def forward(self, x):
        return corr2d(x, self.weight) + self.bias
X = torch.ones((6, 8)); X[:, 2:6] = 0; print(X)
K = torch.tensor([[1.0, -1.0]]); Y = corr2d(X, K); print(Y, corr2d(X.t(), K))
torch.manual_seed(0)
conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
X = X.reshape((1, 1, 6, 8)); Y = Y.reshape((1, 1, 6, 7)); lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f'epoch {i + 1}, loss {l.sum():.3f}')
print(conv2d.weight.data.reshape((1, 2)))
def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])
conv2d = nn.LazyConv2d(1, kernel_size=3, padding=1); X = torch.rand(size=(8, 8)); print(comp_conv2d(conv2d, X).shape)
conv2d = nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)); print(comp_conv2d(conv2d, X).shape)
def corr2d_multi_in(X, K):
    return sum(corr2d(x, k) for x, k in zip(X, K))
X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
print(corr2d_multi_in(X, K))
def corr2d_multi_in_out(X, K):
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)
K = torch.stack((K, K + 1, K + 2), 0); print(K.shape, corr2d_multi_in_out(X, K))
def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y
X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]); print(pool2d(X, (2, 2)), pool2d(X, (2, 2), 'avg'))
X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
pool2d = nn.MaxPool2d(3); print(pool2d(X))
pool2d = nn.MaxPool2d(3, padding=1, stride=2); print(pool2d(X))
X = torch.cat((X, X + 1), 1); print(nn.MaxPool2d(3, padding=1, stride=2)(X))
''')
case('d2l_batchnorm_rnn_scratch', '''
from torch import nn
from torch.nn import functional as F
def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data
X = torch.arange(16.0).reshape(2, 2, 2, 2)
gamma = torch.ones((1, 2, 1, 1), requires_grad=True); beta = torch.zeros((1, 2, 1, 1), requires_grad=True)
Y, mm, mv = batch_norm(X, gamma, beta, torch.zeros((1, 2, 1, 1)), torch.ones((1, 2, 1, 1)), 1e-5, 0.1)
print(Y, mm, mv)
Y.sum().backward(); print(gamma.grad.abs().max() < 1e-5, beta.grad.flatten())  # (gamma's: rounding noise)
torch.manual_seed(0)
X = torch.arange(10).reshape((2, 5))
print(F.one_hot(torch.tensor([0, 2]), 28).shape, F.one_hot(X.T, 28).shape)
num_inputs, num_hiddens = 4, 3
W_xh = torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01
W_hh = (torch.randn(num_hiddens, num_hiddens) * 0.01).requires_grad_()
b_h = torch.zeros(num_hiddens, requires_grad=True)
W_xh = W_xh.detach().requires_grad_()
state = torch.zeros((2, num_hiddens))
outputs = []
for X in torch.randn(3, 2, num_inputs):
    state = torch.tanh(torch.matmul(X, W_xh) + torch.matmul(state, W_hh) + b_h)
    outputs.append(state)
out = torch.cat(outputs, 0); print(out.shape, out.grad_fn)
out.sum().backward()
params = [W_xh, W_hh, b_h]
norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params)); print(norm)
theta = 0.001
if norm > theta:
    for param in params:
        param.grad[:] *= theta / norm
print(b_h.grad)
''')
EXPECTED['d2l_conv_scratch'] = 'tensor([[19., 25.],\n        [37., 43.]])\ntensor([[1., 1., 0., 0., 0., 0., 1., 1.],\n        [1., 1., 0., 0., 0., 0., 1., 1.],\n        [1., 1., 0., 0., 0., 0., 1., 1.],\n        [1., 1., 0., 0., 0., 0., 1., 1.],\n        [1., 1., 0., 0., 0., 0., 1., 1.],\n        [1., 1., 0., 0., 0., 0., 1., 1.]])\ntensor([[ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.],\n        [ 0.,  1.,  0.,  0.,  0., -1.,  0.]]) tensor([[0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0.]])\nepoch 2, loss 8.330\nepoch 4, loss 1.722\nepoch 6, loss 0.422\nepoch 8, loss 0.125\nepoch 10, loss 0.043\ntensor([[ 1.0063, -0.9662]])\ntorch.Size([8, 8])\ntorch.Size([2, 2])\ntensor([[ 56.,  72.],\n        [104., 120.]])\ntorch.Size([3, 2, 2, 2]) tensor([[[ 56.,  72.],\n         [104., 120.]],\n\n        [[ 76., 100.],\n         [148., 172.]],\n\n        [[ 96., 128.],\n         [192., 224.]]])\ntensor([[4., 5.],\n        [7., 8.]]) tensor([[2., 3.],\n        [5., 6.]])\ntensor([[[[10.]]]])\ntensor([[[[ 5.,  7.],\n          [13., 15.]]]])\ntensor([[[[ 5.,  7.],\n          [13., 15.]],\n\n         [[ 6.,  8.],\n          [14., 16.]]]])\n'
EXPECTED['d2l_batchnorm_rnn_scratch'] = 'tensor([[[[-1.3242, -1.0835],\n          [-0.8427, -0.6019]],\n\n         [[-1.3242, -1.0835],\n          [-0.8427, -0.6019]]],\n\n\n        [[[ 0.6019,  0.8427],\n          [ 1.0835,  1.3242]],\n\n         [[ 0.6019,  0.8427],\n          [ 1.0835,  1.3242]]]], grad_fn=<AddBackward0>) tensor([[[[0.5500]],\n\n         [[0.9500]]]]) tensor([[[[2.6250]],\n\n         [[2.6250]]]])\ntensor(True) tensor([8., 8.])\ntorch.Size([2, 28]) torch.Size([5, 2, 28])\ntorch.Size([6, 3]) <CatBackward0 object at 0x…>\ntensor(15.8622)\ntensor([0.0004, 0.0004, 0.0004])\n'

# ---- d2l's concise linear regression (TensorDataset, a shuffling DataLoader, SGD) and dropout from
# scratch and as a layer in a lazy MLP with weight decay: the same draws, masks and batches as PyTorch's
case('d2l_linreg_concise', '''
from torch import nn
from torch.utils import data
torch.manual_seed(42)
def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
true_w = torch.tensor([2, -3.4]); true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)
print('features:', features[0], '\\nlabel:', labels[0])
def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)
data_iter = load_array((features, labels), 10)
print(next(iter(data_iter))[1].T)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01); net[0].bias.data.fill_(0)
loss = nn.MSELoss(); trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:.4f}')  # (d2l prints {l:f}: one float32 ulp apart here)
w = net[0].weight.data; print('error in estimating w:', true_w - w.reshape(true_w.shape))
b = net[0].bias.data; print('error in estimating b:', true_b - b)
''')
case('d2l_mlp_dropout', '''
from torch import nn
torch.manual_seed(0)
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1: return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)
X = torch.arange(16, dtype = torch.float32).reshape((2, 8))
print('dropout_p = 0:', dropout_layer(X, 0))
print('dropout_p = 0.5:', dropout_layer(X, 0.5))
print('dropout_p = 1:', dropout_layer(X, 1))
def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)
print(relu(torch.tensor([-1.0, 2.0])))
net = nn.Sequential(nn.Flatten(), nn.LazyLinear(16), nn.ReLU(), nn.Dropout(0.5), nn.LazyLinear(3))
Xb = torch.rand(4, 2, 2); y = torch.tensor([0, 1, 2, 1])
opt = torch.optim.SGD(net.parameters(), lr=0.1, weight_decay=1e-3)
for step in range(3):
    Y_hat = net(Xb)
    l = nn.functional.cross_entropy(Y_hat, y, reduction='none')
    opt.zero_grad(); l.mean().backward(); opt.step()
    print(step, l.detach(), Y_hat.argmax(axis=1))
net.eval(); print(net(Xb).argmax(axis=1), net)
''')
EXPECTED['d2l_linreg_concise'] = 'features: tensor([1.9269, 1.4873]) \nlabel: tensor([3.0101])\ntensor([[ 8.2629,  2.3397,  1.7800,  1.9383,  0.6649,  9.7656, -2.9063,  2.3871,\n          5.3435, -2.1869]])\nepoch 1, loss 9.5953\nepoch 2, loss 4.3854\nepoch 3, loss 2.0227\nerror in estimating w: tensor([ 0.6086, -1.2291])\nerror in estimating b: tensor([1.1648])\n'
EXPECTED['d2l_mlp_dropout'] = 'dropout_p = 0: tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11., 12., 13., 14., 15.]])\ndropout_p = 0.5: tensor([[ 0.,  2.,  0.,  0.,  8., 10.,  0., 14.],\n        [ 0., 18., 20.,  0.,  0.,  0.,  0., 30.]])\ndropout_p = 1: tensor([[0., 0., 0., 0., 0., 0., 0., 0.],\n        [0., 0., 0., 0., 0., 0., 0., 0.]])\ntensor([0., 2.])\n0 tensor([0.9457, 1.2842, 1.0869, 1.3013]) tensor([0, 0, 0, 0])\n1 tensor([0.8646, 1.4232, 1.0928, 1.2233]) tensor([0, 0, 0, 2])\n2 tensor([0.9356, 1.2948, 1.1647, 1.2730]) tensor([0, 2, 0, 0])\ntensor([0, 0, 0, 0]) Sequential(\n  (0): Flatten(start_dim=1, end_dim=-1)\n  (1): Linear(in_features=4, out_features=16, bias=True)\n  (2): ReLU()\n  (3): Dropout(p=0.5, inplace=False)\n  (4): Linear(in_features=16, out_features=3, bias=True)\n)\n'


# ---- d2l's attention scoring: masked softmax (a mask written through ~mask), additive attention of
# lazy layers, scaled dot-product attention and a grad through it
case('d2l_attention', '''
import math
from torch import nn
torch.manual_seed(0)
def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X
def masked_softmax(X, valid_lens):
    def _sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
        X[~mask] = value
        return X
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = _sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)
print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])))
print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]])))
class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)
    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)
queries = torch.normal(0, 1, (2, 1, 20)); keys = torch.normal(0, 1, (2, 10, 2))
values = torch.normal(0, 1, (2, 10, 4)); valid_lens = torch.tensor([2, 6])
attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
attention.eval()
out = attention(queries, keys, values, valid_lens); print(out.shape, out[0], out.grad_fn)
class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)
queries = torch.normal(0, 1, (2, 1, 2))
attention = DotProductAttention(dropout=0.5); attention.eval()
out = attention(queries, keys, values, valid_lens); print(out, attention.attention_weights.sum(-1).round(decimals=4))  # (float32 sums: an ulp apart)
keys.requires_grad_(); out = attention(queries, keys, values, valid_lens); out.sum().backward(); print(keys.grad[1, :3])
''')
EXPECTED['d2l_attention'] = 'tensor([[[0.4324, 0.5676, 0.0000, 0.0000],\n         [0.4191, 0.5809, 0.0000, 0.0000]],\n\n        [[0.3234, 0.3859, 0.2907, 0.0000],\n         [0.2882, 0.3337, 0.3781, 0.0000]]])\ntensor([[[1.0000, 0.0000, 0.0000, 0.0000],\n         [0.3316, 0.4189, 0.2495, 0.0000]],\n\n        [[0.4667, 0.5333, 0.0000, 0.0000],\n         [0.1837, 0.2217, 0.2071, 0.3876]]])\ntorch.Size([2, 1, 4]) tensor([[ 0.0558,  0.2727, -0.0121,  0.4267]], grad_fn=<SelectBackward0>) <BmmBackward0 object at 0x…>\ntensor([[[-0.1649,  0.1647,  0.1671,  0.9430]],\n\n        [[-0.1067, -0.1806,  0.1588,  0.2604]]]) tensor([[1.],\n        [1.]])\ntensor([[ 0.0101, -0.0077],\n        [ 0.1524, -0.1161],\n        [-0.0456,  0.0347]])\n'


def normalise(text):
    return re.sub(r"0x[0-9a-fA-F]+", "0x…", text)


def _reset(mod):
    mod.set_printoptions(profile="default")
    mod.set_default_dtype(mod.float32)
    mod.set_default_device(None)


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Cases change print options and defaults; put both libraries back whatever happens."""
    import sys

    yield
    _reset(engine)
    if "torch" in sys.modules:
        _reset(sys.modules["torch"])


def test_every_case_has_its_expected_output():
    assert set(CASES) == set(EXPECTED)
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", list(CASES))
def test_engine_output(name):
    (out,) = run_cells([CASES[name]], engine)
    assert normalise(out) == EXPECTED[name]


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_torch_output(torch_ref, name):
    """EXPECTED is PyTorch 2.13's output, not a snapshot of the engine's."""
    (out,) = run_cells([CASES[name]], torch_ref)
    assert normalise(out) == EXPECTED[name]


# ---------------------------------------------------------------- the 60-minute blitz snippet


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("direction", ["torch_draws", "engine_draws"])
def test_blitz_matches_torch_on_the_same_draws(torch_ref, direction, seed):
    torch_ref.manual_seed(seed)
    engine.manual_seed(seed)
    tape = RandomTape()
    if direction == "torch_draws":
        t_out = run_cells([BLITZ], tape.recording(torch_ref))
        e_out = run_cells([BLITZ], tape.replaying(engine))
    else:
        e_out = run_cells([BLITZ], tape.recording(engine))
        t_out = run_cells([BLITZ], tape.replaying(torch_ref))
    assert tape.exhausted
    assert e_out == t_out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blitz_on_the_engine_alone(seed):
    """With the engine's own draws: y = x * 2**k with ||y|| >= 1000, and x.grad = v * 2**k."""
    engine.manual_seed(seed)
    ns = {}
    (out,) = run_cells([BLITZ], engine, ns)
    x, y, v = ns["x"], ns["y"], ns["v"]
    assert type(y.grad_fn).__name__ == "MulBackward0" and x.is_leaf and x.grad.shape == (3,)
    factor = float(y.detach()[0] / x.detach()[0])
    k = round(np.log2(factor))
    assert factor == 2.0 ** k and k >= 1
    assert float(y.detach().norm()) >= 1000 > float(y.detach().norm()) / 2 or k == 1
    np.testing.assert_allclose(x.grad.numpy(), v.numpy() * factor, rtol=1e-6)
    lines = out.splitlines()
    assert lines[0].startswith("tensor([") and lines[0].endswith("grad_fn=<MulBackward0>)")
    assert lines[1].startswith("tensor([") and "grad" not in lines[1]
    assert dict(v=str(v.dtype), x=str(x.dtype)) == dict(v="torch.float32", x="torch.float32")


# ---------------------------------------------------------------- direct checks of what the cases rely on


def test_legacy_constructor_aliases_a_tensor():
    t = engine.tensor([1, 2])
    a = engine.Tensor(t)
    assert a.dtype is engine.int64 and a is not t
    a[0] = 5
    assert t.tolist() == [5, 2] and t._version == a._version == 1
    g = engine.tensor([1., 2.], requires_grad=True)
    assert type(engine.Tensor(g).grad_fn).__name__ == "AliasBackward0"


def test_torch_named_classes_still_pickle():
    import pickle

    x = engine.ones(2, 3, dtype=engine.float64)
    for obj in (x.shape, x.dtype, engine.bool, engine.int64, x.device):
        back = pickle.loads(pickle.dumps(obj))
        assert back == obj and type(back) is type(obj)
    assert pickle.loads(pickle.dumps(engine.float32)) is engine.float32
    back = pickle.loads(pickle.dumps(x))
    assert back.tolist() == x.tolist() and back.dtype is engine.float64
    assert repr(type(x)) == "<class 'torch.Tensor'>" and repr(type(x.shape)) == "<class 'torch.Size'>"


# ---------------------------------------------------------------- two more notebooks, cell by cell

D2L_AUTOGRAD = [  # Dive into Deep Learning, 2.5 "Automatic Differentiation"
    "x = torch.arange(4.0)\nx",
    "x.requires_grad_(True)\nx.grad  # The default value is None",
    "y = 2 * torch.dot(x, x)\ny",
    "y.backward()\nx.grad",
    "x.grad == 4 * x",
    "x.grad.zero_()  # Reset the gradient\ny = x.sum()\ny.backward()\nx.grad",
    "x.grad.zero_()\ny = x * x\ny.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()\nx.grad",
    "x.grad.zero_()\ny = x * x\nu = y.detach()\nz = u * x\n\nz.sum().backward()\nx.grad == u",
    "x.grad.zero_()\ny.sum().backward()\nx.grad == 2 * x",
    "def f(a):\n    b = a * 2\n    while b.norm() < 1000:\n        b = b * 2\n    if b.sum() > 0:\n        c = b\n    else:\n        c = 100 * b\n    return c",
    "a = torch.randn(size=(), requires_grad=True)\nd = f(a)\nd.backward()",
    "a.grad == d / a",
]
D2L_EXPECTED = [
    "tensor([0., 1., 2., 3.])\n", "", "tensor(28., grad_fn=<MulBackward0>)\n", "tensor([ 0.,  4.,  8., 12.])\n",
    "tensor([True, True, True, True])\n", "tensor([1., 1., 1., 1.])\n", "tensor([0., 2., 4., 6.])\n",
    "tensor([True, True, True, True])\n", "tensor([True, True, True, True])\n", "", "", "tensor(True)\n",
]

BLITZ_AUTOGRAD = [  # PyTorch's "A Gentle Introduction to torch.autograd"
    "import torch\n\na = torch.tensor([2., 3.], requires_grad=True)\nb = torch.tensor([6., 4.], requires_grad=True)",
    "Q = 3*a**3 - b**2",
    "external_grad = torch.tensor([1., 1.])\nQ.backward(gradient=external_grad)",
    "# check if collected gradients are correct\nprint(9*a**2 == a.grad)\nprint(-2*b == b.grad)",
    "x = torch.rand(5, 5)\ny = torch.rand(5, 5)\nz = torch.rand((5, 5), requires_grad=True)\n\na = x + y\n"
    "print(f\"Does `a` require gradients?: {a.requires_grad}\")\nb = x + z\n"
    "print(f\"Does `b` require gradients?: {b.requires_grad}\")",
]
BLITZ_AUTOGRAD_EXPECTED = [
    "", "", "", "tensor([True, True])\ntensor([True, True])\n",
    "Does `a` require gradients?: False\nDoes `b` require gradients?: True\n",
]

NOTEBOOKS = {"d2l_autograd": (D2L_AUTOGRAD, D2L_EXPECTED), "blitz_autograd": (BLITZ_AUTOGRAD, BLITZ_AUTOGRAD_EXPECTED)}


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_on_the_engine(name):
    cells, expected = NOTEBOOKS[name]
    engine.manual_seed(0)
    assert run_cells(cells, engine) == expected


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("direction", ["torch_draws", "engine_draws"])
@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_matches_torch(torch_ref, name, direction, seed):
    cells, expected = NOTEBOOKS[name]
    torch_ref.manual_seed(seed)
    engine.manual_seed(seed)
    tape = RandomTape()
    if direction == "torch_draws":
        t_out = run_cells(cells, tape.recording(torch_ref))
        e_out = run_cells(cells, tape.replaying(engine))
    else:
        e_out = run_cells(cells, tape.recording(engine))
        t_out = run_cells(cells, tape.replaying(torch_ref))
    assert tape.exhausted
    assert t_out == expected
    assert e_out == t_out


def test_set_default_tensor_type_warns_once_as_pytorch_does():
    from engine import _settings

    _settings._state["warned_tensor_type"] = False
    try:
        with pytest.warns(UserWarning) as caught:
            engine.set_default_tensor_type(engine.DoubleTensor)
            engine.set_default_tensor_type("torch.FloatTensor")
        assert [str(w.message) for w in caught] == [
            "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and "
            "torch.set_default_device() as alternatives. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)"]
        assert engine.get_default_dtype() is engine.float32
    finally:
        engine.set_default_dtype(engine.float32)
