"""Module backward hooks (``register_full_backward_hook``, ``register_full_backward_pre_hook``, the
deprecated ``register_backward_hook`` and their global ``register_module_*`` versions) against real
PyTorch 2.13: what the hooks receive and what their return values replace, the
``BackwardHookFunctionBackward`` nodes they put in the graph, their order, removal, warnings and
errors, the in-place error on a hooked module's output, and module state with the new attributes.
Every case runs on both modules (``same``) and the test then asserts a few literal facts of
PyTorch's result, so that it cannot pass by both sides being wrong alike. Global hooks are removed
and the global full/non-full choice is reset even when a case fails."""
import collections
import contextlib
import copy
import io
import pickle
import subprocess
import sys

import pytest

from tests.engine.opinfo import same

pytestmark = pytest.mark.torch

_IN_CUSTOM_FUNCTION = (
    "is a view and is being modified inplace. This view was created inside a custom Function (or because an input "
    "was returned as-is) and the autograd logic to handle view+inplace would override the custom backward "
    "associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
    "this by cloning the output of the custom Function.")
_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require "
    "gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")
_MULTIPLE_NODES = (
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be "
    "removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook "
    "to get the documented behavior.")


def _linear(t, n_in=3, n_out=2):
    """An ``nn.Linear`` with fixed weights, the same on both modules."""
    lin = t.nn.Linear(n_in, n_out)
    with t.no_grad():
        lin.weight.copy_(t.arange(n_in * n_out, dtype=t.float32).reshape(n_out, n_in) / 10 - 0.2)
        lin.bias.copy_(t.arange(n_out, dtype=t.float32) - 0.5)
    return lin


def _x(t, requires_grad=True):
    return t.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], requires_grad=requires_grad)


def _tree(fn, depth=8):
    """A grad_fn and what it leads to, by ``name()`` and output number."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple((_tree(n, depth - 1), nr) for n, nr in fn.next_functions))


def _grads(gs):
    return tuple(gs) if gs is not None else None


@contextlib.contextmanager
def _clean_globals(t):
    """Whatever the block registered globally is removed, and the full/non-full choice reset."""
    mm = t.nn.modules.module
    try:
        yield mm
    finally:
        for d in (mm._global_backward_hooks, mm._global_backward_pre_hooks):
            d.clear()
        mm._global_is_full_backward_hook = None


# ----- full hooks: what they see, what they replace, the graph -----

def _full_hook_values(t):
    """A Linear on a non-leaf input: the pre-hook sees grad_output, the full hook grad_input (the
    grad of the module's input) and the same grad_output; the grads are PyTorch's."""
    lin = _linear(t)
    log = []
    lin.register_full_backward_pre_hook(lambda m, go: log.append(("pre", type(m).__name__, _grads(go))))
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("full", type(m).__name__, _grads(gi), _grads(go))))
    x = _x(t)
    h = x * 2
    out = lin(h)
    (out * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return log, x.grad, lin.weight.grad, lin.bias.grad, out


def _graph(t):
    """BackwardHookFunctionBackward around the module's work: on the output, and on the input when
    it requires grad (a leaf's edge is its AccumulateGrad); none on the input of a first layer."""
    lin = _linear(t)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    seen = []

    class Probe(t.nn.Module):
        def forward(self, a):
            seen.append((a.grad_fn.name() if a.grad_fn is not None else None, a.is_leaf, a.requires_grad))
            return a * 1

    probe = Probe()
    probe.register_full_backward_pre_hook(lambda m, go: None)
    x = _x(t)
    leaf_in = lin(x)
    nonleaf_in = lin(x * 2)
    first = lin(_x(t, requires_grad=False))
    probed = probe(x)
    y = leaf_in.grad_fn
    return (_tree(leaf_in.grad_fn), _tree(nonleaf_in.grad_fn), _tree(first.grad_fn), _tree(probed.grad_fn), seen,
            y.name(), type(y).__name__, repr(type(y)), len(y.next_functions))


def _replace(t):
    """A full hook's returned tuple replaces grad_input (what reaches x); a pre-hook's replaces
    grad_output (what reaches the module's weights and its input); None leaves them."""
    lin = _linear(t)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    lin.register_full_backward_pre_hook(lambda m, go: None)
    log = []
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("first", _grads(gi), _grads(go))) or (gi[0] + 1,))
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("second", _grads(gi))))
    x = _x(t)
    lin(x * 1).sum().backward()
    return log, x.grad, lin.weight.grad, lin.bias.grad


