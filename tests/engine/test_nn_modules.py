"""``torch.nn`` modules, ``nn.Parameter`` and ``nn.init`` against real PyTorch 2.13: the same seeded
initial values, forward values and gradients, ``grad_fn`` names, parameter names and order,
``state_dict`` keys, reprs, and error messages."""
import copy
import math
import pickle
from collections import OrderedDict

import numpy as np
import pytest

from tests.engine.opinfo import outcome

pytestmark = pytest.mark.torch

NORMAL_F32 = dict(rtol=2e-6, atol=2e-6)  # as test_random: PyTorch's libm against NumPy's, a few ulps


def _np(t):
    return t.detach().numpy()


def _split(x, arrays):
    """``x`` (as ``outcome`` gives it) with each float tensor's values moved to ``arrays``."""
    if type(x) is tuple and len(x) == 4 and x[0] == "tensor" and x[1] in ("torch.float32", "torch.float64"):
        arrays.append(np.array(x[2], dtype=np.float64))
        return "tensor", x[1], np.shape(x[2]), x[3]
    if type(x) in (list, tuple):
        return type(x)(_split(v, arrays) for v in x)
    return x


def close(torch_ref, et, fn, rtol=1e-5, atol=1e-6):
    """opinfo's ``same``, with float values compared within float32 rounding: the last bit of an op
    (sigmoid, exp, a sum's order) is not what these tests are about."""
    (ours, our_warnings), (ref, ref_warnings) = outcome(fn, et), outcome(fn, torch_ref)
    ours_arrays, ref_arrays = [], []
    ours_shape, ref_shape = _split(ours, ours_arrays), _split(ref, ref_arrays)
    assert (ours_shape, our_warnings) == (ref_shape, ref_warnings), f"\nengine: {ours}\ntorch:  {ref}"
    for a, b in zip(ours_arrays, ref_arrays):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _fn_name(fn):
    return None if fn is None else type(fn).__name__


def _names(pairs):
    return [name for name, _ in pairs]


# ----- Parameter -----

def _parameter_ops(t):
    """Ops on Parameters: their results are plain Tensors with PyTorch's grad_fn and values."""
    F = t.nn.functional
    p = t.nn.Parameter(t.tensor([[1.0, -2.0], [0.5, 3.0]]))
    b = t.nn.Parameter(t.tensor([0.25, -1.0]))
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    results = [p * 2, 2 * p, p + 1, p - 1, 1 - p, p / 2, 2 / p, p ** 2, -p, p + p, p * b, p - b, p / b, p @ p,
               p @ b, b @ b, p.t(), p.T, p[0], p[:, 1], p.sum(), p.mean(), p.sum(1), p.exp(), p.abs(), p.relu(),
               p.sigmoid(), p.tanh(), p.view(4), p.reshape(4), p.unsqueeze(0), p.flatten(), p.clone(), p.clamp(0),
               p.pow(3), p.max(), p.to(t.float64), t.cat([p, p]), t.stack([b, b]), t.addmm(b, x, p), p.mm(x),
               x.mm(p), p.softmax(1), p.log_softmax(0), F.linear(x, p, b), F.linear(x, p), F.relu(p),
               F.mse_loss(p, x), F.cross_entropy(p, t.tensor([1, 0])), b.dot(b), p.mv(b), p.norm(), p.var(),
               p.transpose(0, 1), p.expand(3, 2, 2), p.masked_fill(x > 2, 0.0), p.where(x > 2, b)]
    return [(type(r).__name__, _fn_name(r.grad_fn), r) for r in results]


def _inplace_no_grad(t):
    p = t.nn.Parameter(t.ones(2))
    with t.no_grad():
        p.mul_(3)
        p.add_(p)
        p.sub_(t.tensor([1.0, 2.0]))
        p[0] = 7.0
    return p, p._version, p.is_leaf, p.grad_fn, type(p).__name__


PARAMETER_CASES = {
    "repr": lambda t: repr(t.nn.Parameter(t.tensor([1.0, 2.5]))),
    "repr_2d": lambda t: repr(t.nn.Parameter(t.ones(2, 3))),
    "repr_0d": lambda t: (repr(t.nn.Parameter(t.tensor(3.0))), f"{t.nn.Parameter(t.tensor(3.0))}"),
    "repr_empty": lambda t: repr(t.nn.Parameter()),
    "repr_no_grad_int": lambda t: repr(t.nn.Parameter(t.tensor([1, 2]), requires_grad=False)),
    "str": lambda t: str(t.nn.Parameter(t.tensor([1.0]))),
    "type": lambda t: (repr(type(t.nn.Parameter(t.ones(1)))), isinstance(t.nn.Parameter(t.ones(1)), t.Tensor),
                       t.is_tensor(t.nn.Parameter(t.ones(1)))),
    "leaf": lambda t: (lambda p: (p.is_leaf, p.requires_grad, p.grad, p.grad_fn, p.dtype, p.shape))(
        t.nn.Parameter(t.ones(2, 3))),
    "float64": lambda t: (lambda p: (p.dtype, repr(p)))(t.nn.Parameter(t.ones(2, dtype=t.float64))),
    "results_types": lambda t: (lambda p: ([type(r).__name__ for r in (
        p.data, p.detach(), p.clone(), p[0], p.float(), p.double(), p.cpu(), p.requires_grad_(True), p.contiguous(),
        p.to("cpu"), p.type(t.float32))], p.float() is p, p.cpu() is p, p.to("cpu") is p))(t.nn.Parameter(t.ones(2))),
    "ops": _parameter_ops,
    "shares_data_and_version": lambda t: (lambda x: (lambda p: (x.add_(1), p, p._version, x._version,
                                                                p.data_ptr() == x.data_ptr()))(t.nn.Parameter(x)))(
        t.zeros(2)),
    "data_and_detach_share": lambda t: (lambda p: (p.data.add_(1), p.detach().mul_(2), p, p._version))(
        t.nn.Parameter(t.ones(2))),
    "data_assign": lambda t: (lambda p: (setattr(p, "data", t.tensor([5.0, 6.0])), p, type(p).__name__,
                                         p.requires_grad))(t.nn.Parameter(t.ones(2))),
    "requires_grad_false": lambda t: (lambda p: (type(p.requires_grad_(False)).__name__, repr(p), p.is_leaf))(
        t.nn.Parameter(t.ones(2))),
    "int_requires_grad": lambda t: t.nn.Parameter(t.tensor([1, 2])),
    "not_a_tensor": lambda t: t.nn.Parameter([1.0, 2.0]),
    "inplace_with_grad": lambda t: t.nn.Parameter(t.ones(2)).add_(1),
    "inplace_no_grad": lambda t: _inplace_no_grad(t),
    "format_spec": lambda t: format(t.nn.Parameter(t.tensor(3.0)), ".2f"),
    "numpy_refused": lambda t: t.nn.Parameter(t.ones(2)).numpy(),
    "item_and_tolist": lambda t: (lambda p: (p.tolist(), p.sum().item()))(t.nn.Parameter(t.tensor([1.5, 2.0]))),
}


@pytest.mark.parametrize("name", sorted(PARAMETER_CASES))
def test_parameter(torch_ref, et, name):
    close(torch_ref, et, PARAMETER_CASES[name])


def _backward_through(t):
    q = t.nn.Parameter(t.tensor([1.0, 2.0]))
    y = (q * q).sum()
    mul = y.grad_fn.next_functions[0][0]
    acc = mul.next_functions[0][0]
    y.backward()
    first = q.grad.clone()
    (q * 3).sum().backward()  # accumulates
    return (_fn_name(y.grad_fn), [(_fn_name(f), i) for f, i in y.grad_fn.next_functions],
            [(_fn_name(f), i) for f, i in mul.next_functions], acc.variable is q, type(acc.variable).__name__,
            first, q.grad, type(q.grad).__name__, q.grad.requires_grad)


def _sgd_by_hand(t):
    """The nn tutorial's update, on a Parameter: ``p -= lr * p.grad`` under no_grad, then ``p.grad.zero_()``."""
    p = t.nn.Parameter(t.tensor([1.0, -2.0, 3.0]))
    seen = []
    for _ in range(3):
        loss = (p * p * t.tensor([1.0, 2.0, 3.0])).sum()
        loss.backward()
        with t.no_grad():
            p -= 0.1 * p.grad
        seen.append((p.clone(), p.grad.clone(), p._version))
        p.grad.zero_()
    return seen, type(p).__name__, p.is_leaf, p.requires_grad, p.grad, _fn_name((p * 1).grad_fn)


def test_parameter_autograd(torch_ref, et):
    close(torch_ref, et, _backward_through)
    close(torch_ref, et, _sgd_by_hand)


def test_parameter_accumulate_grad_is_the_parameter(et):
    p = et.nn.Parameter(et.ones(2))
    acc = (p * 2).grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is p
    assert type(p * 2) is et.Tensor and type(p) is et.nn.Parameter


