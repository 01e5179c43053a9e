"""Tensors against PyTorch: factories, dtypes and type promotion, metadata, conversions to Python
and NumPy, comparisons, ``torch.Size`` and devices."""
import itertools
import math
import operator
import subprocess
import sys

import numpy as np
import pytest

from tests.engine.opinfo import outcome, same

# ----- Factories, dtypes, metadata: one call site each, compared with PyTorch -----

FACTORIES = {
    "tensor_int": lambda t: t.tensor([1, 2]),
    "tensor_float": lambda t: t.tensor([1.0, 2]),
    "tensor_bool": lambda t: t.tensor([True, False]),
    "tensor_bool_and_int": lambda t: t.tensor([True, 2]),
    "tensor_0d": lambda t: t.tensor(3.5),
    "tensor_nested_mixed": lambda t: t.tensor([[1, 2], [3, 4.5]]),
    "tensor_numpy_f64": lambda t: t.tensor(np.array([1.0, 2.0])),
    "tensor_numpy_i32": lambda t: t.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor_numpy_scalar": lambda t: t.tensor(np.float64(2.5)),
    "tensor_list_of_numpy_scalars": lambda t: t.tensor([np.float64(2.5), np.float64(1)]),
    "tensor_list_of_tensors": lambda t: t.tensor([t.tensor(1.0), t.tensor(2.0)]),
    "tensor_empty": lambda t: t.tensor([]),
    "tensor_dtype": lambda t: t.tensor([1, 2], dtype=t.float64),
    "tensor_requires_grad": lambda t: t.tensor([1.0, 2.0], requires_grad=True),
    "tensor_ragged": lambda t: t.tensor([[1, 2], [3]]),
    "tensor_string": lambda t: t.tensor("a"),
    "zeros": lambda t: t.zeros(2, 3),
    "zeros_tuple_dtype": lambda t: t.zeros((2, 3), dtype=t.int64),
    "ones_list": lambda t: t.ones([2]),
    "full_int": lambda t: t.full((2,), 3),
    "full_float": lambda t: t.full((2,), 3.5),
    "full_bool": lambda t: t.full((2,), True),
    "eye": lambda t: t.eye(3),
    "eye_rect": lambda t: t.eye(2, 3),
    "arange": lambda t: t.arange(5),
    "arange_float_step": lambda t: t.arange(0, 1, 0.25),
    "arange_float_start": lambda t: t.arange(1.5, 4),
    "arange_negative_step": lambda t: t.arange(5, 0, -2),
    "linspace": lambda t: t.linspace(0, 1, 5),
    "linspace_int_ends": lambda t: t.linspace(0, 10, steps=3),
    "zeros_like": lambda t: t.zeros_like(t.tensor([1, 2])),
    "ones_like_dtype": lambda t: t.ones_like(t.tensor([1.0, 2]), dtype=t.float64),
    "full_like": lambda t: t.full_like(t.tensor([1.0, 2]), 7),
    "empty_like_shape": lambda t: t.empty_like(t.ones(2, 3)).shape,
    "rand_shape_dtype": lambda t: (t.rand(2, 3).shape, t.rand(2).dtype, t.rand(2, dtype=t.float64).dtype),
    "randn_shape_dtype": lambda t: (t.randn(2, 3).shape, t.randn(2, dtype=t.float64).dtype),
    "randint_shape_dtype": lambda t: (t.randint(0, 5, (3,)).dtype, t.randint(5, (2, 2)).shape),
    "zeros_negative": lambda t: t.zeros(-1),
    "int_factory_requires_grad": lambda t: t.zeros(2, dtype=t.int64, requires_grad=True),
    "legacy_Tensor_data": lambda t: t.Tensor([1, 2]),
    "legacy_Tensor_sizes": lambda t: t.Tensor(2, 3).shape,
    "legacy_FloatTensor": lambda t: t.FloatTensor([1, 2]),
    "legacy_LongTensor": lambda t: t.LongTensor([1, 2]),
    "legacy_DoubleTensor": lambda t: t.DoubleTensor([1.5]),
    "Variable": lambda t: (lambda v: (v, v.requires_grad, v.is_leaf))(
        t.autograd.Variable(t.tensor([1.0, 2.0]), requires_grad=True)),
    "new_factories": lambda t: (t.ones(2, dtype=t.float64).new_zeros(3), t.ones(2).new_tensor([1, 2]),
                                t.ones(2).new_full((2,), 3.0), t.ones(2).new_ones(1)),
}

