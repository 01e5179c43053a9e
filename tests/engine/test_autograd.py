"""Autograd semantics against PyTorch: accumulation, retain/create_graph, ``autograd.grad``, hooks,
grad modes, in-place ops (on tensors and on views), the version counter, deep graphs and memory.

Tests that take ``torch_ref`` run the same code on real PyTorch and on the engine and compare;
the others assert PyTorch's behaviour literally, so they also run without PyTorch.
"""
import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

from tests.engine.opinfo import CASES, outcome, same

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


def names(fn, depth=2):
    """``grad_fn`` as nested (name, children) down to ``depth``."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple((names(c, depth - 1), nr) for c, nr in fn.next_functions))


# ----- Accumulation, gradient=, retain_graph -----

def test_grads_accumulate_across_backward_calls_and_zero_(et):
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    first = x.grad
    assert first.tolist() == [2.0, 4.0, 6.0]
    (x * x).sum().backward()
    assert x.grad is first  # accumulated in place, as in PyTorch
    assert x.grad.tolist() == [4.0, 8.0, 12.0]
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    (3 * x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    x.grad = None
    (x ** 3).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 27.0]


@pytest.mark.torch
def test_backward_with_gradient_argument(torch_ref, et):
    def fn(torch):
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * x
        y.backward(gradient=torch.tensor([[1.0, 0.5], [-1.0, 2.0]]))
        z = torch.tensor([1.0, -2.0], requires_grad=True)
        torch.autograd.backward(z * 3, grad_tensors=torch.tensor([2.0, 1.0]))
        return x.grad, z.grad

    assert same(torch_ref, et, fn)[0][1][0][2] == [[2.0, 2.0], [-6.0, 16.0]]


def test_backward_from_roots_where_one_feeds_another(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        torch.autograd.backward([y, y * 3])
        return x.grad

    assert same(torch_ref, et, fn)


@pytest.mark.torch
def test_second_backward_without_retain_graph_raises_and_keeps_grads(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            return str(e), x.grad
        return "no error", x.grad

    result = same(torch_ref, et, fn)[0][1]
    assert result[0] == FREED
    assert result[1][2] == [2.0, 4.0]


def test_second_backward_error_literal(et):
    x = et.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward()
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert str(info.value) == FREED
    assert x.grad.numpy() == pytest.approx(np.exp([1.0, 2.0]))


@pytest.mark.torch
def test_retain_graph_allows_second_backward(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    assert same(torch_ref, et, fn)[0][1][2] == [4.0, 8.0]


@pytest.mark.torch
def test_graph_without_saved_tensors_can_backward_twice(torch_ref, et):
    def fn(torch):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        y = (a + b).sum()
        y.backward()
        y.backward()
        return a.grad, b.grad

    assert same(torch_ref, et, fn)[0][1][0][2] == [2.0, 2.0]


# ----- The first grad of a leaf: the incoming array is taken, not copied, only when nothing else sees it -----

@pytest.mark.parametrize("case", ["shared_by_two_leaves", "root_gradient_of_leaf", "root_gradient_through_add",
                                  "hook_keeps_grad", "hook_returns_kept_grad", "node_hook_keeps_grad",
                                  "node_prehook_keeps_grad", "retain_grad"])
def test_first_grad_never_aliases_another_tensor(et, case):
    a = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = et.tensor([4.0, 5.0, 6.0], requires_grad=True)
    kept = []  # tensors user code still holds after backward
    if case == "shared_by_two_leaves":
        ((a + b) * 2).sum().backward()  # AddBackward0 hands one fresh grad tensor to both leaves
        kept.append(b.grad)
    elif case == "root_gradient_of_leaf":
        kept.append(et.tensor([1.0, 1.0, 1.0]))
        a.backward(kept[0])
    elif case == "root_gradient_through_add":
        kept.append(et.tensor([1.0, 1.0, 1.0]))
        (a + b).backward(kept[0])
        kept.append(b.grad)
    elif case == "hook_keeps_grad":
        a.register_hook(kept.append)
        (a * 2).sum().backward()
    elif case == "hook_returns_kept_grad":
        a.register_hook(lambda g: kept.append(g * 1) or kept[-1])
        (a * 2).sum().backward()
    elif case in ("node_hook_keeps_grad", "node_prehook_keeps_grad"):
        y = a * 2
        acc = y.grad_fn.next_functions[0][0]
        if case == "node_hook_keeps_grad":
            acc.register_hook(lambda grad_inputs, grad_outputs: kept.extend(grad_outputs))
        else:
            acc.register_prehook(lambda grad_outputs: kept.extend(grad_outputs))
        y.sum().backward()
    else:
        h = a * 2
        h.retain_grad()
        ((h + 0.0) * 3).sum().backward()
        kept.append(h.grad)
    assert len(kept) >= 1 and a.grad is not None
    for k in kept:
        assert k is not a.grad and not np.shares_memory(k.detach().numpy(), a.grad.numpy())
    before = [k.detach().numpy().copy() for k in kept]
    (a * 5).sum().backward()  # accumulates into a.grad in place
    assert a.grad.tolist() != [0.0, 0.0, 0.0]
    for k, v in zip(kept, before):
        assert np.array_equal(k.detach().numpy(), v)


def test_first_grad_takes_the_incoming_array_without_a_copy(et):
    x = et.zeros(1000, 1000, requires_grad=True)  # 4 MB of float32
    (x * 2).sum().backward()
    x.grad = None
    gc.collect()
    tracemalloc.start()
    try:
        (x * 2).sum().backward()  # MulBackward0 makes one fresh 4 MB grad; a copy would be a second
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert x.grad.tolist()[0][:2] == [2.0, 2.0]
    assert 4_000_000 < peak < 6_000_000


# ----- A backward pass runs the rules that can on NumPy arrays (Op.array_vjps), the others on tensors -----

@pytest.mark.parametrize("case", ["array_and_tensor_rules_feed_one_node", "hook_between_array_rules",
                                  "retain_grad_between_array_rules", "zero_dim_chain", "float32_times_float64_scalar",
                                  "grad_through_views_is_writable"])
@pytest.mark.torch
def test_backward_mixes_rules_on_arrays_and_on_tensors(torch_ref, et, case):
    def fn(torch):
        a = torch.tensor([[0.5, -1.0, 0.25], [0.75, 0.125, -0.5]], requires_grad=True)
        b = torch.tensor([1.0, 0.5, -0.25], requires_grad=True)
        seen = []
        if case == "array_and_tensor_rules_feed_one_node":
            y = a * b  # its grad is the sum of one from CumsumBackward0 (on tensors) and one from ExpBackward0
            (y.cumsum(1) + y.exp()).sum().backward()
        elif case == "hook_between_array_rules":
            y = a * b
            y.register_hook(lambda g: seen.append(g) or g * 10)
            (y.tanh() * b).sum().backward()
        elif case == "retain_grad_between_array_rules":
            y = (a * b).sigmoid()
            y.retain_grad()
            (y * y).mean().backward()
            seen.append(y.grad)
        elif case == "zero_dim_chain":
            c = torch.tensor(0.75, requires_grad=True)
            ((c * c * 3).exp().sqrt() + a.sum()).backward()
            seen.append(c.grad)
            c.grad.zero_()
            seen.append(c.grad)
        elif case == "float32_times_float64_scalar":
            d = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
            (a * d).pow(2).sum().backward()
            seen.append(d.grad)
        else:
            a.view(6).reshape(3, 2).t().unsqueeze(0).expand(4, 2, 3).sum().backward()
            a.grad.add_(1)
            b.sum().backward()
            b.grad.mul_(2)
        return a.grad, b.grad, seen

    same(torch_ref, et, fn)


# ----- In-place arithmetic that records nothing (an optimizer step) -----

@pytest.mark.parametrize("case", ["sgd", "python_scalars", "same_dtype_tensor", "wider_dtype_tensor", "zero_division",
                                  "int_tensor_float_scalar", "broadcast_would_grow", "leaf_with_grad_mode_on",
                                  "view_writes_through", "expanded", "nonleaf_in_no_grad"])
@pytest.mark.torch
def test_inplace_arithmetic_without_recording(torch_ref, et, case):
    def fn(torch):
        p = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        p.grad = torch.tensor([0.5, 0.25, -1.0])
        if case == "sgd":
            with torch.no_grad():
                r = p.__isub__(0.1 * p.grad)
            return r is p, p, p._version, p.requires_grad, p.grad_fn
        if case == "python_scalars":
            with torch.no_grad():
                p += 1
                p *= 2.5
                p /= 4
                p -= 3
            return p, p._version
        if case == "same_dtype_tensor":
            q = torch.tensor([2.0, 4.0, 8.0])
            q *= torch.tensor([0.5, 0.25, 0.125])
            q /= torch.tensor([3.0, 3.0, 3.0])
            return q, q._version
        if case == "wider_dtype_tensor":
            q = torch.tensor([1.0, 2.0, 3.0])
            q -= torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
            q += torch.tensor(0.1, dtype=torch.float64)
            return q, q.dtype
        if case == "zero_division":
            q = torch.tensor([1.0, -1.0, 0.0])
            q /= 0
            return q.isnan(), q.isinf()
        if case == "int_tensor_float_scalar":
            q = torch.tensor([1, 2, 3])
            q += 1.5
        if case == "broadcast_would_grow":
            q = torch.ones(3)
            q += torch.ones(2, 3)
        if case == "leaf_with_grad_mode_on":
            p -= 0.1 * p.grad
        if case == "view_writes_through":
            base = torch.arange(4.0)
            v = base[1:]
            v *= 3.0
            return base, base._version, v._version
        if case == "expanded":
            q = torch.ones(1).expand(3)
            q += 1.0
        y = p * 2
        with torch.no_grad():
            y -= 1.0
        return y, y.grad_fn is not None, y._version

    same(torch_ref, et, fn)


# ----- Higher order -----

def test_create_graph_to_third_order(et):
    x = et.tensor(2.0, requires_grad=True)
    y = x ** 4
    (g1,) = et.autograd.grad(y, x, create_graph=True)
    (g2,) = et.autograd.grad(g1, x, create_graph=True)
    (g3,) = et.autograd.grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == (32.0, 48.0, 48.0)  # 4x^3, 12x^2, 24x
    assert g1.requires_grad and g2.requires_grad and not g3.requires_grad


@pytest.mark.torch
def test_higher_order_matches_torch(torch_ref, et):
    def fn(torch):
        x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = (x.sin() * x ** 3).sum()
        (g1,) = torch.autograd.grad(y, x, create_graph=True)
        (g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = torch.autograd.grad(g2.sum(), x)
        return g1.grad_fn.name(), g1, g2, g3

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_backward_create_graph_grad_is_a_copy_with_history(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        first = names(g.grad_fn, 1)
        x.grad = None
        g.sum().backward()
        return first, x.grad

    ours, ref = outcome(fn, et), outcome(fn, torch_ref)
    assert ours[0] == ref[0]
    assert ours[0][1][0] == ("CopyBackwards", ((None, 0), ("MulBackward0", 0)))


# ----- torch.autograd.grad -----

@pytest.mark.torch
def test_autograd_grad_options(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([3.0, -1.0], requires_grad=True)
        unused = torch.tensor(1.0, requires_grad=True)
        y = x * w
        gx, gw = torch.autograd.grad(y, [x, w], grad_outputs=torch.tensor([1.0, 2.0]), retain_graph=True)
        gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, retain_graph=True)
        gm = torch.autograd.grad(y.sum(), [unused], allow_unused=True, materialize_grads=True)
        (gc_,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        return gx, gw, gu, gm, gc_, x.grad

    result = same(torch_ref, et, fn)[0][1]
    assert result[2][1] is None
    assert result[5] is None  # autograd.grad never touches .grad


@pytest.mark.parametrize("case", [
    "unused", "input_without_grad", "output_without_grad", "non_scalar", "shape_mismatch", "count_mismatch",
    "second_call",
])
@pytest.mark.torch
def test_autograd_grad_errors(torch_ref, et, case):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        if case == "unused":
            return torch.autograd.grad(y, [x, torch.tensor(1.0, requires_grad=True)])
        if case == "input_without_grad":
            return torch.autograd.grad(y, torch.tensor(1.0))
        if case == "output_without_grad":
            return torch.autograd.grad(torch.ones(2).sum(), x)
        if case == "non_scalar":
            return torch.autograd.grad(x * 2, x)
        if case == "shape_mismatch":
            return torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3))
        if case == "count_mismatch":
            return torch.autograd.grad([x * 2, x * 3], x, grad_outputs=[torch.ones(2)])
        torch.autograd.grad(y, x)
        return torch.autograd.grad(y, x)

    result = same(torch_ref, et, fn)[0]
    assert result[0] == "raised"


# ----- .grad of non-leaves, retain_grad -----

@pytest.mark.torch
def test_nonleaf_grad_is_none_with_pytorch_warning(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.sum().backward()
        return y.grad

    result, caught = same(torch_ref, et, fn)
    assert result == ("ok", None)
    assert caught[0][0] == "UserWarning"
    assert caught[0][1].startswith("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.")


@pytest.mark.torch
def test_retain_grad(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad, x.grad, y.retains_grad, x.retains_grad

    result, caught = same(torch_ref, et, fn)
    assert result[1][0][2] == [4.0, 8.0]
    assert caught == []


# ----- Hooks -----

@pytest.mark.torch
def test_leaf_hook_replaces_grad_and_handle_removes_it(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        h = x.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: seen.append(g.tolist()))
        (x * 3).sum().backward()
        first = x.grad.clone()
        h.remove()
        x.grad = None
        (x * 3).sum().backward()
        return first, x.grad, seen

    result = same(torch_ref, et, fn)[0][1]
    assert result[0][2] == [30.0, 30.0]
    assert result[1][2] == [3.0, 3.0]
    assert result[2] == [[30.0, 30.0], [3.0, 3.0]]


@pytest.mark.torch
def test_leaf_hooks_registered_after_the_graph_was_built_run(torch_ref, et):
    # The leaf's AccumulateGrad exists before the hooks do: backward must still run them.
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([0.5, 0.5], requires_grad=True)
        y = (x * 3).sum()
        z = (w * 2).sum()
        x.register_hook(lambda g: g * 10)
        seen = []
        w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        y.backward()
        z.backward()
        return x.grad, w.grad, seen

    result = same(torch_ref, et, fn)[0][1]
    assert result[0][2] == [30.0, 30.0]
    assert result[2] == [[2.0, 2.0]]


@pytest.mark.torch
def test_nonleaf_hooks_run_in_order_and_chain(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        order = []
        y.register_hook(lambda g: order.append(("a", g.tolist())))
        y.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: order.append(("c", g.tolist())))
        y.register_hook(lambda g: g * 2)
        y.sum().backward()
        return order, x.grad

    result = same(torch_ref, et, fn)[0][1]
    assert result[0] == [("a", [1.0, 1.0]), ("c", [2.0, 2.0])]
    assert result[1][2] == [12.0, 12.0]


def _leaf_hook_order(torch, n, hooked, build):
    leaves = [torch.tensor([float(i + 1)], requires_grad=True) for i in range(n)]
    order = []
    for i in hooked:
        leaves[i].register_hook(lambda g, i=i: order.append(i))
    build(torch, leaves).sum().backward()
    return order


def test_leaves_made_ready_together_run_their_hooks_in_pytorchs_order(et):
    # All leaves' AccumulateGrad share one priority: PyTorch's ready queue (a C++ std::priority_queue)
    # hands them out in its heap's order, not first in first out, hook-free leaves counted too.
    cat = lambda torch, leaves: torch.cat(leaves)
    assert _leaf_hook_order(et, 4, range(4), cat) == [0, 2, 1, 3]
    assert _leaf_hook_order(et, 7, range(7), cat) == [0, 2, 5, 6, 4, 1, 3]
    assert _leaf_hook_order(et, 4, (1, 2), cat) == [2, 1]  # (0 and 3 have no hooks)
    assert _leaf_hook_order(et, 4, (0, 1, 2), cat) == [0, 2, 1]
    # Made ready by different nodes, they run in the order their nodes ran.
    assert _leaf_hook_order(et, 4, range(4), lambda torch, l: torch.cat([l[0], l[1]]) * torch.cat([l[2], l[3]])) == [
        2, 3, 0, 1]


@pytest.mark.torch
def test_leaf_hooks_run_in_pytorchs_order_on_random_graphs(torch_ref, et):
    import itertools
    import random

    for n in range(2, 7):
        for r in range(1, n + 1):
            for hooked in itertools.combinations(range(n), r):
                cat = lambda torch, leaves: torch.cat(leaves)
                assert _leaf_hook_order(et, n, hooked, cat) == _leaf_hook_order(torch_ref, n, hooked, cat), hooked

    def graph(seed):
        def build(torch, leaves):
            rnd = random.Random(seed)
            pool = list(leaves)
            for _ in range(rnd.randint(1, 6)):
                parts = rnd.sample(pool, rnd.randint(1, min(4, len(pool))))
                op = rnd.choice(["cat", "stack", "mul", "add"])
                if op == "cat":
                    t = torch.cat([p[:1] for p in parts]).sum().reshape(1)
                elif op == "stack":
                    t = torch.stack([p[:1] for p in parts]).sum(0)
                else:
                    t = parts[0]
                    for p in parts[1:]:
                        t = t * p if op == "mul" else t + p
                pool.append(t)
            return torch.cat(pool[len(leaves):])
        return build

    for seed in range(150):
        rnd = random.Random(seed)
        n = rnd.randint(2, 8)
        hooked = [i for i in range(n) if rnd.random() < 0.6]
        assert _leaf_hook_order(et, n, hooked, graph(seed)) == _leaf_hook_order(torch_ref, n, hooked, graph(seed)), seed


@pytest.mark.torch
def test_retain_grad_sees_grad_after_hooks(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        return y.grad, x.grad

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_hook_on_tensor_without_grad_errors(torch_ref, et):
    same(torch_ref, et, lambda torch: torch.tensor([1.0]).register_hook(lambda g: g))


@pytest.mark.torch
def test_node_hooks(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.pow(2)
        calls = []
        y.grad_fn.register_prehook(lambda go: calls.append(("pre", [g.tolist() for g in go])))
        y.grad_fn.register_hook(lambda gi, go: calls.append(("post", [g.tolist() for g in gi])))
        y.sum().backward()
        return calls

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_calling_a_node_by_hand(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        a, _ = y.unbind(0)
        acc = x.sum().grad_fn.next_functions[0][0]
        calls = [(a.grad_fn, (torch.tensor(1.0), None)), (a.grad_fn, (torch.tensor(1.0),)), (acc, ()),
                 (y.grad_fn, (None,)), (y.grad_fn, (1.0,)), (y.grad_fn, (torch.ones(2),)), (acc, (torch.ones(2),))]
        results = []
        for node, args in calls:
            try:
                results.append(node(*args))
            except TypeError as e:
                results.append(str(e))
        return results, x.grad

    result = same(torch_ref, et, fn)[0][1]
    assert result[0][1:3] == ["expected 2 arguments, got 1 instead", "expected 1 arguments, got 0 instead"]
    assert result[0][4] == "argument 0 is not a Variable"


def _called_by_hand(torch, case):
    """What the node of ``case``'s first output gives when called with 0.5s: shapes, dtypes, values."""
    inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in case.inputs()]
    out = case.fn(torch, *inputs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if getattr(o, "grad_fn", None)]
    if not outs:
        return None
    node = outs[0].grad_fn
    grads = node(*[torch.full_like(o, 0.5) for o in outs if o.grad_fn is node])
    return [None if g is None else (tuple(g.shape), str(g.dtype), g.detach().numpy())
            for g in (grads if isinstance(grads, tuple) else (grads,))]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_node_called_by_hand_gives_its_grads_as_pytorchs_does(torch_ref, et, case):
    """Unsummed over broadcast dims (``(a + b).grad_fn(g)`` gives ``b`` a grad of ``a``'s shape): summing
    them to each input's shape is the backward pass's step on the way to the next node."""
    def run(torch):
        try:
            return "ok", _called_by_hand(torch, case)
        except Exception as e:  # noqa: BLE001 - the exception is the result being compared
            return type(e).__name__, str(e)

    (kind, got), (expected_kind, expected) = run(et), run(torch_ref)
    assert kind == expected_kind
    if kind != "ok":
        assert got == expected
        return
    assert (got is None) == (expected is None) and len(got or ()) == len(expected or ())
    for g, e in zip(got or (), expected or ()):
        assert (g is None) == (e is None)
        if g is not None:
            assert g[:2] == e[:2]
            np.testing.assert_allclose(g[2], e[2], rtol=1e-10, atol=1e-12)


