"""Hooks on saved tensors (``torch.autograd.graph.saved_tensors_hooks``, ``_raw_saved_*.register_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``), gradient edges and multi-grad hooks, against real PyTorch 2.13: what the
hooks receive and when, in which order, what unpacking gives back, and the errors. Each scenario runs
with both modules and prints; the transcripts must be equal."""
import re
import warnings

import numpy as np
import pytest

from tests.engine import opinfo


def _transcript(torch, scenario):
    out = []

    def say(*args):
        out.append(" ".join(str(a) for a in args))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scenario(torch, say)
        except Exception as e:  # noqa: BLE001  (the error is part of the transcript)
            say("raised", type(e).__name__, e)
    return re.sub(r"0x[0-9a-f]+", "0x?", "\n".join(out))


def _loud(say):
    def pack(t):
        say("pack", t, t.grad_fn is not None)
        return t

    def unpack(t):
        say("unpack", t)
        return t

    return pack, unpack


def tutorial_order(torch, say):
    # The "Hooks for autograd saved tensors" tutorial: MulBackward0 saves other, then self.
    pack, unpack = _loud(say)
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * b
    y.sum().backward()
    say(a.grad, b.grad_fn)


def packs_run_under_no_grad(torch, say):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: say("grad on:", torch.is_grad_enabled()) or t,
                                                  lambda t: t):
        y = x.exp()
    say(torch.is_grad_enabled(), y)


def result_and_matmul(torch, say):
    pack, unpack = _loud(say)
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        z = x.exp()
        m = torch.ones(2, 3, requires_grad=True) @ torch.ones(3, 2)
        d = x / torch.tensor([2.0, 4.0], requires_grad=True)
    say(z.grad_fn._saved_result)
    say(type(z.grad_fn._raw_saved_result).__name__, z.grad_fn._raw_saved_result)
    m.sum().backward()
    d.sum().backward()
    say(x.grad)


def transforming_hooks(torch, say):
    # The tutorial's check: pack multiplies by 4, unpack divides it back.
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        y = x.pow(2)
    y.sum().backward()
    say(x.grad, x.grad.equal(2 * x))


def stored_elsewhere_double_backward(torch, say):
    store = []

    def pack(t):
        store.append(t.clone())
        return len(store) - 1

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, store.__getitem__):
        y = (x * x).sin()
    say(len(store))
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    say(g, g.grad_fn.name())
    (gg,) = torch.autograd.grad(g.sum(), x)
    say(gg)


def nested_and_unwound(torch, say):
    x = torch.tensor([2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: say("outer") or t, lambda t: t):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: say("inner") or t, lambda t: t):
            y = x * x
        z = x.log()
        try:
            with torch.autograd.graph.saved_tensors_hooks(lambda t: say("never") or t, lambda t: t):
                raise ValueError("user error")
        except ValueError:
            pass
        w = x.sqrt()
    v = x.sin()  # no hooks any more
    (y + z + w + v).sum().backward()
    say(x.grad)


def register_hooks_on_raw_saved(torch, say):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: say("p", t) or t, lambda t: say("u", t) or t)
    say(y.grad_fn._saved_self)
    try:
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as e:
        say(e)
    y.sum().backward()
    say(x.grad)
    try:
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as e:
        say(e)
    e = x.exp()
    e.grad_fn._raw_saved_result.register_hooks(lambda t: say("p", t) or t, lambda t: say("u", t) or t)
    e.sum().backward()
    say(x.grad)


def freed_after_backward(torch, say):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.pow(3)
    y.sum().backward()
    say(y.grad_fn._saved_self)


def unpack_must_give_a_tensor(torch, say):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x * x
    y.sum().backward()


def pack_must_not_modify(torch, say):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(1), lambda t: t):
        y = x * x
    say(y)


def no_version_check_with_hooks(torch, say):
    # With hooks, PyTorch cannot follow versions through them: an in-place change goes unseen.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = h * h
    h.add_(1)
    y.sum().backward()
    say(x.grad)
    h2 = x * 1
    y2 = h2 * h2
    h2.add_(1)
    y2.sum().backward()


