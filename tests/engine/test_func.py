"""``torch.func`` against real PyTorch 2.13: the same values, printed results, return structures,
``grad_fn`` of results that stay attached to the caller's graph, and error messages."""
import pytest

pytestmark = pytest.mark.torch


def describe(x):
    """A result as it prints and nests: repr and requires_grad of each tensor, in its tuple/list/dict."""
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [describe(e) for e in x]
    if isinstance(x, dict):
        return {k: describe(v) for k, v in x.items()}
    if hasattr(x, "requires_grad"):
        return repr(x), x.requires_grad
    return repr(x)


def run(fn, T):
    try:
        return "ok", describe(fn(T))
    except Exception as e:  # noqa: BLE001 - the type and message are the observation
        return type(e).__name__, str(e)


def cube_sum(x):
    return (x ** 3).sum()


def x3(T):
    return T.tensor([1.0, 2.0, 3.0])


def per_sample_grads(T):
    """PyTorch's per-sample-gradients tutorial: vmap over grad of a loss through functional_call."""
    F = T.nn.functional
    model = T.nn.Linear(3, 2)
    with T.no_grad():
        model.weight.copy_(T.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        model.bias.copy_(T.tensor([0.05, -0.05]))
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = T.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return F.cross_entropy(predictions, target.unsqueeze(0))

    data = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 1.0, -1.0], [2.0, 2.0, 2.0]])
    targets = T.tensor([0, 1, 1, 0])
    grads = T.func.vmap(T.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    return grads


def ensemble(T):
    """PyTorch's model-ensembling tutorial: stack_module_state, then vmap over functional_call."""
    models = []
    for k in range(3):
        m = T.nn.Linear(2, 1)
        with T.no_grad():
            m.weight.fill_(0.1 * (k + 1))
            m.bias.fill_(-0.1 * k)
        models.append(m)
    params, buffers = T.func.stack_module_state(models)
    x = T.tensor([[1.0, 2.0], [3.0, -1.0]])
    out = T.func.vmap(lambda p, b, x: T.func.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, x)
    # (the values only: through vmap the engine's graph holds per-slice nodes, see the test below)
    return out.detach(), {k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()}


def composed_with_backward(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    g = T.func.grad(cube_sum)(x)
    g.sum().backward()
    return g, x.grad, g.grad_fn.name()


def closure_over_parameter(T):
    w = T.tensor([2.0, -1.0], requires_grad=True)
    g = T.func.grad(lambda x: (w * x ** 2).sum())(T.tensor([1.0, 3.0]))
    g.sum().backward()
    return g.requires_grad, w.grad


def randomness(mode):
    def call(T):
        T.manual_seed(0)
        return T.func.vmap(lambda a: a + T.rand(3), randomness=mode)(T.zeros(2, 3)), T.rand(2)
    return call


CALLS = {
    # grad and grad_and_value
    "grad": lambda T: T.func.grad(cube_sum)(x3(T)),
    "grad_sin": lambda T: T.func.grad(lambda x: x.sin().sum())(x3(T)),
    "grad_of_grad": lambda T: T.func.grad(lambda x: T.func.grad(cube_sum)(x).sum())(x3(T)),
    "third_derivative": lambda T: T.func.grad(T.func.grad(T.func.grad(lambda x: x ** 4)))(T.tensor(2.0)),
    "grad_nested_element": lambda T: T.func.grad(lambda x: T.func.grad(cube_sum)(x)[0])(x3(T)),
    "perturbation_confusion": lambda T: T.func.grad(lambda x: T.func.grad(lambda y: x * y)(x))(T.tensor(3.0)),
    "grad_argnums_tuple": lambda T: T.func.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(x3(T), x3(T) + 1),
    "grad_argnums_1": lambda T: T.func.grad(lambda x, y: (x * y).sum(), argnums=1)(x3(T), x3(T) + 1),
    "grad_argnums_negative": lambda T: T.func.grad(lambda x, y: (x * y ** 2).sum(), argnums=-1)(x3(T), x3(T)),
    "grad_dict": lambda T: T.func.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x3(T), "b": x3(T) * 2}),
    "grad_has_aux": lambda T: T.func.grad(lambda x: ((x ** 2).sum(), x.cos()), has_aux=True)(x3(T)),
    "grad_and_value": lambda T: T.func.grad_and_value(cube_sum)(x3(T)),
    "grad_and_value_aux": lambda T: T.func.grad_and_value(lambda x: (x.sum(), {"n": x * 2}), has_aux=True)(x3(T)),
    "grad_constant": lambda T: T.func.grad(lambda x: T.tensor(2.0))(x3(T)),
    "grad_under_no_grad": lambda T: (lambda: [T.func.grad(cube_sum)(x3(T)) for _ in [T.set_grad_enabled(False)]][0])(),
    "grad_composed_with_backward": composed_with_backward,
    "grad_closure_over_parameter": closure_over_parameter,
    "grad_float64": lambda T: T.func.grad(lambda x: x.exp().sum())(T.tensor([0.5, 1.5], dtype=T.float64)),
    # vjp, jvp, linearize
    "vjp": lambda T: (lambda o, fn: (o, fn(T.ones(3))))(*T.func.vjp(lambda x: x ** 2, x3(T))),
    "vjp_two_outputs": lambda T: (lambda o, fn: (o, fn((T.ones(3), T.tensor(2.0)))))(
        *T.func.vjp(lambda x, y: (x * y, (x + y).sum()), x3(T), x3(T) * 3)),
    "vjp_aux": lambda T: (lambda o, fn, aux: (o, fn(T.ones(3)), aux))(
        *T.func.vjp(lambda x: (x.exp(), x.sum()), x3(T), has_aux=True)),
    "jvp": lambda T: T.func.jvp(lambda x: x ** 2, (x3(T),), (T.ones(3),)),
    "jvp_two_inputs": lambda T: T.func.jvp(lambda x, y: (x * y).sin(), (x3(T), x3(T) - 2), (T.ones(3), T.zeros(3))),
    "jvp_constant_output": lambda T: T.func.jvp(lambda x: T.ones(2), (x3(T),), (T.ones(3),)),
    "jvp_aux": lambda T: T.func.jvp(lambda x: (x.tanh(), x * 0), (x3(T),), (x3(T),), has_aux=True),
    "linearize": lambda T: (lambda o, fn: (o, fn(T.ones(3)), fn(x3(T))))(*T.func.linearize(lambda x: x.sin(), x3(T))),
    # Jacobians and Hessians
    "jacrev": lambda T: T.func.jacrev(lambda x: x ** 2)(x3(T)),
    "jacrev_matrix": lambda T: T.func.jacrev(lambda m: m @ m)(T.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "jacrev_scalar_out": lambda T: T.func.jacrev(lambda x: x.sum())(x3(T)),
    "jacrev_tuples": lambda T: T.func.jacrev(lambda x, y: (x * y, x + y), argnums=(0, 1))(x3(T), x3(T)),
    "jacrev_aux": lambda T: T.func.jacrev(lambda x: (x * 2, {"a": x}), has_aux=True)(x3(T)),
    "jacrev_dict_in": lambda T: T.func.jacrev(lambda d: d["a"] * 2)({"a": T.ones(2)}),
    "jacrev_dict_out": lambda T: T.func.jacrev(lambda x: {"o": x * 2})(T.ones(2)),
    "jacfwd": lambda T: T.func.jacfwd(lambda x: x.sin())(x3(T)),
    "jacfwd_matrix": lambda T: T.func.jacfwd(lambda m: (m * m).sum(0))(T.tensor([[1.0, -2.0], [3.0, 4.0]])),
    "jacfwd_argnums": lambda T: T.func.jacfwd(lambda x, y: x * y.exp(), argnums=1)(x3(T), x3(T) / 4),
    "hessian": lambda T: T.func.hessian(cube_sum)(x3(T)),
    "hessian_two_args": lambda T: T.func.hessian(lambda x, y: (x * y).sum(), argnums=(0, 1))(x3(T), x3(T)),
    "hessian_of_norm": lambda T: T.func.hessian(lambda x: x.norm())(T.tensor([3.0, 4.0], dtype=T.float64)),
    "jacrev_of_jacrev": lambda T: T.func.jacrev(T.func.jacrev(lambda x: x.sin().sum()))(x3(T)),
    # vmap
    "vmap_dot": lambda T: T.func.vmap(T.dot)(T.ones(2, 3), T.arange(6.0).reshape(2, 3)),
    "vmap_in_dims_none": lambda T: T.func.vmap(lambda a, b: a * b, in_dims=(0, None))(T.ones(2, 3), T.arange(3.0)),
    "vmap_in_dim_1": lambda T: T.func.vmap(lambda a: a.sum(), in_dims=1)(T.arange(6.0).reshape(2, 3)),
    "vmap_in_dim_negative": lambda T: T.func.vmap(lambda a: a.sum(), in_dims=-1)(T.ones(2, 3)),
    "vmap_out_dims": lambda T: T.func.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(T.ones(2, 3)),
    "vmap_out_dim_none": lambda T: T.func.vmap(lambda a: (a * 2, T.ones(2)), out_dims=(0, None))(T.ones(3)),
    "vmap_scalar_arg": lambda T: T.func.vmap(lambda a, b: a * b, in_dims=(None, 0))(3.0, T.ones(3)),
    "vmap_dict_in": lambda T: T.func.vmap(lambda d: d["x"] + d["y"])({"x": T.ones(2, 2), "y": T.arange(4.0).reshape(2, 2)}),
    "vmap_nested": lambda T: T.func.vmap(T.func.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(
        T.arange(3.0), T.arange(2.0)),
    "vmap_empty_batch": lambda T: T.func.vmap(lambda a: a + 1)(T.ones(0, 2)),
    "vmap_of_grad": lambda T: T.func.vmap(T.func.grad(cube_sum))(T.arange(6.0).reshape(2, 3)),
    "vmap_of_jacrev": lambda T: T.func.vmap(T.func.jacrev(lambda x: x.sin()))(T.arange(4.0).reshape(2, 2)),
    "vmap_kwargs": lambda T: T.func.vmap(lambda a, scale: a * scale)(T.ones(2), scale=3.0),
    "torch_vmap": lambda T: T.vmap(lambda a: a * 2)(T.ones(2)),
    "vmap_same_randomness": randomness("same"),
    "vmap_different_randomness": randomness("different"),
    "vmap_graph_values": lambda T: (lambda x: (lambda y: (y.detach(), T.autograd.grad(y.sum(), x)))(
        T.func.vmap(lambda r: (r ** 2).sum())(x)))(T.arange(6.0).reshape(3, 2).requires_grad_()),
    # modules as functions
    "per_sample_grads": per_sample_grads,
    "ensemble": ensemble,
    "functional_call_partial": lambda T: (lambda m: T.func.functional_call(
        m, {"weight": T.ones(1, 2)}, (T.ones(2),)).shape)(T.nn.Linear(2, 1)),
    "functional_call_restores": lambda T: (lambda m: (T.func.functional_call(
        m, {"weight": T.ones(1, 2), "bias": T.zeros(1)}, T.tensor([1.0, 2.0])), type(m.weight).__name__,
        m.weight.shape))(T.nn.Linear(2, 1)),
    "functional_call_dict_tuple": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), ({"weight": T.ones(1, 2)}, {"bias": T.ones(1)}), T.ones(2)),
    "functional_call_kwargs": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), {"weight": T.ones(1, 2), "bias": T.ones(1)}, (), {"input": T.ones(2)}),
    "functional_call_submodule": lambda T: T.func.functional_call(
        T.nn.Sequential(T.nn.Linear(2, 2), T.nn.ReLU(), T.nn.Linear(2, 1)),
        {"0.weight": T.eye(2), "0.bias": T.zeros(2), "2.weight": T.ones(1, 2), "2.bias": T.tensor([0.5])},
        (T.tensor([1.0, -3.0]),)),
}

