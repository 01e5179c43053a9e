"""The random generator against PyTorch's: the same seed gives the same draws.

Integers and uniforms must be bit for bit PyTorch's; normals are PyTorch's Box-Muller on the
same uniforms: equal for fewer than 16 values (the serial kernel, in Python's double maths), and
within a few ulps otherwise (PyTorch's libm sin/cos/log against NumPy's).
"""
import numpy as np
import pytest

import engine

SEEDS = [0, 1, 7, 42, 2**32 + 3, 67280421310721, -1]
SIZES = [(), (1,), (3,), (15,), (16,), (17,), (2, 20), (5, 5, 5)]
NORMAL_F32 = dict(rtol=2e-6, atol=2e-6)
NORMAL_F64 = dict(rtol=1e-14, atol=1e-14)


def _both(torch_ref, seed):
    torch_ref.manual_seed(seed)
    engine.manual_seed(seed)


def _np(t):
    return t.detach().numpy()


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_is_pytorchs(torch_ref, seed, size, dtype):
    _both(torch_ref, seed)
    t = torch_ref.rand(size, dtype=getattr(torch_ref, dtype))
    e = engine.rand(size, dtype=getattr(engine, dtype))
    assert e.dtype == getattr(engine, dtype) and e.shape == t.shape
    np.testing.assert_array_equal(_np(e), _np(t))


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES + [(1000,)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_is_pytorchs(torch_ref, seed, size, dtype):
    _both(torch_ref, seed)
    t = _np(torch_ref.randn(size, dtype=getattr(torch_ref, dtype)))
    e = _np(engine.randn(size, dtype=getattr(engine, dtype)))
    assert e.shape == t.shape and e.dtype == t.dtype
    if t.size < 16:
        np.testing.assert_array_equal(e, t)
    else:
        np.testing.assert_allclose(e, t, **(NORMAL_F32 if dtype == "float32" else NORMAL_F64))


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("low, high", [(0, 10), (-5, 5), (3, 4), (0, 2**33), (-(2**40), 2**40)])
def test_randint_is_pytorchs(torch_ref, seed, low, high):
    _both(torch_ref, seed)
    t = torch_ref.randint(low, high, (4, 9))
    e = engine.randint(low, high, (4, 9))
    assert e.dtype == engine.int64
    np.testing.assert_array_equal(_np(e), _np(t))


@pytest.mark.torch
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm_is_pytorchs(torch_ref, seed, n):
    _both(torch_ref, seed)
    np.testing.assert_array_equal(_np(engine.randperm(n)), _np(torch_ref.randperm(n)))


@pytest.mark.torch
def test_the_famous_first_draws_print_as_in_pytorch(torch_ref):
    outs = []
    for torch in (torch_ref, engine):
        torch.manual_seed(0)
        outs.append(f"{torch.randn(3)} {torch.rand(2, 2)} {torch.randint(0, 10, (5,))} {torch.randperm(6)}")
    assert outs[0] == outs[1]
    assert outs[1].startswith("tensor([ 1.5410, -0.2934, -2.1788]) tensor([[0.4556, 0.6323],")


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 3, 11])
def test_one_stream_across_calls(torch_ref, seed):
    """Draws continue where the last call stopped, and a Box-Muller pair's second value waits
    for the next small randn, as in PyTorch's generator."""

    def calls(torch):
        return [torch.randn(3), torch.rand(2), torch.randn(1), torch.randn(20), torch.randint(5, (3,)),
                torch.randn(1, dtype=torch.float64), torch.randn(2), torch.rand(17, dtype=torch.float64),
                torch.randn(()), torch.randperm(5)]

    torch_ref.manual_seed(seed)
    expected = [_np(t) for t in calls(torch_ref)]
    engine.manual_seed(seed)
    got = [_np(t) for t in calls(engine)]
    for e, t in zip(got, expected):
        np.testing.assert_allclose(e, t, **NORMAL_F32)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("bounds", [(-0.7, 0.7), (-2, 3), (1e-3, 2.5), (-1e4, 1e-6)])
def test_uniform_range_is_one_fused_multiply_add(torch_ref, dtype, bounds):
    # PyTorch computes x * (to - from) + from in the draw's type with one rounding: two roundings
    # differ in about half of the float64 values.
    draws = []
    for t in (torch_ref, engine):
        t.manual_seed(3)
        draws.append(_np(t.empty(2000, dtype=getattr(t, dtype)).uniform_(*bounds)))
    np.testing.assert_array_equal(draws[0], draws[1])


@pytest.mark.torch
def test_float16_draws_never_reach_the_top(torch_ref):
    # float16 draws are float32 draws rounded; PyTorch turns one that rounds up to ``to`` into ``from``
    draws = []
    for t in (torch_ref, engine):
        t.manual_seed(0)
        draws.append((_np(t.rand(200000, dtype=t.float16)), _np(t.empty(5000, dtype=t.float16).uniform_(-1, 3))))
    for ours, ref in zip(draws[1], draws[0]):
        np.testing.assert_array_equal(ours, ref)
    assert draws[1][0].max() < 1 and (draws[1][0] == 0).sum() == (draws[0][0] == 0).sum() > 0


