"""The examples menu: one ready example per concept of the autograd tutorials, in English and
Chinese, each with the Backward settings to start from."""
import ast
import functools
import re
from dataclasses import asdict, dataclass

from .exercises import Exercise, Given


@dataclass(frozen=True)
class Example:
    key: str
    title_en: str
    title_zh: str
    explain_en: str
    explain_zh: str
    code: str
    output: str
    gradient: str | None = None
    retain_graph: bool = False
    create_graph: bool = False
    exercise: Exercise | None = None  # a question on it, checked against what autograd computes

    def title(self, language="en"):
        return self.title_zh if language == "zh" else self.title_en

    def explain(self, language="en"):
        return self.explain_zh if language == "zh" else self.explain_en

    def to_dict(self):
        return asdict(self)


EXAMPLES = (
    Example(
        key="basics",
        title_en="A first graph",
        title_zh="第一个计算图",
        explain_en=(
            "x is a leaf: you created it with requires_grad=True. y, z and out are computed from it, "
            "so each has a grad_fn (AddBackward0, MulBackward0, MeanBackward0). Press Backward: "
            "out = mean(3(x+2)²), so d(out)/dx = 1.5·(x+2) = 4.5 for every element. "
            "Only the leaf x keeps its .grad. Then step back through the backward pass with the player "
            "under the graph: y * y's node sends 2.25 down each of its two edges, and AddBackward0 receives their sum."
        ),
        explain_zh=(
            "x 是叶子张量：它是用 requires_grad=True 直接创建的。y、z、out 都由 x 计算得到，"
            "所以各自带有 grad_fn（AddBackward0、MulBackward0、MeanBackward0）。点击 Backward："
            "out = mean(3(x+2)²)，所以 d(out)/dx = 1.5·(x+2)，每个元素都是 4.5。"
            "只有叶子张量 x 会保留 .grad。然后用计算图下方的播放器逐步回看反向传播："
            "y * y 的节点沿两条边各传出 2.25，AddBackward0 收到的是它们的和。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.ones(2, 2, requires_grad=True)\n"
            "y = x + 2\n"
            "z = y * y * 3\n"
            "out = z.mean()\n"
        ),
        output="out",
        exercise=Exercise(
            question_en="Before you press Backward: what will y.grad be after it?",
            question_zh="点击 Backward 之前先想一想：反向传播之后 y.grad 是什么？",
            hint_en="y is not a leaf, so backward does not keep its gradient: y.grad stays None unless you call "
                    "y.retain_grad() before backward.",
            hint_zh="y 不是叶子张量，反向传播不会保留它的梯度：除非在 backward 之前调用 y.retain_grad()，"
                    "y.grad 一直是 None。",
            name="y",
        ),
    ),
    Example(
        key="leaf",
        title_en="Leaf and non-leaf tensors",
        title_zh="叶子张量与非叶子张量",
        explain_en=(
            "a and b are leaves: you made them, they have no grad_fn. c is computed from them, so it "
            "is not a leaf. b does not require grad, so autograd does not track it. After Backward, "
            "a.grad is all ones, b.grad stays None, and c's gradient is not kept: add "
            "c.retain_grad() before backward to keep it."
        ),
        explain_zh=(
            "a 和 b 是叶子张量：它们是直接创建的，没有 grad_fn。c 由它们计算得到，所以不是叶子。"
            "b 不需要梯度，autograd 不会追踪它。点击 Backward 之后，a.grad 全是 1，b.grad 仍是 None，"
            "而 c 的梯度不会被保留：在 backward 之前调用 c.retain_grad() 才能看到它。"
        ),
        code=(
            "import torch\n"
            "\n"
            "a = torch.ones(3, 4, requires_grad=True)\n"
            "b = torch.zeros(3, 4)\n"
            "c = a + b\n"
            "d = c.sum()\n"
            "\n"
            "a.is_leaf, b.is_leaf, c.is_leaf\n"
        ),
        output="d",
    ),
    Example(
        key="next_functions",
        title_en="grad_fn, next_functions and AccumulateGrad",
        title_zh="grad_fn、next_functions 与 AccumulateGrad",
        explain_en=(
            "Each grad_fn points, through next_functions, to the nodes that produced its inputs: "
            "z's AddBackward0 points to y's MulBackward0 and to an AccumulateGrad for b. "
            "AccumulateGrad is where a leaf's gradient is added up; its .variable is the leaf "
            "itself. (None, 0) stands for x, which does not require grad."
        ),
        explain_zh=(
            "每个 grad_fn 都通过 next_functions 指向产生它输入的节点：z 的 AddBackward0 指向 y 的 "
            "MulBackward0，以及 b 的 AccumulateGrad。AccumulateGrad 负责把梯度累加到叶子张量上，"
            "它的 .variable 就是那个叶子张量本身。(None, 0) 对应不需要梯度的 x。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.ones(1)\n"
            "w = torch.ones(1, requires_grad=True)\n"
            "b = torch.ones(1, requires_grad=True)\n"
            "y = w * x\n"
            "z = y + b\n"
            "\n"
            "print(z.grad_fn)\n"
            "print(z.grad_fn.next_functions)\n"
            "print(y.grad_fn.next_functions)\n"
            "acc = z.grad_fn.next_functions[1][0]\n"
            "print(acc.variable is b)\n"
        ),
        output="z",
    ),
    Example(
        key="powers",
        title_en="z = x**2 + y**3",
        title_zh="z = x**2 + y**3",
        explain_en=(
            "z is not a scalar, so backward needs a gradient of z's shape; with torch.ones_like(z) "
            "you get x.grad = 2x and y.grad = 3y². In the graph, AddBackward0 is fed by two "
            "PowBackward0 nodes, each ending in the AccumulateGrad of its leaf."
        ),
        explain_zh=(
            "z 不是标量，所以 backward 需要一个与 z 形状相同的 gradient；用 torch.ones_like(z) "
            "得到 x.grad = 2x，y.grad = 3y²。图中 AddBackward0 的输入来自两个 PowBackward0，"
            "它们各自连到对应叶子张量的 AccumulateGrad。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.rand(2, 2, requires_grad=True)\n"
            "y = torch.rand(2, 2, requires_grad=True)\n"
            "z = x**2 + y**3\n"
        ),
        output="z",
        gradient="torch.ones_like(z)",
    ),
    Example(
        key="accumulate",
        title_en="Gradients accumulate; zero them",
        title_zh="梯度会累加；记得清零",
        explain_en=(
            "Press Backward twice (retain_graph is ticked so the graph can be used again): the "
            "diagonal of inp.grad goes from 4 to 8, because backward adds to .grad instead of "
            "replacing it. Press Zero grad (inp.grad.zero_()) and Backward again to get 4 back. "
            "In training loops the optimizer's zero_grad() does this for you."
        ),
        explain_zh=(
            "连续点击两次 Backward（已勾选 retain_graph，计算图可以重复使用）：inp.grad 的对角线从 4 "
            "变成 8，因为 backward 会把梯度累加到 .grad 上，而不是替换它。点击 Zero grad"
            "（inp.grad.zero_()）后再 Backward，又回到 4。训练循环中由优化器的 zero_grad() 完成清零。"
        ),
        code=(
            "import torch\n"
            "\n"
            "inp = torch.eye(3, requires_grad=True)\n"
            "out = (inp + 1).pow(2)\n"
        ),
        output="out",
        gradient="torch.ones_like(inp)",
        retain_graph=True,
        exercise=Exercise(
            question_en="What will inp.grad[0, 1] (off the diagonal) be after three Backward calls?",
            question_zh="连续三次 Backward 之后，inp.grad[0, 1]（对角线以外）是多少？",
            hint_en="Each Backward adds 2·(inp + 1), which is 2 off the diagonal, and nothing resets .grad in between.",
            hint_zh="每次 Backward 都加上 2·(inp + 1)，对角线以外是 2，中间没有任何操作把 .grad 清零。",
            name="inp", index=(0, 1), backward_calls=3,
        ),
    ),
    Example(
        key="vjp",
        title_en="Vector-Jacobian products: backward(v)",
        title_zh="向量-雅可比积：backward(v)",
        explain_en=(
            "For a vector output y, y.backward(v) computes the vector-Jacobian product vᵀ·J, not the "
            "Jacobian itself. Here J is diagonal with 2x, so x.grad = v·2x = [2, 2, 2]. "
            "Try another v in the gradient box."
        ),
        explain_zh=(
            "当输出 y 是向量时，y.backward(v) 计算的是向量-雅可比积 vᵀ·J，而不是雅可比矩阵本身。"
            "这里 J 是对角矩阵，对角线为 2x，所以 x.grad = v·2x = [2, 2, 2]。"
            "可以在 gradient 输入框里换一个 v 试试。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
            "y = x * x\n"
            "v = torch.tensor([1., 1/2., 1/3.])\n"
        ),
        output="y",
        gradient="v",
    ),
    Example(
        key="retain_graph",
        title_en="retain_graph: backward twice",
        title_zh="retain_graph：两次反向传播",
        explain_en=(
            "Backward frees the values the graph saved (here x, needed for 3x²). Press Backward "
            "once: x.grad = 12. Press it again: PyTorch refuses with 'Trying to backward through "
            "the graph a second time'. Run the code again, tick retain_graph, and Backward works "
            "as often as you like (12, 24, 36, ...)."
        ),
        explain_zh=(
            "反向传播结束后，计算图保存的中间值（这里是计算 3x² 需要的 x）会被释放。点一次 Backward："
            "x.grad = 12。再点一次：PyTorch 报错 “Trying to backward through the graph a second "
            "time”。重新运行代码并勾选 retain_graph，就可以反复 Backward（12、24、36……）。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.tensor(2.0, requires_grad=True)\n"
            "y = x ** 3\n"
        ),
        output="y",
    ),
    Example(
        key="higher_order",
        title_en="create_graph: second derivatives",
        title_zh="create_graph：二阶导数",
        explain_en=(
            "create_graph=True makes autograd record the backward pass too, so dy/dx = 3x² = 27 is a "
            "tensor with its own grad_fn. Backward on dy_dx gives the second derivative: "
            "x.grad = 6x = 18. Or pick y with create_graph ticked to see the graph of x.grad."
        ),
        explain_zh=(
            "create_graph=True 让 autograd 把反向传播本身也记录成计算图，所以 dy/dx = 3x² = 27 "
            "是一个带有 grad_fn 的张量。对 dy_dx 做 Backward 得到二阶导数：x.grad = 6x = 18。"
            "也可以选择 y 并勾选 create_graph，看看 x.grad 自己的计算图。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.tensor(3.0, requires_grad=True)\n"
            "y = x ** 3\n"
            "dy_dx, = torch.autograd.grad(y, x, create_graph=True)\n"
        ),
        output="dy_dx",
        exercise=Exercise(
            question_en="Change x to 2.0 and press Run: what will x.grad be after Backward on dy_dx?",
            question_zh="把 x 改成 2.0 并点击 Run：对 dy_dx 做 Backward 之后，x.grad 是多少？",
            hint_en="dy_dx = 3x² still has a graph, so its backward gives the second derivative, 6x.",
            hint_zh="dy_dx = 3x² 仍然带有计算图，对它做反向传播得到二阶导数 6x。",
            name="x",
            given=Given("x", "value", 2.0, setup_en="First change x to torch.tensor(2.0, requires_grad=True) and "
                        "press Run.", setup_zh="请先把 x 改成 torch.tensor(2.0, requires_grad=True)，再点击 Run。"),
        ),
    ),
    Example(
        key="detach",
        title_en="detach() and torch.no_grad()",
        title_zh="detach() 与 torch.no_grad()",
        explain_en=(
            "y.detach() has y's values but leaves the graph: y_const is a constant. Inside "
            "torch.no_grad() nothing is recorded, so doubled.requires_grad is False. Backward on "
            "u = y_const * x treats y_const as fixed numbers: x.grad = y_const = [1, 4, 9], "
            "not the 3x² you would get through y."
        ),
        explain_zh=(
            "y.detach() 的数值与 y 相同，但脱离了计算图：y_const 是常量。在 torch.no_grad() 里的运算"
            "不会被记录，所以 doubled.requires_grad 是 False。对 u = y_const * x 做 Backward 时，"
            "y_const 被当作常数：x.grad = y_const = [1, 4, 9]，而不是经过 y 时得到的 3x²。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
            "y = x * x\n"
            "y_const = y.detach()\n"
            "with torch.no_grad():\n"
            "    doubled = x * 2\n"
            "u = y_const * x\n"
            "\n"
            "y_const.requires_grad, doubled.requires_grad\n"
        ),
        output="u",
        gradient="torch.ones_like(u)",
    ),
    Example(
        key="custom_function",
        title_en="A custom autograd.Function",
        title_zh="自定义 autograd.Function",
        explain_en=(
            "MulConstant says how to go forward (tensor * constant) and backward (one gradient per "
            "input, None for the constant). The graph shows its node as MulConstantBackward. "
            "Note: the tutorial returns grad_output unchanged, which would give a.grad = 1; the "
            "derivative of 5·a is 5, so backward multiplies by ctx.constant."
        ),
        explain_zh=(
            "MulConstant 定义了前向计算（tensor * constant）和反向计算（每个输入对应一个梯度，"
            "常数对应 None）。图中它的节点名为 MulConstantBackward。注意：教程里直接返回 grad_output，"
            "那样得到的 a.grad 是 1；而 5·a 的导数是 5，所以 backward 要乘以 ctx.constant。"
        ),
        code=(
            "import torch\n"
            "from torch.autograd.function import Function\n"
            "\n"
            "class MulConstant(Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, tensor, constant):\n"
            "        ctx.constant = constant\n"
            "        return tensor * constant\n"
            "\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad_output):\n"
            "        return grad_output * ctx.constant, None\n"
            "\n"
            "a = torch.rand(3, 3, requires_grad=True)\n"
            "b = MulConstant.apply(a, 5)\n"
        ),
        output="b",
        gradient="torch.ones_like(b)",
    ),
    Example(
        key="hooks",
        title_en="Hooks: register_hook",
        title_zh="钩子：register_hook",
        explain_en=(
            "register_hook(fn) calls fn with the gradient when backward reaches the tensor. The "
            "hook on y prints it (see the output below the editor); the hook on x returns "
            "grad * 10, which replaces the gradient, so x.grad is 20 instead of 2."
        ),
        explain_zh=(
            "register_hook(fn) 会在反向传播到达该张量时，用梯度调用 fn。y 上的钩子把梯度打印出来"
            "（见编辑器下方的输出）；x 上的钩子返回 grad * 10，替换了原来的梯度，所以 x.grad 是 20 "
            "而不是 2。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.tensor([1., 2., 3.], requires_grad=True)\n"
            "y = x * 2\n"
            "y.register_hook(lambda grad: print('gradient reaching y:', grad))\n"
            "x.register_hook(lambda grad: grad * 10)\n"
            "out = y.sum()\n"
        ),
        output="out",
    ),
    Example(
        key="chain_rule",
        title_en="The chain rule on leaf tensors",
        title_zh="叶子张量上的链式法则",
        explain_en=(
            "x1, w1 and w2 are leaves; x2, y and L are computed. With gradient torch.ones(2, 2), "
            "the chain rule gives x1.grad = -w1·w2 = -30, w1.grad = -x1·w2 = -12 and "
            "w2.grad = -x2 = -10. Y is a constant and gets no gradient."
        ),
        explain_zh=(
            "x1、w1、w2 是叶子张量；x2、y、L 是计算得到的。用 gradient torch.ones(2, 2) 反向传播，"
            "由链式法则得到 x1.grad = -w1·w2 = -30，w1.grad = -x1·w2 = -12，w2.grad = -x2 = -10。"
            "Y 是常量，没有梯度。"
        ),
        code=(
            "import torch\n"
            "import numpy as np\n"
            "\n"
            "x1 = torch.from_numpy(2 * np.ones((2, 2), dtype=np.float32))\n"
            "x1.requires_grad_(True)\n"
            "w1 = torch.from_numpy(5 * np.ones((2, 2), dtype=np.float32))\n"
            "w1.requires_grad_(True)\n"
            "x2 = x1 * w1\n"
            "w2 = torch.from_numpy(6 * np.ones((2, 2), dtype=np.float32))\n"
            "w2.requires_grad_(True)\n"
            "y = x2 * w2\n"
            "Y = torch.from_numpy(10 * np.ones((2, 2), dtype=np.float32))\n"
            "L = Y - y\n"
        ),
        output="L",
        gradient="torch.ones(2, 2)",
        exercise=Exercise(
            question_en="Add x2.retain_grad() after the line x2 = x1 * w1 and press Run: what will x2.grad be after "
                        "Backward?",
            question_zh="在 x2 = x1 * w1 这一行之后加上 x2.retain_grad() 并点击 Run：Backward 之后 x2.grad 是多少？",
            hint_en="L = Y - x2·w2, so dL/dx2 = -w2 for every element.",
            hint_zh="L = Y - x2·w2，所以每个元素的 dL/dx2 = -w2。",
            name="x2",
            given=Given("x2", "retains_grad", True, setup_en="First add x2.retain_grad() after the line "
                        "x2 = x1 * w1, and press Run.",
                        setup_zh="请先在 x2 = x1 * w1 这一行之后加上 x2.retain_grad()，再点击 Run。"),
        ),
    ),
    Example(
        key="checkpoint",
        title_en="Activation checkpointing: the forward runs again in backward",
        title_zh="激活检查点：反向传播时再运行一次前向",
        explain_en=(
            "checkpoint(block, x) keeps none of block's activations, only its input. With use_reentrant=False "
            "the graph has block's own nodes (SinBackward0, MulBackward0, ExpBackward0), but what they save goes "
            "through hooks that keep nothing; with use_reentrant=True the whole block is one "
            "CheckpointFunctionBackward node. Run prints \"block runs\" twice. Press Backward and it prints twice "
            "more: each checkpoint runs block again to get back what backward needs. Both halves give "
            "3eˣ·cos(3eˣ), so x.grad is twice that. Memory is traded for compute."
        ),
        explain_zh=(
            "checkpoint(block, x) 不保留 block 的中间激活值，只保留它的输入。use_reentrant=False 时，"
            "计算图里是 block 自己的节点（SinBackward0、MulBackward0、ExpBackward0），但它们要保存的张量"
            "经过不保留任何东西的钩子；use_reentrant=True 时，整个 block 只是一个 CheckpointFunctionBackward "
            "节点。Run 会打印两次 \"block runs\"。点击 Backward，它又打印两次：每个 checkpoint 都重新运行 block，"
            "取回反向传播需要的值。两半都给出 3eˣ·cos(3eˣ)，所以 x.grad 是它的两倍。这是用计算换内存。"
        ),
        code=(
            "import torch\n"
            "from torch.utils.checkpoint import checkpoint\n"
            "\n"
            "def block(t):\n"
            "    print(\"block runs\")\n"
            "    return (t.exp() * 3).sin()\n"
            "\n"
            "x = torch.tensor([0.5, 0.25, -2.0], requires_grad=True)\n"
            "# block's own nodes, saving nothing:\n"
            "y = checkpoint(block, x, use_reentrant=False)\n"
            "# one CheckpointFunctionBackward node for all of block:\n"
            "z = checkpoint(block, x, use_reentrant=True)\n"
            "loss = (y + z).sum()\n"
        ),
        output="loss",
    ),
    Example(
        key="compile",
        title_en="torch.compile: the whole call is one node",
        title_zh="torch.compile：整个调用只是一个节点",
        explain_en=(
            "f called as it is records its ops: SinBackward0, MulBackward0, SumBackward0. torch.compile(f) "
            "called on the same x records one CompiledFunctionBackward node for the whole call, as AOTAutograd "
            "does in PyTorch 2: its next_functions are the graph's inputs, x (f uses it first) and w (f reads it "
            "from outside). PyTorch would also generate faster code for f; the playground runs f as written. "
            "Press Backward: both halves give cos(x)·w to x and sin(x) to w, so x.grad = 2·cos(x)·w and "
            "w.grad = 2·sin(x). With create_graph ticked, the grads' own graph shows "
            "CompiledFunctionBackwardBackward: as in PyTorch, a backward through it raises \"torch.compile with "
            "aot_autograd does not currently support double backward\"."
        ),
        explain_zh=(
            "直接调用 f 会记录它的每个运算：SinBackward0、MulBackward0、SumBackward0。对同一个 x 调用 "
            "torch.compile(f)，整个调用只记录一个 CompiledFunctionBackward 节点，和 PyTorch 2 中 AOTAutograd "
            "的做法一样：它的 next_functions 是这张图的输入，x（f 先用到它）和 w（f 从外部读取）。PyTorch "
            "还会为 f 生成更快的代码；本站按原样运行 f。点击 Backward：两半都给 x 贡献 cos(x)·w，给 w 贡献 "
            "sin(x)，所以 x.grad = 2·cos(x)·w，w.grad = 2·sin(x)。勾选 create_graph 后，梯度自己的计算图里有 "
            "CompiledFunctionBackwardBackward：和 PyTorch 一样，对它再做反向传播会报错 \"torch.compile with "
            "aot_autograd does not currently support double backward\"。"
        ),
        code=(
            "import torch\n"
            "\n"
            "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
            "\n"
            "def f(x):\n"
            "    return (torch.sin(x) * w).sum()\n"
            "\n"
            "x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n"
            "eager = f(x)                     # f's own nodes\n"
            "compiled = torch.compile(f)(x)   # one node for all of f\n"
            "loss = eager + compiled\n"
        ),
        output="loss",
    ),
    Example(
        key="neuron",
        title_en="A one-layer network and its loss",
        title_zh="单层神经网络与损失函数",
        explain_en=(
            "The tutorial's network: input x, parameters w and b, and a binary cross-entropy loss. "
            "w and b require grad because we want to optimise them; x and y are data. Backward "
            "on loss fills w.grad (5×3) and b.grad (3): the numbers an optimizer would use."
        ),
        explain_zh=(
            "教程中的网络：输入 x，参数 w 和 b，以及二元交叉熵损失。w 和 b 需要梯度，因为我们要优化它们；"
            "x 和 y 是数据。对 loss 做 Backward 会得到 w.grad（5×3）和 b.grad（3），"
            "也就是优化器用来更新参数的数值。"
        ),
        code=(
            "import torch\n"
            "\n"
            "x = torch.ones(5)  # input tensor\n"
            "y = torch.zeros(3)  # expected output\n"
            "w = torch.randn(5, 3, requires_grad=True)\n"
            "b = torch.randn(3, requires_grad=True)\n"
            "z = torch.matmul(x, w) + b\n"
            "loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)\n"
        ),
        output="loss",
    ),
    Example(
        key="sampling",
        title_en="Sampling: rsample and the reparameterisation trick",
        title_zh="采样：rsample 与重参数化技巧",
        explain_en=(
            "q.rsample() draws eps ~ N(0, 1) and returns mu + sigma·eps, so z has a graph back to mu and "
            "log_sigma (AddBackward0, MulBackward0, ExpBackward0): the gradient flows through the sample. "
            "q.sample() draws under no_grad, so s has no grad_fn. Press Backward: mu.grad = 2z = "
            "[4.08, -2.59] and log_sigma.grad = 2z·eps·sigma. A sample you cannot differentiate "
            "(a Categorical action) takes the score function instead: loss = -q.log_prob(a) * reward."
        ),
        explain_zh=(
            "q.rsample() 先采样 eps ~ N(0, 1)，再返回 mu + sigma·eps，所以 z 有一条通向 mu 和 log_sigma "
            "的计算图（AddBackward0、MulBackward0、ExpBackward0）：梯度可以穿过采样。q.sample() 在 "
            "no_grad 下采样，所以 s 没有 grad_fn。点击 Backward：mu.grad = 2z = [4.08, -2.59]，"
            "log_sigma.grad = 2z·eps·sigma。无法求导的采样（例如 Categorical 的动作）要用得分函数："
            "loss = -q.log_prob(a) * reward。"
        ),
        code=(
            "import torch\n"
            "from torch.distributions import Normal\n"
            "\n"
            "torch.manual_seed(0)\n"
            "mu = torch.tensor([0.5, -1.0], requires_grad=True)\n"
            "log_sigma = torch.zeros(2, requires_grad=True)\n"
            "q = Normal(mu, log_sigma.exp())\n"
            "z = q.rsample()  # mu + sigma * eps: differentiable\n"
            "s = q.sample()   # drawn under no_grad: no grad_fn\n"
            "loss = (z ** 2).sum()\n"
        ),
        output="loss",
    ),
    Example(
        key="forward_ad",
        title_en="Forward mode: make_dual and the Jacobian-vector product",
        title_zh="前向模式：make_dual 与雅可比-向量积",
        explain_en=(
            "backward() is reverse mode: one pass gives the gradient for every input (a vector-Jacobian "
            "product). Forward mode carries a tangent v along with the values instead: inside "
            "fwAD.dual_level(), make_dual(x, v) is x carrying v, each op passes its tangent on, and "
            "unpack_dual(y).tangent is J·v, the derivative of y in the direction v, with no graph and no "
            "backward pass (y and jvp have no grad_fn). "
            "Here v picks the first coordinate, so jvp = sin(1) + cos(1) = 1.3818. Press Backward on loss: "
            "x.grad = [1.3818, 0.0770, -2.8289], and its first entry is the same number. Forward mode costs "
            "one pass per input direction, reverse mode one pass per output."
        ),
        explain_zh=(
            "backward() 是反向模式：一次就得到所有输入的梯度（向量-雅可比积）。前向模式则让切向量 v "
            "随数值一起向前传：在 fwAD.dual_level() 中，make_dual(x, v) 是带着 v 的 x，每个运算把切向量"
            "传下去，unpack_dual(y).tangent 就是 J·v，即 y 沿 v 方向的导数，不需要计算图，也不需要反向传播"
            "（y 和 jvp 都没有 grad_fn）。这里 v "
            "选中第一个坐标，所以 jvp = sin(1) + cos(1) = 1.3818。对 loss 点击 Backward："
            "x.grad = [1.3818, 0.0770, -2.8289]，第一个分量正是同一个数。前向模式每个输入方向算一次，"
            "反向模式每个输出算一次。"
        ),
        code=(
            "import torch\n"
            "import torch.autograd.forward_ad as fwAD\n"
            "\n"
            "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
            "v = torch.tensor([1.0, 0.0, 0.0])  # the direction: the first coordinate\n"
            "\n"
            "with fwAD.dual_level():\n"
            "    dual = fwAD.make_dual(x.detach(), v)  # x's values carrying the tangent v\n"
            "    y = (dual.sin() * dual).sum()\n"
            "    jvp = fwAD.unpack_dual(y).tangent  # J·v, computed along with y\n"
            "\n"
            "loss = (x.sin() * x).sum()  # the same function, for backward\n"
        ),
        output="loss",
        exercise=Exercise(
            question_en="Change v to torch.tensor([0.0, 1.0, 0.0]) and press Run: what will jvp be? "
                        "(Backward's x.grad can tell you.)",
            question_zh="把 v 改成 torch.tensor([0.0, 1.0, 0.0]) 并点击 Run：jvp 是多少？（Backward 得到的 x.grad 会告诉你。）",
            hint_en="jvp is J·v, the derivative in the direction v: now the second coordinate, sin(2) + 2·cos(2), "
                    "which is x.grad[1].",
            hint_zh="jvp 是 J·v，即沿方向 v 的导数：现在是第二个坐标，sin(2) + 2·cos(2)，也就是 x.grad[1]。",
            name="jvp", attr="value", backward_calls=0,
            given=Given("v", "value", [0.0, 1.0, 0.0], setup_en="First change v to torch.tensor([0.0, 1.0, 0.0]) and "
                        "press Run.", setup_zh="请先把 v 改成 torch.tensor([0.0, 1.0, 0.0])，再点击 Run。"),
        ),
    ),
    Example(
        key="attention",
        title_en="Attention: softmax(q kᵀ / √d) v, step by step",
        title_zh="注意力：逐步计算 softmax(q kᵀ / √d) v",
        explain_en=(
            "Each query scores every key (q @ k.T / √2), softmax turns each row of scores into weights "
            "that sum to 1, and out mixes the values with those weights. Every step is a node: "
            "PermuteBackward0 (k.T), MmBackward0, DivBackward0, SoftmaxBackward0, MmBackward0. Press Backward: "
            "v.grad is how much attention each value received in all, the column sums of weights: "
            "[0.5989, 0.5989, 0.8022] in each component (the third key matches both queries). "
            "fused = F.scaled_dot_product_attention(q, k, v) gives the same numbers through PyTorch's "
            "math path: the scale split as √scale on q and on k (MulBackward1) and SafeSoftmaxBackward0. "
            "With 4-D inputs (batch, heads, length, dim) PyTorch runs its fused kernel instead: one node, "
            "ScaledDotProductFlashAttentionForCpuBackward0."
        ),
        explain_zh=(
            "每个查询给每个键打分（q @ k.T / √2），softmax 把每行分数变成和为 1 的权重，out 按这些权重"
            "混合各个值。每一步都是一个节点：PermuteBackward0（k.T）、MmBackward0、DivBackward0、SoftmaxBackward0、"
            "MmBackward0。点击 Backward：v.grad 是每个值总共得到的注意力，即 weights 的列和："
            "每个分量都是 [0.5989, 0.5989, 0.8022]（第三个键与两个查询都匹配）。"
            "fused = F.scaled_dot_product_attention(q, k, v) 通过 PyTorch 的数学路径得到同样的数："
            "缩放拆成 q 和 k 各乘 √scale（MulBackward1），再加上 SafeSoftmaxBackward0。"
            "输入为 4 维（batch、heads、长度、维度）时，PyTorch 改用融合内核：只有一个节点 "
            "ScaledDotProductFlashAttentionForCpuBackward0。"
        ),
        code=(
            "import torch\n"
            "import torch.nn.functional as F\n"
            "\n"
            "q = torch.tensor([[1., 0.], [0., 1.]], requires_grad=True)  # 2 queries\n"
            "k = torch.tensor([[1., 0.], [0., 1.], [1., 1.]], requires_grad=True)  # 3 keys\n"
            "v = torch.tensor([[1., 0.], [0., 1.], [2., 2.]], requires_grad=True)  # 3 values\n"
            "\n"
            "scores = q @ k.T / 2 ** 0.5       # how well each query matches each key\n"
            "weights = scores.softmax(dim=-1)  # each row sums to 1\n"
            "out = weights @ v                 # each query's mix of the values\n"
            "loss = out.sum()\n"
            "\n"
            "fused = F.scaled_dot_product_attention(q, k, v)  # PyTorch's one call: the same numbers\n"
        ),
        output="loss",
    ),
    Example(
        key="module",
        title_en="nn.Linear and an optimizer step",
        title_zh="nn.Linear 与优化器的一步更新",
        explain_en=(
            "nn.Linear(3, 1) holds two leaves, model.weight (1×3) and model.bias (1), seeded as "
            "PyTorch seeds them. model(x) is one AddmmBackward0 node: bias + x @ weightᵀ (the TBackward0 "
            "is the transpose). Press Backward to fill model.weight.grad and model.bias.grad, then add "
            "optimizer.step() and optimizer.zero_grad() to the code: SGD moves each parameter by "
            "-lr × its grad, and the loss computed again drops from 9.51 to 0.22."
        ),
        explain_zh=(
            "nn.Linear(3, 1) 含有两个叶子张量：model.weight（1×3）和 model.bias（1），"
            "初始化方式与 PyTorch 相同。model(x) 是一个 AddmmBackward0 节点：bias + x @ weightᵀ"
            "（TBackward0 是转置）。点击 Backward 得到 model.weight.grad 和 model.bias.grad，"
            "然后在代码中加入 optimizer.step() 与 optimizer.zero_grad()：SGD 把每个参数移动 -lr × 梯度，"
            "重新计算的损失从 9.51 降到 0.22。"
        ),
        code=(
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "torch.manual_seed(0)\n"
            "model = nn.Linear(3, 1)\n"
            "optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n"
            "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])\n"
            "y = torch.tensor([[1.], [2.]])\n"
            "loss = nn.functional.mse_loss(model(x), y)\n"
        ),
        output="loss",
    ),
)

DEFAULT_KEY = "basics"
_BY_KEY = {e.key: e for e in EXAMPLES}


def get_example(key):
    """The example with this key; KeyError if there is none."""
    return _BY_KEY[key]


def default_example():
    return _BY_KEY[DEFAULT_KEY]


def _assigned(code):
    """The names ``code`` assigns (None when it does not parse)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


@functools.lru_cache(maxsize=None)  # (asked at every render of the text)
def explained_names(example):
    """The variables of the example's code that its explanation talks about."""
    return frozenset(_assigned(example.code) & set(re.findall(r"[A-Za-z_]\w*", example.explain("en"))))


def _lines(code):
    return [line.rstrip() for line in code.strip("\n").splitlines()]


def relation(example, code):
    """How ``code`` stands to ``example``: "same" (its code), "edited" (changed, yet it still assigns
    every variable the explanation talks about, or does not parse yet) or "apart" (the explanation
    talks about variables the code no longer has: it would mislead)."""
    if code is None or _lines(code) == _lines(example.code):
        return "same"
    names = _assigned(code)
    return "edited" if names is None or explained_names(example) <= names else "apart"
