"""PyTorch's CPU sampling kernels past ``rand``/``randn``: ``bernoulli``, ``multinomial`` and the
in-place fills (``bernoulli_``, ``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``,
``random_``, ``uniform_``, ``normal_``) and ``poisson``. Each draws what PyTorch draws from the same generator, one
element at a time in memory order, and transforms it as PyTorch does (in double unless PyTorch
uses the tensor's type), so a seeded sample is PyTorch's sample.

A fill on a tensor that requires grad records PyTorch's node for it (``ExponentialBackward0``,
...), whose grads are zeros: a sample does not depend on what it overwrote.
"""
import math
import operator

import numpy as np

from . import _grad_mode, _ops, _random
from ._random import fill_in_memory_order, generator_or_default
from ._tensor import _CPP_TYPE_NAMES, Tensor, _wrap, record

_F64 = np.dtype(np.float64)
_DIGITS = {"e": 11, "f": 24, "d": 53}  # a float's values that are whole numbers: random_()'s range
_NODES = {}


def _node(name, n_inputs=1):
    """The op of a sampling node: its grads are zeros."""
    op = _NODES.get(name)
    if op is None:
        zeros = lambda g, ans, *inputs, **attrs: _ops._zero_grad(g)  # noqa: E731
        op = _NODES[name] = _ops.defop(name, *[zeros] * n_inputs)
    return op


# ``bernoulli(x, p)``: PyTorch has no derivative for this overload
_BERNOULLI_SCALAR = _ops.defop("NotImplemented", _ops._not_implemented("bernoulli"),
                               cpp_name="torch::autograd::NotImplemented")


def _fill(self, draw, node, alongside=()):
    """Fill ``self`` in place with ``draw(shape, *alongside)``; the alongside tensors (bernoulli's
    probabilities) arrive broadcast to ``self`` and in the same order as the draws."""
    self._check_inplace()
    arrays = [a._data for a in alongside]
    if _grad_mode._enabled and (self._requires_grad or any(a._requires_grad for a in alongside)):
        data = np.empty_like(self._data)
        fill_in_memory_order(data, draw, *arrays)
        return self._adopt(record(_node(node, 1 + len(alongside)), (self,) + tuple(alongside), data))
    fill_in_memory_order(self._data, draw, *arrays)
    self._bump()
    return self


def _float_only(self, name, type_name):
    if self._data.dtype.kind != "f":
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {type_name}")


def _doubles(generator, dt, transform, post=None):
    """A draw of uniform doubles through ``transform``, one at a time in Python's (the C library's)
    double maths, as PyTorch's serial kernels compute: NumPy's own log1p or tan can differ from
    libm's in the last bit. Then ``post`` on the array, and the rounding to ``dt``."""
    g = generator_or_default(generator)

    def draw(shape):
        n = math.prod(shape)
        out = np.fromiter(map(transform, g._unit(n, _F64).tolist()), np.float64, n)
        return (out if post is None else post(out)).reshape(shape).astype(dt)

    return draw