def disabled(torch, say):
    with torch.autograd.graph.disable_saved_tensors_hooks("saved tensors default hooks are disabled"):
        with torch.autograd.graph.save_on_cpu():
            pass


def save_on_cpu(torch, say):
    x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        y = (x * 3).tanh().sum()
    y.backward()
    say(x.grad)


def custom_function(torch, say):
    pack, unpack = _loud(say)

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            r = t ** 3
            ctx.save_for_backward(t, None, r)
            return r

        @staticmethod
        def backward(ctx, g):
            t, none, r = ctx.saved_tensors
            say("saved", t, none, r)
            return g * 3 * t * t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = Cube.apply(x)
    y.sum().backward()
    say(x.grad)


def gradient_edges(torch, say):
    G = torch.autograd.graph
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    e = G.get_gradient_edge(h)
    say(e.node.name(), e.output_nr, e.node is h.grad_fn, G.get_gradient_edge(x).node.variable is x)
    say(torch.autograd.grad(y, e, retain_graph=True))
    say(torch.autograd.grad(y, [G.get_gradient_edge(x), h]))
    v = torch.ones(2)
    G.increment_version(v)
    G.increment_version([v, v])
    say(v._version)
    G.get_gradient_edge(torch.ones(1))


def reading_a_saved_tensor_runs_only_its_unpack_hook(torch, say):
    pack, unpack = _loud(say)
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True) * 2
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * b
        g = x.gather(1, torch.tensor([[1], [0]]))
    say("read y's self")
    say(y.grad_fn._saved_self)
    say("read g's index")
    say(g.grad_fn._saved_index)
    say("read g's self")
    say(g.grad_fn._saved_self)


def backward_uses_what_unpack_gives(torch, say):
    # A gather's index and nll_loss's target are saved like any input: kept elsewhere by the hooks,
    # and what unpack gives back (here the index and target reversed) is what backward computes with.
    store = []

    def pack(t):
        store.append(t.clone())
        return len(store) - 1

    def unpack(k):
        t = store[k]
        return t.flip(0) if t.dtype == torch.int64 else t

    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.gather(1, torch.tensor([[2], [0]])) * torch.tensor([[1.0], [10.0]])
        loss = torch.nn.functional.nll_loss(x, torch.tensor([1, 0]), reduction="sum")
    say(len(store), [tuple(t.shape) for t in store])
    (y.sum() + loss).backward()
    say(x.grad)


def hooks_on_a_raw_saved_index(torch, say):
    def refused(register):
        try:
            register(lambda t: t, lambda t: t)
        except RuntimeError as e:
            say(e)

    F = torch.nn.functional
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    g = x.gather(1, torch.tensor([[2], [0]]))
    g.grad_fn._raw_saved_index.register_hooks(lambda t: say("pack", t) or t, lambda t: say("unpack", t) or t)
    say(g.grad_fn._saved_index)
    refused(g.grad_fn._raw_saved_index.register_hooks)  # (hooks are set already)
    i = x[:, torch.tensor([0, 2])]
    raw = i.grad_fn._raw_saved_indices  # one per indexed dim, the whole first dim's empty
    say(type(raw).__name__, len(raw), type(raw[1]).__name__)
    refused(raw[0].register_hooks)
    raw[1].register_hooks(lambda t: say("pack", t) or t.tolist(), lambda t: say("unpack", t) or torch.tensor(t))
    b = F.binary_cross_entropy(x.sigmoid(), torch.full_like(x, 0.5))
    refused(b.grad_fn._raw_saved_weight.register_hooks)  # (no weight given)
    w = torch.where(x > 0, x, -x)
    w.grad_fn._raw_saved_condition.register_hooks(lambda t: say("pack", t) or t, lambda t: say("unpack", t) or t)
    (g.sum() + i.sum() + b + w.sum()).backward()
    say(x.grad)
    refused(g.grad_fn._raw_saved_index.register_hooks)  # (freed)
    try:
        g.grad_fn._saved_index
    except RuntimeError as e:
        say(e)


