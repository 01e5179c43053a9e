"""Misuse gives PyTorch's exception class and message, character for character."""
import numpy as np
import pytest

from tests.engine.opinfo import outcome, same


def _second_backward(t):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _modified_saved(t):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    y.mul_(3)
    z.sum().backward()


def _nonleaf_requires_grad_false(t):
    y = t.tensor([1.0], requires_grad=True) * 2
    y.requires_grad = False


def _nonleaf_requires_grad_false_method(t):
    y = t.tensor([1.0], requires_grad=True) * 2
    y.requires_grad_(False)


def _leaf_inplace(t):
    t.ones(2, requires_grad=True).mul_(2)


def _view_of_leaf_inplace(t):
    t.ones(2, 2, requires_grad=True)[0].mul_(2)


ERRORS = {
    # backward
    "backward_non_scalar_without_gradient": lambda t: (t.ones(2, requires_grad=True) * 2).backward(),
    "backward_gradient_shape_mismatch": lambda t: (t.ones(2, requires_grad=True) * 2).backward(t.ones(3)),
    "backward_without_grad_fn": lambda t: t.ones(2).sum().backward(),
    "backward_of_integer_output": lambda t: (t.ones(2, requires_grad=True) * 2).long().sum().backward(),
    "second_backward": _second_backward,
    "modified_saved_tensor": _modified_saved,
    "grad_count_mismatch": lambda t: t.autograd.backward([t.ones(1, requires_grad=True) * 2] * 2, [t.ones(1)]),
    "backward_empty_inputs": lambda t: (t.ones(1, requires_grad=True) * 2).sum().backward(inputs=[]),
    # requires_grad
    "leaf_inplace": _leaf_inplace,
    "view_of_leaf_inplace": _view_of_leaf_inplace,
    "int_tensor_requires_grad_kwarg": lambda t: t.tensor([1, 2], requires_grad=True),
    "int_zeros_requires_grad_kwarg": lambda t: t.zeros(2, dtype=t.int64, requires_grad=True),
    "int_arange_requires_grad_kwarg": lambda t: t.arange(3, requires_grad=True),
    "int_requires_grad_method": lambda t: t.tensor([1, 2]).requires_grad_(),
    "int_requires_grad_setter": lambda t: setattr(t.tensor([1, 2]), "requires_grad", True),
    "bool_requires_grad_method": lambda t: t.tensor([True]).requires_grad_(),
    "nonleaf_requires_grad_false": _nonleaf_requires_grad_false,
    "nonleaf_requires_grad_false_method": _nonleaf_requires_grad_false_method,
    "retain_grad_without_grad": lambda t: t.ones(1).retain_grad(),
    "hook_without_grad": lambda t: t.ones(1).register_hook(lambda g: g),
    "grad_wrong_size": lambda t: setattr(t.ones(2, requires_grad=True), "grad", t.ones(3)),
    "grad_wrong_dtype": lambda t: setattr(t.ones(2, requires_grad=True), "grad", t.ones(2, dtype=t.float64)),
    "grad_not_tensor": lambda t: setattr(t.ones(2, requires_grad=True), "grad", 5),
    # conversions
    "item_of_many": lambda t: t.tensor([1.0, 2.0]).item(),
    "item_of_empty": lambda t: t.tensor([]).item(),
    "float_of_many": lambda t: float(t.ones(3)),
    "bool_of_many": lambda t: bool(t.ones(3)),
    "numpy_of_requires_grad": lambda t: t.ones(2, requires_grad=True).numpy(),
    "len_of_0d": lambda t: len(t.tensor(1.0)),
    "iter_of_0d": lambda t: iter(t.tensor(1.0)),
    "index_with_float_tensor": lambda t: t.ones(3)[t.tensor([0.0])],
    "cuda": lambda t: t.ones(1).cuda(),
    # shapes
    "mm_shapes": lambda t: t.ones(2, 3).mm(t.ones(2, 3)),
    "mm_not_matrix": lambda t: t.mm(t.ones(3), t.ones(3, 2)),
    "mm_dtypes": lambda t: t.mm(t.ones(2, 2), t.ones(2, 2, dtype=t.float64)),
    "mv_shapes": lambda t: t.mv(t.ones(2, 3), t.ones(2)),
    "dot_sizes": lambda t: t.dot(t.ones(3), t.ones(4)),
    "dot_not_1d": lambda t: t.dot(t.ones(2, 2), t.ones(2)),
    "bmm_shapes": lambda t: t.bmm(t.ones(2, 3, 4), t.ones(2, 5, 2)),
    "bmm_not_3d": lambda t: t.bmm(t.ones(3, 4), t.ones(4, 2)),
    "matmul_0d": lambda t: t.matmul(t.tensor(1.0), t.ones(2)),
    "matmul_1d_1d": lambda t: t.ones(3) @ t.ones(4),
    "matmul_2d_1d": lambda t: t.ones(2, 3) @ t.ones(2),
    "matmul_1d_2d": lambda t: t.ones(3) @ t.ones(4, 2),
    "matmul_2d_2d": lambda t: t.ones(2, 3) @ t.ones(4, 2),
    "matmul_3d_1d": lambda t: t.ones(2, 3, 4) @ t.ones(5),
    "matmul_3d_2d": lambda t: t.ones(2, 3, 4) @ t.ones(5, 2),
    "matmul_2d_3d": lambda t: t.ones(4, 3) @ t.ones(2, 4, 2),
    "matmul_batch_broadcast": lambda t: t.ones(2, 3, 4) @ t.ones(3, 4, 2),
    "matmul_bmm_inner": lambda t: t.ones(2, 3, 4) @ t.ones(2, 5, 2),
    "broadcast_add": lambda t: t.ones(2, 3) + t.ones(4),
    "broadcast_mul_3d": lambda t: t.ones(2, 3, 4) * t.ones(3, 1, 5),
    "broadcast_inplace": lambda t: t.ones(3).add_(t.ones(2, 3)),
    "view_non_contiguous": lambda t: t.ones(2, 3).t().view(6),
    "view_bad_size": lambda t: t.ones(2, 3).view(4),
    "reshape_bad_size": lambda t: t.ones(2, 3).reshape(5, -1),
    "reshape_two_inferred": lambda t: t.ones(2, 3).reshape(-1, -1),
    "expand_bad": lambda t: t.ones(2, 3).expand(3, 3),
    "expand_fewer_dims": lambda t: t.ones(2, 3).expand(3),
    "t_of_3d": lambda t: t.ones(2, 3, 4).t(),
    "permute_wrong_length": lambda t: t.ones(2, 3).permute(0),
    "repeat_fewer_dims": lambda t: t.ones(2, 3).repeat(2),
    "cat_size_mismatch": lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]),
    "cat_dim_count_mismatch": lambda t: t.cat([t.ones(2, 3), t.ones(3)]),
    "cat_empty_list": lambda t: t.cat([]),
    "stack_size_mismatch": lambda t: t.stack([t.ones(2), t.ones(3)]),
    "stack_dim_out_of_range": lambda t: t.stack([t.ones(2, 3)] * 2, 3),
    "stack_dim_before_sizes": lambda t: t.stack([t.ones(2, 3), t.ones(3)], 5),
    "stack_0d_dim_out_of_range": lambda t: t.stack([t.ones(())] * 2, 1),
    "flatten_dim_out_of_range": lambda t: t.ones(2, 3).flatten(0, 4),
    "flatten_start_after_end": lambda t: t.ones(2, 3).flatten(1, 0),
    "flatten_0d_dim_out_of_range": lambda t: t.ones(()).flatten(3),
    "unflatten_dim_out_of_range": lambda t: t.ones(2, 3).unflatten(4, (3, 1)),
    "unflatten_bad_sizes": lambda t: t.ones(2, 6).unflatten(1, (4, -1)),
    "unflatten_empty_sizes": lambda t: t.ones(2, 6).unflatten(1, ()),
    "permute_dim_out_of_range": lambda t: t.ones(2, 3).permute(0, 4),
    "permute_duplicate_dims": lambda t: t.ones(2, 3).permute(0, -2),
    "argmax_dim_out_of_range": lambda t: t.ones(2, 3).argmax(2),
    "argmin_dim_out_of_range": lambda t: t.ones(2, 3).argmin(-3),
    "argmax_0d_dim_out_of_range": lambda t: t.tensor(3.0).argmax(1),
    "argmax_empty_no_dim": lambda t: t.ones(0).argmax(),
    "argmin_empty_dim": lambda t: t.ones(2, 0).argmin(1),
    "argmax_bool": lambda t: t.tensor([True, False]).argmax(),
    "max_dim_empty": lambda t: t.ones(2, 0).max(1),
    "min_dim_empty": lambda t: t.ones(0).min(0),
    "amax_dim_empty": lambda t: t.ones(2, 0).amax(1),
    "where_condition_shape": lambda t: t.where(t.ones(4, dtype=t.bool), t.ones(2, 3), t.ones(2, 3)),
    "where_other_shape": lambda t: t.where(t.ones(2, 3) > 0, t.ones(2, 3), t.ones(4)),
    "where_input_shape": lambda t: t.where(t.ones(2, 3) > 0, t.ones(4), t.ones(2, 3)),
    "masked_select_shape": lambda t: t.ones(2, 3).masked_select(t.ones(4, dtype=t.bool)),
    "mse_loss_shapes": lambda t: t.nn.functional.mse_loss(t.ones(2, 3), t.ones(3, 2)),
    "l1_loss_shapes": lambda t: t.nn.functional.l1_loss(t.ones(2, 3), t.ones(4)),
    "smooth_l1_loss_shapes": lambda t: t.nn.functional.smooth_l1_loss(t.ones(2, 3), t.ones(4)),
    "nll_loss_batch_sizes": lambda t: t.nn.functional.nll_loss(t.ones(2, 3), t.tensor([0, 1, 2])),
    "cross_entropy_batch_sizes": lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), t.tensor([0, 1, 2])),
    "nll_loss_1d_target": lambda t: t.nn.functional.nll_loss(t.ones(3), t.tensor([1, 2])),
    "softmax_long": lambda t: t.tensor([1, 2]).softmax(0),
    "softmax_long_inner_dim": lambda t: t.ones(2, 3, dtype=t.int64).softmax(0),
    "log_softmax_long": lambda t: t.nn.functional.log_softmax(t.tensor([1, 2]), 0),
    "softmax_bool": lambda t: t.tensor([True]).softmax(0),
    "arange_step_sign": lambda t: t.arange(0, 5, -1),
    "arange_float_step_sign": lambda t: t.arange(0.0, 5.0, -0.5),
    "arange_bounds_reversed": lambda t: t.arange(5, 0),
    "arange_zero_step": lambda t: t.arange(0, 5, 0),
    "linspace_negative_steps": lambda t: t.linspace(0, 1, -1),
    "chunk_zero": lambda t: t.ones(2, 3).chunk(0),
    "chunk_negative": lambda t: t.ones(2, 3).chunk(-1),
    "split_zero": lambda t: t.ones(2, 3).split(0),
    "split_negative": lambda t: t.ones(2, 3).split(-1, 1),
    "narrow_past_end": lambda t: t.ones(2, 3).narrow(1, 2, 5),
    "narrow_start_out_of_range": lambda t: t.ones(2, 3).narrow(1, 4, 0),
    "narrow_negative_start_out_of_range": lambda t: t.ones(2, 3).narrow(1, -4, 1),
    "narrow_negative_length": lambda t: t.ones(2, 3).narrow(1, 0, -1),
    "repeat_negative": lambda t: t.ones(2, 3).repeat(2, -1, 3),
    "normal_negative_std": lambda t: t.normal(t.zeros(2), -1.0),
    "normal_negative_std_tensor": lambda t: t.normal(0.0, t.tensor([-1.0, 1.0])),
    "normal_negative_std_size": lambda t: t.normal(0.0, -1.0, (2,)),
    "detach_inplace_view_no_grad": lambda t: t.ones(2, 3)[0].detach_(),
    "set_grad_enabled_int": lambda t: t.set_grad_enabled(1),
    "set_grad_enabled_none": lambda t: t.set_grad_enabled(None),
    "split_sizes_sum": lambda t: t.ones(5).split([2, 2]),
    # dims and indices
    "sum_dim_out_of_range": lambda t: t.ones(2, 3).sum(2),
    "mean_dim_out_of_range": lambda t: t.ones(2, 3).mean(-3),
    "softmax_dim_out_of_range": lambda t: t.ones(2, 3).softmax(2),
    "unsqueeze_out_of_range": lambda t: t.ones(2).unsqueeze(3),
    "transpose_out_of_range": lambda t: t.ones(2, 3).transpose(0, 2),
    "index_out_of_range": lambda t: t.ones(2, 3)[5],
    "index_out_of_range_dim1": lambda t: t.ones(2, 3)[:, 3],
    "index_negative_out_of_range": lambda t: t.ones(2, 3)[-3],
    "index_list_out_of_range": lambda t: t.ones(2, 3)[[0, 4]],
    "too_many_indices": lambda t: t.ones(2, 3)[0, 0, 0],
    "select_out_of_range": lambda t: t.ones(2, 3).select(1, 3),
    "index_select_out_of_range": lambda t: t.ones(2, 3).index_select(0, t.tensor([2])),
    "isclose_dtypes": lambda t: t.isclose(t.ones(2), t.ones(2, dtype=t.float64)),
    "allclose_dtypes": lambda t: t.allclose(t.ones(2, dtype=t.long), t.ones(2)),
    "isclose_number": lambda t: t.isclose(t.ones(2), 1.0),
    # the methods count positions from other (1), the functions from input
    "isclose_method_number": lambda t: t.ones(2).isclose(1.0),
    "isclose_method_list": lambda t: t.ones(2).isclose([1.0], 1e-3),
    "isclose_number_input": lambda t: t.isclose(1.0, t.ones(2)),
    "isclose_unbound_number": lambda t: t.Tensor.isclose(1.0, t.ones(2)),
    "isclose_no_other": lambda t: t.isclose(t.ones(2)),
    "isclose_method_no_other": lambda t: t.ones(2).isclose(),
    "allclose_method_number": lambda t: t.ones(2).allclose(1),
    "allclose_number": lambda t: t.allclose(t.ones(2), 1),
    "allclose_method_dtypes": lambda t: t.ones(2).allclose(t.ones(2, dtype=t.float64)),
    "equal_method_number": lambda t: t.ones(2).equal(1.0),
    "equal_number": lambda t: t.equal(t.ones(2), None),
    "equal_number_input": lambda t: t.equal(2, t.ones(2)),
    "index_select_dim1_out_of_range": lambda t: t.ones(2, 3).index_select(1, t.tensor([1, -2, 7])),
    "index_select_dim1_of_4d": lambda t: t.ones(2, 3, 4, 5).index_select(1, t.tensor(9, dtype=t.int32)),
    "index_select_last_dim_of_3d": lambda t: t.ones(2, 3, 4).index_select(-1, t.tensor([4])),
    "index_select_empty_axis": lambda t: t.ones(2, 0, 4).index_select(1, t.tensor([0])),
    "index_select_empty_1d": lambda t: t.ones(0).index_select(0, t.tensor([0])),
    "gather_out_of_range": lambda t: t.ones(2, 3).gather(1, t.tensor([[3], [0]])),
    "size_out_of_range": lambda t: t.ones(2, 3).size(2),
    # dtypes
    "mean_of_ints": lambda t: t.tensor([1, 2]).mean(),
    "var_of_ints": lambda t: t.tensor([1, 2]).var(),
    "std_of_ints": lambda t: t.tensor([1, 2]).std(),
    "sub_bool_tensors": lambda t: t.tensor([True]) - t.tensor([False]),
    "sub_bool_and_float": lambda t: t.tensor([True]) - t.tensor([1.0]),
    "neg_bool": lambda t: -t.tensor([True]),
    "invert_float": lambda t: ~t.ones(2),
    "int_to_negative_int_power": lambda t: t.tensor([2]) ** -1,
    "integer_division_by_zero": lambda t: t.tensor([3]) // 0,
    "integer_remainder_by_zero": lambda t: t.tensor([3]) % t.tensor([0]),
    "pow_bool_tensors": lambda t: t.tensor([True]) ** t.tensor([True]),
    "div_bad_rounding_mode": lambda t: t.div(t.ones(2), 2, rounding_mode="round"),
    "clamp_without_bounds": lambda t: t.clamp(t.ones(2)),
    "norm_fro_three_dims": lambda t: t.ones(2, 2, 2).norm(dim=(0, 1, 2)),
    "floor_divide_backward": lambda t: (t.ones(2, requires_grad=True) // 2).sum().backward(),
    "norm_of_ints": lambda t: t.tensor([3, 4]).norm(),
    "cat_0d": lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]),
    "negative_step": lambda t: t.arange(5)[::-1],
    "mm_int_float": lambda t: t.tensor([[1, 2]]).mm(t.tensor([[3.0], [4.0]])),
    "mv_dtypes": lambda t: t.mv(t.ones(2, 2, dtype=t.float64), t.ones(2)),
    "dot_dtypes": lambda t: t.dot(t.ones(2, dtype=t.float64), t.ones(2)),
    "bmm_dtypes": lambda t: t.bmm(t.ones(1, 2, 2, dtype=t.float64), t.ones(1, 2, 2)),
    "addmm_mat_dtypes": lambda t: t.addmm(t.ones(2, 2), t.ones(2, 2, dtype=t.float64), t.ones(2, 2)),
    "addmm_self_dtype": lambda t: t.addmm(t.ones(2, 2, dtype=t.float64), t.ones(2, 2), t.ones(2, 2)),
    "matmul_int_float_batched": lambda t: t.ones(3, 2, 2) @ t.ones(3, 2, 2, dtype=t.float64),
    "index_select_float_index": lambda t: t.ones(3).index_select(0, t.tensor([1.0])),
    "nll_int32_target": lambda t: t.nn.functional.nll_loss(t.zeros(2, 3), t.tensor([0, 1], dtype=t.int32)),
    "inplace_on_expanded": lambda t: t.ones(3, 1).expand(3, 2).mul_(2),
    "inplace_on_expanded_view_of_nonleaf": lambda t: (t.ones(2, 3, requires_grad=True) * 1).expand(2, 2, 3).add_(1),
    # losses
    "nll_target_out_of_bounds": lambda t: t.nn.functional.nll_loss(t.zeros(2, 3), t.tensor([0, 3])),
    "nll_float_target": lambda t: t.nn.functional.nll_loss(t.zeros(2, 3), t.tensor([0.0, 1.0])),
    "cross_entropy_target_out_of_bounds": lambda t: t.nn.functional.cross_entropy(t.zeros(2, 3), t.tensor([5, 0])),
    "bce_size_mismatch": lambda t: t.nn.functional.binary_cross_entropy(t.full((2,), 0.5), t.ones(3)),
    "bce_input_out_of_range": lambda t: t.nn.functional.binary_cross_entropy(t.full((2,), 1.5), t.ones(2)),
    "bce_with_logits_size_mismatch":
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(2), t.ones(3)),
    "cross_entropy_label_smoothing_above_one":
        lambda t: t.nn.functional.cross_entropy(t.zeros(2, 3), t.tensor([0, 1]), label_smoothing=1.5),
    "mse_bad_reduction": lambda t: t.nn.functional.mse_loss(t.zeros(2), t.ones(2), reduction="avg"),
    # broadcasting
    "broadcast_tensors_mismatch": lambda t: t.broadcast_tensors(t.ones(2, 3), t.ones(3, 2)),
    "broadcast_shapes_mismatch": lambda t: t.broadcast_shapes((2,), (3,)),
    "broadcast_shapes_list_mismatch": lambda t: t.broadcast_shapes((5, 2), [1, 3]),
    "broadcast_shapes_ints": lambda t: t.broadcast_shapes(2, 3),
    "broadcast_shapes_negative": lambda t: t.broadcast_shapes((-1,), (3,)),
    # a number or a list where a function takes a Tensor (math.exp habits)
    "exp_of_float": lambda t: t.exp(2.0),
    "sign_of_int": lambda t: t.sign(1),
    "sqrt_of_list": lambda t: t.sqrt([1.0, 4.0]),
    "sigmoid_of_numpy_scalar": lambda t: t.sigmoid(np.float64(0.5)),
    "relu_of_none": lambda t: t.nn.functional.relu(None),
    "special_erfcx_of_float": lambda t: t.special.erfcx(1.0),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_torch(torch_ref, et, name):
    result = same(torch_ref, et, ERRORS[name])[0]
    assert result[0] == "raised", f"PyTorch does not raise for {name}: pick a case that does"