def test_parameter_deepcopy_and_pickle(torch_ref, et):
    def run(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        (p * p).sum().backward()
        c = copy.deepcopy(p)
        r = pickle.loads(pickle.dumps(t.nn.Parameter(t.tensor([3.0]), requires_grad=False)))
        shared = copy.deepcopy([p, p])
        return (type(c).__name__, c, c.grad, c is p, c.data_ptr() == p.data_ptr(), type(r).__name__, repr(r),
                shared[0] is shared[1])

    close(torch_ref, et, run)


# ----- Module: registration, names, state_dict -----

def _net_class(t):
    nn = t.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = self.a  # a shared module: listed once
            self.register_buffer("running", t.zeros(2))
            self.register_buffer("tmp", t.ones(1), persistent=False)
            self.p = nn.Parameter(t.ones(3))
            self.q = self.p  # a shared parameter: listed once
            self.seq = nn.Sequential(self.a, nn.ReLU(), nn.Sequential(nn.Linear(2, 1), nn.Sigmoid()))
            self.none = None
            self.register_parameter("empty", None)

        def forward(self, x):
            return self.seq(x) * self.p.sum()

        def extra_repr(self):
            return "line1\nline2"

    return Net


MODULE_NAMES = {
    "named_parameters": lambda t: _names(_net_class(t)().named_parameters()),
    "named_parameters_all": lambda t: _names(_net_class(t)().named_parameters(remove_duplicate=False)),
    "named_parameters_prefix_no_recurse": lambda t: _names(_net_class(t)().named_parameters("m", recurse=False)),
    "parameters_are_the_attributes": lambda t: (lambda n: [p is q for p, q in zip(
        n.parameters(), [n.a.weight, n.a.bias, n.p, n.seq[2][0].weight, n.seq[2][0].bias])])(_net_class(t)()),
    "named_buffers": lambda t: _names(_net_class(t)().named_buffers()),
    "named_modules": lambda t: _names(_net_class(t)().named_modules()),
    "named_modules_all": lambda t: _names(_net_class(t)().named_modules(remove_duplicate=False)),
    "named_modules_prefix": lambda t: _names(_net_class(t)().named_modules(prefix="net")),
    "named_children": lambda t: _names(_net_class(t)().named_children()),
    "modules": lambda t: [type(m).__name__ for m in _net_class(t)().modules()],
    "children": lambda t: [type(m).__name__ for m in _net_class(t)().children()],
    "state_dict_keys": lambda t: list(_net_class(t)().state_dict()),
    "state_dict_types": lambda t: [(type(v).__name__, v.requires_grad, v.grad_fn)
                                   for v in _net_class(t)().state_dict().values()],
    "state_dict_keep_vars": lambda t: [type(v).__name__ for v in _net_class(t)().state_dict(keep_vars=True).values()],
    "state_dict_metadata": lambda t: list(_net_class(t)().state_dict()._metadata.items()),
    "state_dict_prefix": lambda t: list(t.nn.Linear(1, 1).state_dict(prefix="fc.")),
    "state_dict_type": lambda t: type(t.nn.Linear(1, 1).state_dict()).__name__,
    "getattr": lambda t: (lambda n: (type(n.a).__name__, type(n.p).__name__, type(n.running).__name__, n.none,
                                     n.empty, n.training, "a" in n.__dict__, "p" in n.__dict__))(_net_class(t)()),
    "dir": lambda t: [k for k in dir(_net_class(t)()) if k in ("a", "p", "running", "seq", "0")],
    "delattr": lambda t: (lambda n: (delattr(n, "p"), delattr(n, "running"), delattr(n, "seq"),
                                     _names(n.named_parameters()), _names(n.named_buffers()),
                                     _names(n.named_children())))(_net_class(t)()),
    "reassign_parameter_to_none": lambda t: (lambda n: (setattr(n, "p", None), _names(n.named_parameters()),
                                                        n.p))(_net_class(t)()),
    "reassign_module": lambda t: (lambda n: (setattr(n, "a", t.nn.Tanh()), _names(n.named_modules())))(
        _net_class(t)()),
    "attribute_becomes_parameter": lambda t: (lambda m: (setattr(m, "x", 1), setattr(m, "x", t.nn.Parameter(t.ones(1))),
                                                         _names(m.named_parameters())))(t.nn.Module()),
    "get_submodule": lambda t: (lambda s: (repr(s.get_submodule("1.0")), s.get_parameter("1.0.bias").shape,
                                           s.get_submodule("") is s))(
        t.nn.Sequential(t.nn.ReLU(), t.nn.Sequential(t.nn.Linear(2, 3)))),
    "forward": lambda t: (t.manual_seed(0), _net_class(t)()(t.ones(1, 2)))[1],
}


@pytest.mark.parametrize("name", sorted(MODULE_NAMES))
def test_module_structure(torch_ref, et, name):
    close(torch_ref, et, MODULE_NAMES[name])


def _early_module(t):
    class Early(t.nn.Module):
        def __init__(self):
            self.layer = t.nn.Linear(1, 1)

    return Early()


def _early_parameter(t):
    class Early(t.nn.Module):
        def __init__(self):
            self.w = t.nn.Parameter(t.ones(1))

    return Early()


def _net_then(fn):
    return lambda t: fn(t, _net_class(t)())


ERRORS = {
    "assign_tensor_as_parameter": _net_then(lambda t, n: setattr(n, "p", t.ones(3))),
    "assign_tensor_as_linear_weight": lambda t: setattr(t.nn.Linear(2, 3), "weight", t.ones(3, 2)),
    "assign_double_as_parameter": lambda t: setattr(t.nn.Linear(2, 3), "bias", t.ones(3, dtype=t.float64)),
    "assign_int_as_module": _net_then(lambda t, n: setattr(n, "a", 3)),
    "assign_linear_as_parameter": _net_then(lambda t, n: setattr(n, "p", t.nn.Linear(1, 1))),
    "assign_int_as_buffer": _net_then(lambda t, n: setattr(n, "running", 3)),
    "register_parameter_dotted": _net_then(lambda t, n: n.register_parameter("x.y", None)),
    "register_parameter_empty_name": _net_then(lambda t, n: n.register_parameter("", None)),
    "register_parameter_int_name": _net_then(lambda t, n: n.register_parameter(1, None)),
    "register_parameter_existing": _net_then(lambda t, n: n.register_parameter("running", None)),
    "register_parameter_tensor": _net_then(lambda t, n: n.register_parameter("w", t.ones(2))),
    "register_parameter_non_leaf": _net_then(
        lambda t, n: n.register_parameter("w", t.nn.Parameter(t.ones(2)) * 2)),
    "register_buffer_int": _net_then(lambda t, n: n.register_buffer("b2", 5)),
    "register_buffer_dotted": _net_then(lambda t, n: n.register_buffer("b.2", None)),
    "register_buffer_existing": _net_then(lambda t, n: n.register_buffer("p", t.ones(1))),
    "add_module_int": _net_then(lambda t, n: n.add_module("m", 5)),
    "add_module_dotted": _net_then(lambda t, n: n.add_module("m.x", t.nn.ReLU())),
    "add_module_existing": _net_then(lambda t, n: n.add_module("p", t.nn.ReLU())),
    "add_module_int_name": _net_then(lambda t, n: n.add_module(3, t.nn.ReLU())),
    "missing_attribute": _net_then(lambda t, n: n.zzz),
    "no_forward": lambda t: t.nn.Module()(1),
    "module_before_init": _early_module,
    "parameter_before_init": _early_parameter,
    "module_positional_arg": lambda t: t.nn.Module(3),
    "module_keyword_arg": lambda t: t.nn.Module(foo=3),
    "to_int_dtype": lambda t: t.nn.Linear(2, 2).to(t.int64),
    "to_cuda": lambda t: t.nn.Linear(2, 2).to("cuda"),
    "train_not_bool": lambda t: t.nn.Linear(2, 2).train(1),
    "get_submodule_missing": lambda t: t.nn.Linear(2, 2).get_submodule("x"),
    "get_submodule_not_module": lambda t: t.nn.Linear(2, 2).get_submodule("weight"),
    "sequential_index": lambda t: t.nn.Sequential(t.nn.ReLU())[3],
    "sequential_negative_index": lambda t: t.nn.Sequential(t.nn.ReLU())[-2],
    "sequential_add_int": lambda t: t.nn.Sequential(t.nn.ReLU()) + 1,
    "sequential_insert_range": lambda t: t.nn.Sequential(t.nn.ReLU()).insert(5, t.nn.ReLU()),
    "modulelist_index": lambda t: t.nn.ModuleList([t.nn.ReLU()])[1],
    "modulelist_not_iterable": lambda t: t.nn.ModuleList(3),
    "modulelist_call": lambda t: t.nn.ModuleList([t.nn.ReLU()])(1),
    "moduledict_missing": lambda t: t.nn.ModuleDict({"a": t.nn.ReLU()})["b"],
    "moduledict_pair_length": lambda t: t.nn.ModuleDict([("a", t.nn.ReLU(), 1)]),
    "parameterlist_call": lambda t: t.nn.ParameterList([t.ones(1)])(1),
    "parameterdict_int_key": lambda t: t.nn.ParameterDict({"a": t.ones(1)})[0],
    "unflatten_sizes": lambda t: t.nn.Unflatten(1, [2, "a"]),
    "unflatten_not_sequence": lambda t: t.nn.Unflatten(1, 2),
    "load_not_mapping": lambda t: t.nn.Linear(2, 2).load_state_dict([1]),
    "load_not_tensor": lambda t: t.nn.Linear(2, 2).load_state_dict({"weight": 1, "bias": t.ones(2)}),
    "load_missing_key": lambda t: t.nn.Linear(2, 2).load_state_dict({"weight": t.ones(2, 2)}),
    "load_missing_nested": lambda t: t.nn.Sequential(t.nn.Linear(2, 3), t.nn.ReLU(),
                                                     t.nn.Sequential(t.nn.Linear(3, 1))).load_state_dict({}),
    "load_unexpected_and_size": lambda t: t.nn.Sequential(t.nn.Linear(2, 2)).load_state_dict(
        {"0.weight": t.ones(3, 2), "0.bias": t.ones(2), "1.weight": t.ones(1), "extra": t.ones(1),
         "0.extra": t.ones(1)}),
    "load_missing_and_unexpected": lambda t: t.nn.Linear(2, 2).load_state_dict(
        {"weight": t.ones(2, 2), "extra": t.ones(1)}),
    "load_non_strict": lambda t: repr(t.nn.Linear(2, 2).load_state_dict(
        {"weight": t.ones(2, 2), "x.y": t.ones(1)}, strict=False)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(torch_ref, et, name):
    close(torch_ref, et, ERRORS[name])


def test_distinctive_messages(et):
    with pytest.raises(TypeError, match=r"^cannot assign 'torch.FloatTensor' as parameter 'weight' "
                                        r"\(torch.nn.Parameter or None expected\)$"):
        et.nn.Linear(2, 3).weight = et.ones(3, 2)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias". '):
        et.nn.Linear(2, 2).load_state_dict({"weight": et.ones(2, 2)})
    with pytest.raises(TypeError, match=r"torch.nn.modules.linear.Linear' as parameter 'p'"):
        _net_class(et)().p = et.nn.Linear(1, 1)


# ----- load_state_dict, modes, conversions, hooks -----

def _load_round_trip(t):
    t.manual_seed(0)
    src = t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Tanh(), t.nn.Linear(2, 1))
    dst = t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Tanh(), t.nn.Linear(2, 1))
    w = dst[0].weight
    result = dst.load_state_dict(src.state_dict())
    sd = src.state_dict()
    sd["0.weight"].add_(1)  # state_dict tensors share the parameters' data
    return (repr(result), result.missing_keys, dst[0].weight is w, dst[0].weight, src[0].weight, w._version,
            w.requires_grad, w.is_leaf)


def _load_assign(t):
    m = t.nn.Linear(2, 1)
    new = {"weight": t.tensor([[1.0, 2.0]]), "bias": t.tensor([0.5])}
    m.load_state_dict(new, assign=True)
    return type(m.weight).__name__, m.weight, m.weight.requires_grad, m.bias


def _modes(t):
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Sequential(t.nn.ReLU()))
    out = [m.training, m.eval() is m, [x.training for x in m.modules()]]
    out += [m.train() is m, [x.training for x in m.modules()], m[1].train(False).training, m[1][0].training,
            m.training]
    return out