def multi_grad_hook_all(torch, say):
    # The docstring's example, then other graphs, grad(), a hook inside the hook, removal.
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor([4., 5., 6.], requires_grad=True)
    c = a * b
    d = a * b
    e = torch.tensor([7.], requires_grad=True)  # in no graph below: not waited for
    f = torch.tensor([8.], requires_grad=True)

    def fn(grads):
        say("all:", [None if g is None else g.tolist() for g in grads])

    handle = torch.autograd.graph.register_multi_grad_hook((a, b, c, d, e), fn)
    say(type(handle).__name__, len(handle.handles))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c * 2 + d).sum().backward(retain_graph=True)
    say(torch.autograd.grad(c.sum(), c, retain_graph=True))
    say(torch.autograd.grad((c * d).sum(), (c, d), retain_graph=True))
    def inner_fn(grads):
        with torch.enable_grad():  # (backward runs its hooks with grad mode off)
            say("inner", torch.autograd.grad((f * 3).sum(), f))  # (a backward of its own)

    inner = torch.autograd.graph.register_multi_grad_hook((c,), inner_fn)
    (c + d).sum().backward(retain_graph=True)
    inner.remove()
    handle.remove()
    c.sum().backward(retain_graph=True)
    say("removed")
    torch.autograd.graph.register_multi_grad_hook((a, b), fn)
    torch.autograd.grad(c.sum(), a)


def multi_grad_hook_any(torch, say):
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    n = torch.tensor([5., 6.])  # (does not require grad: left out, no error)
    out = (a * b).sum() + (a ** 2).sum()
    handle = torch.autograd.graph.register_multi_grad_hook((a, b, n), lambda g: say("any:", g), mode="any")
    say(len(handle.handles))
    out.backward(retain_graph=True)
    out.backward(retain_graph=True)
    say(torch.autograd.grad(out, b))
    for bad in (lambda: torch.autograd.graph.register_multi_grad_hook((a, b), print, mode="first"),
                lambda: torch.autograd.graph.register_multi_grad_hook((a, n), print)):
        try:
            bad()
        except Exception as e:  # noqa: BLE001
            say(type(e).__name__, e)


SCENARIOS = [tutorial_order, packs_run_under_no_grad, result_and_matmul, transforming_hooks,
             stored_elsewhere_double_backward, nested_and_unwound, register_hooks_on_raw_saved,
             freed_after_backward, unpack_must_give_a_tensor, pack_must_not_modify, no_version_check_with_hooks,
             disabled, save_on_cpu, custom_function, gradient_edges, reading_a_saved_tensor_runs_only_its_unpack_hook,
             backward_uses_what_unpack_gives, hooks_on_a_raw_saved_index, multi_grad_hook_all,
             multi_grad_hook_any]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_as_pytorch(torch_ref, et, scenario):
    expected = _transcript(torch_ref, scenario)
    assert _transcript(et, scenario) == expected
    assert "raised AttributeError" not in expected


def test_transcripts_say_what_they_should(et):
    """The engine's side alone, for the lines that matter most (runs without PyTorch too)."""
    t = _transcript(et, tutorial_order).splitlines()
    assert t[:2] == ["pack tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>) True",
                     "pack tensor([1., 1., 1., 1., 1.], requires_grad=True) False"]
    assert t[2:4] == ["unpack tensor([2., 2., 2., 2., 2.], grad_fn=<MulBackward0>)",
                      "unpack tensor([1., 1., 1., 1., 1.], requires_grad=True)"]
    assert _transcript(et, packs_run_under_no_grad).splitlines()[0] == "grad on: False"
    assert _transcript(et, unpack_must_give_a_tensor) == (
        "raised TypeError Output of saved tensor unpack_hook expected to be a Tensor but got result of type int")
    assert _transcript(et, pack_must_not_modify).startswith(
        "raised RuntimeError A saved tensor pack hook is modifying its input in place.")
    assert _transcript(et, disabled) == "raised RuntimeError saved tensors default hooks are disabled"
    assert _transcript(et, freed_after_backward).startswith(
        "raised RuntimeError Trying to backward through the graph a second time")
    assert _transcript(et, stored_elsewhere_double_backward).splitlines()[0] == "3"  # x twice, x * x once
    assert "SavedTensor <torch._C._autograd.SavedTensor object at 0x?>" in _transcript(et, result_and_matmul)
    t = _transcript(et, multi_grad_hook_all).splitlines()
    assert t[1:3] == ["all: [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], None, None]",  # c's graph only
                      "all: [[4.0, 5.0, 6.0], None, [1.0, 1.0, 1.0], None, None]"]  # inputs=(a,)
    assert t[-3:-1] == ["all: [[8.0, 10.0, 12.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], None]",
                        "removed"]
    assert _transcript(et, multi_grad_hook_any).splitlines()[1:4] == [
        "any: tensor([5., 8.])", "any: tensor([5., 8.])", "any: tensor([1., 2.])"]  # once per backward