def _wrong_count(t):
    """A hook returning the wrong number of grads: PyTorch's RuntimeErrors, from backward."""
    out = []
    lin = _linear(t)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    try:
        lin(_x(t)).sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    lin = _linear(t)
    lin.register_full_backward_pre_hook(lambda m, go: ())
    try:
        lin(_x(t)).sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    return out


def _first_layer(t):
    """No input requires grad: the hooks fire from the output node with grad_input (None,), and
    PyTorch warns; a hook returning grads then raises."""
    lin = _linear(t)
    log = []
    lin.register_full_backward_pre_hook(lambda m, go: log.append(("pre", _grads(go))))
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("full", _grads(gi), _grads(go))))
    lin(_x(t, requires_grad=False)).sum().backward()
    bad = _linear(t)
    bad.register_full_backward_hook(lambda m, gi, go: (t.ones(2, 3),))
    try:
        bad(_x(t, requires_grad=False)).sum().backward()
    except RuntimeError as e:
        log.append(("raised", str(e)))
    none_ok = _linear(t)
    none_ok.register_full_backward_hook(lambda m, gi, go: (None,))
    none_ok(_x(t, requires_grad=False)).sum().backward()
    return log, lin.weight.grad, none_ok.weight.grad


def _tuple_io(t):
    """Several inputs (a tensor that needs no grad, a non-tensor) and a tuple output with a
    non-tensor and an unused tensor: grad_input and grad_output have one entry per argument and
    output, None for non-tensors and unused outputs; an input that needs no grad gets zeros."""

    class Mix(t.nn.Module):
        def forward(self, a, scale, w, b):
            return a * w + b, scale, (a * b).sum(), a + 1

    m = Mix()
    log = []
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _grads(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", _grads(gi), _grads(go))))
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([0.5, -1.0], requires_grad=True)
    w = t.tensor([3.0, 4.0])
    out = m(a * 1, 2.5, w, b)
    names = [o.grad_fn.name() if isinstance(o, t.Tensor) else o for o in out]
    same_node = out[0].grad_fn is out[2].grad_fn is out[3].grad_fn
    (out[0].sum() + out[2]).backward()
    return log, names, same_node, _tree(out[0].grad_fn), a.grad, b.grad


def _kwargs_only(t):
    """Tensors passed by keyword are not wrapped: with no positional tensor the hooks fire from
    the output node with an empty grad_input (and the no-input warning)."""

    class Scale(t.nn.Module):
        def forward(self, *, x, s):
            return x * s

    m = Scale()
    log = []
    m.register_full_backward_hook(lambda mod, gi, go: log.append((_grads(gi), _grads(go))))
    x = t.tensor([1.0, 2.0], requires_grad=True)
    out = m(x=x, s=t.tensor([3.0, 5.0]))
    tree = _tree(out.grad_fn)
    out.sum().backward()
    return log, tree, x.grad


def _sequential(t):
    """A hooked Linear inside a hooked Sequential: the outer pre-hook first, its full hook last."""
    seq = t.nn.Sequential(_linear(t, 3, 3), t.nn.Tanh(), _linear(t, 3, 2))
    log = []
    seq.register_full_backward_pre_hook(lambda m, go: log.append(("seq pre", _grads(go))))
    seq.register_full_backward_hook(lambda m, gi, go: log.append(("seq full", _grads(gi))))
    seq[2].register_full_backward_pre_hook(lambda m, go: log.append(("inner pre", _grads(go))))
    seq[2].register_full_backward_hook(lambda m, gi, go: log.append(("inner full", _grads(gi), _grads(go))))
    x = _x(t)
    out = seq(x)
    out.sum().backward()
    return log, _tree(out.grad_fn), x.grad


def _order(t):
    """Global hooks before the module's own; prepend puts a hook first among the module's."""
    with _clean_globals(t) as mm:
        lin = _linear(t)
        log = []
        lin.register_full_backward_pre_hook(lambda m, go: log.append("pre"))
        lin.register_full_backward_pre_hook(lambda m, go: log.append("pre prepended"), prepend=True)
        lin.register_full_backward_hook(lambda m, gi, go: log.append("full"))
        lin.register_full_backward_hook(lambda m, gi, go: log.append("full prepended"), True)
        mm.register_module_full_backward_pre_hook(lambda m, go: log.append(("global pre", type(m).__name__)))
        mm.register_module_full_backward_hook(lambda m, gi, go: log.append(("global full", type(m).__name__)))
        lin(_x(t)).sum().backward()
        t.nn.Tanh()(_x(t)).sum().backward()
    return log


def _removal(t):
    """remove() (twice is fine) and the context manager unregister; a module whose hooks are all
    removed puts no BackwardHookFunctionBackward in the graph."""
    lin = _linear(t)
    log = []
    h1 = lin.register_full_backward_hook(lambda m, gi, go: log.append("full"))
    h2 = lin.register_full_backward_pre_hook(lambda m, go: log.append("pre"))
    with lin.register_full_backward_hook(lambda m, gi, go: log.append("ctx")) as h3:
        lin(_x(t)).sum().backward()
    lin(_x(t)).sum().backward()
    h1.remove()
    h1.remove()
    lin(_x(t)).sum().backward()
    h2.remove()
    out = lin(_x(t))
    return (log, _tree(out.grad_fn), h1.id < h2.id < h3.id, h1.hooks_dict_ref() is lin._backward_hooks,
            h2.hooks_dict_ref() is lin._backward_pre_hooks, h1.extra_dict_ref, type(h1).__qualname__,
            len(lin._backward_hooks), lin._is_full_backward_hook)


def _retain_graph(t):
    """A second backward through a retained graph runs the hooks again."""
    lin = _linear(t)
    log = []
    lin.register_full_backward_pre_hook(lambda m, go: log.append(("pre", _grads(go))))
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("full", _grads(gi))))
    x = _x(t)
    loss = lin(x * 1).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    return log, x.grad


