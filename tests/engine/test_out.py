"""``out=``: each function PyTorch gives it writes into the given tensor (resized, with PyTorch's
warning when it had elements), returns it, refuses what requires grad, and checks the out dtype
with its own rule and message; against PyTorch for every such function."""
import pytest

from tests.engine.opinfo import _close, outcome
from tests.engine.out_samples import RANDOM, SAMPLES, function


def _call(t, name, make_out, grad=False, seed=None):
    """``name``'s sample with ``out=make_out(t, plain result)``: (the returned object is out, out)."""
    f = function(t, name)
    args, kwargs = (SAMPLES | RANDOM)[name](t)
    if seed is not None:
        t.manual_seed(seed)
    result = f(*args, **kwargs)
    out = make_out(t, result)
    if grad:
        args = [a.detach().requires_grad_() if isinstance(a, t.Tensor) and a.dtype.is_floating_point else a
                for a in args]
    if seed is not None:
        t.manual_seed(seed)
    returned = f(*args, **kwargs, out=out)
    same = all(r is o for r, o in zip(returned, out)) if isinstance(out, tuple) else returned is out
    return same, out


def _empty_like_result(dtype=None, numel=0):
    def make(t, result):
        if isinstance(result, tuple):
            return tuple(t.zeros(numel, dtype=(dtype or r.dtype) if i == 0 else r.dtype) for i, r in enumerate(result))
        return t.zeros(numel, dtype=dtype or result.dtype)
    return make


def _comparable(o):
    """An outcome with an error's first line (PyTorch then lists the overloads) and only the resize
    warnings (PyTorch gives its deprecation warnings once a process)."""
    result, caught = o
    if result[0] == "raised":
        result = result[:2] + (result[2].split("\n")[0],)
    return result, [w for w in caught if w[1].startswith("An output with one or more elements was resized")]


def _same(torch_ref, et, fn):
    ours, ref = _comparable(outcome(fn, et)), _comparable(outcome(fn, torch_ref))
    assert _close(ours, ref), f"\nengine: {ours}\ntorch:  {ref}"


_DTYPES = {"float32": None, "float64": "float64", "int64": "int64", "bool": "bool"}


@pytest.mark.parametrize("dtype", list(_DTYPES))
@pytest.mark.parametrize("name", list(SAMPLES))
def test_out_dtypes_match_torch(torch_ref, et, name, dtype):
    """The result written into an empty out tensor of each dtype, or PyTorch's error for it."""
    def fn(t):
        dt = getattr(t, _DTYPES[dtype]) if _DTYPES[dtype] else None
        return _call(t, name, _empty_like_result(dt))
    _same(torch_ref, et, fn)


# (PyTorch's float32 eigenvectors written into a resized out differ from its others in the 6th decimal)
_LAPACK_VECTORS = ("linalg.eigh", "linalg.svd")


@pytest.mark.parametrize("name", [n for n in SAMPLES if n not in _LAPACK_VECTORS])
def test_out_resized_with_warning(torch_ref, et, name):
    """An out tensor of the wrong size with elements: resized, with PyTorch's UserWarning (none for
    factories and addbmm; the reduced dim kept in the shapes mode and kthvalue show)."""
    _same(torch_ref, et, lambda t: _call(t, name, _empty_like_result(numel=1)))


# Functions PyTorch computes with out= from inputs that require grad, giving an out tensor that
# requires grad with a grad_fn of NotImplemented; the engine gives the values without a graph.
_NOT_IMPLEMENTED_GRAD_FN = {"floor_divide", "softmax", "log_softmax", "special.ndtr", "heaviside", "diag", "inner",
                            "tensordot", "linalg.matrix_norm", "linalg.norm"}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_out_refuses_grad(torch_ref, et, name):
    """An input that requires grad: PyTorch's error, naming the op that runs (none for the functions
    whose result has no derivative)."""
    def fn(t):
        same, out = _call(t, name, _empty_like_result(), grad=True)
        return same, out.detach() if name in _NOT_IMPLEMENTED_GRAD_FN else out
    _same(torch_ref, et, fn)