METADATA = {
    "shape_size_dim_numel": lambda t: (t.ones(2, 3).shape, t.ones(2, 3).size(), t.ones(2, 3).size(1),
                                       t.ones(2, 3).size(-1), t.ones(2, 3).dim(), t.ones(2, 3).numel(), t.ones(2, 3).ndim,
                                       t.numel(t.ones(2, 3))),
    "size_out_of_range": lambda t: t.ones(2, 3).size(2),
    "Size_repr": lambda t: (repr(t.ones(2, 3).shape), str(t.Size([2, 3])), repr(t.ones(()).shape),
                            t.Size([2, 3]) == (2, 3), type(t.ones(2).shape[0]).__name__, repr(t.ones(2, 3, 4).shape[1:]),
                            t.Size([2, 3]).numel(), isinstance(t.ones(2).shape, tuple)),
    "Size_concatenation": lambda t: (repr((3,) + t.Size([2])), repr(t.Size([2]) + (3,)), repr(t.Size([2]) + t.Size([1]))),
    "Size_plus_list": lambda t: t.ones(2).shape + [4],
    "broadcast_tensors_shares_what_fits": lambda t: (lambda a, r: (r[0] is a, r[1], r[0].shape))(
        t.tensor([1.0, 2.0], requires_grad=True), t.broadcast_tensors(t.tensor([1.0, 2.0]), t.ones(3, 1))),
    "broadcast_tensors_same_object": lambda t: (lambda a: t.broadcast_tensors(a, t.tensor(1.0))[0] is a)(
        t.ones(2, requires_grad=True)),
    "broadcast_shapes": lambda t: (t.broadcast_shapes((2, 1), (3,)), t.broadcast_shapes(2, (3, 1)),
                                   t.broadcast_shapes([2, 3], [4, 1, 1]), t.broadcast_shapes((0,), (1,)),
                                   t.broadcast_shapes()),
    "dtype_attributes": lambda t: (t.float32.is_floating_point, t.int64.is_floating_point, t.float32.itemsize,
                                   repr(t.float64), str(t.get_default_dtype()), t.float is t.float32, t.long is t.int64,
                                   t.double is t.float64, t.bool.is_signed, t.int8.is_signed),
    "promote_types_result_type": lambda t: (t.promote_types(t.int64, t.float32), t.promote_types(t.bool, t.uint8),
                                            t.result_type(t.tensor([1]), 2.5),
                                            t.result_type(t.tensor([1.0]), t.tensor(1.0, dtype=t.float64))),
    "is_floating_point_is_tensor": lambda t: (t.ones(2).is_floating_point(), t.tensor([1]).is_floating_point(),
                                              t.is_tensor(t.ones(1)), t.is_tensor([1])),
    "element_size_stride_contiguous": lambda t: (t.ones(2).element_size(), t.ones(2, dtype=t.float64).element_size(),
                                                 t.ones(2, 3).stride(), t.ones(2, 3).t().stride(),
                                                 t.ones(2, 3).is_contiguous(), t.ones(2, 3).t().is_contiguous()),
    "len_contains": lambda t: (len(t.ones(3, 2)), 2 in t.tensor([1, 2]), 5 in t.tensor([1, 2])),
    "len_0d": lambda t: len(t.tensor(1.0)),
    "iter_0d": lambda t: list(t.tensor(1.0)),
    "tensor_as_index": lambda t: [10, 20, 30][t.tensor(1)],
    "type_strings": lambda t: (t.ones(2).type(), t.ones(2).type(t.float64).dtype, t.tensor([1]).type()),
    "casts": lambda t: (t.tensor([1, 2]).float(), t.tensor([1.7, -2.7]).long(), t.tensor([1.7, 0.0]).bool(),
                        t.tensor([1.5]).half().dtype, t.tensor([1.5]).double(), t.tensor([1.5]).int()),
    "to_dtype_forms": lambda t: (t.ones(2).to(t.float64).dtype, t.ones(2).to("cpu", t.int64).dtype,
                                 t.ones(2).to(dtype=t.int32).dtype, t.ones(2).to(t.ones(1, dtype=t.float64)).dtype),
    "to_same_dtype_is_self": lambda t: (lambda x: (x.to(t.float32) is x, x.float() is x, x.to("cpu") is x))(t.ones(2)),
    "reductions_of_ints": lambda t: (t.tensor([1, 2]).sum(), t.tensor([True, True]).sum(),
                                     t.tensor([1, 2], dtype=t.int32).sum().dtype,
                                     t.tensor([2, 3], dtype=t.int32).prod().dtype),
}

