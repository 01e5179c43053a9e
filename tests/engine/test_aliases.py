"""PyTorch's other names for ops the engine has (``torch.multiply``, ``t.divide_``), the in-place forms
of more ops (methods and ``torch.relu_``-style functions), and its small functions of them (``vdot``,
``float_power``, ``ravel``, ``gcd``, ...): values, dtypes, nodes, grads and errors against PyTorch."""
import pytest

from tests.engine.opinfo import same


def _x(t):
    return t.tensor([1.5, -2.0, 0.25], requires_grad=True)


def _grad_of(t, f, *inputs):
    """``f``'s value, its grad_fn's name and the grads of the inputs that require grad."""
    out = f(*inputs)
    return out, out.grad_fn.name(), t.autograd.grad(out.sum(), [i for i in inputs if i.requires_grad])


def _in_place(t, name, *args, x=None):
    """The in-place method on a non-leaf (so it records), its node, and the grad through it."""
    leaf = _x(t) if x is None else x
    y = leaf * 1
    out = getattr(y, name)(*args)
    return out is y, out, out.grad_fn.name(), t.autograd.grad(out.sum(), leaf)


def _function_in_place(t, name, *args):
    y = _x(t) * 1
    return getattr(t, name)(y, *args) is y, y, y.grad_fn.name()


def _compared(t, name, other):
    """An in-place comparison on a non-leaf (so it records), its node and the grads (zeros) through it."""
    leaf = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = leaf * 1
    out = getattr(y, name)(*other(t))
    grads = t.autograd.grad(out.sum(), [leaf, *(o for o in other(t) if isinstance(o, t.Tensor) and o.requires_grad)],
                            allow_unused=True)
    return out is y, out, out.grad_fn.name(), grads