def test_normal_out(torch_ref, et):
    """``normal``'s out tensor must have the result's shape already (PyTorch broadcasts against it)."""
    def fn(t, shape):
        t.manual_seed(0)
        out = t.zeros(shape)
        return t.normal(t.ones(2, 3), 2.0, out=out) is out, out

    _same(torch_ref, et, lambda t: fn(t, (2, 3)))
    _same(torch_ref, et, lambda t: fn(t, (0,)))


@pytest.mark.parametrize("name", list(RANDOM))
def test_out_of_drawing_functions(torch_ref, et, name):
    """The draws written into out after the same seed, in the out tensor's dtype."""
    for dtype in _DTYPES:
        def fn(t):
            dt = getattr(t, _DTYPES[dtype]) if _DTYPES[dtype] else None
            return _call(t, name, _empty_like_result(dt), seed=0)
        _same(torch_ref, et, fn)


def _into_view(t):
    base = t.zeros(2, 4)
    t.mul(t.ones(2, 2), 3, out=base[:, ::2])
    return base


def _input_as_out(t):
    x = t.tensor([1.0, 2.0])
    return t.add(x, t.tensor([10.0, 20.0]), out=x) is x, x


def _leaf_out_without_grad(t):
    w = t.zeros(2, requires_grad=True)
    with t.no_grad():
        t.add(t.ones(2), 1, out=w)
    return w, w.is_leaf, w.grad_fn is None


def _version(t):
    r = t.empty(2)
    v = r._version
    t.exp(t.zeros(2), out=r)
    return r._version - v


def _base_sees_it(t):
    base = t.zeros(4)
    t.exp(t.zeros(2), out=base[1:3])
    return base


def _resized(t):
    x = t.tensor([1.0, 2.0, 3.0])
    x.resize_(2)
    shrunk = x.clone()
    x.resize_(3)  # (the memory a shrink kept: the old third element)
    return shrunk, x, x.resize_(1, 2), x.resize_as_(t.ones(2, 1)).shape


def _reused(t):
    r = t.ones(3)
    r.resize_(0)
    return t.add(t.ones(2, 2), 1, out=r), r.shape