def _autograd_grad(t):
    """autograd.grad runs the hooks of the modules it goes through."""
    lin = _linear(t)
    log = []
    lin.register_full_backward_hook(lambda m, gi, go: log.append(_grads(gi)))
    x = _x(t)
    (g,) = t.autograd.grad(lin(x).pow(2).sum(), x)
    return log, g


def _output_not_tensor(t):
    """A module returning a list: PyTorch warns at the call, and the hooks never fire."""

    class Listy(t.nn.Module):
        def forward(self, a):
            return [a * 2]

    m = Listy()
    log = []
    m.register_full_backward_hook(lambda mod, gi, go: log.append("full"))
    out = m(t.ones(2, requires_grad=True))
    out[0].sum().backward()
    return log, type(out).__name__, out[0].grad_fn.name()


# ----- the in-place error -----

def _relu_inplace(t):
    """ReLU(inplace=True) after (or as) a module with full backward hooks: PyTorch's error."""
    out = []
    for hooked in (0, 1):
        seq = t.nn.Sequential(_linear(t), t.nn.ReLU(inplace=True))
        seq[hooked].register_full_backward_hook(lambda m, gi, go: None)
        try:
            seq(_x(t))
        except RuntimeError as e:
            out.append(str(e))
    seq = t.nn.Sequential(_linear(t), t.nn.ReLU(inplace=True))
    seq[0].register_full_backward_hook(lambda m, gi, go: None)
    with t.no_grad():
        out.append(seq(_x(t)))  # no error without grad mode
    seq[1].inplace = False
    y = seq(_x(t))
    y.sum().backward()
    out.append(seq[0].weight.grad)
    return out


