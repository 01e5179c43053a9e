"""The code cells of the five autograd tutorials in ``/work/shared/seeds`` (Chinese notebooks on
``torch.autograd``), copied verbatim, with what PyTorch 2.13 shows for them.

Each notebook is a ``Notebook``: its cells in order (they share one namespace), the cells whose
output depends on random numbers, the cells whose output is not compared (with the reason), and
the outputs the tutorial prints that are still what PyTorch 2.13 prints, normalised: object
addresses are written ``0x…`` and ``id(...)`` numbers ``id:…``. Where the tutorial shows an
older PyTorch (``<class 'MeanBackward0'>`` for a ``grad_fn``, ``BinaryCrossEntropyWithLogitsBackward``
without the ``0``, no warning on a non-leaf ``.grad``), the expected text is 2.13's, and the
difference is noted next to it.
"""
from dataclasses import dataclass, field

CELLS_000 = [
    r'''import torch
import torch.autograd as autograd''',
    r'''x = torch.tensor([[1., 2.], [3., 4.]])
x.requires_grad_(True)
out = torch.mean(x * x)
print(out)
print(out.grad_fn)''',
    r'''out.backward()''',
    r'''print(x.grad)
print(x.data)''',
    r'''x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x*x
v = torch.tensor([1., 1/2., 1/3.])
y.backward(v)
print(x.grad)''',
    r'''y = x.detach()
print(y.requires_grad)
print(x.requires_grad)
print(x.eq(y).all())
with torch.no_grad():
    print((x**2).requires_grad)''',
]

CELLS_001 = [
    r'''%matplotlib inline''',
    r'''import torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)''',
    r'''print('Gradient function for z =',z.grad_fn)
print('Gradient function for loss =', loss.grad_fn)''',
    r'''loss.backward()
print(w.grad)
print(b.grad)''',
    r'''z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)''',
    r'''z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)''',
    r'''inp = torch.eye(5, requires_grad=True)
out = (inp+1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nSecond call\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nCall after zeroing gradients\n", inp.grad)''',
]

CELLS_002 = [
    r'''import torch
from torch.autograd import variable''',
    r'''a = torch.ones((3,4), requires_grad = True)
a''',
    r'''b = torch.zeros(3,4)
b''',
    r'''c = a+b
c''',
    r'''d = c.sum()
d.backward()''',
    r'''a.grad''',
    r'''b.grad''',
    r'''a.requires_grad, b.requires_grad, c.requires_grad #c依赖于a，因此需要求导''',
    r'''a.is_leaf, b.is_leaf, c.is_leaf''',
    r'''c.grad is None #反向传播结束后中间结果被释放''',
    r'''x = torch.ones(1)''',
    r'''w = torch.ones(1, requires_grad = True)''',
    r'''b = torch.ones(1, requires_grad = True)''',
    r'''y = w*x''',
    r'''z = y+b''',
    r'''x.requires_grad, b.requires_grad, w.requires_grad''',
    r'''y.requires_grad''',
    r'''x.is_leaf, b.is_leaf, w.is_leaf''',
    r'''z.is_leaf, y.is_leaf''',
    r'''z.grad_fn #add的反向传播函数为addback''',
    r'''y.grad_fn''',
    r'''#第一个为y，其对应的反向传播函数与y.grad_fn相同,第二个为b，grad_fn为None，但有grad_fn.next_functions,累加梯度
z.grad_fn.next_functions''',
    r'''y.grad_fn.next_functions #w, x''',
    r'''w.grad_fn, b.grad_fn''',
    r'''z.backward(retain_graph=True)''',
    r'''x = torch.ones((3), requires_grad = True)
w = torch.randn((3), requires_grad = True)
y = w*x
z = sum(y)''',
    r'''z.backward()''',
    r'''x.grad, w.grad, y.grad #非叶子节点计算完自动清空''',
]

