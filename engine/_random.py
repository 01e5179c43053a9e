"""PyTorch's CPU random generator: the same mt19937 stream and the same transforms, so that
``torch.manual_seed(0); torch.randn(3)`` gives ``tensor([ 1.5410, -0.2934, -2.1788])`` here too.

Integers and uniforms are bit for bit PyTorch's. Normals are PyTorch's Box-Muller on the same
uniforms; their sines, cosines and logs are correctly rounded here, where PyTorch's libm or SIMD
code may differ by an ulp or two, so a float32 normal can differ in its last bits.
"""
import math

import numpy as np

from ._fma import fma
from ._tensor import _wrap, check_device, device

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
_U64 = (1 << 64) - 1
_STATE_BYTES = 624 * 4 + 16 + 8  # get_state(): mt19937's key, its position, the seed, the cached normal
_draw_guard = None  # set by torch.func.vmap(randomness="error"): called before any draw, it raises
_DIGITS = {"e": 24, "f": 24, "d": 53}  # float16 is drawn as a float32, then rounded


class Generator:
    """``torch.Generator``: an mt19937 stream and the cached second value of a Box-Muller pair."""

    def __init__(self, device="cpu"):
        check_device(device)
        self.device = _as_device(device)
        self._bits = np.random.MT19937(0)  # its state is set by manual_seed
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed <= _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _U64
        key = np.random.RandomState(self._seed & 0xFFFFFFFF).get_state()[1]  # mt19937's init_genrand
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
        self._next_normal = None
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        st = self._bits.state["state"]
        cached = self._next_normal
        head = np.array([st["pos"], self._seed & 0xFFFFFFFF, self._seed >> 32, cached is not None], np.uint32)
        tail = np.array([cached or 0.0], np.float64)
        return _wrap(np.concatenate([st["key"].view(np.uint8), head.view(np.uint8), tail.view(np.uint8)]))

    def set_state(self, new_state):
        raw = np.ascontiguousarray(new_state._data, dtype=np.uint8)
        if raw.size != _STATE_BYTES:
            raise RuntimeError(f"Expected an RNG state of size {_STATE_BYTES} (from get_rng_state) but found the "
                               f"input RNG state size to be {raw.size}")
        key = raw[:2496].view(np.uint32).copy()
        pos, lo, hi, has = (int(v) for v in raw[2496:2512].view(np.uint32))
        self._seed = lo | hi << 32
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._next_normal = float(raw[2512:].view(np.float64)[0]) if has else None
        return self

    def __repr__(self):
        return f"<torch._C.Generator object at {id(self):#x}>"

    # ----- draws: ``uniform``, ``normal`` and ``integers`` fill a shape, in PyTorch's order -----

    def _u32(self, n):
        if _draw_guard is not None:
            _draw_guard()
        return self._bits.random_raw(n)  # (uint64 words holding mt19937's 32-bit outputs)

    def _u64(self, n):
        if _draw_guard is not None:
            _draw_guard()
        r = self._bits.random_raw(2 * n)
        return r[0::2] << np.uint64(32) | r[1::2]  # random64(): the first draw is the high half

    def _unit(self, n, dt):
        """uniform_real_distribution(0, 1): the low mantissa bits of one 32-bit draw (two for float64)."""
        digits = _DIGITS[dt.char]
        raw = self._u64(n) if digits > 32 else self._u32(n)
        acc = np.float64 if digits > 32 else np.float32
        return (raw & np.uint64((1 << digits) - 1)).astype(acc) * acc(2.0 ** -digits)

    def uniform(self, shape, dt, low=0.0, high=1.0):
        x = self._unit(math.prod(shape), dt).reshape(shape)
        if low == 0.0 and high == 1.0 and dt != np.float16:
            return x.astype(dt, copy=False)
        # x * (to - from) + from, as one fused multiply-add in the draw's type
        acc = x.dtype.type
        out = fma(x, acc(acc(high) - acc(low)), acc(low), x.dtype).astype(dt, copy=False)
        if dt == np.float16:  # a value that rounds up to ``to`` becomes ``from``, as in PyTorch: [from, to)
            out[out == dt.type(high)] = dt.type(low)
        return out

    def normal(self, shape, dt, mean=0.0, std=1.0):
        return self._normal(math.prod(shape), dt, mean, std).reshape(shape)

    def _normal(self, n, dt, mean, std):
        if n < 16:  # the serial kernel: normal_distribution<double>, one value at a time
            return np.array([self._normal_scalar(mean, std) for _ in range(n)], dtype=np.float64).astype(dt)
        # normal_fill: n uniforms, Box-Muller on each block of 16, the last block redrawn when n % 16
        d = self._unit(n, dt)
        full = n - n % 16
        out = np.empty(n, d.dtype)
        out[:full] = _box_muller16(d[:full].reshape(-1, 16), mean, std).ravel()
        if full < n:
            out[n - 16:] = _box_muller16(self._unit(16, dt).reshape(1, 16), mean, std).ravel()
        return out.astype(dt, copy=False)

    def _normal_scalar(self, mean, std, uniforms=None):
        """normal_distribution<double>: Box-Muller on two uniforms (``uniforms()``, or this generator's
        next two), the pair's second value cached for the next call."""
        if _draw_guard is not None:
            _draw_guard()
        r = self._next_normal
        if r is not None:
            self._next_normal = None
            return r * std + mean
        u1, u2 = uniforms() if uniforms is not None else (float(v) for v in self._unit(2, np.dtype(np.float64)))
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = radius * math.sin(theta)
        return radius * math.cos(theta) * std + mean

    def integers(self, shape, low, high):
        """random_from_to: ``draw % (high - low) + low``, with 64-bit draws for a range of 2**32 or more."""
        span, n = high - low, math.prod(shape)
        raw = self._u64(n) if span >= 1 << 32 else self._u32(n)
        return ((raw % np.uint64(span)).astype(np.int64) + low).reshape(shape)

    def permutation(self, n):
        """randperm_cpu: swap position i with i + (draw % (n - i)), in order."""
        out = np.arange(n, dtype=np.int64)
        draws = self._u32(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint64)
        for i, z in enumerate(draws.tolist()):
            if z:
                out[i], out[i + z] = out[i + z], out[i]
        return out