def _not_kernel(self, kernel):
    if self._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_ops._scalar_type(self)}\'')


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    _not_kernel(self, "check_uniform_bounds")
    g, dt = generator_or_default(generator), self._data.dtype
    top = float(np.finfo(dt).max)
    for name, v in (("from", a), ("to", b)):
        if not -top <= v <= top:
            raise RuntimeError(f"{name} is out of bounds for {_CPP_TYPE_NAMES[dt.name]}")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    return _fill(self, lambda shape: g.uniform(shape, dt, a, b), "UniformBackward0")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _not_kernel(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    g, dt = generator_or_default(generator), self._data.dtype
    return _fill(self, lambda shape: g.normal(shape, dt, mean, std), "NormalBackward0")


def exponential_(self, lambd=1.0, *, generator=None):
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _float_only(self, "Exponential", _ops._scalar_type(self))
    return _fill(self, _doubles(generator, self._data.dtype, lambda u: -1.0 / lambd * math.log1p(-u)),
                 "ExponentialBackward0")


def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    scale = math.log1p(-p)
    return _fill(self, _doubles(generator, self._data.dtype, lambda u: (math.log(u) if u else -math.inf) / scale, np.ceil),
                 "GeometricBackward0")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _float_only(self, "Cauchy", _CPP_TYPE_NAMES[self._data.dtype.name])
    return _fill(self, _doubles(generator, self._data.dtype, lambda u: median + sigma * math.tan(math.pi * (u - 0.5))),
                 "CauchyBackward0")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    _not_kernel(self, "log_normal_cpu")
    g, dt = generator_or_default(generator), self._data.dtype

    def draw(shape):  # lognormal_distribution<double>: Box-Muller one value at a time, the pair's second kept
        n = math.prod(shape)
        return np.fromiter((math.exp(g._normal_scalar(mean, std)) for _ in range(n)), np.float64, n).reshape(shape)

    return _fill(self, lambda shape: draw(shape).astype(dt), "LogNormalBackward0")


def random_(self, *args, generator=None, **kwargs):
    """``random_()``, ``random_(to)`` or ``random_(from, to)``; ``to=None`` runs to the type's top."""
    only_to = len(args) + len(kwargs) == 1 and "from" not in kwargs
    bounds = _random_bounds(args, kwargs)
    dt = self._data.dtype
    g = generator_or_default(generator)
    if bounds is None:  # uniform_int: the type's whole range (for a float, its exact integers)
        wide = dt in (np.float64, np.int64)
        top = 2 if dt.kind == "b" else _top(dt)

        def draw(shape):
            n = math.prod(shape)
            return ((g._u64(n) if wide else g._u32(n)) % np.uint64(top)).reshape(shape).astype(dt)
        return _fill(self, draw, "RandomBackward2")
    low, high = bounds
    if high is None:  # from ``low`` to the type's top
        high = _top(dt)
    elif not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    node = "RandomBackward1" if only_to else "RandomBackward0"
    return _fill(self, lambda shape: g.integers(shape, low, high).astype(dt), node)


def _top(dt):
    """One past the largest value ``random_`` draws for ``dt``: a float's largest exact integer + 1."""
    return (1 << _DIGITS[dt.char]) + 1 if dt.kind == "f" else int(np.iinfo(dt).max) + 1


def _random_bounds(args, kwargs):
    given = list(args)
    if "from" in kwargs:
        given.insert(0, kwargs.pop("from"))
    if "to" in kwargs:
        given.append(kwargs.pop("to"))
    if kwargs or len(given) > 2 or any(v is not None and not isinstance(v, (int, np.integer)) or isinstance(v, bool)
                                       for v in given):
        got = ", ".join(type(v).__name__ for v in args)
        raise TypeError(
            f"random_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (*, torch.Generator generator = None)\n"
            " * (int from, int to, *, torch.Generator generator = None)\n"
            " * (int to, *, torch.Generator generator = None)\n")
    if not given:
        return None
    if len(given) == 1:
        return 0, given[0]
    return given[0], given[1]


def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        draw = _against_tensor(p, generator, self._data.dtype)
        _ops._check_expandable(p._data.shape, self._data.shape, self._data.shape)
        return _fill(self, draw, "BernoulliBackward1", (p,))
    return _fill(self, _against_number(p, generator, self._data.dtype), "BernoulliBackward2")


def bernoulli(input, p=None, *, generator=None):
    """``torch.bernoulli(probs)``: 1 with each element's probability; ``bernoulli(x, p)``: shaped like x."""
    _ops.need_tensor("bernoulli", "input", 1, input)
    d = input._data
    data = np.empty(d.shape, d.dtype)  # (contiguous, as PyTorch makes it)
    if p is not None:
        fill_in_memory_order(data, _against_number(p, generator, d.dtype))
        return record(_BERNOULLI_SCALAR, (input,), data)
    fill_in_memory_order(data, _against_tensor(input, generator, d.dtype), d)
    return record(_node("BernoulliBackward0"), (input,), data)


def _against_tensor(p, generator, dt):
    """bernoulli's draw against a tensor of probabilities: float draws for a float or half ``p``
    (bernoulli_distribution<float>), double draws for a double ``p``."""
    pd = p._data
    if pd.dtype.kind != "f":
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for \'{_ops._scalar_type(p)}\'')
    if pd.size and not (np.all(pd >= 0) and np.all(pd <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
                           "improved?  If so, please report an enhancement request to PyTorch.)")
    g, unit = generator_or_default(generator), _F64 if pd.dtype == np.float64 else np.dtype(np.float32)
    return lambda shape, probs: (g._unit(math.prod(shape), unit).reshape(shape) < probs).astype(dt)


def _against_number(p, generator, dt):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    g = generator_or_default(generator)
    return lambda shape: (g._unit(math.prod(shape), _F64).reshape(shape) < p).astype(dt)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Category indices drawn from each row's weights: PyTorch's exponential race (argmax or topk
    of ``p / Exp(1)``) without replacement or for one sample, else its inverse-CDF binary search."""
    _ops.need_tensor("multinomial", "input", 1, input)
    if type(num_samples) is not int:
        try:
            num_samples = operator.index(num_samples)
        except TypeError:
            raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                            f"{type(num_samples).__name__}") from None
    d = input._data
    if d.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if d.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_ops._scalar_type(input)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = d.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = d.reshape(d.shape[0] if d.ndim == 2 else 1, n_cat)
    result = np.zeros((rows.shape[0], num_samples), np.int64)
    g = generator_or_default(generator)
    if result.size:
        if not replacement or num_samples == 1:
            if not n_cat:
                raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                                   "identity.")
            if not (np.max(d) < np.inf and np.min(d) >= 0):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
            if np.any(np.sum(rows, axis=1) == 0):
                raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
            q = np.empty_like(rows)
            fill_in_memory_order(q, _doubles(generator, np.float64, lambda u: -math.log1p(-u)))
            race = rows / q
            # (topk's order among equal keys, zero weights when drawing more than the nonzero ones, may differ)
            result[...] = np.argsort(-race, axis=1, kind="stable")[:, :num_samples]
        else:
            for i, row in enumerate(rows):
                result[i] = _with_replacement(row, num_samples, g)
    return _wrap(result.reshape(d.shape[:-1] + (num_samples,)))


def _with_replacement(row, n, g):
    bad = np.flatnonzero(~(row >= 0) | ~np.isfinite(row))
    if bad.size:
        v = row[bad[0]]
        kind = "< 0" if not v >= 0 else "= infinity or NaN"
        raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {kind})")
    acc = row.dtype if row.dtype != np.float16 else np.dtype(np.float32)
    cum = np.add.accumulate(row.astype(acc))  # (sequential, in the row's type, as PyTorch sums)
    total = cum[-1]
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cum = cum / total
    cum[-1] = 1
    # the first bucket whose cumulative weight is not below the draw (a double)
    return np.searchsorted(cum.astype(np.float64), g._unit(n, _F64), side="left")


def poisson(input, generator=None):
    """A Poisson count for each rate: PyTorch's sample_poisson, the transformed rejection method
    (Hormann 1993) from rate 10, a product of uniforms below it."""
    _ops.need_tensor("poisson", "input", 1, input)
    if generator is not None and not isinstance(generator, _random.Generator):
        raise _ops.tensor_expected("poisson", "generator", 2, generator, "torch.Generator")
    d = input._data
    if d.dtype.kind != "f":
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{_ops._scalar_type(input)}\'')
    if d.size and not np.all(d >= 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    g = generator_or_default(generator)
    uniform = lambda: g._unit(1, _F64).item()  # noqa: E731  (rejection draws a varying number)
    out = np.empty(d.shape, d.dtype)
    fill_in_memory_order(out, lambda shape, rates: np.array(
        [_sample_poisson(r, uniform) for r in rates.ravel().tolist()], np.float64).reshape(shape), d)
    return record(_node("PoissonBackward0"), (input,), out)


def _sample_poisson(lam, uniform):
    if lam >= 10:
        if math.isinf(lam):
            return -(1 << 63)  # (PyTorch's cast of the NaN its arithmetic makes)
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or us < 0.013 and v > us:
                continue
            if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= uniform()
        if prod <= enlam:
            return x
        x += 1


for _name, _fn in (("uniform_", uniform_), ("normal_", normal_), ("exponential_", exponential_),
                   ("geometric_", geometric_), ("cauchy_", cauchy_), ("log_normal_", log_normal_),
                   ("random_", random_), ("bernoulli_", bernoulli_), ("bernoulli", bernoulli),
                   ("multinomial", multinomial)):
    setattr(Tensor, _name, _fn)