# ----- The most common messages, literally (run without PyTorch too) -----

LITERAL = {
    "backward_non_scalar_without_gradient": ("RuntimeError", "grad can be implicitly created only for scalar outputs"),
    "backward_without_grad_fn": (
        "RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"),
    "leaf_inplace": ("RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation."),
    "int_tensor_requires_grad_kwarg": (
        "RuntimeError", "Only Tensors of floating point and complex dtype can require gradients"),
    "int_requires_grad_method": ("RuntimeError", "only Tensors of floating point dtype can require gradients"),
    "item_of_many": ("RuntimeError", "a Tensor with 2 elements cannot be converted to Scalar"),
    "numpy_of_requires_grad": (
        "RuntimeError", "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    "mm_shapes": ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    "broadcast_add": (
        "RuntimeError", "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    "view_non_contiguous": (
        "RuntimeError", "view size is not compatible with input tensor's size and stride (at least one dimension spans "
        "across two contiguous subspaces). Use .reshape(...) instead."),
    "mean_of_ints": (
        "RuntimeError", "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
        "dtype. Got: Long"),
    "index_out_of_range": ("IndexError", "index 5 is out of bounds for dimension 0 with size 2"),
    "exp_of_float": ("TypeError", "exp(): argument 'input' (position 1) must be Tensor, not float"),
    "sigmoid_of_numpy_scalar": ("TypeError", "sigmoid(): argument 'input' (position 1) must be Tensor, not numpy.float64"),
    "cat_size_mismatch": (
        "RuntimeError", "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor "
        "number 1 in the list."),
    "second_backward": (
        "RuntimeError", "Trying to backward through the graph a second time (or directly access saved tensors after "
        "they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
        "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you "
        "need to access saved tensors after calling backward."),
}


@pytest.mark.parametrize("name", sorted(LITERAL))
def test_error_literal(et, name):
    result, _ = outcome(ERRORS[name], et)
    assert result == ("raised",) + LITERAL[name]