CELLS_003 = [
    r'''import torch
torch.__version__''',
    r'''x = torch.rand(5, 5, requires_grad=True)
x''',
    r'''y = torch.rand(5, 5, requires_grad=True)
y''',
    r'''z=torch.sum(x+y)
z''',
    r'''z.backward()
print(x.grad,y.grad)''',
    r'''x = torch.rand(5, 5, requires_grad=True)
y = torch.rand(5, 5, requires_grad=True)
z= x**2+y**3
z''',
    r'''#我们的返回值不是一个标量，所以需要输入一个大小相同的张量作为参数，这里我们用ones_like函数根据x生成一个张量
z.backward(torch.ones_like(x))
print(x.grad)''',
    r'''with torch.no_grad():
    print((x +y*2).requires_grad)''',
    r'''dir(z)''',
    r'''print("x.is_leaf="+str(x.is_leaf))
print("z.is_leaf="+str(z.is_leaf))''',
    r'''z.grad_fn''',
    r'''dir(z.grad_fn)''',
    r'''z.grad_fn.next_functions''',
    r'''xg = z.grad_fn.next_functions[0][0]
dir(xg)''',
    r'''x_leaf=xg.next_functions[0][0]
type(x_leaf)''',
    r'''x_leaf.variable''',
    r'''print("x_leaf.variable的id:"+str(id(x_leaf.variable)))
print("x的id:"+str(id(x)))''',
    r'''assert(id(x_leaf.variable)==id(x))''',
    r'''# 引入Function便于扩展
from torch.autograd.function import Function''',
    r'''# 定义一个乘以常数的操作(输入参数是张量)
# 方法必须是静态方法，所以要加上@staticmethod 
class MulConstant(Function):
    @staticmethod 
    def forward(ctx, tensor, constant):
        # ctx 用来保存信息这里类似self，并且ctx的属性可以在backward中调用
        ctx.constant=constant
        return tensor *constant
    @staticmethod
    def backward(ctx, grad_output):
        # 返回的参数要与输入的参数一样.
        # 第一个输入为3x3的张量，第二个为一个常数
        # 常数的梯度必须是 None.
        return grad_output, None ''',
    r'''a=torch.rand(3,3,requires_grad=True)
b=MulConstant.apply(a,5)
print("a:"+str(a))
print("b:"+str(b)) # b为a的元素乘以5''',
    r'''b.backward(torch.ones_like(a))''',
    r'''a.grad''',
]

CELLS_004 = [
    r'''x1 = torch.ones(3, 3)
print(x1)

x = torch.ones(2, 2, requires_grad=True)    # .requires_grad_()可以改变Tensor的属性 
print(x)

y = x + 2
print(y)

print(x.grad_fn)
print(y.grad_fn)

z = y * y * 3
out = z.mean()	# 得平均数，具有squeeze()功效，消除指定维度
print(z, out)''',
    r'''x = torch.ones(2, 2, requires_grad=True)  # 追踪在这个类上定义的所有操作
print(x)
y = x+2
print(y)
z = y*y*3
print(z)
a = z.mean()  # 得平均数，具有squeeze()功效，消除指定维度
print(a)
a.backward()  
print(x.grad)		# d(a)/d(x) =(d(a)/d(z)) * (d(z)/d(y) * (d(y)/d(x))) 
				   # =1/4 *6*y = 1.5*[[3, 3], [3, 3]]=[[4.5, 4.5], [4.5, 4.5]] ''',
    r'''import torch
import numpy as np

x1 = torch.from_numpy(2 * np.ones((2, 2), dtype=np.float32))
x1.requires_grad_(True)
w1 = torch.from_numpy(5 * np.ones((2, 2), dtype=np.float32))
w1.requires_grad_(True)
print("x1 =", x1)
print("w1 =", w1)

x2 = x1 * w1
w2 = torch.from_numpy(6 * np.ones((2, 2), dtype=np.float32))
w2.requires_grad_(True)
print("x2 =", x2)
print("w2 =", w2)

y = x2 * w2
Y = torch.from_numpy(10 * np.ones((2, 2), dtype=np.float32))
print("y =", y)
print("Y =", Y)

L = Y - y
print("L =", L)

L.backward(torch.ones(2, 2, dtype=torch.float))

print(x1.grad)
print(w1.grad)
print(w2.grad)''',
]

NONLEAF_GRAD_WARNING = (
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be "
    "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
    "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)\n"
)

ONES_5x5 = """tensor([[1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.],
        [1., 1., 1., 1., 1.]])"""


@dataclass
class Notebook:
    name: str
    cells: list
    random_cells: frozenset = frozenset()  # outputs that show values drawn by rand / randn
    unchecked: dict = field(default_factory=dict)  # cell index -> why its output is not compared
    expected: dict = field(default_factory=dict)  # cell index -> the exact output, normalised


NB_000 = Notebook(
    "000_6932d29a97e528cb",
    CELLS_000,
    expected={
        0: "",
        # The tutorial shows "<class 'MeanBackward0'>" on the second line (an old PyTorch).
        1: "tensor(7.5000, grad_fn=<MeanBackward0>)\n<MeanBackward0 object at 0x…>\n",
        2: "",
        3: "tensor([[0.5000, 1.0000],\n        [1.5000, 2.0000]])\ntensor([[1., 2.],\n        [3., 4.]])\n",
        4: "tensor([2., 2., 2.])\n",
        5: "False\nTrue\ntensor(True)\nFalse\n",
    },
)

NB_001 = Notebook(
    "001_9221e7995355f3f6",
    CELLS_001,
    random_cells=frozenset({3}),
    expected={
        0: "",
        1: "",
        # The tutorial (an older PyTorch) shows BinaryCrossEntropyWithLogitsBackward without the 0.
        2: "Gradient function for z = <AddBackward0 object at 0x…>\n"
           "Gradient function for loss = <BinaryCrossEntropyWithLogitsBackward0 object at 0x…>\n",
        4: "True\nFalse\n",
        5: "False\n",
        6: """First call
 tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.],
        [2., 2., 2., 2., 4.]])

Second call
 tensor([[8., 4., 4., 4., 4.],
        [4., 8., 4., 4., 4.],
        [4., 4., 8., 4., 4.],
        [4., 4., 4., 8., 4.],
        [4., 4., 4., 4., 8.]])

Call after zeroing gradients
 tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.],
        [2., 2., 2., 2., 4.]])
""",
    },
)