def _custom_function_views(t):
    """The custom Function rule behind it: an input returned as-is (or a view made in forward) is
    a view that must not be modified in place; with several differentiable outputs the message is
    the multiple-views one; a view of such a view inherits the rule; its base changed in place
    makes it unusable; under no_grad it may be changed."""

    class Same(t.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args if len(args) > 1 else args[0]

        @staticmethod
        def backward(ctx, *grads):
            return grads if len(grads) > 1 else grads[0]

    class Head(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[0:2]

        @staticmethod
        def backward(ctx, g):
            r = g.new_zeros(3)
            r[0:2] = g
            return r

    def attempt(fn):
        try:
            r = fn()
        except RuntimeError as e:
            return ("raised", str(e))
        return ("ok", r.grad_fn.name() if r.grad_fn is not None else None)

    x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    out = []
    out.append(attempt(lambda: Same.apply(y).relu_()))
    out.append(attempt(lambda: Same.apply(x).add_(1)))
    out.append(attempt(lambda: Same.apply(y, x * 2)[1].mul_(2)))
    out.append(attempt(lambda: Same.apply(y)[0:2].mul_(2)))
    out.append(attempt(lambda: Same.apply(y).view(3).mul_(2)))
    out.append(attempt(lambda: Head.apply(y).mul_(2)))
    out.append(attempt(lambda: Same.apply(t.ones(3)).add_(1)))
    z = Same.apply(y)
    with t.no_grad():
        z.add_(1)
    out.append(attempt(lambda: z * 2))
    z2 = Same.apply(y)
    y.add_(1)
    out.append(attempt(lambda: z2.grad_fn))
    v = x[1:]
    out.append((Same.apply(v)._base is x, Same.apply(y)._base is y, Head.apply(y)._base is y))
    head = Head.apply(x)
    head.sum().backward()
    out.append(x.grad)
    return out


# ----- the deprecated non-full hooks -----

def _non_full(t):
    """register_backward_hook: set on the output's grad_fn, it sees that node's grads (AddmmBackward0's
    (bias, input, weight.t())); PyTorch warns when the forward is several nodes, not for one node;
    its returned tuple replaces that node's grad_input."""
    lin = _linear(t)
    log = []
    lin.register_backward_hook(lambda m, gi, go: log.append(("linear", _grads(gi), _grads(go))))
    x = _x(t)
    out = lin(x * 1)
    tree = _tree(out.grad_fn)
    out.sum().backward()
    relu = t.nn.ReLU()
    relu.register_backward_hook(lambda m, gi, go: log.append(("relu", _grads(gi), _grads(go))) or (gi[0] * 3,))
    h = x * 2
    relu(h).sum().backward()
    return log, tree, x.grad, lin.weight.grad, lin.bias.grad


def _non_full_warnings(t):
    """The other deprecation warnings: outputs from different nodes, outputs in a structure or not
    tensors, inputs that are not tensors; and no hook call when the output has no grad_fn."""

    class Two(t.nn.Module):
        def forward(self, a):
            return a * 2, a + 1

    class Nested(t.nn.Module):
        def forward(self, a):
            return {"y": a * 2}

    class NonTensorIn(t.nn.Module):
        def forward(self, a, k):
            return a * k

    log = []
    x = t.tensor([1.0, 2.0], requires_grad=True)
    for m, call in ((Two(), lambda m: m(x)[0]), (Nested(), lambda m: m(x)["y"]), (NonTensorIn(), lambda m: m(x, 3)),
                    (t.nn.Identity(), lambda m: m(t.ones(2)))):
        m.register_backward_hook(lambda mod, gi, go: log.append((type(mod).__name__, _grads(gi), _grads(go))))
        out = call(m)
        if out.requires_grad:
            out.sum().backward()
    return log


def _mixing(t):
    """Full and non-full hooks on one module, or globally: PyTorch's RuntimeErrors (the global choice
    stays after the hooks are removed)."""
    out = []
    a = t.nn.Linear(2, 2)
    a.register_backward_hook(lambda m, gi, go: None)
    b = t.nn.Linear(2, 2)
    b.register_full_backward_hook(lambda m, gi, go: None)
    for fn in (lambda: a.register_full_backward_hook(lambda m, gi, go: None),
               lambda: b.register_backward_hook(lambda m, gi, go: None)):
        try:
            fn()
        except RuntimeError as e:
            out.append((type(e).__name__, str(e)))
    b.register_full_backward_pre_hook(lambda m, go: None)  # pre-hooks go with either
    a.register_full_backward_pre_hook(lambda m, go: None)
    with _clean_globals(t) as mm:
        mm.register_module_backward_hook(lambda m, gi, go: None).remove()
        try:
            mm.register_module_full_backward_hook(lambda m, gi, go: None)
        except RuntimeError as e:
            out.append((type(e).__name__, str(e)))
        out.append(mm._global_is_full_backward_hook)
    with _clean_globals(t) as mm:
        mm.register_module_full_backward_hook(lambda m, gi, go: None)
        try:
            mm.register_module_backward_hook(lambda m, gi, go: None)
        except RuntimeError as e:
            out.append((type(e).__name__, str(e)))
    out.append((a._is_full_backward_hook, b._is_full_backward_hook, len(a._backward_hooks), len(b._backward_hooks)))
    return out


def _global_hooks(t):
    """The global full hooks fire for every module with a grad-requiring input (a Sequential and
    its children); the global non-full hook sits on each module's output node."""
    log = []
    with _clean_globals(t) as mm:
        seq = t.nn.Sequential(_linear(t, 3, 3), t.nn.Tanh())
        pre = mm.register_module_full_backward_pre_hook(lambda m, go: log.append(("pre", type(m).__name__)))
        full = mm.register_module_full_backward_hook(lambda m, gi, go: log.append(("full", type(m).__name__,
                                                                                   _grads(gi))))
        x = _x(t)
        out = seq(x)
        tree = _tree(out.grad_fn, 4)
        out.sum().backward()
        pre.remove()
        full.remove()
        seq(_x(t)).sum().backward()
    with _clean_globals(t) as mm:
        mm.register_module_backward_hook(lambda m, gi, go: log.append(("non-full", type(m).__name__, _grads(go))))
        tanh = t.nn.Tanh()  # (the hook holds its module weakly)
        tanh(_x(t) * 1).sum().backward()
    return log, tree


# ----- handles, exports and module state -----

def _handles(t):
    """One RemovableHandle class for every hook (tensor, node, module, optimizer), as PyTorch's
    torch.utils.hooks.RemovableHandle, exported by torch.autograd.graph; its state round-trips."""
    x = t.ones(2, requires_grad=True)
    hooks = t.utils.hooks
    handle_cls = hooks.RemovableHandle
    opt = t.optim.SGD([x], lr=0.1)
    handles = [x.register_hook(lambda g: g), (x * 2).grad_fn.register_hook(lambda gi, go: None),
               (x * 2).grad_fn.register_prehook(lambda go: None), t.nn.Linear(1, 1).register_forward_hook(print),
               t.nn.Linear(1, 1).register_full_backward_hook(print), opt.register_step_pre_hook(print)]
    d = collections.OrderedDict()
    h = handle_cls(d, extra_dict=d)
    d[h.id] = print
    state = h.__getstate__()
    d_copy, copy_ = pickle.loads(pickle.dumps((d, h)))
    alive = dict(copy_.hooks_dict_ref())
    copy_.remove()
    alive_after = len(d_copy), len(d)
    h2 = handle_cls(d, extra_dict=[d, collections.OrderedDict()])
    dead = handle_cls.__new__(handle_cls)
    dead.__setstate__((None, h2.id + 5))

    def unsaved(grad):
        return grad

    return ([type(k) is handle_cls for k in handles], t.autograd.graph.RemovableHandle is handle_cls,
            sorted(hooks.__all__), state[1] == h.id, state[0] is d, state[2] == (d,), alive == {h.id: print},
            alive_after, len(h2.extra_dict_ref), dead.hooks_dict_ref(), handle_cls.next_id == h2.id + 6,
            "BackwardHook" in dir(hooks), hooks.unserializable_hook(unsaved) is unsaved, unsaved.__torch_unserializable__)


def _exports(t):
    mm = t.nn.modules.module
    names = ["register_module_full_backward_pre_hook", "register_module_backward_hook",
             "register_module_full_backward_hook"]
    return ([n in mm.__all__ for n in names], [callable(getattr(mm, n)) for n in names],
            [hasattr(t.nn.modules, n) for n in names], mm._global_is_full_backward_hook)


def _full_double(m, grad_input, grad_output):
    return tuple(g * 2 if g is not None else None for g in grad_input)


def _state(t):
    """The new attributes, as PyTorch sets them; state_dict is unchanged; deepcopy, pickle and
    save/load keep the hooks, which then fire on the copy."""
    lin = _linear(t)
    fresh = (type(lin._backward_hooks).__name__, type(lin._backward_pre_hooks).__name__, lin._is_full_backward_hook)
    keys_before = list(lin.state_dict())
    lin.register_full_backward_hook(_full_double)
    out = [fresh, keys_before == list(lin.state_dict()), lin._is_full_backward_hook]
    for make in (copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))):
        c = make(lin)
        x = _x(t)
        c(x).sum().backward()
        out.append((c._is_full_backward_hook, len(c._backward_hooks), x.grad))
    buf = io.BytesIO()
    t.save(lin, buf)
    buf.seek(0)
    loaded = t.load(buf, weights_only=False)
    x = _x(t)
    loaded(x).sum().backward()
    out.append((loaded._is_full_backward_hook, x.grad))
    state = lin.__getstate__() if hasattr(lin, "__getstate__") else dict(vars(lin))
    state = dict(state)
    for name in ("_backward_pre_hooks", "_is_full_backward_hook"):
        state.pop(name)
    old = t.nn.Linear.__new__(t.nn.Linear)
    old.__setstate__(state)  # a module pickled before these attributes existed
    out.append((old._is_full_backward_hook, dict(old._backward_pre_hooks), old(_x(t))))
    return out