@pytest.mark.torch
@pytest.mark.parametrize("dtype,bounds", [("float16", (0, 1e6)), ("float16", (-1e6, 0)), ("float32", (0, 1e39)),
                                          ("float64", (float("-inf"), 0)), ("float32", (2, 1)),
                                          ("float64", (2.5, -0.5))])
def test_uniform_range_errors(torch_ref, dtype, bounds):
    msgs = []
    for t in (torch_ref, engine):
        with pytest.raises(RuntimeError) as err:
            t.empty(3, dtype=getattr(t, dtype)).uniform_(*bounds)
        msgs.append(str(err.value))
    assert msgs[1] == msgs[0]


@pytest.mark.torch
def test_fills_in_place_and_likes(torch_ref):
    def draws(torch):
        torch.manual_seed(5)
        x = torch.empty(3, 2).t()  # filled along its storage, not its rows
        x.normal_()
        y = torch.zeros(2, 8).uniform_(-2, 3)
        z = torch.ones(3, dtype=torch.float64).normal_(2.0, 0.5)
        like = torch.zeros(2, 3)
        return [x, y, z, torch.rand_like(like), torch.randn_like(like), torch.randint_like(like, 3, 9),
                torch.normal(2.0, 3.0, (4,)), torch.normal(torch.zeros(3), torch.ones(3) * 2),
                torch.normal(torch.arange(4.0), 0.5), torch.normal(1.0, torch.ones(2, 2))]

    for e, t in zip(draws(engine), draws(torch_ref)):
        assert e.shape == t.shape and str(e.dtype) == str(t.dtype)
        np.testing.assert_allclose(_np(e), _np(t), **NORMAL_F32)


@pytest.mark.torch
def test_generators_are_independent_streams(torch_ref):
    def draws(torch):
        torch.manual_seed(1)
        g = torch.Generator().manual_seed(5)
        a = torch.randn(2, generator=g)
        b = torch.randn(2)  # the default stream, untouched by g
        c = torch.rand(3, generator=g)
        d = torch.randint(0, 100, (3,), generator=g)
        e = torch.randperm(4, generator=g)
        f = torch.empty(2).uniform_(generator=g)
        return [a, b, c, d, e, f], g.initial_seed(), torch.Generator().initial_seed()

    (e_draws, e_seed, e_default), (t_draws, t_seed, t_default) = draws(engine), draws(torch_ref)
    assert (e_seed, e_default) == (t_seed, t_default) == (5, 67280421310721)
    for e, t in zip(e_draws, t_draws):
        np.testing.assert_allclose(_np(e), _np(t), **NORMAL_F32)


@pytest.mark.torch
@pytest.mark.parametrize("seed", [-1, -(2**63), 2**64 - 1, 2**63, 1.5, True])
def test_seed_values_as_pytorch_takes_them(torch_ref, seed):
    assert engine.manual_seed(seed) is engine.default_generator
    torch_ref.manual_seed(seed)
    assert engine.initial_seed() == torch_ref.initial_seed()
    np.testing.assert_array_equal(_np(engine.rand(4)), _np(torch_ref.rand(4)))


@pytest.mark.torch
@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_out_of_range(torch_ref, seed):
    with pytest.raises(ValueError) as t:
        torch_ref.manual_seed(seed)
    with pytest.raises(ValueError) as e:
        engine.manual_seed(seed)
    assert str(e.value) == str(t.value)


@pytest.mark.torch
@pytest.mark.parametrize("low, high", [(5, 5), (3, 1)])
def test_randint_empty_range(torch_ref, low, high):
    with pytest.raises(RuntimeError) as t:
        torch_ref.randint(low, high, (2,))
    with pytest.raises(RuntimeError) as e:
        engine.randint(low, high, (2,))
    assert str(e.value) == str(t.value)


def test_rng_state_round_trip():
    engine.manual_seed(9)
    engine.randn(1)  # leaves the second value of a pair cached: the state keeps it
    state = engine.get_rng_state()
    a = [engine.randn(1), engine.rand(20), engine.randn(3)]
    engine.randn(50)
    engine.set_rng_state(state)
    b = [engine.randn(1), engine.rand(20), engine.randn(3)]
    assert state.dtype == engine.uint8 and state.dim() == 1
    for x, y in zip(a, b):
        assert engine.equal(x, y)
    g = engine.Generator()
    g.set_state(state)
    assert g.initial_seed() == 9 and engine.equal(engine.randn(1, generator=g), a[0])
    with pytest.raises(RuntimeError, match="Expected an RNG state of size 2520"):
        engine.set_rng_state(engine.zeros(5, dtype=engine.uint8))