def _zero_grad(t):
    lin = t.nn.Linear(2, 1)
    lin(t.ones(3, 2)).sum().backward()
    g = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    kept = (lin.weight.grad, lin.weight.grad is g, lin.bias.grad)
    lin(t.ones(3, 2)).sum().backward()
    lin.zero_grad()
    return kept, lin.weight.grad, lin.bias.grad


def _requires_grad(t):
    lin = t.nn.Linear(2, 1)
    r = lin.requires_grad_(False) is lin
    frozen = [p.requires_grad for p in lin.parameters()], lin(t.ones(1, 2)).requires_grad
    lin.requires_grad_()
    return r, frozen, [p.requires_grad for p in lin.parameters()], _fn_name(lin(t.ones(1, 2)).grad_fn)


def _apply(t):
    names = []
    net = t.nn.Sequential(t.nn.Linear(1, 1), t.nn.Sequential(t.nn.ReLU(), t.nn.Linear(1, 2)))

    def init_weights(m):
        names.append(type(m).__name__)
        if isinstance(m, t.nn.Linear):
            t.nn.init.constant_(m.weight, 0.5)
            m.bias.data.fill_(0.01)

    return net.apply(init_weights) is net, names, [p for p in net.parameters()]


def _conversions(t):
    t.manual_seed(0)
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.BCEWithLogitsLoss(pos_weight=t.ones(2)))
    w = m[0].weight
    m[0](t.ones(1, 2)).sum().backward()
    out = [m.double() is m, m[0].weight is w, w.dtype, type(w).__name__, w.grad.dtype, m[1].pos_weight.dtype,
           m[0](t.ones(1, 2, dtype=t.float64)).dtype]
    out += [m.float() is m, w.dtype, w.grad.dtype, m.to(t.float64) is m, w.dtype, m.to("cpu") is m, m.cpu() is m,
            m.to(t.ones(1, dtype=t.float32)) is m, w.dtype, m.to("cpu", t.float64) is m, w.dtype,
            m.to(device="cpu", dtype=t.float32) is m, w.dtype, w.requires_grad, w.is_leaf, w]
    return out


def _linear_dtype(t):
    t.manual_seed(3)
    m = t.nn.Linear(3, 2, dtype=t.float64)
    return m.weight, m.bias, m(t.ones(4, 3, dtype=t.float64))


def _hooks(t):
    t.manual_seed(0)
    lin = t.nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: out + 1)
    h3 = lin.register_forward_hook(lambda m, args, out: calls.append(("first", out.shape)), prepend=True)
    h4 = lin.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    hooked = lin(t.ones(1, 2))
    for h in (h1, h2, h3, h4):
        h.remove()
    return hooked - lin.bias, calls, lin(t.zeros(1, 2)) - lin.bias


def _deepcopy_module(t):
    n = _net_class(t)()
    c = copy.deepcopy(n)
    return (c.a is c.b, c.p is c.q, c.a.weight is n.a.weight, t.equal(c.a.weight, n.a.weight),
            type(c.p).__name__, c.seq[0] is c.a, _names(c.named_parameters()), repr(c) == repr(n))


def _legacy_reduction(t):
    return [(t.nn.MSELoss(size_average=False).reduction, t.nn.L1Loss(reduce=False).reduction,
             t.nn.CrossEntropyLoss(size_average=True, reduce=True).reduction)]


def _linear_dispatch(t):
    """``F.linear``'s graphs: a 2-D input with bias is one addmm, a 3-D one addmm between views."""
    t.manual_seed(0)
    lin, plain = t.nn.Linear(4, 3), t.nn.Linear(4, 3, bias=False)
    x2, x3 = t.randn(2, 4, requires_grad=True), t.randn(2, 5, 4, requires_grad=True)
    outs = [lin(x2), lin(x3), plain(x2), lin(x3.transpose(0, 1))]
    sum(o.sum() for o in outs).backward()
    return ([(o, _fn_name(o.grad_fn), [_fn_name(f) for f, _ in o.grad_fn.next_functions]) for o in outs],
            x2.grad, x3.grad, lin.weight.grad, lin.bias.grad, plain.weight.grad)


BEHAVIOUR = {
    "linear_dispatch": _linear_dispatch,
    "load_round_trip": _load_round_trip,
    "load_assign": _load_assign,
    "modes": _modes,
    "zero_grad": _zero_grad,
    "requires_grad_": _requires_grad,
    "apply": _apply,
    "conversions": _conversions,
    "linear_dtype": _linear_dtype,
    "hooks": _hooks,
    "deepcopy": _deepcopy_module,
    "legacy_reduction": _legacy_reduction,
    "loss_options": lambda t: (t.nn.MSELoss(reduction="sum").reduction,
                               t.nn.CrossEntropyLoss(label_smoothing=0.1).label_smoothing,
                               t.nn.CrossEntropyLoss().ignore_index, t.nn.NLLLoss(weight=t.ones(2)).weight,
                               _names(t.nn.BCEWithLogitsLoss(pos_weight=t.ones(2)).named_buffers()),
                               list(t.nn.CrossEntropyLoss(weight=t.ones(3)).state_dict())),
}


@pytest.mark.parametrize("name", sorted(BEHAVIOUR))
def test_module_behaviour(torch_ref, et, name):
    close(torch_ref, et, BEHAVIOUR[name])


# ----- Containers -----

def _sequential_ops(t):
    nn = t.nn
    s = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    out = [len(s), type(s[0]).__name__, type(s[-1]).__name__, repr(s[1:]), repr(s[::2]), [type(m).__name__ for m in s]]
    del s[1]
    out.append(repr(s))
    s.insert(1, nn.Sigmoid())
    s.append(nn.Identity())
    out += [repr(s), len(s), repr(s.pop(0)), repr(s)]
    s[0] = nn.ReLU()
    out += [repr(s), repr(s + nn.Sequential(nn.ELU())), repr(s.extend(nn.Sequential(nn.SiLU())))]
    s += nn.Sequential(nn.Tanh())
    out.append(repr(s))
    del s[1:3]
    out.append(repr(s))
    return out