CONVERSIONS = {
    "item": lambda t: (t.tensor([2.5]).item(), t.tensor(3).item(), t.tensor(True).item(),
                       type(t.tensor(3).item()).__name__, type(t.tensor(2.5).item()).__name__),
    "item_many": lambda t: t.tensor([1.0, 2.0]).item(),
    "tolist": lambda t: (t.tensor([[1, 2]]).tolist(), t.tensor(2.5).tolist(), t.tensor([True]).tolist()),
    "numpy": lambda t: (t.tensor([1.0, 2.0]).numpy().dtype.name, t.tensor([1, 2]).numpy().tolist()),
    "numpy_requires_grad": lambda t: t.tensor([1.0], requires_grad=True).numpy(),
    "numpy_of_detached": lambda t: t.tensor([1.0], requires_grad=True).detach().numpy().tolist(),
    "python_scalars": lambda t: (float(t.tensor(2.5)), int(t.tensor(2.7)), int(t.tensor(-2.7)), bool(t.tensor(0.0)),
                                 bool(t.tensor([1])), float(t.tensor([[3]]))),
    "float_many": lambda t: float(t.tensor([1.0, 2.0])),
    "int_many": lambda t: int(t.tensor([1, 2])),
    "bool_many": lambda t: bool(t.tensor([1, 2])),
    "bool_empty": lambda t: bool(t.tensor([])),
}

COMPARISONS = {
    "operators": lambda t: (t.tensor([1, 2, 3]) > 2, t.tensor([1.0, 2]) == t.tensor([1.0, 3]), t.tensor([1, 2]) <= 1.5,
                            t.tensor([1, 2]) != 2, 2 < t.tensor([1, 3]), t.tensor([1.0, 2]) >= t.tensor([2.0])),
    "eq_all_any_equal": lambda t: (t.tensor([1, 2]).eq(t.tensor([1, 3])), t.tensor([True, False]).all(),
                                   t.tensor([True, False]).any(), t.tensor([1, 0]).all(),
                                   t.equal(t.tensor([1, 2]), t.tensor([1, 2])), t.tensor([[1, 0], [1, 1]]).all(dim=1),
                                   t.tensor([[1, 0], [0, 0]]).any(1, keepdim=True)),
    "comparison_of_requires_grad": lambda t: t.tensor([1.0, 2.0], requires_grad=True) > 1,
    "broadcast_mismatch": lambda t: t.ones(2) == t.ones(3),
    "allclose_isclose": lambda t: (t.allclose(t.tensor([1.0]), t.tensor([1.0 + 1e-7])),
                                   t.isclose(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1]))),
    "allclose_isclose_equal_methods": lambda t: (
        t.tensor([1.0, 2.0]).isclose(t.tensor([1.0, 2.1]), 0.1), t.tensor([1.0]).allclose(t.tensor([1.2]), atol=0.3),
        t.tensor([float("nan")]).isclose(t.tensor([float("nan")]), equal_nan=True), t.ones(2).equal(t.ones(2)),
        t.ones(2).equal(t.ones(3)), t.isclose(t.ones(2), other=t.ones(2)), t.equal(input=t.ones(1), other=t.ones(1))),
}