NB_002 = Notebook(
    "002_eb5d88cff90534e4",
    CELLS_002,
    random_cells=frozenset({27}),
    expected={
        0: "",
        1: "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]], requires_grad=True)\n",
        2: "tensor([[0., 0., 0., 0.],\n        [0., 0., 0., 0.],\n        [0., 0., 0., 0.]])\n",
        3: "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]], grad_fn=<AddBackward0>)\n",
        4: "",
        5: "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n        [1., 1., 1., 1.]])\n",
        6: "",  # b.grad is None: a notebook shows nothing
        7: "(True, False, True)\n",
        8: "(True, True, False)\n",
        # PyTorch 2.13 also warns on reading a non-leaf's .grad (the tutorial's version did not).
        9: "True\n" + NONLEAF_GRAD_WARNING,
        10: "", 11: "", 12: "", 13: "", 14: "",
        15: "(False, True, True)\n",
        16: "True\n",
        17: "(True, True, True)\n",
        18: "(False, False)\n",
        # IPython's pretty printer writes "<AddBackward0 at 0x...>"; repr() keeps "object".
        19: "<AddBackward0 object at 0x…>\n",
        20: "<MulBackward0 object at 0x…>\n",
        21: "((<MulBackward0 object at 0x…>, 0), (<AccumulateGrad object at 0x…>, 0))\n",
        22: "((<AccumulateGrad object at 0x…>, 0), (None, 0))\n",
        23: "(None, None)\n",
        24: "", 25: "", 26: "",
    },
)

NB_003 = Notebook(
    "003_06754a144933af05",
    CELLS_003,
    random_cells=frozenset({1, 2, 3, 5, 6, 15, 20}),
    unchecked={
        0: "torch.__version__ differs by build ('1.0.1.post2' in the tutorial, '2.13.0+cpu' for the CPU wheel)",
        8: "dir(tensor) lists implementation details",
        11: "dir(grad_fn) lists implementation details",
        13: "dir(grad_fn) lists implementation details",
    },
    expected={
        4: ONES_5x5 + " " + ONES_5x5 + "\n",
        7: "False\n",
        9: "x.is_leaf=True\nz.is_leaf=False\n",
        10: "<AddBackward0 object at 0x…>\n",
        12: "((<PowBackward0 object at 0x…>, 0), (<PowBackward0 object at 0x…>, 0))\n",
        14: "<class 'AccumulateGrad'>\n",
        16: "x_leaf.variable的id:…\nx的id:…\n",
        17: "", 18: "", 19: "", 21: "",
        22: "tensor([[1., 1., 1.],\n        [1., 1., 1.],\n        [1., 1., 1.]])\n",
    },
)

NB_004 = Notebook(
    "004_e0de245a55529ac3",
    CELLS_004,
    expected={
        # The tutorial's output has "#####" separator lines its code does not print.
        0: """tensor([[1., 1., 1.],
        [1., 1., 1.],
        [1., 1., 1.]])
tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
tensor([[3., 3.],
        [3., 3.]], grad_fn=<AddBackward0>)
None
<AddBackward0 object at 0x…>
tensor([[27., 27.],
        [27., 27.]], grad_fn=<MulBackward0>) tensor(27., grad_fn=<MeanBackward0>)
""",
        1: """tensor([[1., 1.],
        [1., 1.]], requires_grad=True)
tensor([[3., 3.],
        [3., 3.]], grad_fn=<AddBackward0>)
tensor([[27., 27.],
        [27., 27.]], grad_fn=<MulBackward0>)
tensor(27., grad_fn=<MeanBackward0>)
tensor([[4.5000, 4.5000],
        [4.5000, 4.5000]])
""",
        2: """x1 = tensor([[2., 2.],
        [2., 2.]], requires_grad=True)
w1 = tensor([[5., 5.],
        [5., 5.]], requires_grad=True)
x2 = tensor([[10., 10.],
        [10., 10.]], grad_fn=<MulBackward0>)
w2 = tensor([[6., 6.],
        [6., 6.]], requires_grad=True)
y = tensor([[60., 60.],
        [60., 60.]], grad_fn=<MulBackward0>)
Y = tensor([[10., 10.],
        [10., 10.]])
L = tensor([[-50., -50.],
        [-50., -50.]], grad_fn=<SubBackward0>)
tensor([[-30., -30.],
        [-30., -30.]])
tensor([[-12., -12.],
        [-12., -12.]])
tensor([[-10., -10.],
        [-10., -10.]])
""",
    },
)

NOTEBOOKS = {nb.name: nb for nb in (NB_000, NB_001, NB_002, NB_003, NB_004)}