def _box_muller16(blocks, mean, std):
    """normal_fill_16 on rows of 16 uniforms: lanes j and j + 8 make one pair."""
    u1, u2 = 1 - blocks[:, :8], blocks[:, 8:]
    if blocks.dtype == np.float64:
        radius, theta = np.sqrt(-2 * np.log(u1)), 2.0 * math.pi * u2
        cos, sin = np.cos(theta), np.sin(theta)
    else:  # float maths, each function correctly rounded (computed in double)
        f = blocks.dtype.type
        radius = np.sqrt(f(-2) * np.log(u1.astype(np.float64)).astype(f))
        theta = (2.0 * math.pi * u2.astype(np.float64)).astype(f).astype(np.float64)
        cos, sin = np.cos(theta).astype(f), np.sin(theta).astype(f)
        mean, std = f(mean), f(std)
    return np.concatenate([radius * cos * std + mean, radius * sin * std + mean], axis=1)


def _as_device(d):
    return device(d) if isinstance(d, str) else d


default_generator = Generator()


def generator_or_default(generator):
    return default_generator if generator is None else generator


def fill_in_memory_order(array, draw, *alongside):
    """Fill ``array`` with ``draw(shape, *alongside)`` as PyTorch's serial kernel does: in memory order
    (a transposed tensor is filled along its storage, not along its rows). Each alongside array
    (probabilities to draw with) arrives broadcast to ``array`` and in the same order."""
    order = sorted(range(array.ndim), key=lambda i: -abs(array.strides[i]))
    view = array.transpose(order)
    view[...] = draw(view.shape, *(np.broadcast_to(a, array.shape).transpose(order) for a in alongside))