def _modulelist_ops(t):
    nn = t.nn
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU()])
    ml.insert(1, nn.Tanh())
    ml.append(nn.Tanh())
    ml.extend([nn.Tanh()])
    out = [repr(ml), repr(ml[1:3]), len(ml), type(ml[-1]).__name__]
    del ml[0]
    out.append(repr(ml))
    ml[0] = nn.Linear(1, 1)
    out += [repr(ml), repr(ml + nn.ModuleList([nn.ELU()])), repr(ml.pop(1)), repr(ml)]
    ml += [nn.Linear(1, 1)]
    out += [repr(ml), _names(ml.named_parameters())]
    return out


def _moduledict_ops(t):
    nn = t.nn
    md = nn.ModuleDict({"act": nn.ReLU(), "lin": nn.Linear(1, 2)})
    md["x"] = nn.Tanh()
    out = [repr(md), list(md), "act" in md, len(md), repr(md.pop("act")), list(md.keys()),
           [type(v).__name__ for v in md.values()], [k for k, _ in md.items()], _names(md.named_parameters())]
    md.update([("y", nn.Sigmoid())])
    md.update(OrderedDict([("z", nn.ELU())]))
    out.append(repr(md))
    md.clear()
    out.append(repr(md))
    return out


def _parameter_containers(t):
    nn = t.nn
    pl = nn.ParameterList([nn.Parameter(t.ones(2, 3)), t.zeros(4)])
    pl.append(t.ones(1, dtype=t.float64))
    pd = nn.ParameterDict({"a": t.ones(2), "b": nn.Parameter(t.zeros(3))})
    pd["c"] = t.ones(1)
    return (repr(pl), len(pl), [type(p).__name__ for p in pl], _names(pl.named_parameters()), repr(pl[1:]),
            repr(pd), list(pd.keys()), _names(pd.named_parameters()), type(pd["a"]).__name__, "a" in pd, len(pd),
            repr(nn.ParameterDict({"w": t.ones(2, 2)})))


CONTAINERS = {
    "sequential": _sequential_ops,
    "modulelist": _modulelist_ops,
    "moduledict": _moduledict_ops,
    "parameter_containers": _parameter_containers,
    "sequential_ordered_dict": lambda t: repr(t.nn.Sequential(OrderedDict([("fc", t.nn.Linear(1, 1)),
                                                                          ("act", t.nn.ReLU())]))),
    "empty": lambda t: (repr(t.nn.Sequential()), repr(t.nn.ModuleList()), repr(t.nn.ModuleDict()),
                        repr(t.nn.ParameterList()), t.nn.Sequential()(t.ones(1))),
}


@pytest.mark.parametrize("name", sorted(CONTAINERS))
def test_containers(torch_ref, et, name):
    close(torch_ref, et, CONTAINERS[name])


# ----- Reprs -----

REPRS = {
    "linear": lambda t: t.nn.Linear(2, 3),
    "linear_no_bias": lambda t: t.nn.Linear(2, 3, bias=False),
    "identity": lambda t: t.nn.Identity(54, unused="x"),
    "flatten": lambda t: t.nn.Flatten(),
    "flatten_dims": lambda t: t.nn.Flatten(0, 1),
    "unflatten": lambda t: t.nn.Unflatten(1, (2, 3)),
    "activations": lambda t: [t.nn.ReLU(), t.nn.ReLU(inplace=True), t.nn.Sigmoid(), t.nn.Tanh(), t.nn.LeakyReLU(),
                              t.nn.LeakyReLU(0.2, inplace=True), t.nn.Softmax(), t.nn.Softmax(dim=1),
                              t.nn.LogSoftmax(-1), t.nn.Softplus(), t.nn.Softplus(2, 10), t.nn.SiLU(),
                              t.nn.SiLU(inplace=True), t.nn.ELU(), t.nn.ELU(0.5, True)],
    "losses": lambda t: [t.nn.MSELoss(), t.nn.MSELoss(reduction="sum"), t.nn.L1Loss(), t.nn.CrossEntropyLoss(),
                         t.nn.NLLLoss(), t.nn.BCELoss(), t.nn.BCEWithLogitsLoss()],
    "nested": lambda t: t.nn.Sequential(t.nn.Linear(2, 3), t.nn.ReLU(),
                                        t.nn.Sequential(t.nn.Linear(3, 1), t.nn.Sigmoid()), t.nn.Flatten(0, 1)),
    "modulelist_runs": lambda t: t.nn.ModuleList([t.nn.Linear(2, 2), t.nn.Linear(2, 2), t.nn.ReLU(),
                                                  t.nn.Linear(2, 2)]),
    "modulelist_nested_runs": lambda t: t.nn.ModuleList(
        [t.nn.Sequential(t.nn.Linear(1, 1), t.nn.ReLU()) for _ in range(3)]),
    "custom_multiline_extra_repr": lambda t: _net_class(t)(),
    "tutorial_nn": lambda t: t.nn.Sequential(t.nn.Linear(3, 1), t.nn.Flatten(0, 1)),
    "none_child": lambda t: (lambda m: (m.add_module("gone", None), m)[1])(t.nn.Sequential(t.nn.ReLU())),
}


@pytest.mark.parametrize("name", sorted(REPRS))
def test_reprs(torch_ref, et, name):
    def run(t):
        made = REPRS[name](t)
        return [repr(m) for m in made] if isinstance(made, list) else repr(made)

    close(torch_ref, et, run)


def test_repr_text(et):
    nn = et.nn
    assert repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU())) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n)")
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.Parameter(et.tensor([1.0, 2.0]))) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


# ----- Forward and backward of each module -----

X = [[0.5, -1.5, 2.0, 0.0], [-0.25, 3.0, -2.0, 1.0]]

FORWARD = {
    "relu": lambda nn: nn.ReLU(),
    "sigmoid": lambda nn: nn.Sigmoid(),
    "tanh": lambda nn: nn.Tanh(),
    "leaky_relu": lambda nn: nn.LeakyReLU(0.2),
    "softmax": lambda nn: nn.Softmax(dim=1),
    "softmax_implicit_dim": lambda nn: nn.Softmax(),
    "log_softmax": lambda nn: nn.LogSoftmax(dim=0),
    "softplus": lambda nn: nn.Softplus(beta=2.0, threshold=1.0),
    "silu": lambda nn: nn.SiLU(),
    "elu": lambda nn: nn.ELU(alpha=0.5),
    "identity": lambda nn: nn.Identity(),
    "flatten": lambda nn: nn.Sequential(nn.Unflatten(1, (2, 2)), nn.Flatten()),
    "flatten_all": lambda nn: nn.Flatten(0, -1),
    "unflatten": lambda nn: nn.Unflatten(1, (2, 2)),
    "relu_inplace": lambda nn: nn.ReLU(inplace=True),
    "sigmoid_then_linear": lambda nn: nn.Sequential(nn.Sigmoid(), nn.Linear(4, 2)),
}