DEVICES = {
    "device_forms": lambda t: (str(t.ones(2, device="cpu").device), t.ones(2, device=t.device("cpu")).device == t.device("cpu"),
                               repr(t.device("cpu")), str(t.ones(2).to("cpu").device), t.ones(2).cpu().device.type,
                               t.ones(2).is_cuda, t.device("cpu") == "cpu", repr(t.device("cuda", 0))),
    "cuda_method": lambda t: t.ones(2).cuda(),
    "to_cuda": lambda t: t.ones(2).to("cuda"),
    "factory_cuda": lambda t: t.ones(2, device="cuda"),
    "bad_device_string": lambda t: t.device("gpu"),
    "cuda_is_available": lambda t: t.cuda.is_available(),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories(torch_ref, et, name):
    same(torch_ref, et, FACTORIES[name])


_SPACES = [(0, 1, 7), (-math.pi, math.pi, 100), (-3.7, 11.2, 1000), (1, 0, 64), (2.7, -3.2, 4), (5, 5, 3), (0, 1, 1),
           (0, 1, 0), (0.5, 2.5, 33)]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8"])
@pytest.mark.parametrize("fn", ["linspace", "logspace"])
def test_linspace_and_logspace_match_torch_bit_for_bit(torch_ref, et, fn, dtype):
    # PyTorch steps from each end to the middle (linspace(0, 1, 7)[4] is 0.6666666269, not NumPy's
    # 0.6666666865), with fused multiply-adds in linspace and C's pow in logspace.
    def values(t):
        return [getattr(t, fn)(a, b, n, dtype=getattr(t, dtype)).numpy().tobytes()
                for a, b, n in _SPACES if dtype != "uint8" or min(a, b) >= 0]

    assert values(et) == values(torch_ref)
    assert et.linspace(0, 1, 7)[4].item() == 0.6666666269302368


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_float_arange_matches_torch_bit_for_bit(torch_ref, et, dtype):
    # start + step * i, except in the vectors PyTorch's kernel fills two at a time: each steps on from
    # its first element, rounded to the dtype (arange(0, 4, 0.1)[9] is 0.90000004, not float32's 0.9)
    def values(t):
        return [t.arange(a, b, s, dtype=getattr(t, dtype)).numpy().tobytes()
                for a, b, s in [(0, 1, 0.1), (0, 4, 0.1), (-3.7, 11.2, 0.013), (1, 0, -0.07), (0.5, 100, 0.37)]]

    assert values(et) == values(torch_ref)
    assert et.arange(0, 4, 0.1)[9].item() == 0.9000000357627869 and et.arange(0, 1, 0.1)[9].item() == 0.8999999761581421


@pytest.mark.torch
@pytest.mark.parametrize("args", [(0, 1e30, 3, "int64"), (0, 1e40, 3, "float32"), (0, 300, 3, "uint8"), (0, -5, 3, "uint8"), (-5.0, 3, 3, "uint8"),
                                  (0, 1e5, 3, "float16"), (0, math.inf, 3, "float32"), (0, math.nan, 3, "int64")])
def test_linspace_out_of_the_dtypes_range_matches_torch(torch_ref, et, args):
    a, b, n, dtype = args
    same(torch_ref, et, lambda t: t.linspace(a, b, n, dtype=getattr(t, dtype)))


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(METADATA))
def test_metadata(torch_ref, et, name):
    same(torch_ref, et, METADATA[name])


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_conversions(torch_ref, et, name):
    same(torch_ref, et, CONVERSIONS[name])


@pytest.mark.torch
def test_float_of_requires_grad_warns_once_per_process(torch_ref):
    # In a fresh process each: PyTorch warns once per process (and its own LBFGS calls float() on a loss).
    code = ("import warnings, {} as t\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    v = [float(t.tensor(2.0, requires_grad=True) * 2) for _ in range(3)]\n"
            "print(v, [(x.category.__name__, str(x.message)) for x in w])")
    runs = [subprocess.run([sys.executable, "-c", code.format(m)], capture_output=True, text=True, check=True).stdout
            for m in ("torch", "engine")]
    assert runs[1] == runs[0]
    assert runs[1].startswith("[4.0, 4.0, 4.0] [('UserWarning', 'Converting a tensor with requires_grad=True")


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparisons(torch_ref, et, name):
    same(torch_ref, et, COMPARISONS[name])


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(DEVICES))
def test_devices(torch_ref, et, name):
    same(torch_ref, et, DEVICES[name])


# ----- Literal checks (run without PyTorch too) -----

def test_factory_dtypes_literal(et):
    assert et.tensor([1, 2]).dtype is et.int64
    assert et.tensor([1.0, 2]).dtype is et.float32
    assert et.tensor([True]).dtype is et.bool
    assert et.tensor(np.array([1.0])).dtype is et.float64
    assert et.arange(3).dtype is et.int64 and et.arange(0.0, 1.0, 0.5).dtype is et.float32
    assert et.full((1,), 2).dtype is et.int64
    assert et.Tensor([1, 2]).dtype is et.float32 and et.LongTensor([1]).dtype is et.int64
    assert repr(et.zeros(2, 3).shape) == "torch.Size([2, 3])"


def test_as_tensor_and_from_numpy_share_memory(et):
    a = np.zeros(3, dtype=np.float32)
    t = et.from_numpy(a)
    t.add_(1)
    assert a.tolist() == [1.0, 1.0, 1.0]
    a[0] = 5
    assert t.tolist() == [5.0, 1.0, 1.0]
    b = np.zeros(2)
    et.as_tensor(b).add_(2)
    assert b.tolist() == [2.0, 2.0]
    c = np.zeros(2)
    et.tensor(c).add_(2)  # tensor() copies
    assert c.tolist() == [0.0, 0.0]
    assert et.as_tensor(b, dtype=et.float32).dtype is et.float32  # a conversion must copy
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        et.from_numpy([1, 2])


def test_manual_seed_reproducibility(et):
    et.manual_seed(123)
    a = (et.rand(4), et.randn(2, 2), et.randint(0, 10, (5,)))
    et.manual_seed(123)
    b = (et.rand(4), et.randn(2, 2), et.randint(0, 10, (5,)))
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert a[0].tolist() != et.rand(4).tolist()
    assert 0 <= a[0].min().item() and a[0].max().item() < 1
    assert a[2].dtype is et.int64 and 0 <= a[2].min().item() and a[2].max().item() < 10