def test_packed_objects_are_released_by_backward(et):
    """The tutorial's save-to-disk example relies on this: a packed object lives as long as the graph."""
    import weakref

    class Box:
        def __init__(self, t):
            self.t = t

    boxes = []

    def pack(t):
        b = Box(t.clone())
        boxes.append(weakref.ref(b))
        return b

    x = et.tensor([1.0, 2.0], requires_grad=True)
    with et.autograd.graph.saved_tensors_hooks(pack, lambda b: b.t):
        y = x.pow(2).exp()
    assert [b() is not None for b in boxes] == [True, True]
    y.sum().backward()
    assert [b() for b in boxes] == [None, None]
    assert x.grad.allclose(2 * x * x.pow(2).exp())


# ----- Every op: what its pack and unpack hooks get, and in which order -----
# PyTorch's generated code saves a node's inputs in the order of their names, then its outputs
# (MulBackward0: other, self; PowBackward1: exponent, self, result), the tensors it keeps beside
# the inputs too (a gather's index, a where's condition, nll_loss's target and total weight).

def _on_hooks(torch, fn, inputs):
    """The pack and unpack transcript of ``fn(torch, *inputs)`` under saved-tensor hooks, then the grads."""
    log = []

    def described(t):  # (a nan as "nan", so that equal transcripts compare equal)
        a = t.detach().numpy()
        values = a.astype(object)
        if a.dtype.kind == "f":
            values = np.asarray(np.round(a, 5)).astype(object)
            values[np.isnan(a)] = "nan"
        return str(t.dtype), a.shape, np.asarray(values).tolist(), t.requires_grad, t.grad_fn is not None

    xs = [torch.tensor(v, requires_grad=f) for v, f in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autograd.graph.saved_tensors_hooks(lambda t: log.append(("pack", described(t))) or t,
                                                          lambda t: log.append(("unpack", described(t))) or t):
                out = fn(torch, *xs)
            out = out[0] if isinstance(out, (tuple, list)) else out
            out.sum().backward()
        except RuntimeError as e:
            log.append(("raised", str(e)))
    return log, [None if x.grad is None else described(x.grad) for x in xs]


_MORE = [
    opinfo.OpCase("cummax", lambda torch, a: torch.cummax(a, 1), ((3, 4),)),
    opinfo.OpCase("cummin_values", lambda torch, a: a.cummin(0).values, ((3, 4),)),
    opinfo.OpCase("sort", lambda torch, a: a.sort(1)[0], ((3, 4),)),
    opinfo.OpCase("topk", lambda torch, a: a.topk(2).values, ((3, 4),)),
    opinfo.OpCase("kthvalue", lambda torch, a: a.kthvalue(2, 1)[0], ((3, 4),)),
    opinfo.OpCase("take", lambda torch, a: a.take(torch.tensor([0, 5, 11])), ((3, 4),)),
    opinfo.OpCase("embedding", lambda torch, a: torch.nn.functional.embedding(torch.tensor([[0, 2], [1, 0]]), a),
                  ((3, 4),)),
    opinfo.OpCase("max_pool2d_indices", lambda torch, a: torch.nn.functional.max_pool2d(a, 2, return_indices=True),
                  ((1, 1, 4, 4),)),
    opinfo.OpCase("layer_norm", lambda torch, a, w: torch.nn.functional.layer_norm(a, (4,), w), ((3, 4), (4,))),
    opinfo.OpCase("index_put", lambda torch, a, v: a.index_put((torch.tensor([0, 2]),), v), ((3, 4), (2, 4))),
    opinfo.OpCase("scatter", lambda torch, a, s: a.scatter(1, torch.tensor([[0], [3], [1]]), s), ((3, 4), (3, 1))),
    opinfo.OpCase("index_add", lambda torch, a, s: a.index_add(0, torch.tensor([2, 0]), s), ((3, 4), (2, 4))),
    opinfo.OpCase("masked_scatter", lambda torch, a, s: a.masked_scatter(a > 0, s), ((3, 4), (12,))),
    opinfo.OpCase("mv_into_logsigmoid", lambda torch, m, v: torch.nn.functional.logsigmoid(m @ v), ((3, 4), (4,))),
    opinfo.OpCase("conv2d", lambda torch, x, w: torch.nn.functional.conv2d(x, w, padding=1),
                  ((1, 2, 4, 4), (3, 2, 3, 3))),
    opinfo.OpCase("batch_norm", lambda torch, x, w, b: torch.nn.functional.batch_norm(x, None, None, w, b, True),
                  ((4, 3), (3,), (3,))),
    opinfo.OpCase("group_norm", lambda torch, x, w: torch.nn.functional.group_norm(x, 2, w), ((2, 4, 3), (4,))),
    opinfo.OpCase("qr", lambda torch, a: torch.linalg.qr(a)[1], ((3, 3),)),
    opinfo.OpCase("svdvals", lambda torch, a: torch.linalg.svdvals(a), ((3, 3),)),
    opinfo.OpCase("attention", lambda torch, q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v),
                  ((1, 2, 3, 4),) * 3),
    opinfo.OpCase("adaptive_max_pool2d", lambda torch, x: torch.nn.functional.adaptive_max_pool2d(x, 2),
                  ((1, 1, 4, 4),)),
    opinfo.OpCase("multilabel_margin", lambda torch, x: torch.nn.functional.multilabel_margin_loss(
        x, torch.tensor([[0, 2, -1, 0]] * 3)), ((3, 4),)),
    opinfo.OpCase("kl_div", lambda torch, x, y: torch.nn.functional.kl_div(x, y, reduction="batchmean"),
                  ((3, 4), (3, 4)), domain=[opinfo.REAL, opinfo.POS]),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in opinfo.CASES + _MORE])