CASES = {
    "full_hook_values": _full_hook_values,
    "graph": _graph,
    "replace": _replace,
    "wrong_count": _wrong_count,
    "first_layer": _first_layer,
    "tuple_io": _tuple_io,
    "kwargs_only": _kwargs_only,
    "sequential": _sequential,
    "order": _order,
    "removal": _removal,
    "retain_graph": _retain_graph,
    "autograd_grad": _autograd_grad,
    "output_not_tensor": _output_not_tensor,
    "relu_inplace": _relu_inplace,
    "custom_function_views": _custom_function_views,
    "non_full": _non_full,
    "non_full_warnings": _non_full_warnings,
    "mixing": _mixing,
    "global_hooks": _global_hooks,
    "handles": _handles,
    "exports": _exports,
    "state": _state,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_backward_hooks(torch_ref, et, name):
    ref = same(torch_ref, et, CASES[name])
    CHECKS[name](ref)
    for t in (et, torch_ref):
        mm = t.nn.modules.module
        assert not (mm._global_backward_hooks or mm._global_backward_pre_hooks)
        assert mm._global_is_full_backward_hook is None


# What PyTorch's result must contain: ``ref`` is (("ok", plain result) or ("raised", ...), warnings).

def _ok(ref):
    (status, *value), warns = ref
    assert status == "ok", ref
    return value[0], warns


def _check_full_hook_values(ref):
    (log, xg, wg, bg, out), warns = _ok(ref)
    assert [e[0] for e in log] == ["pre", "full"] and log[0][1] == "Linear"
    grad_out = ("tensor", "torch.float32", [[1.0, 2.0], [3.0, 4.0]], False)
    assert log[0][2] == (grad_out,) and log[1][3] == (grad_out,)
    assert log[1][2][0][2] == [[0.0, 0.3, 0.6], [-0.2, 0.5, 1.2]]  # grad_output @ weight
    assert xg[2] == [[0.0, 0.6, 1.2], [-0.4, 1.0, 2.4]] and bg[2] == [4.0, 6.0] and not warns


def _check_graph(ref):
    (leaf, nonleaf, first, probed, seen, name, tname, rtype, n), _ = _ok(ref)
    acc = ("torch::autograd::AccumulateGrad", ())
    hook = "BackwardHookFunctionBackward"
    assert leaf == (hook, ((("AddmmBackward0", (((acc, 0)), ((hook, ((acc, 0),)), 0),
                                                 (("TBackward0", ((acc, 0),)), 0))), 0),))
    assert nonleaf[1][0][0][1][1][0][1] == (((("MulBackward0", ((acc, 0), (None, 0))), 0),))
    assert first == (hook, ((("AddmmBackward0", ((acc, 0), (None, 0), (("TBackward0", ((acc, 0),)), 0))), 0),))
    assert probed == (hook, ((("MulBackward0", (((hook, ((acc, 0),)), 0), (None, 0))), 0),))
    assert seen == [(hook, False, True)]
    assert (name, tname, rtype, n) == (hook, hook, "<class 'torch.autograd.function.BackwardHookFunctionBackward'>", 1)


def _check_replace(ref):
    (log, xg, wg, bg), _ = _ok(ref)
    assert log[0][2][0][2] == [[10.0, 10.0], [10.0, 10.0]]  # the pre-hook's grad_output, seen by the full hook
    assert log[0][1][0][2] == [[-1.0, 1.0, 3.0], [-1.0, 1.0, 3.0]]
    assert log[1][1][0][2] == [[0.0, 2.0, 4.0], [0.0, 2.0, 4.0]]  # the first full hook's grad_input + 1
    assert xg[2] == [[0.0, 2.0, 4.0], [0.0, 2.0, 4.0]] and bg[2] == [20.0, 20.0]


def _check_wrong_count(ref):
    (errors), _ = _ok(ref)
    assert errors == ["Backward hook returned an invalid number of grad_input, got 2, but expected 1",
                      "Backward pre hook returned an invalid number of grad_output, got 0, but expected 1"]


def _check_first_layer(ref):
    (log, wg, none_wg), warns = _ok(ref)
    assert log[0][0] == "pre" and log[1][:2] == ("full", (None,))
    assert log[2] == ("raised", "Backward hook for Modules where no input requires gradient should always return "
                                "None or None for all gradients.")
    assert warns == [("UserWarning", _NO_INPUT_GRAD)] * 3 and wg == none_wg


def _check_tuple_io(ref):
    (log, names, same_node, tree, ag, bg), _ = _ok(ref)
    one = ("tensor", "torch.float32", [1.0, 1.0], False)
    assert log[0] == ("pre", (one, None, ("tensor", "torch.float32", 1.0, False), None))
    assert log[1][1][1] is None and log[1][1][2][2] == [0.0, 0.0]  # 2.5: None; w (no grad): zeros
    assert names == ["BackwardHookFunctionBackward", 2.5, "BackwardHookFunctionBackward",
                     "BackwardHookFunctionBackward"] and same_node
    assert ag[2] == [3.5, 3.0] and bg[2] == [2.0, 3.0]


def _check_kwargs_only(ref):
    (log, tree, xg), warns = _ok(ref)
    assert log == [((), (("tensor", "torch.float32", [1.0, 1.0], False),))]
    assert tree[0] == "BackwardHookFunctionBackward" and tree[1][0][0][0] == "MulBackward0"
    assert xg[2] == [3.0, 5.0] and warns == [("UserWarning", _NO_INPUT_GRAD)]


def _check_sequential(ref):
    (log, tree, xg), _ = _ok(ref)
    assert [e[0] for e in log] == ["seq pre", "inner pre", "inner full", "seq full"]
    assert tree[0] == "BackwardHookFunctionBackward" and tree[1][0][0][0] == "BackwardHookFunctionBackward"


def _check_order(ref):
    log, _ = _ok(ref)
    assert log == [("global pre", "Linear"), "pre prepended", "pre", ("global full", "Linear"), "full prepended",
                   "full", ("global pre", "Tanh"), ("global full", "Tanh")]


def _check_removal(ref):
    (log, tree, ordered, d1, d2, extra, qual, n, full), _ = _ok(ref)
    assert log == ["pre", "full", "ctx", "pre", "full", "pre"]
    assert tree[0] == "AddmmBackward0" and (ordered, d1, d2, extra, qual, n, full) == (
        True, True, True, (), "RemovableHandle", 0, True)


def _check_retain_graph(ref):
    (log, xg), _ = _ok(ref)
    assert [e[0] for e in log] == ["pre", "full", "pre", "full"] and log[1] == log[3]
    assert xg[2] == [[-0.2, 0.2, 0.6], [-0.2, 0.2, 0.6]]


def _check_autograd_grad(ref):
    (log, g), _ = _ok(ref)
    assert len(log) == 1 and log[0][0][2] == g[2]


def _check_output_not_tensor(ref):
    (log, typ, name), warns = _ok(ref)
    assert log == [] and typ == "list" and name == "MulBackward0"
    assert warns == [("UserWarning", "For backward hooks to be called, module output should be a Tensor or a tuple "
                                     "of Tensors but received <class 'list'>")]


def _check_relu_inplace(ref):
    (first, second, no_grad, wg), _ = _ok(ref)
    assert first == second == "Output 0 of BackwardHookFunction " + _IN_CUSTOM_FUNCTION
    assert no_grad[2] == [[0.0, 0.35], [0.0, 0.825]] and no_grad[3] is False
    assert wg[2] == [[0.0, 0.0, 0.0], [1.25, 1.0, -0.5]]


def _check_custom_function_views(ref):
    out, _ = _ok(ref)
    assert out[0] == out[1] == ("raised", "Output 0 of Same " + _IN_CUSTOM_FUNCTION)
    assert out[2] == ("raised", "Output 1 of Same is a view and is being modified inplace. This view is the output "
                                "of a function that returns multiple views. Such functions do not allow the output "
                                "views to be modified inplace. You should replace the inplace operation by an "
                                "out-of-place one.")
    assert out[3] == ("raised", "Output 0 of Slice " + _IN_CUSTOM_FUNCTION)
    assert out[4] == ("raised", "Output 0 of View " + _IN_CUSTOM_FUNCTION)
    assert out[5] == ("raised", "Output 0 of Head " + _IN_CUSTOM_FUNCTION)
    assert out[6] == ("ok", None)
    indirect = _IN_CUSTOM_FUNCTION.replace("is being modified inplace",
                                           "its base or another view of its base has been modified inplace")
    assert out[7] == out[8] == ("raised", "Output 0 of Same " + indirect)
    assert out[9] == (True, True, True) and out[10][2] == [1.0, 1.0, 0.0]


def _check_non_full(ref):
    (log, tree, xg, wg, bg), warns = _ok(ref)
    assert [e[0] for e in log] == ["linear", "relu"]
    assert [g[2] for g in log[0][1]] == [[2.0, 2.0], [[-0.1, 0.1, 0.3], [-0.1, 0.1, 0.3]],
                                         [[1.25, 1.25], [1.0, 1.0], [-0.5, -0.5]]]
    assert log[1][1][0][2] == [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert tree[0] == "AddmmBackward0" and [n[0][0] for n in tree[1]] == [
        "torch::autograd::AccumulateGrad", "MulBackward0", "TBackward0"]
    assert xg[2] == [[5.9, 0.1, 6.3], [5.9, 6.1, 0.3]] and bg[2] == [2.0, 2.0]
    assert warns == [("FutureWarning", _MULTIPLE_NODES)]  # the ReLU is one node: no warning


def _check_non_full_warnings(ref):
    log, warns = _ok(ref)
    assert [e[0] for e in log] == ["Two", "Nested", "NonTensorIn"]
    assert [w[0] for w in warns] == ["FutureWarning"] * 3
    assert warns[0][1].startswith("Using a non-full backward hook when outputs are generated by different autograd")
    assert warns[1][1].startswith("Using non-full backward hooks on a Module that does not return a single Tensor")
    assert warns[2][1].startswith("Using non-full backward hooks on a Module that does not take as input a single")


def _check_mixing(ref):
    out, _ = _ok(ref)
    single = ("RuntimeError", "Cannot use both regular backward hooks and full backward hooks on a single Module. "
                              "Please use only one of them.")
    glob = ("RuntimeError", "Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                            "Please use only one of them.")
    assert out == [single, single, glob, False, glob, (False, True, 1, 1)]


def _check_global_hooks(ref):
    (log, tree), _ = _ok(ref)
    assert [e[:2] for e in log] == [("pre", "Sequential"), ("pre", "Tanh"), ("full", "Tanh"), ("pre", "Linear"),
                                    ("full", "Linear"), ("full", "Sequential"), ("non-full", "Tanh")]
    assert tree[0] == "BackwardHookFunctionBackward"


def _check_handles(ref):
    out, _ = _ok(ref)
    assert out == ([True] * 6, True, ["BackwardHook", "RemovableHandle", "unserializable_hook", "warn_if_has_hooks"],
                   True, True, True, True, (0, 1), 2, None, True, True, True, True)


def _check_exports(ref):
    out, _ = _ok(ref)
    assert out == ([True] * 3, [True] * 3, [False] * 3, None)


def _check_state(ref):
    out, warns = _ok(ref)
    assert out[0] == ("OrderedDict", "OrderedDict", None) and out[1] is True and out[2] is True
    doubled = [[-0.2, 0.2, 0.6], [-0.2, 0.2, 0.6]]  # twice the column sums of the weight
    assert out[3][:2] == out[4][:2] == (True, 1) and out[3][2][2] == out[4][2][2] == out[5][1][2] == doubled
    assert out[6][:2] == (None, {}) and out[6][2][2] == [[-0.5, 0.35], [-0.85, 0.825]] and not warns


CHECKS = {name: globals()["_check_" + name] for name in CASES}


_UNPICKLE = """
import pickle, sys
import {mod} as torch
lin = pickle.loads(sys.stdin.buffer.read())
x = torch.ones(1, 2, requires_grad=True)
lin(x).sum().backward()
"""


@pytest.mark.parametrize("kind", ["full", "pre"])
def test_unpickled_hooks_fire_in_a_new_process(torch_ref, et, kind):
    """A module unpickled with backward hooks in a process that registered none still runs them
    (the engine's call skips its backward-hook checks until it has seen one). The hook is ``print``:
    a function the new process can unpickle."""
    outputs = []
    for t in (et, torch_ref):
        lin = t.nn.Linear(2, 1)
        with t.no_grad():
            lin.weight.copy_(t.tensor([[1.0, 2.0]]))
        if kind == "full":
            lin.register_full_backward_hook(print)
        else:
            lin.register_full_backward_pre_hook(print)
        run = subprocess.run([sys.executable, "-c", _UNPICKLE.format(mod=t.__name__)], input=pickle.dumps(lin),
                             capture_output=True, check=True)
        outputs.append(run.stdout.decode())
    module = "Linear(in_features=2, out_features=1, bias=True)"
    assert outputs[0] == outputs[1] == (f"{module} (tensor([[1., 2.]]),) (tensor([[1.]]),)\n" if kind == "full"
                                        else f"{module} (tensor([[1.]]),)\n")