CASES = {
    **{f"t.{n}(number)": (lambda n: lambda t: _compared(t, n, lambda t: (2.0,)))(n)
       for n in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
                 "not_equal_")},
    **{f"t.{n}(tensor)": (lambda n: lambda t: _compared(t, n, lambda t: (t.tensor([2.0, 2.0, 4.0]),)))(n)
       for n in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_equal_")},
    "t.lt_(tensor that requires grad, broadcast)":
        lambda t: _compared(t, "lt_", lambda t: (t.tensor([2.5], requires_grad=True),)),
    **{f"t.{n}": (lambda n: lambda t: _compared(t, n, lambda t: (t.tensor([1.0, 0.0, 1.0]),)))(n)
       for n in ("logical_and_", "logical_or_", "logical_xor_")},
    "t.logical_not_": lambda t: (lambda y: (y.logical_not_(), y.grad_fn.name()))(t.tensor([0.0, 2.0], requires_grad=True) * 1),
    "t.fill_diagonal_": lambda t: _in_place(t, "fill_diagonal_", 0.5, x=t.ones(3, 3, requires_grad=True)),
    "t.fill_diagonal_(wrap)": lambda t: t.ones(7, 3).fill_diagonal_(2, wrap=True),
    "t.fill_diagonal_(no wrap)": lambda t: t.ones(7, 3).fill_diagonal_(2),
    "t.fill_diagonal_ of a transposed tensor": lambda t: (t.ones(3, 3).t().fill_diagonal_(0),
                                                          t.ones(5, 3).t().fill_diagonal_(0, wrap=True)),
    "t.fill_diagonal_(3-D)": lambda t: t.zeros(2, 2, 2).fill_diagonal_(3),
    "t.fill_diagonal_(1-D)": lambda t: t.ones(3).fill_diagonal_(1),
    "t.fill_diagonal_(unequal dims)": lambda t: t.ones(2, 3, 4).fill_diagonal_(1),
    "t.fill_diagonal_ of a leaf": lambda t: t.ones(2, 2, requires_grad=True).fill_diagonal_(1),
    "shifts": lambda t: (t.tensor([1, 2]) << 3, t.tensor([64, 7]) >> t.tensor([2, 1]), 2 << t.tensor([1, 2]),
                         t.bitwise_left_shift(t.tensor([1, 2], dtype=t.uint8), 7), t.tensor([5]).bitwise_right_shift(1)),
    "shifts in place": lambda t: (lambda a: (a.bitwise_left_shift_(1), a.__ilshift__(1), a.__irshift__(2)))(
        t.tensor([1, 3])),
    "shift of floats": lambda t: t.tensor([1.0]) << 1,
    "t.bitwise_right_shift(float)": lambda t: t.bitwise_right_shift(t.tensor([8.0, 2.0]), 1),
    "real": lambda t: (lambda a: (t.real(a) is a, a.real is a))(_x(t)),
    "imag": lambda t: _x(t).imag,
    "torch.imag": lambda t: t.imag(t.ones(1)),
    "t.max() and t.min(dim) still": lambda t: (t.ones(2, 3).max(), t.tensor([[1.0, 3.0]]).min(1, True),
                                                t.max(t.ones(2), t.zeros(2)), t.ones(2).long(memory_format=t.preserve_format)),
    "char": lambda t: (t.tensor([1.7, -2.5, 300.0]).char(), t.tensor([1.7]).char().dtype),
    "split_with_sizes": lambda t: _grad_of(t, lambda a: a.split_with_sizes([1, 2], dim=1)[1],
                                           t.ones(2, 3, requires_grad=True)),
    "int t.ge_": lambda t: (lambda i: (i.ge_(2), i.dtype))(t.tensor([1, 2, 3])),
    "bool t.eq_": lambda t: t.tensor([True, False]).eq_(True),
    "t.le_ on a leaf that requires grad": lambda t: t.ones(2, requires_grad=True).le_(1),
    "t.eq_ of sizes": lambda t: t.tensor([1.0, 2.0]).eq_(t.ones(3)),
    "t.eq_ that would grow self": lambda t: t.ones(1).eq_(t.ones(2)),
    "int t.logical_and_(float)": lambda t: t.tensor([1, 2]).logical_and_(t.tensor([0.5, 0.0])),
    # the aliases, as functions and methods, with their nodes and grads
    "multiply": lambda t: _grad_of(t, t.multiply, _x(t), t.tensor([2.0, 3.0, -1.0])),
    "subtract(alpha)": lambda t: _grad_of(t, lambda a: t.subtract(a, 2.0, alpha=3), _x(t)),
    "divide(rounding_mode)": lambda t: t.divide(t.tensor([7.0, -7.0]), 2, rounding_mode="floor"),
    "t.divide": lambda t: _grad_of(t, lambda a: a.divide(t.tensor([2.0, 4.0, 8.0])), _x(t)),
    "fix": lambda t: _grad_of(t, t.fix, _x(t)),
    "multiply(1.0, t)": lambda t: t.multiply(1.0, _x(t)),
    # small functions
    "vdot": lambda t: _grad_of(t, t.vdot, _x(t), t.tensor([2.0, 3.0, -1.0], requires_grad=True)),
    "t.vdot": lambda t: _x(t).vdot(t.ones(3)),
    "vdot(2-D)": lambda t: t.vdot(t.ones(2, 2), t.ones(2, 2)),
    "vdot(sizes)": lambda t: t.vdot(t.ones(2), t.ones(3)),
    "vdot(dtypes)": lambda t: t.vdot(t.ones(2), t.ones(2, dtype=t.float64)),
    "t.vdot(None)": lambda t: _x(t).vdot(None),
    "positive": lambda t: (lambda a: (t.positive(a) is a, a.positive() is a))(_x(t)),
    "positive(bool)": lambda t: t.positive(t.tensor([True])),
    "ravel": lambda t: _grad_of(t, t.ravel, t.ones(2, 3, requires_grad=True)),
    "t.ravel (transposed)": lambda t: _grad_of(t, lambda a: a.t().ravel(), t.arange(6.0).reshape(2, 3).requires_grad_()),
    "float_power": lambda t: _grad_of(t, lambda a: t.float_power(a, 2), _x(t)),
    "float_power nodes": lambda t: t.float_power(_x(t), 2).grad_fn.next_functions[0][0].name(),
    "float_power(t, t)": lambda t: t.float_power(t.tensor([2.0, 3.0]), t.tensor([2, 3])),
    "float_power(2, t)": lambda t: t.float_power(2, t.tensor([0.5, 3.0])),
    "t.float_power_(float)": lambda t: t.ones(2).float_power_(2),
    "t.float_power_(double)": lambda t: t.tensor([2.0, 3.0], dtype=t.float64).float_power_(2),
    "is_signed": lambda t: (t.is_signed(t.ones(1)), t.is_signed(t.ones(1, dtype=t.int64)),
                            t.ones(1, dtype=t.bool).is_signed(), t.ones(1, dtype=t.uint8).is_signed()),
    "is_same_size": lambda t: (t.is_same_size(t.ones(2), t.zeros(2)), t.ones(2).is_same_size(t.ones(1, 2))),
    "real queries": lambda t: (t.is_complex(_x(t)), t.is_conj(_x(t)), t.is_neg(_x(t)), _x(t).is_conj()),
    "conj": lambda t: (lambda a: (t.conj(a) is a, t.resolve_conj(a) is a, t.resolve_neg(a) is a, a.conj() is a))(_x(t)),
    "isreal": lambda t: t.isreal(_x(t)),
    "isposinf/isneginf": lambda t: (lambda a: (t.isposinf(a), t.isneginf(a), a.isposinf()))(
        t.tensor([float("inf"), -float("inf"), float("nan"), 1.0])),
    "gcd/lcm": lambda t: (t.gcd(t.tensor([4, 6, 0]), t.tensor([6, 9, 5])), t.tensor([4, 6]).lcm(t.tensor([6, 9]))),
    "gcd(float)": lambda t: t.gcd(t.ones(2), t.ones(2)),
    "t.gcd_": lambda t: (lambda a: (a.gcd_(t.tensor([6, 9])), a))(t.tensor([4, 6])),
    "scalar_tensor": lambda t: (t.scalar_tensor(3), t.scalar_tensor(2.5, dtype=t.float64),
                                t.scalar_tensor(3, dtype=t.int64), t.scalar_tensor(1.5, requires_grad=True)),
    "scalar_tensor([1])": lambda t: t.scalar_tensor([1.0]),
    "pinverse": lambda t: _grad_of(t, t.pinverse, t.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)),
    "dropout(eval)": lambda t: (lambda a: t.dropout(a, 0.5, False) is a)(_x(t)),
    "dropout(p=1)": lambda t: t.dropout(_x(t), 1.0, True),
    "cosine_similarity": lambda t: _grad_of(t, t.cosine_similarity, t.tensor([[1.0, 2.0]], requires_grad=True),
                                            t.tensor([[2.0, 0.5]])),
    "pairwise_distance": lambda t: _grad_of(t, t.pairwise_distance, t.tensor([[1.0, 2.0]], requires_grad=True),
                                            t.tensor([[2.0, 0.5]])),
    "trapezoid": lambda t: _grad_of(t, lambda y: t.trapezoid(y, t.tensor([0.0, 1.0, 3.0])), _x(t)),
    "trapezoid(dx)": lambda t: _grad_of(t, lambda y: t.trapezoid(y, dx=0.25), _x(t)),
    "trapz(dim=0)": lambda t: t.trapz(t.tensor([[1.0, 2.0], [3.0, 5.0]]), dim=0),
    "cumulative_trapezoid": lambda t: _grad_of(t, t.cumulative_trapezoid, _x(t)),
    "trapezoid(empty)": lambda t: t.trapezoid(t.ones(2, 0)),
    "trapezoid(x of another size)": lambda t: t.trapezoid(_x(t), t.ones(2)),
    "trapezoid(bool)": lambda t: t.trapezoid(t.tensor([True, False])),
    "trapezoid(dx=True)": lambda t: t.cumulative_trapezoid(_x(t), dx=True),
    "nbytes/itemsize": lambda t: (t.ones(3).nbytes, t.ones(2, dtype=t.float64).itemsize, t.ones(2, dtype=t.int16).nbytes),
    "is_inference": lambda t: _x(t).is_inference(),
    "set_num_threads(1.0)": lambda t: t.set_num_threads(1.0),
    # in-place methods, on a non-leaf
    **{f"{name}()": (lambda name: lambda t: _in_place(t, name))(name) for name in (
        "absolute_", "negative_", "cosh_", "sinh_", "tan_", "expm1_", "frac_", "trunc_", "fix_")},
    "log1p_()": lambda t: _in_place(t, "log1p_", x=t.tensor([0.5, 2.0], requires_grad=True)),
    "log2_()": lambda t: _in_place(t, "log2_", x=t.tensor([0.5, 2.0], requires_grad=True)),
    "log10_()": lambda t: _in_place(t, "log10_", x=t.tensor([0.5, 2.0], requires_grad=True)),
    "rsqrt_()": lambda t: _in_place(t, "rsqrt_", x=t.tensor([0.5, 2.0], requires_grad=True)),
    "clip_(0, 1)": lambda t: _in_place(t, "clip_", 0, 1),
    "fmod_(1.5)": lambda t: _in_place(t, "fmod_", 1.5),
    "true_divide_(t)": lambda t: _in_place(t, "true_divide_", t.tensor([2.0, 4.0, 8.0])),
    "divide_(2)": lambda t: _in_place(t, "divide_", 2),
    "multiply_(3)": lambda t: _in_place(t, "multiply_", 3),
    "subtract_(t)": lambda t: _in_place(t, "subtract_", t.tensor([2.0, 4.0, 8.0])),
    "cumsum_(0)": lambda t: _in_place(t, "cumsum_", 0),
    "addmm_": lambda t: (lambda m: (m.addmm_(t.eye(2), t.ones(2, 2), beta=2), m.grad_fn.name()))(
        t.ones(2, 2, requires_grad=True) * 1),
    "addmv_": lambda t: (lambda v: (v.addmv_(t.eye(2), t.ones(2)), v.grad_fn.name()))(t.ones(2, requires_grad=True) * 1),
    "floor_divide_(2)": lambda t: t.tensor([7.0, -7.0]).floor_divide_(2),
    "bitwise_and_": lambda t: (lambda a: (a.bitwise_and_(t.tensor([1, 4])), a))(t.tensor([3, 5])),
    "bitwise_not_": lambda t: t.tensor([3, 5]).bitwise_not_(),
    "swapaxes_": lambda t: (lambda a: (a.swapaxes_(0, 1), a.shape))(t.arange(6.0).reshape(2, 3)),
    "i0_": lambda t: t.tensor([0.5, 1.0]).i0_(),
    "leaf.multiply_(2)": lambda t: _x(t).multiply_(2),
    # torch.<op>_ functions
    **{f"torch.{name}": (lambda name: lambda t: _function_in_place(t, name))(name) for name in (
        "relu_", "sigmoid_", "tanh_", "exp_", "abs_", "neg_", "cos_", "sin_", "erf_", "trunc_", "frac_", "square_")},
    "torch.clamp_(t, 0, 1)": lambda t: _function_in_place(t, "clamp_", 0, 1),
    "torch.fill_": lambda t: t.fill_(t.ones(2), 3.0),
    "torch.zero_": lambda t: t.zero_(t.ones(2)),
    "torch.relu_(1.0)": lambda t: t.relu_(1.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_alias_matches_torch(torch_ref, et, name):
    same(torch_ref, et, CASES[name])


# Argument errors, compared by their first line (PyTorch lists its overloads after it).
ERRORS = {
    "torch.max(t, None)": lambda t: t.max(t.ones(2, 3), None),
    "t.max(None)": lambda t: t.ones(2, 3).max(None),
    "torch.min(t, None)": lambda t: t.min(t.ones(2, 3), None),
    "t.float(None)": lambda t: t.ones(2).float(None),
    "t.double(1, 2)": lambda t: t.ones(2).double(1, 2),
    "t.long(x=1)": lambda t: t.ones(2).long(x=1),
    "t.lt_(str)": lambda t: t.tensor([1.0, 2.0]).lt_("a"),
    "t.multiply(None)": lambda t: _x(t).multiply(None),
    "multiply(t, list)": lambda t: t.multiply(_x(t), [1.0]),
    "divide(None, t)": lambda t: t.divide(None, _x(t)),
    "t.subtract_(None)": lambda t: _x(t).detach().subtract_(None),
    "t.divide_(list)": lambda t: _x(t).detach().divide_([1.0]),
    "float_power(1, 2)": lambda t: t.float_power(1, 2),
    "t.float_power([1])": lambda t: _x(t).float_power([1.0]),
    "vdot(1.0, t)": lambda t: t.vdot(1.0, _x(t)),
    "gcd(t, 2)": lambda t: t.gcd(t.tensor([4]), 2),
    "is_same_size(t, 1)": lambda t: t.is_same_size(_x(t), 1),
    "ravel(1.0)": lambda t: t.ravel(1.0),
    "torch.relu_(1.0)": lambda t: t.relu_(1.0),
    "trapezoid(y, 1.0)": lambda t: t.trapezoid(_x(t), 1.0),
    "trapezoid(1.0)": lambda t: t.trapezoid(1.0),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_alias_errors_match_torch(torch_ref, et, name):
    def first_line(fn, mod):
        try:
            fn(mod)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e).split("\n")[0]
        return None

    want = first_line(ERRORS[name], torch_ref)
    assert want is not None
    assert first_line(ERRORS[name], et) == want