def test_every_op_gives_its_hooks_what_pytorch_gives(case, torch_ref, et):
    inputs = list(zip(case.inputs(), case.grad_flags()))
    ours, theirs = _on_hooks(et, case.fn, inputs), _on_hooks(torch_ref, case.fn, inputs)
    assert ours == theirs


def test_the_order_of_saving_and_unpacking(et):
    """Without PyTorch at hand too: inputs by name, then outputs; the kept index and target among them."""
    names = {}
    x = et.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    v = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    idx, target = et.tensor([[2], [0]]), et.tensor([2, 0])
    for name, t in [("x", x), ("v", v), ("idx", idx), ("target", target)]:
        names[id(t)] = name
    seen = []
    with et.autograd.graph.saved_tensors_hooks(lambda t: seen.append(names.get(id(t), tuple(t.shape))) or t,
                                               lambda t: t):
        x.mv(v)  # MvBackward0: self, vec
        x.gather(1, idx)  # GatherBackward0: index, self
        et.nn.functional.nll_loss(x, target)  # self, target, then total_weight (an output)
        x.max(1)  # MaxBackward0: its indices
    assert seen == ["x", "v", idx.tolist() and (2, 1), "x", "x", (2,), (), (2,)]


def _kept_beside_inputs(case):  # (cases with an index, a mask or a target among what is saved)
    return any(word in case.name for word in ("gather", "index", "where", "mask", "max", "nll", "cross_entropy"))


# The same transcripts from the engine in the site's Pyodide (see case_tables.py), where NumPy's
# indices are 32-bit: what the hooks get, and what backward computes with what they give back.
HOOKED = {case.name: (lambda torch, case=case: _on_hooks(torch, case.fn, list(zip(case.inputs(), case.grad_flags()))))
          for case in [c for c in opinfo.CASES if _kept_beside_inputs(c)] + _MORE}