ERRORS = {
    "grad_argnum_range": lambda T: T.func.grad(lambda x: x.sum(), argnums=1)(x3(T)),
    "grad_argnums_repeat": lambda T: T.func.grad(lambda x: x.sum(), argnums=(0, 0))(x3(T)),
    "grad_argnums_type": lambda T: T.func.grad(lambda x: x.sum(), argnums=1.5)(x3(T)),
    "grad_argnums_empty": lambda T: T.func.grad(lambda x: x.sum(), argnums=())(x3(T)),
    "grad_aux_not_tuple": lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(x3(T)),
    "grad_aux_three": lambda T: T.func.grad(lambda x: (x.sum(), 1, 2), has_aux=True)(x3(T)),
    "grad_int_input": lambda T: T.func.grad(lambda x: x.sum())(T.tensor([1, 2])),
    "grad_not_scalar": lambda T: T.func.grad(lambda x: x)(x3(T)),
    "grad_not_tensor": lambda T: T.func.grad(lambda x: 1.0)(x3(T)),
    "grad_tuple_output": lambda T: T.func.grad(lambda x: (x, x))(x3(T)),
    "grad_float_input": lambda T: T.func.grad(cube_sum)(3.0),
    "vjp_cotangent_shape": lambda T: T.func.vjp(lambda x: x * 2, x3(T))[1](T.ones(2)),
    "vjp_cotangent_structure": lambda T: T.func.vjp(lambda x: x * 2, x3(T))[1]((T.ones(3),)),
    "vjp_cotangent_structure_tuple": lambda T: T.func.vjp(lambda x: (x * 2, x), x3(T))[1](T.ones(3)),
    "vjp_aux_not_tuple": lambda T: T.func.vjp(lambda x: x * 2, x3(T), has_aux=True),
    "vjp_int_output": lambda T: T.func.vjp(lambda x: x.long(), x3(T)),
    "jvp_primals_not_tuple": lambda T: T.func.jvp(cube_sum, x3(T), x3(T)),
    "jvp_tangent_shape": lambda T: T.func.jvp(lambda x: x * 2, (x3(T),), (T.ones(2),)),
    "jvp_tangents_structure": lambda T: T.func.jvp(lambda x: x * 2, (x3(T),), T.ones(3)),
    "jvp_tangents_two": lambda T: T.func.jvp(lambda x: x * 2, (x3(T),), (T.ones(3), T.ones(3))),
    "jvp_int_output": lambda T: T.func.jvp(lambda x: 2, (x3(T),), (T.ones(3),)),
    "jvp_strict_independent": lambda T: T.func.jvp(lambda x: T.ones(2), (x3(T),), (T.ones(3),), strict=True),
    "jacrev_argnum_range": lambda T: T.func.jacrev(lambda x: x.sum(), argnums=2)(x3(T)),
    "jacrev_aux_not_tuple": lambda T: T.func.jacrev(lambda x: x * 2, has_aux=True)(x3(T)),
    "jacrev_chunk_size": lambda T: T.func.jacrev(lambda x: x, chunk_size=0),
    "vmap_0d_input": lambda T: T.func.vmap(lambda a: a)(T.tensor(1.0)),
    "vmap_in_dim_range": lambda T: T.func.vmap(lambda a: a, in_dims=1)(T.ones(3)),
    "vmap_in_dims_none": lambda T: T.func.vmap(lambda a: a, in_dims=None)(T.ones(3)),
    "vmap_in_dims_str": lambda T: T.func.vmap(lambda a: a, in_dims="a")(T.ones(3)),
    "vmap_in_dims_structure": lambda T: T.func.vmap(lambda a, b: a + b, in_dims=(0,))(T.ones(3), T.ones(3)),
    "vmap_in_dim_float": lambda T: T.func.vmap(lambda a: a, in_dims=(1.5,))(T.ones(3)),
    "vmap_sizes_differ": lambda T: T.func.vmap(lambda a, b: a + b)(T.ones(2, 3), T.ones(3, 3)),
    "vmap_non_tensor_mapped": lambda T: T.func.vmap(lambda a, b: a * b, in_dims=(0, 0))(3.0, T.ones(3)),
    "vmap_nothing_mapped": lambda T: T.func.vmap(lambda a: a, in_dims=(None,))(T.ones(3)),
    "vmap_no_inputs": lambda T: T.func.vmap(lambda: T.ones(2))(),
    "vmap_returns_float": lambda T: T.func.vmap(lambda a: 2.0)(T.ones(3)),
    "vmap_batched_out_dim_none": lambda T: T.func.vmap(lambda a: (a, a * 2), out_dims=(0, None))(T.arange(3.0)),
    "vmap_out_dim_range": lambda T: T.func.vmap(lambda a: a, out_dims=2)(T.ones(3)),
    "vmap_out_dims_type": lambda T: T.func.vmap(lambda a: a, out_dims="x")(T.ones(3)),
    "vmap_out_dims_structure": lambda T: T.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(T.ones(3)),
    "vmap_random_error": lambda T: T.func.vmap(lambda a: T.rand(2))(T.ones(3)),
    "vmap_randn_error": lambda T: T.func.vmap(lambda a: a + T.randn(()))(T.ones(3)),
    "vmap_randomness_value": lambda T: T.func.vmap(lambda a: a, randomness="bad"),
    "functional_call_strict_missing": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), {"weight": T.ones(1, 2)}, (T.ones(2),), strict=True),
    "functional_call_strict_unexpected": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), {"weight": T.ones(1, 2), "bias": T.ones(1), "foo": T.ones(1)}, (T.ones(2),), strict=True),
    "functional_call_duplicate": lambda T: T.func.functional_call(
        T.nn.Linear(2, 1), ({"weight": T.ones(1, 2)}, {"weight": T.ones(1, 2)}), T.ones(2)),
    "stack_module_state_empty": lambda T: T.func.stack_module_state([]),
    "stack_module_state_modes": lambda T: T.func.stack_module_state([T.nn.Linear(2, 1), T.nn.Linear(2, 1).eval()]),
    "stack_module_state_classes": lambda T: T.func.stack_module_state([T.nn.Linear(2, 1), T.nn.ReLU()]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_results_match_pytorch(et, torch_ref, name):
    got, want = run(CALLS[name], et), run(CALLS[name], torch_ref)
    et.set_grad_enabled(True)
    torch_ref.set_grad_enabled(True)
    assert got[0] == "ok", got
    assert got == want


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(et, torch_ref, name):
    got, want = run(ERRORS[name], et), run(ERRORS[name], torch_ref)
    assert want[0] != "ok", want
    assert got == want


def test_vmap_over_a_graph_stacks_per_slice_nodes(et):
    """Values agree with PyTorch; the graph is the per-slice one (documented in engine/func.py)."""
    x = et.arange(6.0).reshape(3, 2).requires_grad_()
    y = et.func.vmap(lambda r: (r ** 2).sum())(x)
    assert y.grad_fn.name() == "StackBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["SumBackward0"] * 3
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]


def test_transforms_leave_no_grad_on_inputs(et):
    """The stand-ins are the transform's own: the caller's tensors get no .grad and no graph."""
    x = et.tensor([1.0, 2.0])
    w = et.tensor([3.0, 4.0], requires_grad=True)
    g = et.func.grad(lambda x: (x * x).sum())(x)
    assert not x.requires_grad and x.grad is None and not g.requires_grad and g.grad_fn is None
    h = et.func.grad(lambda w: (w ** 3).sum())(w)
    assert w.grad is None and h.grad_fn is not None