CASES = {
    "the blitz: torch.add(x, y, out=result)":
        lambda t: (lambda result: (t.add(t.ones(5, 3), t.eye(5, 3), out=result), result))(t.empty(5, 3)),
    "into a view, written through": _into_view,
    "an input as out": _input_as_out,
    "integer inputs into a float out": lambda t: t.add(t.tensor([1, 2]), 3, out=t.empty(0)),
    "bool result into a float out": lambda t: t.lt(t.tensor([1.0, 3.0]), 2, out=t.zeros(2)),
    "out overlaps an input": lambda t: (lambda a: t.add(a[:4], 1, out=a[1:5]))(t.arange(6.0)),
    "out is a list": lambda t: t.add(t.ones(2), 1, out=[1]),
    "out is a tuple where a tensor goes": lambda t: t.exp(t.ones(2), out=(t.empty(0),)),
    "a tensor where a tuple goes": lambda t: t.sort(t.ones(2), out=t.empty(0)),
    "a tuple of the wrong length": lambda t: t.max(t.ones(2, 2), 0, out=(t.empty(0),)),
    "sort_out": lambda t: repr(t.sort(t.tensor([2.0, 1.0]), out=(t.empty(0), t.empty(0, dtype=t.int64)))),
    "linalg_qr_out": lambda t: type(t.linalg.qr(t.eye(2), out=(t.empty(0), t.empty(0)))).__name__,
    "out requires grad": lambda t: t.exp(t.ones(2), out=t.zeros(2, requires_grad=True)),
    "a leaf that requires grad, under no_grad": _leaf_out_without_grad,
    "the version counter": _version,
    "the base sees what its view got": _base_sees_it,
    "a factory's dtype from out": lambda t: t.arange(3, out=t.empty(0, dtype=t.float64)),
    "F.normalize(out=)": lambda t: (lambda o: (t.nn.functional.normalize(t.tensor([[3.0, 4.0]]), out=o) is o, o))(
        t.empty(0)),
    "F.normalize(out=) refuses grad":
        lambda t: t.nn.functional.normalize(t.ones(1, 2, requires_grad=True), out=t.empty(0)),
    "clamp_max(t, tensor)": lambda t: t.clamp_max(t.tensor([1.0, 2.0, 3.0]), t.tensor([2.0, 2.0, 2.0]), out=t.empty(0)),
    "resize_": _resized,
    "resize_(0), then out=: no warning": _reused,
    "resize_ of a tensor that requires grad": lambda t: t.ones(2, requires_grad=True).resize_(1),
    "resize_ of a non-leaf": lambda t: (t.ones(2, requires_grad=True) * 2).resize_(1),
    "resize_ of a transposed tensor: memory order": lambda t: t.arange(6.0).reshape(2, 3).t().resize_(2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_out_cases_match_torch(torch_ref, et, name):
    _same(torch_ref, et, CASES[name])


WARNING_LINES = {
    "torch.std: degrees of freedom": lambda t: t.std(t.ones(1), dim=0),
    "t.std: degrees of freedom": lambda t: t.ones(1).std(dim=0),
    "t.var(axis=...)": lambda t: t.ones(2, 3).var(axis=1, correction=5),
    "an out tensor resized": lambda t: t.add(t.ones(2), 1, out=t.ones(3)),
}


@pytest.mark.parametrize("name", list(WARNING_LINES))
def test_warnings_point_at_the_caller(torch_ref, et, name):
    """A warning from a function the engine wraps (``out=``, NumPy's names) names the caller's file,
    as PyTorch's does, so the playground shows its line and the "default" filter counts it there."""
    import warnings

    for t in (torch_ref, et):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            WARNING_LINES[name](t)
        assert [w.filename for w in caught] == [__file__], (t.__name__, [(w.filename, w.lineno) for w in caught])


def _takes_out(f, torch_ref):
    """Whether PyTorch's ``f`` has an ``out=`` parameter: its argument parser names it when given a wrong one."""
    x, m, i = torch_ref.ones(2), torch_ref.eye(2), torch_ref.zeros(2, dtype=torch_ref.int64)
    said = ""
    for args in ((x,), (x, x), ([x],), (2,), (x, 0), (m, 0), (x, 1, 1), ((2,),), (), (m,), (m, m), (x, 2), (m, m, m),
                 (x, 0, x), ((2,), 1.5), (x, 2, 0, 0.5), (x, x, 0.5), (1, x), (x, 1, 0, x), (x, 0, i, x),
                 (x, 0, i, x, "sum"), (m, (1, 0)), (x, [1, 1]), (x, 0, 0, 1)):
        try:
            f(*args, out=object())
        except Exception as e:  # noqa: BLE001 - the message is what is read
            said += str(e)
    return "'out' must be" in said or " out = None" in said


def test_every_function_with_out_is_wrapped(torch_ref, et):
    """The engine's list of functions taking out= is PyTorch's (for the functions the engine has),
    and each has a sample above."""
    from engine import _out

    for prefix, mod, emod in (("", torch_ref, et), ("linalg.", torch_ref.linalg, et.linalg),
                              ("special.", torch_ref.special, et.special)):
        for name in dir(emod):
            f = getattr(mod, name, None)
            if name.startswith("_") or not callable(f) or isinstance(f, type) or not callable(getattr(emod, name)):
                continue
            if name in ("std_mean", "var_mean") or f.__module__ not in (None, "torch", "torch._C", mod.__name__):
                continue  # (their out= is for a different overload PyTorch's parser lists; Python-written functions)
            assert _takes_out(f, torch_ref) == (prefix + name in _out.NAMES), prefix + name
    covered = {n.split("(")[0] for n in (*SAMPLES, *RANDOM)} | {"normal"}
    assert sorted(_out.NAMES - covered) == []