# ----- Grad modes, detach -----

@pytest.mark.torch
def test_grad_modes_as_context_managers_decorators_and_calls(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with torch.no_grad():
            a = x * 2
            with torch.enable_grad():
                b = x * 2
            inner_enabled = torch.is_grad_enabled()

        @torch.no_grad()
        def f():
            return x * 2

        @torch.no_grad
        def f_bare():
            return x * 2

        @torch.enable_grad()
        def g():
            return x * 2

        with torch.no_grad():
            c = g()

        @torch.set_grad_enabled(False)
        def h():
            return x * 2

        torch.set_grad_enabled(False)
        d = x * 2
        torch.set_grad_enabled(True)
        with torch.set_grad_enabled(False):
            e = x * 2
        return (a.requires_grad, b.requires_grad, inner_enabled, f().requires_grad, f_bare().requires_grad,
                c.requires_grad, h().requires_grad, d.requires_grad, e.requires_grad, torch.is_grad_enabled())

    result = same(torch_ref, et, fn)[0][1]
    assert result == (False, True, False, False, False, True, False, False, False, True)


@pytest.mark.torch
def test_detach_and_detach_(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        d.zero_()  # shares storage with y
        z = x * 3
        z.detach_()
        return (d.requires_grad, d.is_leaf, d.grad_fn, y, z.requires_grad, z.grad_fn, z.is_leaf,
                x.detach().requires_grad)

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_detach_of_view_in_place_errors(torch_ref, et):
    same(torch_ref, et, lambda torch: torch.tensor([1.0, 2.0], requires_grad=True)[0:1].detach_())


@pytest.mark.torch
def test_requires_grad_propagation_and_is_leaf(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0])
        y = x + b
        return ((x.is_leaf, b.is_leaf, y.is_leaf, y.requires_grad, (b * b).requires_grad, (b * b).is_leaf,
                 x.detach().is_leaf, (x.detach() + b).requires_grad, torch.ones(2).requires_grad_().is_leaf))

    assert same(torch_ref, et, fn)[0][1] == (True, True, False, True, False, True, True, False, True)


@pytest.mark.torch
def test_factory_inside_no_grad(torch_ref, et):
    def fn(torch):
        with torch.no_grad():
            x = torch.ones(2, requires_grad=True)
            y = x * 2
        return x.requires_grad, y.requires_grad, y.grad_fn

    same(torch_ref, et, fn)


# ----- The graph: next_functions, AccumulateGrad, names -----

def test_next_functions_and_accumulate_grad(et):
    x = et.tensor([1.0, 2.0], requires_grad=True)
    w = et.tensor([3.0, 4.0])
    y = x * 2
    z = y * w
    (fn_y, nr), (none, nr2) = z.grad_fn.next_functions
    assert fn_y is y.grad_fn and nr == 0
    assert none is None and nr2 == 0
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.variable is x
    assert acc is (x + 1).grad_fn.next_functions[0][0]  # one accumulator per leaf
    assert acc.next_functions == ()


@pytest.mark.torch
def test_grad_fn_name_strings(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y2 = x * 1
        y2[0] = 5.0
        return (y.grad_fn.name(), y.sum().grad_fn.name(), y.grad_fn.next_functions[0][0].name(), y2.grad_fn.name(),
                (x / 2).grad_fn.name(), (2 - x).grad_fn.name(), (x ** x).grad_fn.name(), x.t().grad_fn.name())

    result = same(torch_ref, et, fn)[0][1]
    assert result[:4] == ("MulBackward0", "SumBackward0", "torch::autograd::AccumulateGrad",
                          "torch::autograd::CopySlices")


def _all_nodes(*roots):
    seen, order, stack = set(), [], list(roots)
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        stack.extend(f for f, _ in fn.next_functions)
    return order


@pytest.mark.torch
def test_grad_fn_sequence_nr(torch_ref, et):
    """``_sequence_nr()``: an int, larger for a node made later (custom Function nodes too, and nodes
    made inside one's forward under enable_grad after it); AccumulateGrad's is UINT64_MAX. The
    numbers themselves depend on what ran before in the process: only their order is compared."""
    def fn(torch):
        class Triple(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                with torch.enable_grad():
                    inner.append(torch.ones(1, requires_grad=True) * 2)
                return a * 3

            @staticmethod
            def backward(ctx, g):
                return g * 3

        inner = []
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([0.5, 0.25], requires_grad=True)
        y = x * 2
        z = Triple.apply(y) + w.exp()
        triple = z.grad_fn.next_functions[0][0]
        v = z[0].view(1)
        v.mul_(2)
        out = (v.sum() + z.sum()).tanh()
        nodes = _all_nodes(out.grad_fn, inner[0].grad_fn)
        inner_fn = inner[0].grad_fn
        by_creation = sorted(nodes, key=lambda f: f._sequence_nr())
        numbers = [f._sequence_nr() for f in by_creation]
        errors = []
        for node in (y.grad_fn, triple, y.grad_fn.next_functions[0][0]):
            for call in (lambda: node._sequence_nr(1), lambda: node._sequence_nr(1, 2),
                         lambda: node._sequence_nr(flag=True)):
                try:
                    call()
                except TypeError as e:
                    errors.append(str(e))
        return ([f.name() for f in by_creation], [type(n) for n in numbers], len(set(numbers)) == len(numbers),
                [n for n in numbers if n >= 2 ** 63], inner_fn._sequence_nr() > triple._sequence_nr(), errors)

    result = same(torch_ref, et, fn)[0][1]
    assert result[4] and "_FunctionBase._sequence_nr() takes no keyword arguments" in result[5]
    assert result[3] == [18446744073709551615] * 3  # the three leaves' AccumulateGrads


@pytest.mark.torch
def test_sum_builtin_iterates_with_unbind(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = sum(x)
        s.backward()
        return names(s.grad_fn, 3), x.grad

    result = same(torch_ref, et, fn)[0][1]
    assert result[0][0] == "AddBackward0"
    assert result[0][1][1][0][0] == "UnbindBackward0"


# ----- In-place ops -----

@pytest.mark.parametrize("op", ["add_", "iadd", "mul_", "setitem_int", "setitem_slice_tensor", "setitem_mask",
                                "setitem_list", "setitem_all", "setitem_all_tensor", "zero_", "fill_", "copy_",
                                "clamp_", "sigmoid_", "div_tensor", "pow_"])
@pytest.mark.torch
def test_inplace_on_nonleaf(torch_ref, et, op):
    def fn(torch):
        x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        v = torch.tensor([0.5, 4.0, -1.0], requires_grad=True)
        y = x * 2
        old = y.grad_fn
        if op == "add_":
            y.add_(1)
        elif op == "iadd":
            y += v
        elif op == "mul_":
            y.mul_(v)
        elif op == "setitem_int":
            y[0] = v[1] * 3
        elif op == "setitem_slice_tensor":
            y[1:] = v[:2]
        elif op == "setitem_mask":
            y[y > 0] = 0.0
        elif op == "setitem_list":
            y[[0, 2]] = v[1:]
        elif op == "setitem_all":
            y[...] = 7.0
        elif op == "setitem_all_tensor":
            y[:] = v
        elif op == "zero_":
            y.zero_()
        elif op == "fill_":
            y.fill_(2.5)
        elif op == "copy_":
            y.copy_(v * 2)
        elif op == "clamp_":
            y.clamp_(-1, 1)
        elif op == "sigmoid_":
            y.sigmoid_()
        elif op == "div_tensor":
            y /= v
        else:
            y.pow_(2)
        (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        return (names(y.grad_fn, 2), y.grad_fn.next_functions[0][0] is old, y._version, y, x.grad, v.grad)

    same(torch_ref, et, fn)


def test_inplace_add_links_to_previous_node(et):
    x = et.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    old = y.grad_fn
    y.add_(1)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    assert y.grad_fn.next_functions[0][0] is old
    assert y._version == 1


@pytest.mark.parametrize("op", ["add_", "zero_", "iadd", "setitem", "setitem_mask", "setitem_slice", "view_add_",
                                "fill_"])
@pytest.mark.torch
def test_inplace_on_leaf_requiring_grad_errors(torch_ref, et, op):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        if op == "add_":
            x.add_(1)
        elif op == "zero_":
            x.zero_()
        elif op == "iadd":
            x += 1
        elif op == "setitem":
            x[0] = 2.0
        elif op == "setitem_mask":
            x[x > 1] = 2.0
        elif op == "setitem_slice":
            x[:] = 2.0
        elif op == "view_add_":
            x[0:1].add_(1)
        else:
            x.fill_(3.0)

    result = same(torch_ref, et, fn)[0]
    assert result[0] == "raised"


def test_inplace_on_leaf_literal(et):
    x = et.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x.add_(1)
    assert str(info.value) == LEAF_INPLACE
    with et.no_grad():
        x.add_(1)  # allowed without grad mode, as in optimizer steps
    assert x.tolist() == [2.0, 3.0] and x.is_leaf and x.requires_grad


@pytest.mark.parametrize("case", ["mul_saved_input", "exp_saved_result", "sin_then_setitem", "sigmoid_result_mul_",
                                  "view_modified", "pow_saved", "cross_view"])
@pytest.mark.torch
def test_modified_saved_tensor_errors_like_pytorch(torch_ref, et, case):
    def fn(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        if case == "mul_saved_input":
            z = y * y
            y.add_(1)
        elif case == "exp_saved_result":
            z = y.exp()
            z.add_(1)
        elif case == "sin_then_setitem":
            z = y.sin()
            y[0] = 5.0
        elif case == "sigmoid_result_mul_":
            z = y.sigmoid()
            z.mul_(2)
        elif case == "view_modified":
            z = y * y
            y[0:2].mul_(2)
        elif case == "pow_saved":
            z = y ** 3
            y.zero_()
        else:
            v = y[1:]
            z = v * v
            y.mul_(2)  # bumps the version v shares with its base
        z.sum().backward()
        return x.grad

    result = same(torch_ref, et, fn)[0]
    assert result[0] == "raised"
    assert "modified by an inplace operation" in result[2]


def test_version_counter_message_literal(et):
    x = et.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.FloatTensor [2]], which is output 0 of Exp, is at version 1; expected version 0 instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


# ----- In-place ops on views (PyTorch's CopySlices / AsStridedBackward0) -----

@pytest.mark.parametrize("case", ["slice_mul_", "slice_mul_tensor", "select_add_", "view_of_view", "setitem_on_view",
                                  "base_changed_then_view_used", "transpose_view_add_", "unsqueeze_view",
                                  "view_and_reshape", "t_then_t_", "unsqueeze_"])
@pytest.mark.torch
def test_inplace_on_views_updates_base_history(torch_ref, et, case):
    def fn(torch):
        x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = torch.tensor([0.5, -1.0], requires_grad=True)
        y = x * 1
        if case == "slice_mul_":
            y[:, 0:2].mul_(2)
            out = y
        elif case == "slice_mul_tensor":
            v = y[0, 1:]
            v.mul_(w)
            out = (y, v)
        elif case == "select_add_":
            y[1].add_(w.sum())
            out = y
        elif case == "view_of_view":
            v = y[0]
            v2 = v[1:]
            v2.mul_(3)
            out = (y, v, v2)
        elif case == "setitem_on_view":
            y[0][1] = w[0] * 4
            out = y
        elif case == "base_changed_then_view_used":
            v = y[:, 1]
            y.mul_(2)
            out = (y, v * 3)
        elif case == "transpose_view_add_":
            v = y.t()
            v[0].add_(w)
            out = y
        elif case == "unsqueeze_view":
            v = y.unsqueeze(0)
            v.mul_(5)
            out = (y, v)
        elif case == "view_and_reshape":
            v = y.view(6)
            v.add_(1)
            v2 = y.reshape(3, 2)
            v2.mul_(3)
            out = (y, v, v2)
        elif case == "t_then_t_":
            v = y.t()
            v.t_()
            v.mul_(2)
            out = (y, v)
        else:
            v = y[0]
            v.unsqueeze_(0)
            v.mul_(2)
            out = (y, v)
        outs = out if isinstance(out, tuple) else (out,)
        loss = sum((o * (k + 1)).sum() for k, o in enumerate(outs))
        loss.backward()
        return [names(o.grad_fn, 2) for o in outs], outs, x.grad, w.grad

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_view_base_changed_after_saving_result(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        v = y[1:]
        z = v.tanh()  # saves its result, not v
        y.mul_(2)
        (z * v).sum().backward()
        return x.grad

    assert same(torch_ref, et, fn)[0][0] == "ok"


def _augmented_setitem(t):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    y[0] += 1  # an in-place op on the view y[0], then y[0] = that view
    y[:, 1] *= 3
    (y * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return names(y.grad_fn, 3), y, x.grad


def _rnn_style_buffer(t):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = t.tensor([5.0, 6.0], requires_grad=True)
    h = t.zeros(2, 2)
    h[0] = x[1] * w
    h[1] = h[0] * 2  # h[0] is not saved (2 needs no grad), so writing h[1] is fine
    h.sum().backward()
    return names(h.grad_fn, 3), h, x.grad, w.grad


def _fill_loop(t):
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = t.zeros(3)
    for i in range(3):
        out[i] = x[i] ** 2
    out.sum().backward()
    return x.grad, names(out.grad_fn, 2)


def _transposed_view_of_clone(t):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.clone()
    y[0, 0] = 0
    y.t()[0].mul_(5)
    (y ** 2).sum().backward()
    return x.grad, y


def _view_taken_before_setitem(t):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    r = y[0]
    y[0] = 10.0
    return names(r.grad_fn, 2), r


@pytest.mark.parametrize("fn", [_augmented_setitem, _rnn_style_buffer, _fill_loop, _transposed_view_of_clone,
                                _view_taken_before_setitem], ids=lambda f: f.__name__.strip("_"))
@pytest.mark.torch
def test_setitem_patterns(torch_ref, et, fn):
    assert same(torch_ref, et, fn)[0][0] == "ok"


SETITEM_INDICES = {
    "int": 0, "slices": (slice(None), slice(0, 2)), "ellipsis": Ellipsis, "list": [0], "full_slice": slice(None),
    "column": (slice(None), 1), "mask": "mask", "list_out_of_range": [0, 5], "int_and_list": (0, [1, 2]),
    "slice_and_list": (slice(None), [0, 2]), "list_and_int": ([0, 1], 1), "ellipsis_and_list": (Ellipsis, [2]),
    "none_int_list": (None, 0, [1]),
}


@pytest.mark.torch
@pytest.mark.parametrize("index", sorted(SETITEM_INDICES))
def test_setitem_value_shapes(torch_ref, et, index):
    """``y[index] = v`` for values that match, broadcast or do not fit: node names two levels deep,
    grads, values, and errors."""
    def fn(torch):
        results = []
        for shape in [(3,), (1, 3), (1,), (2, 3), (1, 1, 3), (2, 1), (4,), (2,), ()]:
            x = torch.ones(2, 3, requires_grad=True)
            y = x * 1
            v = torch.full(shape, 2.0, requires_grad=True) * 1
            idx = SETITEM_INDICES[index]
            try:
                y[(torch.tensor([True, False]),) if idx == "mask" else idx] = v
                (y * torch.arange(6.0).view(2, 3)).sum().backward()
                results.append((names(y.grad_fn, 2), x.grad, y))
            except (RuntimeError, IndexError) as e:
                results.append((type(e).__name__, str(e)))
        return results

    same(torch_ref, et, fn)


def test_inplace_on_view_gradient_values(et):
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[0:2].mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 1.0]
    assert y.grad_fn.name() == "torch::autograd::CopySlices"


@pytest.mark.torch
def test_inplace_on_multi_output_view_errors(torch_ref, et):
    def fn(torch):
        y = torch.ones(3, 2, requires_grad=True) * 1
        errors = []
        for f in (lambda: y.unbind()[0].add_(1), lambda: y.split(1)[1].mul_(2), lambda: [r.add_(1) for r in y]):
            try:
                f()
            except RuntimeError as e:
                errors.append(str(e))
        a = y.unbind()[0]
        y.mul_(2)
        try:
            a * 2
        except RuntimeError as e:
            errors.append(str(e))
        return errors

    assert len(same(torch_ref, et, fn)[0][1]) == 4


@pytest.mark.parametrize("case", ["nonleaf_base", "leaf_base", "value_requires_grad", "nothing_requires_grad",
                                  "both_in_no_grad"])
@pytest.mark.torch
def test_inplace_on_view_made_in_no_grad(torch_ref, et, case):
    def fn(torch):
        x = torch.ones(3, requires_grad=True)
        base = {"nonleaf_base": x * 1, "leaf_base": x}.get(case, torch.ones(3))
        with torch.no_grad():
            v = base[0:2]
            if case == "both_in_no_grad":
                v.mul_(2)
        if case == "value_requires_grad":
            v.mul_(torch.ones(2, requires_grad=True))
        elif case != "both_in_no_grad":
            v.mul_(2)
        return base, v

    same(torch_ref, et, fn)


NO_GRAD_VIEWS = {  # a view made under no_grad of a tensor that requires grad, as PyTorch treats it
    "reads requires_grad": "v = view()\nr = (v, v.requires_grad, v.is_leaf, v.grad_fn, v._base is x)",
    "grads do not flow into it": "v = view()\nm = (v * 2).sum()\nm.backward()\n"
                                 "r = (m, v.grad, x.grad, m.grad_fn.next_functions[0][0].next_functions)",
    "grad() finds it unused": "v = view()\nr = t.autograd.grad((v * 3).sum(), v)",
    "it is no root of backward": "v = view()\nv.backward(t.ones(2, 2))",
    "nor of grad()": "v = view()\nr = t.autograd.grad(v, v, t.ones(2, 2))",
    "changed in place under no_grad": "v = view()\nwith t.no_grad():\n    v.mul_(2)\nr = (x, repr(v), v.requires_grad)",
    "its grad_fn after a change": "v = view()\nwith t.no_grad():\n    x.mul_(2)\nr = v.grad_fn",
    "used after a change": "v = view()\nwith t.no_grad():\n    v.mul_(2)\nr = v * 2",
    "setitem select": "v = view()\nv[0] = 5.0",
    "setitem slice": "v = view()\nv[0, 1:] = 5.0",
    "setitem none": "v = view()\nv[None] = 5.0",
    "setitem whole": "v = view()\nv[:] = 5.0",
    "setitem tensor index": "v = view()\nv[[0]] = 5.0",
    "in place on a view of it": "v = view()\nv[0].mul_(2)",
    "a view of it with grad on": "v = view()\nw = v[0]\nwith t.no_grad():\n    w.mul_(2)\n"
                                 "r = (w.requires_grad, repr(w))",
}


@pytest.mark.parametrize("case", list(NO_GRAD_VIEWS))
@pytest.mark.torch
def test_views_made_in_no_grad(torch_ref, et, case):
    def fn(t):
        x = t.ones(2, 3, requires_grad=True)

        def view():
            with t.no_grad():
                return x[:2, 1:]
        ns = {"t": t, "x": x, "view": view, "r": None}
        exec(NO_GRAD_VIEWS[case], ns)
        return ns["r"]

    same(torch_ref, et, fn)


@pytest.mark.torch
def test_views_share_memory_without_grad(torch_ref, et):
    def fn(torch):
        x = torch.zeros(3, 2)
        x.unbind()[0].add_(1)
        x.split(1)[2].fill_(2)
        x[1].add_(3)
        x.t()[1].add_(10)
        return x

    same(torch_ref, et, fn)


# ----- .data -----

@pytest.mark.torch
def test_data_edits_are_not_tracked(torch_ref, et):
    def fn(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = torch.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        w.data.mul_(10)  # no version bump visible to autograd: no error, new values used
        y.sum().backward()
        x.data = torch.tensor([5.0, 6.0])
        return x.grad, w.grad, x, w._version, x.requires_grad, x.is_leaf

    assert same(torch_ref, et, fn)[0][1][0][2] == [30.0, 40.0]


# ----- Deep graphs and memory -----

def test_hundred_thousand_op_chain_backward(et):
    limit = sys.getrecursionlimit()
    x = et.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y = y + 1.0
    y.backward()  # would raise RecursionError with a recursive walk
    assert x.grad.item() == 1.0
    assert sys.getrecursionlimit() == limit


def test_saved_tensors_released_after_backward(et):
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h.sin()  # SinBackward0 saves h
    ref = weakref.ref(h)
    node = y.grad_fn
    del h
    gc.collect()
    assert ref() is not None
    assert node._saved is not None
    y.sum().backward()
    gc.collect()
    assert node._saved is None
    assert ref() is None


def test_saved_tensors_kept_with_retain_graph(et):
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    y = h.sin()
    ref = weakref.ref(h)
    del h
    y.sum().backward(retain_graph=True)
    gc.collect()
    assert ref() is not None
    y.sum().backward()
    gc.collect()
    assert ref() is None


def test_memory_returns_after_big_graph(et):
    def run():
        x = et.randn(300, 300, requires_grad=True)
        y = x
        for _ in range(10):
            y = (y * 1.01).tanh() + y.sigmoid()
        y.sum().backward()
        return float(x.grad.sum())

    run()  # warm up caches (node classes, imports)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run()
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - before > 10 * 300 * 300 * 4  # the graph really held many float32 arrays
    assert after - before < 200_000  # and all of it was given back


def test_every_node_user_code_reaches_has_its_ops_class(et):
    # record makes nodes of one internal class (for speed); each takes its op's class when user
    # code can reach it: grad_fn, next_functions, a tensor's repr, a node's name or repr.
    x = et.tensor([1., -2.], requires_grad=True)
    h = (x * 2 + 1).relu()
    loss = (h @ et.ones(2, 2)).log_softmax(0).sum()
    seen, stack = [], [loss.grad_fn]
    while stack:
        node = stack.pop()
        if type(node).__name__ != "AccumulateGrad":
            seen.append(type(node).__name__)
            assert type(node).__name__ == node.name() and isinstance(node, et.autograd.graph.Node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    assert seen == ["SumBackward0", "LogSoftmaxBackward0", "SqueezeBackward4", "MmBackward0",
                    "UnsqueezeBackward0", "ReluBackward0", "AddBackward0", "MulBackward0"]
    assert repr(type(loss.grad_fn)) == "<class 'SumBackward0'>"
    y = x.exp()
    assert repr(y).endswith("grad_fn=<ExpBackward0>)") and type(y._grad_fn).__name__ == "ExpBackward0"
    z = x.sin()
    assert z._grad_fn.name() == "SinBackward0" and type(z._grad_fn).__name__ == "SinBackward0"
    w = x.cos()
    assert repr(w._grad_fn).startswith("<CosBackward0 object at 0x")