INPLACE_VALUES = {  # in place: values and gradients are PyTorch's; see test_inplace_activation_values
    "leaky_relu_inplace": lambda nn: nn.LeakyReLU(0.2, inplace=True),
    "elu_inplace": lambda nn: nn.ELU(inplace=True),
    "silu_inplace": lambda nn: nn.SiLU(inplace=True),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_module_forward_backward(torch_ref, et, name):
    def run(t):
        t.manual_seed(0)
        m = FORWARD[name](t.nn)
        x = t.tensor(X, requires_grad=True)
        y = m(x * 1)
        y.backward(t.ones_like(y) * t.arange(y.numel()).view(y.shape))
        return y, _fn_name(y.grad_fn), x.grad

    close(torch_ref, et, run)


@pytest.mark.parametrize("name", sorted(INPLACE_VALUES))
def test_inplace_activation_values(torch_ref, et, name):
    def run(t):
        m = INPLACE_VALUES[name](t.nn)
        x = t.tensor(X, requires_grad=True)
        h = x * 1
        y = m(h)
        y.backward(t.arange(8.0).view(2, 4))
        return y is h, y, h, x.grad

    close(torch_ref, et, run)


def _loss_case(module, target, pred=None):
    def run(t):
        x = t.tensor(pred or X, requires_grad=True)
        loss = module(t)(x * 1, target(t))
        loss.backward(t.ones_like(loss))
        return loss, _fn_name(loss.grad_fn), x.grad

    return run


_PROBS = [[0.2, 0.9, 0.5, 0.01], [0.7, 0.3, 0.99, 0.5]]
LOSSES = {
    "mse": _loss_case(lambda t: t.nn.MSELoss(), lambda t: t.ones(2, 4)),
    "mse_sum": _loss_case(lambda t: t.nn.MSELoss(reduction="sum"), lambda t: t.ones(2, 4)),
    "mse_none": _loss_case(lambda t: t.nn.MSELoss(reduction="none"), lambda t: t.ones(2, 4)),
    "l1": _loss_case(lambda t: t.nn.L1Loss(), lambda t: t.ones(2, 4)),
    "l1_sum": _loss_case(lambda t: t.nn.L1Loss(reduction="sum"), lambda t: t.ones(2, 4)),
    "cross_entropy": _loss_case(lambda t: t.nn.CrossEntropyLoss(), lambda t: t.tensor([2, 1])),
    "cross_entropy_options": _loss_case(
        lambda t: t.nn.CrossEntropyLoss(weight=t.tensor([1.0, 2.0, 0.5, 1.0]), ignore_index=3,
                                        label_smoothing=0.1), lambda t: t.tensor([2, 3])),
    "cross_entropy_none": _loss_case(lambda t: t.nn.CrossEntropyLoss(reduction="none"), lambda t: t.tensor([0, 1])),
    "cross_entropy_probs": _loss_case(lambda t: t.nn.CrossEntropyLoss(), lambda t: t.tensor(_PROBS)),
    "nll": _loss_case(lambda t: t.nn.NLLLoss(), lambda t: t.tensor([1, 3])),
    "nll_weight_sum": _loss_case(lambda t: t.nn.NLLLoss(weight=t.tensor([1.0, 2.0, 3.0, 4.0]), reduction="sum"),
                                 lambda t: t.tensor([1, 3])),
    "bce": _loss_case(lambda t: t.nn.BCELoss(), lambda t: t.tensor([[0.0, 1, 1, 0], [1, 0, 1, 1]]), _PROBS),
    "bce_weight": _loss_case(lambda t: t.nn.BCELoss(weight=t.tensor([1.0, 2, 3, 4]), reduction="sum"),
                             lambda t: t.tensor([[0.0, 1, 1, 0], [1, 0, 1, 1]]), _PROBS),
    "bce_with_logits": _loss_case(lambda t: t.nn.BCEWithLogitsLoss(),
                                  lambda t: t.tensor([[0.0, 1, 1, 0], [1, 0, 1, 1]])),
    "bce_with_logits_pos_weight": _loss_case(
        lambda t: t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([1.0, 2, 3, 4]), reduction="none"),
        lambda t: t.tensor([[0.0, 1, 1, 0], [1, 0, 1, 1]])),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses(torch_ref, et, name):
    close(torch_ref, et, LOSSES[name])


# ----- Seeded initialisation: bit for bit PyTorch's -----

def test_linear_from_seed_zero_prints_as_pytorch(et):
    et.manual_seed(0)
    assert repr(et.nn.Linear(3, 2).weight) == (
        "Parameter containing:\ntensor([[-0.0043,  0.3097, -0.4752],\n        [-0.4249, -0.2224,  0.1548]], "
        "requires_grad=True)")


@pytest.mark.parametrize("shape", [(3, 2), (1, 1), (7, 10), (32, 64)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", [0, 42])
def test_linear_init_is_pytorchs(torch_ref, et, shape, dtype, seed):
    made = []
    for t in (torch_ref, et):
        t.manual_seed(seed)
        first = t.nn.Linear(*shape, dtype=getattr(t, dtype))
        second = t.nn.Linear(shape[1], 2, bias=False, dtype=getattr(t, dtype))
        made.append([first.weight, first.bias, second.weight, t.rand(2, dtype=getattr(t, dtype))])
    for ours, ref in zip(made[1], made[0]):
        assert ours.dtype.is_floating_point and str(ours.dtype) == str(ref.dtype)
        np.testing.assert_array_equal(_np(ours), _np(ref))


def _fill(t, init, shape, dtype="float32"):
    w = t.empty(*shape, dtype=getattr(t, dtype))
    out = init(t.nn.init, w)
    assert out is w
    return w


INITS = {  # name: (init, shape, draws normals)
    "uniform": (lambda init, w: init.uniform_(w, -2.0, 3.0), (4, 5), False),
    "uniform_default": (lambda init, w: init.uniform_(w), (17,), False),
    "normal_small": (lambda init, w: init.normal_(w, 1.0, 0.5), (3, 4), False),  # < 16 values: exact
    "normal_large": (lambda init, w: init.normal_(w, -1.0, 2.0), (20, 30), True),
    "constant": (lambda init, w: init.constant_(w, 0.3), (2, 3), False),
    "ones": (lambda init, w: init.ones_(w), (2, 3), False),
    "zeros": (lambda init, w: init.zeros_(w), (2, 3), False),
    "eye": (lambda init, w: init.eye_(w), (3, 5), False),
    "xavier_uniform": (lambda init, w: init.xavier_uniform_(w), (30, 20), False),
    "xavier_uniform_gain": (lambda init, w: init.xavier_uniform_(w, gain=init.calculate_gain("relu")), (8, 3, 3, 3),
                            False),
    "xavier_normal_small": (lambda init, w: init.xavier_normal_(w, gain=2.0), (3, 5), False),
    "xavier_normal": (lambda init, w: init.xavier_normal_(w), (30, 20), True),
    "kaiming_uniform": (lambda init, w: init.kaiming_uniform_(w), (30, 20), False),
    "kaiming_uniform_sqrt5": (lambda init, w: init.kaiming_uniform_(w, a=math.sqrt(5)), (6, 4, 3), False),
    "kaiming_uniform_fan_out_relu": (
        lambda init, w: init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"), (7, 9), False),
    "kaiming_normal_small": (lambda init, w: init.kaiming_normal_(w, a=0.1), (3, 4), False),
    "kaiming_normal": (lambda init, w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"), (20, 30), True),
    "kaiming_normal_conv": (lambda init, w: init.kaiming_normal_(w, nonlinearity="tanh"), (8, 3, 3, 3), True),
}


@pytest.mark.parametrize("name", sorted(INITS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_is_pytorchs(torch_ref, et, name, dtype):
    init, shape, normals = INITS[name]
    outs = []
    for t in (torch_ref, et):
        t.manual_seed(7)
        outs.append((_np(_fill(t, init, shape, dtype)), _np(t.rand(3, dtype=getattr(t, dtype)))))
    (ref, ref_after), (ours, ours_after) = outs
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    if normals:
        tol = NORMAL_F32 if dtype == "float32" else dict(rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(ours, ref, **tol)
    else:
        np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(ours_after, ref_after)  # the same number of draws was taken


def test_init_on_a_parameter_records_nothing(torch_ref, et):
    def run(t):
        t.manual_seed(1)
        p = t.nn.Parameter(t.empty(2, 3))
        out = [t.nn.init.xavier_uniform_(p) is p, p.grad_fn, p.is_leaf, p.requires_grad, p._version]
        t.nn.init.zeros_(p)
        t.nn.init.normal_(p)
        return out + [p.grad_fn, p.is_leaf, p]

    close(torch_ref, et, run)


def test_orthogonal_is_pytorchs(torch_ref, et):
    outs = []
    for t in (torch_ref, et):
        t.manual_seed(5)
        outs.append([_np(_fill(t, lambda init, w: init.orthogonal_(w, gain=2.0), shape))
                     for shape in [(3, 5), (6, 4), (2, 3, 2)]])
    for ours, ref in zip(outs[1], outs[0]):
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-5)
    q = outs[1][1] / 2.0
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-5)


INIT_HELPERS = {
    "gains": lambda t: [t.nn.init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu",
                                                             "leaky_relu", "selu")],
    "gain_leaky_slope": lambda t: (t.nn.init.calculate_gain("leaky_relu", 0.2),
                                   t.nn.init.calculate_gain("leaky_relu", 1)),
    "gain_unknown": lambda t: t.nn.init.calculate_gain("swish"),
    "gain_bad_slope": lambda t: t.nn.init.calculate_gain("leaky_relu", True),
    "fans": lambda t: [t.nn.init._calculate_fan_in_and_fan_out(t.empty(*s)) for s in [(3, 5), (8, 3, 3, 3), (2, 4, 5)]],
    "fans_1d": lambda t: t.nn.init._calculate_fan_in_and_fan_out(t.empty(3)),
    "bad_mode": lambda t: t.nn.init.kaiming_uniform_(t.empty(3, 3), mode="fan_avg"),
    "eye_1d": lambda t: t.nn.init.eye_(t.empty(3)),
    "zero_elements": lambda t: t.nn.init.kaiming_uniform_(t.empty(0, 3)).shape,
    "orthogonal_1d": lambda t: t.nn.init.orthogonal_(t.empty(3)),
}


@pytest.mark.parametrize("name", sorted(INIT_HELPERS))
def test_init_helpers(torch_ref, et, name):
    close(torch_ref, et, INIT_HELPERS[name])


# ----- A small MLP, end to end -----

def _mlp_cross_entropy(t):
    t.manual_seed(0)
    nn = t.nn
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
    x = t.randn(6, 4)
    y = t.tensor([0, 2, 1, 1, 0, 2])
    out = model(x)
    loss = nn.CrossEntropyLoss()(out, y)
    loss.backward()
    chain = []
    fn = loss.grad_fn
    while fn is not None:  # the first input's path: NllLoss <- LogSoftmax <- Addmm <- ...
        chain.append([_fn_name(f) for f, _ in fn.next_functions])
        fn = next((f for f, _ in fn.next_functions if f is not None and _fn_name(f) != "AccumulateGrad"), None)
    return (out, loss, _fn_name(out.grad_fn), _fn_name(loss.grad_fn), chain,
            [(name, p.grad) for name, p in model.named_parameters()])


def _mlp_mse_training(t):
    """PyTorch's "Learning PyTorch with Examples: nn" loop, shortened, with a hidden layer."""
    t.manual_seed(0)
    x = t.linspace(-math.pi, math.pi, 200)
    y = t.sin(x)
    xx = x.unsqueeze(-1).pow(t.tensor([1, 2, 3]))
    model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1), t.nn.Flatten(0, 1))
    loss_fn = t.nn.MSELoss(reduction="sum")
    losses = []
    for _ in range(100):
        loss = loss_fn(model(xx), y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        with t.no_grad():
            for param in model.parameters():
                param -= 1e-4 * param.grad
    return losses, [(k, v) for k, v in model.state_dict().items()], _fn_name(loss.grad_fn)


def test_mlp_cross_entropy(torch_ref, et):
    close(torch_ref, et, _mlp_cross_entropy)


def test_mlp_mse_training(torch_ref, et):
    ref, ours = _mlp_mse_training(torch_ref), _mlp_mse_training(et)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-5)
    assert [k for k, _ in ours[1]] == [k for k, _ in ref[1]] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for (_, a), (_, b) in zip(ours[1], ref[1]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)
    assert ours[2] == ref[2] == "MseLossBackward0"
    assert ours[0][-1] < ours[0][0] / 2  # it learns


def test_tutorial_custom_module(torch_ref, et):
    """The tutorial's ``Polynomial3``: parameters made with ``torch.nn.Parameter`` in ``__init__``."""
    def run(t):
        class Polynomial3(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = t.nn.Parameter(t.randn(()))
                self.b = t.nn.Parameter(t.randn(()))
                self.c = t.nn.Parameter(t.randn(()))
                self.d = t.nn.Parameter(t.randn(()))

            def forward(self, x):
                return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

            def string(self):
                return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3"

        t.manual_seed(0)
        x = t.linspace(-math.pi, math.pi, 100)
        y = t.sin(x)
        model = Polynomial3()
        criterion = t.nn.MSELoss(reduction="sum")
        for _ in range(50):
            loss = criterion(model(x), y)
            model.zero_grad()
            loss.backward()
            with t.no_grad():
                for p in model.parameters():
                    p -= 1e-5 * p.grad
        return model.string()[:12], _names(model.named_parameters()), repr(model), [p for p in model.parameters()]

    close(torch_ref, et, run)


def _graph(fn, depth=0):
    if fn is None:
        return None
    return (fn.name(), [_graph(child, depth + 1) for child, _ in fn.next_functions] if depth < 4 else [])


@pytest.mark.parametrize("shape,transposed", [((4,), False), ((5, 4), False), ((2, 3, 4), False),
                                              ((2, 2, 2, 4), False), ((2, 2, 2, 4), True), ((0, 4), False)])
def test_linear_graph_for_each_input_rank(torch_ref, et, shape, transposed):
    # PyTorch flattens any contiguous input with bias to 2-D around one AddmmBackward0 (1-D too),
    # and falls back to matmul + add for a strided one.
    seen = []
    for t in (torch_ref, et):
        t.manual_seed(0)
        model = t.nn.Linear(4, 3)
        x = t.randn(*shape, requires_grad=True)
        y = model(x.transpose(0, 1) if transposed else x)
        y.sum().backward()
        seen.append((_graph(y.grad_fn), tuple(y.shape), _np(x.grad), _np(model.weight.grad)))
    (g_ref, s_ref, xg_ref, wg_ref), (g, s, xg, wg) = seen
    assert g == g_ref and s == s_ref
    np.testing.assert_allclose(xg, xg_ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(wg, wg_ref, rtol=1e-5, atol=1e-5)


# ----- More activations, losses, distances and dropout: the wrappers of F's newer functions -----

_ACTIVATIONS_2 = {
    "gelu": lambda nn: nn.GELU(),
    "gelu_tanh": lambda nn: nn.GELU(approximate="tanh"),
    "hardtanh": lambda nn: nn.Hardtanh(),
    "hardtanh_range": lambda nn: nn.Hardtanh(-0.5, 2.5),
    "relu6": lambda nn: nn.ReLU6(),
    "softsign": lambda nn: nn.Softsign(),
    "logsigmoid": lambda nn: nn.LogSigmoid(),
    "selu": lambda nn: nn.SELU(),
    "celu": lambda nn: nn.CELU(),
    "celu_alpha": lambda nn: nn.CELU(alpha=0.5),
    "mish": lambda nn: nn.Mish(),
    "hardsigmoid": lambda nn: nn.Hardsigmoid(),
    "hardswish": lambda nn: nn.Hardswish(),
    "softmin": lambda nn: nn.Softmin(dim=1),
    "softmin_dim0": lambda nn: nn.Softmin(0),
    "softmin_implicit_dim": lambda nn: nn.Softmin(),
    "glu": lambda nn: nn.GLU(),
    "glu_dim0": lambda nn: nn.GLU(dim=0),
    "threshold": lambda nn: nn.Threshold(0.25, -3.0),
    "tanhshrink": lambda nn: nn.Tanhshrink(),
}

X2 = [[0.5, -1.5, 2.0, 0.0, -4.0, 7.0], [-0.25, 3.0, -2.0, 1.0, 3.5, -0.75]]  # past hardtanh/relu6/hard* kinks


def _activation_2(name):
    def run(t):
        m = _ACTIVATIONS_2[name](t.nn)
        x = t.tensor(X2, requires_grad=True)
        y = m(x * 1)
        y.backward(t.arange(1.0, y.numel() + 1).view(y.shape))
        return y, _fn_name(y.grad_fn), _fn_name(y.grad_fn.next_functions[0][0]), x.grad

    return run


@pytest.mark.parametrize("name", sorted(_ACTIVATIONS_2))
def test_more_activations_forward_backward(torch_ref, et, name):
    # atol 1e-5: PyTorch's float32 gelu grad at -0.75 is Phi(x) + x phi(x) with its cancellation
    # (7.74205e-4), the engine's is nearer the float64 value (7.74294e-4 against 7.74278e-4)
    close(torch_ref, et, _activation_2(name), atol=1e-5)


def test_more_activations_node_names(et):
    nn = et.nn
    x = et.tensor(X2, requires_grad=True)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        names = {name: _fn_name(_ACTIVATIONS_2[name](nn)(x).grad_fn) for name in _ACTIVATIONS_2}
    assert names == {
        "gelu": "GeluBackward0", "gelu_tanh": "GeluBackward0", "hardtanh": "HardtanhBackward0",
        "hardtanh_range": "HardtanhBackward0", "relu6": "HardtanhBackward0", "softsign": "DivBackward0",
        "logsigmoid": "LogSigmoidBackward0", "selu": "EluBackward0", "celu": "CeluBackward0",
        "celu_alpha": "CeluBackward0", "mish": "MishBackward0", "hardsigmoid": "HardsigmoidBackward0",
        "hardswish": "HardswishBackward0", "softmin": "SoftmaxBackward0", "softmin_dim0": "SoftmaxBackward0",
        "softmin_implicit_dim": "SoftmaxBackward0", "glu": "GluBackward0", "glu_dim0": "GluBackward0",
        "threshold": "ThresholdBackward0", "tanhshrink": "SubBackward0"}
    y = nn.Softmin(dim=1)(et.tensor([[1.0, 2.0, 3.0]]))
    np.testing.assert_allclose(_np(y), [[0.66524096, 0.24472847, 0.09003057]], rtol=1e-6)


_INPLACE_2 = {
    "hardtanh_inplace": lambda nn: nn.Hardtanh(-0.5, 2.5, inplace=True),
    "relu6_inplace": lambda nn: nn.ReLU6(inplace=True),
    "selu_inplace": lambda nn: nn.SELU(inplace=True),
    "celu_inplace": lambda nn: nn.CELU(0.5, inplace=True),
    "mish_inplace": lambda nn: nn.Mish(inplace=True),
    "hardsigmoid_inplace": lambda nn: nn.Hardsigmoid(inplace=True),
    "hardswish_inplace": lambda nn: nn.Hardswish(inplace=True),
    "threshold_inplace": lambda nn: nn.Threshold(0.25, -3.0, inplace=True),
    "elu_inplace_alpha": lambda nn: nn.ELU(0.7, inplace=True),
    "leaky_relu_inplace_slope": lambda nn: nn.LeakyReLU(0.3, inplace=True),
    "f_elu_inplace": lambda nn: (lambda x: nn.functional.elu(x, 0.5, inplace=True)),
    "f_leaky_relu_inplace": lambda nn: (lambda x: nn.functional.leaky_relu(x, 0.1, True)),
}


def _inplace_2(name, with_name):
    def run(t):
        m = _INPLACE_2[name](t.nn)
        x = t.tensor(X2, requires_grad=True)
        h = x * 1
        y = m(h)
        y.backward(t.arange(12.0).view(2, 6))
        return y is h, h._version, y, _fn_name(y.grad_fn) if with_name else None, x.grad

    return run


@pytest.mark.parametrize("name", sorted(_INPLACE_2))
def test_more_inplace_activations(torch_ref, et, name):
    # values, grads, the version bump and the node name (EluBackward1 for elu_, selu_, ...)
    close(torch_ref, et, _inplace_2(name, True))


_REPRS_2 = {
    "activations_2": lambda t: [
        t.nn.GELU(), t.nn.GELU("tanh"), t.nn.Hardtanh(), t.nn.Hardtanh(-2, 3, True), t.nn.Hardtanh(-0.5),
        t.nn.ReLU6(), t.nn.ReLU6(inplace=True), t.nn.Softsign(), t.nn.LogSigmoid(), t.nn.SELU(), t.nn.SELU(True),
        t.nn.CELU(), t.nn.CELU(2.0, inplace=True), t.nn.Mish(), t.nn.Mish(inplace=True), t.nn.Hardsigmoid(),
        t.nn.Hardsigmoid(inplace=True), t.nn.Hardswish(), t.nn.Hardswish(True), t.nn.Softmin(), t.nn.Softmin(dim=1),
        t.nn.GLU(), t.nn.GLU(0), t.nn.Threshold(0.1, 20), t.nn.Threshold(-1.0, 0.5, inplace=True),
        t.nn.Tanhshrink()],
    "losses_2": lambda t: [t.nn.SmoothL1Loss(), t.nn.SmoothL1Loss(reduction="sum", beta=0.5), t.nn.HuberLoss(),
                           t.nn.HuberLoss("none", 2.0), t.nn.KLDivLoss(),
                           t.nn.KLDivLoss(reduction="batchmean", log_target=True)],
    "distances": lambda t: [t.nn.CosineSimilarity(), t.nn.CosineSimilarity(0, 1e-6), t.nn.PairwiseDistance(),
                            t.nn.PairwiseDistance(1.0, 1e-3, True)],
    "dropouts": lambda t: [t.nn.Dropout(), t.nn.Dropout(0.2, inplace=True), t.nn.Dropout(p=0), t.nn.Dropout(1),
                           t.nn.Dropout1d(), t.nn.Dropout2d(0.25), t.nn.Dropout3d(0.75, True)],
    "nested_2": lambda t: t.nn.Sequential(t.nn.Linear(2, 4), t.nn.GELU(), t.nn.Dropout(0.1), t.nn.Linear(4, 2),
                                          t.nn.Hardtanh(-2.0, 2.0)),
}


@pytest.mark.parametrize("name", sorted(_REPRS_2))
def test_more_reprs(torch_ref, et, name):
    def run(t):
        made = _REPRS_2[name](t)
        return [repr(m) for m in made] if isinstance(made, list) else repr(made)

    close(torch_ref, et, run)


def test_more_repr_text(et):
    nn = et.nn
    assert [repr(m) for m in (nn.GELU(), nn.GELU("tanh"), nn.Hardtanh(), nn.ReLU6(True), nn.Hardswish(True),
                              nn.Softmin(), nn.GLU(), nn.Threshold(0.1, 20), nn.CELU(2.0, True), nn.Dropout(),
                              nn.Dropout2d(0.2, True), nn.SmoothL1Loss(beta=0.5), nn.KLDivLoss(log_target=True),
                              nn.PairwiseDistance(3, 1e-3, True), nn.CosineSimilarity())] == [
        "GELU(approximate='none')", "GELU(approximate='tanh')", "Hardtanh(min_val=-1.0, max_val=1.0)",
        "ReLU6(inplace=True)", "Hardswish()", "Softmin(dim=None)", "GLU(dim=-1)", "Threshold(threshold=0.1, value=20)",
        "CELU(alpha=2.0, inplace=True)", "Dropout(p=0.5, inplace=False)", "Dropout2d(p=0.2, inplace=True)",
        "SmoothL1Loss()", "KLDivLoss()", "PairwiseDistance()", "CosineSimilarity()"]
    m = nn.PairwiseDistance(3, 1e-3, True)
    assert (m.norm, m.eps, m.keepdim) == (3, 1e-3, True)
    assert (nn.ReLU6().min_val, nn.ReLU6().max_val) == (0.0, 6.0)
    assert nn.KLDivLoss(log_target=True).log_target is True and nn.HuberLoss(delta=2.0).delta == 2.0


_BAD_ARGS = {
    "dropout_p_negative": lambda t: t.nn.Dropout(-0.1),
    "dropout_p_above_one": lambda t: t.nn.Dropout(p=1.5),
    "dropout2d_p": lambda t: t.nn.Dropout2d(2),
    "dropout1d_p": lambda t: t.nn.Dropout1d(-1),
    "hardtanh_equal": lambda t: t.nn.Hardtanh(1.0, 1.0),
    "hardtanh_reversed": lambda t: t.nn.Hardtanh(2, -2),
    "hardtanh_min_value": lambda t: repr(t.nn.Hardtanh(min_value=-3.0)),
    "hardtanh_max_value": lambda t: repr(t.nn.Hardtanh(max_value=0.5, min_value=-0.5)),
    "gelu_approximate": lambda t: t.nn.GELU("fast")(t.ones(2)),
    "glu_odd": lambda t: t.nn.GLU()(t.ones(2, 3)),
    "softmin_implicit_dim_warns": lambda t: t.nn.Softmin()(t.tensor([[1.0, 2.0]])),
    "smooth_l1_negative_beta": lambda t: t.nn.SmoothL1Loss(beta=-1.0)(t.ones(2), t.zeros(2)),
    "huber_zero_delta": lambda t: t.nn.HuberLoss(delta=0.0)(t.ones(2), t.zeros(2)),
    "kl_div_reduction": lambda t: t.nn.KLDivLoss(reduction="avg")(t.ones(2), t.ones(2)),
    "kl_div_mean_warns": lambda t: t.nn.KLDivLoss()(t.zeros(2), t.tensor([0.5, 0.5])),
    "kl_div_legacy": lambda t: t.nn.KLDivLoss(size_average=False).reduction,
    "smooth_l1_legacy": lambda t: t.nn.SmoothL1Loss(reduce=False).reduction,
    "unknown_kwarg": lambda t: t.nn.Softsign(foo=1),
    "threshold_missing_value": lambda t: t.nn.Threshold(0.5),
    "dropout1d_4d": lambda t: t.nn.Dropout1d()(t.ones(1, 2, 3, 4)),
    "dropout2d_2d_warns": lambda t: t.nn.Dropout2d().eval()(t.ones(2, 3)),
    "dropout2d_3d_warns": lambda t: t.nn.Dropout2d().eval()(t.ones(2, 3, 4)),
    "dropout3d_3d_warns": lambda t: t.nn.Dropout3d().eval()(t.ones(2, 3, 4)).shape,
    "dropout2d_1d_train": lambda t: t.nn.Dropout2d()(t.ones(3)),
}


@pytest.mark.parametrize("name", sorted(_BAD_ARGS))
def test_more_module_errors(torch_ref, et, name):
    close(torch_ref, et, _BAD_ARGS[name])


def test_more_module_error_text(et):
    nn = et.nn
    with pytest.raises(ValueError, match=r"^dropout probability has to be between 0 and 1, but got 1.5$"):
        nn.Dropout(1.5)
    with pytest.raises(AssertionError, match=r"^max_val \(-2\) must be greater than min_val \(2\)$"):
        nn.Hardtanh(2, -2)
    with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated and renamed to `min_val`"):
        assert nn.Hardtanh(min_value=-3.0).min_val == -3.0


def _loss_case_2(module, target, pred=None):
    def run(t):
        x = t.tensor(pred or X, requires_grad=True)
        y = target(t)
        loss = module(t)(x * 1, y)
        loss.backward(t.ones_like(loss))
        return loss, _fn_name(loss.grad_fn), x.grad, y.grad

    return run


_T2 = [[1.0, -1.0, 1.25, 0.5], [0.0, 0.75, -1.0, 1.1]]
_LOGP = [[-1.2, -0.4, -2.3, -0.9], [-0.1, -3.0, -1.5, -0.7]]
_P = [[0.1, 0.4, 0.3, 0.2], [0.0, 0.5, 0.25, 0.25]]
_LOSSES_2 = {
    "smooth_l1": _loss_case_2(lambda t: t.nn.SmoothL1Loss(), lambda t: t.tensor(_T2)),
    "smooth_l1_beta_sum": _loss_case_2(lambda t: t.nn.SmoothL1Loss(reduction="sum", beta=0.5),
                                       lambda t: t.tensor(_T2, requires_grad=True)),
    "smooth_l1_beta0_none": _loss_case_2(lambda t: t.nn.SmoothL1Loss(reduction="none", beta=0.0),
                                         lambda t: t.tensor(_T2)),
    "huber": _loss_case_2(lambda t: t.nn.HuberLoss(), lambda t: t.tensor(_T2)),
    "huber_delta_none": _loss_case_2(lambda t: t.nn.HuberLoss(reduction="none", delta=0.5),
                                     lambda t: t.tensor(_T2, requires_grad=True)),
    "huber_sum": _loss_case_2(lambda t: t.nn.HuberLoss("sum", 2.0), lambda t: t.tensor(_T2)),
    "kl_div_mean": _loss_case_2(lambda t: t.nn.KLDivLoss(), lambda t: t.tensor(_P), _LOGP),
    "kl_div_batchmean": _loss_case_2(lambda t: t.nn.KLDivLoss(reduction="batchmean"),
                                     lambda t: t.tensor(_P, requires_grad=True), _LOGP),
    "kl_div_sum": _loss_case_2(lambda t: t.nn.KLDivLoss(reduction="sum"), lambda t: t.tensor(_P), _LOGP),
    "kl_div_none": _loss_case_2(lambda t: t.nn.KLDivLoss(reduction="none"), lambda t: t.tensor(_P), _LOGP),
    "kl_div_log_target": _loss_case_2(lambda t: t.nn.KLDivLoss(reduction="batchmean", log_target=True),
                                      lambda t: t.tensor(_LOGP, requires_grad=True), _LOGP[::-1]),
}


@pytest.mark.parametrize("name", sorted(_LOSSES_2))
def test_more_losses(torch_ref, et, name):
    close(torch_ref, et, _LOSSES_2[name])


def test_more_loss_values(et):
    nn = et.nn
    x, y = et.tensor([0.0, 0.0, 0.0]), et.tensor([0.25, 1.0, 3.0])
    np.testing.assert_allclose(_np(nn.SmoothL1Loss(reduction="none")(x, y)), [0.03125, 0.5, 2.5])
    np.testing.assert_allclose(_np(nn.HuberLoss(reduction="none", delta=2.0)(x, y)), [0.03125, 0.5, 4.0])
    loss = nn.KLDivLoss(reduction="batchmean")(et.tensor([[-1.0, -1.0]]), et.tensor([[0.5, 0.5]]))
    np.testing.assert_allclose(_np(loss), 1.0 + math.log(0.5), rtol=1e-6)
    assert _fn_name(loss.grad_fn) is None and _fn_name(nn.HuberLoss()(x.requires_grad_(), y).grad_fn) == \
        "HuberLossBackward0"


def _distance_case(module, shape1, shape2):
    def run(t):
        g = np.random.default_rng(7)
        x1 = t.tensor(g.uniform(-2, 2, shape1).tolist(), requires_grad=True)
        x2 = t.tensor(g.uniform(-2, 2, shape2).tolist(), requires_grad=True)
        y = module(t.nn)(x1, x2)
        y.backward(t.arange(1.0, y.numel() + 1).view(y.shape))
        return y, _fn_name(y.grad_fn), x1.grad, x2.grad

    return run


_DISTANCES = {
    "cosine": _distance_case(lambda nn: nn.CosineSimilarity(), (3, 4), (3, 4)),
    "cosine_dim0": _distance_case(lambda nn: nn.CosineSimilarity(dim=0), (3, 4), (3, 4)),
    "cosine_broadcast": _distance_case(lambda nn: nn.CosineSimilarity(dim=-1, eps=1e-6), (2, 3, 4), (3, 4)),
    "pairwise": _distance_case(lambda nn: nn.PairwiseDistance(), (3, 4), (3, 4)),
    "pairwise_p1_keepdim": _distance_case(lambda nn: nn.PairwiseDistance(p=1.0, keepdim=True), (3, 4), (3, 4)),
    "pairwise_p3_eps": _distance_case(lambda nn: nn.PairwiseDistance(3.0, eps=1e-2), (2, 3, 4), (3, 4)),
    "pairwise_1d": _distance_case(lambda nn: nn.PairwiseDistance(), (4,), (4,)),
}


@pytest.mark.parametrize("name", sorted(_DISTANCES))
def test_distance_modules(torch_ref, et, name):
    close(torch_ref, et, _DISTANCES[name])


def test_distance_values(et):
    nn = et.nn
    y = nn.CosineSimilarity()(et.tensor([[1.0, 0.0], [1.0, 1.0]]), et.tensor([[0.0, 1.0], [2.0, 2.0]]))
    np.testing.assert_allclose(_np(y), [0.0, 1.0], atol=1e-7)
    d = nn.PairwiseDistance(eps=0.0)(et.tensor([[3.0, 0.0]]), et.tensor([[0.0, 4.0]]))
    assert d.tolist() == [5.0] and _fn_name(d.requires_grad_().grad_fn) is None


# Dropout: the identity in eval(), PyTorch's seeded mask in train()

def test_dropout_eval_is_identity(torch_ref, et):
    def run(t):
        out = []
        for m in (t.nn.Dropout(), t.nn.Dropout(0.9, inplace=True), t.nn.Dropout1d(), t.nn.Dropout2d(0.3),
                  t.nn.Dropout3d()):
            m.eval()
            x = t.randn(2, 3, 4, 5, 6, requires_grad=True) if isinstance(m, t.nn.Dropout3d) else \
                t.randn(2, 3, 4, requires_grad=True)
            h = x * 1
            y = m(h)
            out.append((m.training, y is h, _fn_name(y.grad_fn), t.equal(y, h)))
        m = t.nn.Dropout1d().eval()
        h = t.ones(3, 4)
        y = m(h)
        out.append((y is h, y._base is h, _fn_name(y.grad_fn), y.shape))
        return out

    close(torch_ref, et, run)
    x = et.ones(3)
    assert et.nn.Dropout(0.5).eval()(x) is x


_DROPOUT_TRAIN = {
    "dropout": (lambda nn: nn.Dropout(), (4, 5)),
    "dropout_p02": (lambda nn: nn.Dropout(0.2), (3, 7)),
    "dropout_p0": (lambda nn: nn.Dropout(0.0), (3, 4)),
    "dropout_p1": (lambda nn: nn.Dropout(1.0), (3, 4)),
    "dropout_inplace": (lambda nn: nn.Dropout(0.3, inplace=True), (4, 5)),
    "dropout_p1_inplace": (lambda nn: nn.Dropout(1, inplace=True), (2, 2)),
    "dropout1d": (lambda nn: nn.Dropout1d(0.4), (3, 4, 5)),
    "dropout1d_unbatched": (lambda nn: nn.Dropout1d(0.4), (6, 5)),
    "dropout1d_unbatched_inplace": (lambda nn: nn.Dropout1d(0.4, inplace=True), (6, 5)),
    "dropout2d": (lambda nn: nn.Dropout2d(), (2, 5, 3, 3)),
    "dropout2d_p1": (lambda nn: nn.Dropout2d(1.0), (2, 3, 2, 2)),
    "dropout2d_inplace": (lambda nn: nn.Dropout2d(0.6, True), (2, 5, 3, 3)),
    "dropout3d": (lambda nn: nn.Dropout3d(0.3), (2, 4, 2, 2, 2)),
    "dropout3d_unbatched": (lambda nn: nn.Dropout3d(0.3), (4, 2, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(_DROPOUT_TRAIN))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_train_is_pytorchs(torch_ref, et, name, dtype):
    make, shape = _DROPOUT_TRAIN[name]

    def run(t):
        t.manual_seed(3)
        m = make(t.nn)
        x = t.randn(*shape, dtype=getattr(t, dtype), requires_grad=True)
        h = x * 1
        y = m(h)
        y.backward(t.ones_like(y))
        return m.training, y, y is h, h._version, _fn_name(y.grad_fn), x.grad, t.rand(2)  # the draws used

    close(torch_ref, et, run)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_dropout_train_zeros_and_scaling(et, p):
    et.manual_seed(0)
    m = et.nn.Dropout(p)
    assert m.training
    y = m(et.ones(200, 100))
    d = _np(y)
    zeros = (d == 0).mean()
    assert abs(zeros - p) < 0.02
    np.testing.assert_allclose(d[d != 0], np.float32(1) / np.float32(1 - p), rtol=1e-7)
    assert _fn_name(y.grad_fn) is None and y.dtype == et.float32


def test_dropout_p0_p1_and_channels(et):
    nn = et.nn
    x = et.randn(4, 6, requires_grad=True)
    assert nn.Dropout(0.0)(x) is x
    y = nn.Dropout(1.0)(x)
    assert y.tolist() == [[0.0] * 6] * 4 and _fn_name(y.grad_fn) == "MulBackward0"
    et.manual_seed(1)
    y = _np(nn.Dropout2d(0.5)(et.ones(8, 16, 3, 3)))
    per_channel = y.reshape(8, 16, 9)
    assert ((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1)).all()  # whole channels, scaled by 2
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