def test_variable_shares_data_and_requires_grad(et):
    t = et.tensor([1.0, 2.0])
    v = et.autograd.Variable(t, requires_grad=True)
    assert v.requires_grad and v.is_leaf and not t.requires_grad
    with et.no_grad():
        v.add_(1)
    assert t.tolist() == [2.0, 3.0]


def test_numpy_of_requires_grad_message(et):
    with pytest.raises(RuntimeError) as info:
        et.ones(1, requires_grad=True).numpy()
    assert str(info.value) == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


def test_numpy_of_requires_grad_without_grad_mode(torch_ref, et):
    """Under no_grad or inference_mode, ``numpy()`` and NumPy's conversions of a tensor that requires grad
    give its memory (a plot in a ``with torch.no_grad():`` block does this); with grad mode on they raise."""
    def run(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        for ctx in (t.no_grad, t.inference_mode, t.enable_grad):
            with ctx():
                for convert in (lambda: x.numpy(), lambda: np.asarray(x)):
                    try:
                        r = convert()
                        seen.append(("ok", type(r).__name__, r.tolist()))
                    except RuntimeError as e:
                        seen.append(("raised", str(e)))
        with t.no_grad():
            x.numpy()[0] = 5.0  # (the tensor's own memory)
        return seen, x.tolist()

    got = same(torch_ref, et, run)[0][1]
    assert got[1] == [5.0, 2.0] and got[0][0] == ("ok", "ndarray", [1.0, 2.0])
    assert got[0][-1] == ("raised", "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                                    "instead.")


def test_cuda_message(et):
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        et.ones(1).cuda()


# ----- Type promotion: every pair of operand kinds, under every arithmetic operator -----

def operand_kinds(t):
    return {
        "float32": lambda: t.ones(2, dtype=t.float32), "float64": lambda: t.ones(2, dtype=t.float64),
        "float16": lambda: t.ones(2, dtype=t.float16), "int64": lambda: t.tensor([3, 4]),
        "int32": lambda: t.tensor([3, 4], dtype=t.int32), "uint8": lambda: t.tensor([3, 4], dtype=t.uint8),
        "bool": lambda: t.tensor([True, False]),
        "0d_float32": lambda: t.tensor(2.0), "0d_float64": lambda: t.tensor(2.0, dtype=t.float64),
        "0d_int64": lambda: t.tensor(2), "0d_int32": lambda: t.tensor(2, dtype=t.int32),
        "0d_bool": lambda: t.tensor(True),
        "py_int": lambda: 2, "py_float": lambda: 2.5, "py_bool": lambda: True,
    }


OPERATORS = {"+": operator.add, "*": operator.mul, "/": operator.truediv, "-": operator.sub, "**": operator.pow,
             "//": operator.floordiv, "%": operator.mod}
KINDS = list(operand_kinds(np))


@pytest.mark.torch
@pytest.mark.parametrize("op", list(OPERATORS))
def test_type_promotion_matches_torch(torch_ref, et, op):
    """Result dtype and values (or the error) for all 15 x 15 operand pairs, against PyTorch."""
    fn = OPERATORS[op]
    mismatches = []
    for a, b in itertools.product(KINDS, repeat=2):
        if a.startswith("py_") and b.startswith("py_"):
            continue

        def run(t):
            kinds = operand_kinds(t)
            return fn(kinds[a](), kinds[b]())

        ours, ref = outcome(run, et), outcome(run, torch_ref)
        if ours != ref:
            mismatches.append((a, op, b, ours, ref))
    assert mismatches == []


@pytest.mark.parametrize("a, b, op, expected", [
    ("int64", "py_float", "+", "float32"), ("int64", "0d_float64", "*", "float64"), ("int64", "py_int", "/", "float32"),
    ("float32", "0d_float64", "+", "float32"), ("float32", "float64", "*", "float64"), ("bool", "py_int", "+", "int64"),
    ("bool", "bool", "+", "bool"), ("uint8", "0d_int64", "*", "uint8"), ("0d_int32", "py_float", "/", "float32"),
    ("float16", "0d_float64", "+", "float16"), ("int32", "int64", "*", "int64"), ("bool", "py_float", "*", "float32"),
])
def test_type_promotion_literal(et, a, b, op, expected):
    kinds = operand_kinds(et)
    assert str(OPERATORS[op](kinds[a](), kinds[b]()).dtype) == f"torch.{expected}"
