"""Storages and where a tensor sits in them (storage_offset, untyped_storage, storage, is_set_to), the
tensor flags PyTorch code checks (is_sparse, is_pinned(), ...), torch.typename, inference_mode's state,
the window functions and empty_strided: against real PyTorch."""
import pytest

from tests.engine.opinfo import outcome, same


def _view_cases(t):
    x = t.arange(12.).view(3, 4)
    return (x, x[1], x[:, 1], x.t(), x[1:, 2:], x.view(-1)[5:], x.diagonal(), x.diagonal(1), x.narrow(1, 1, 2),
            x.unsqueeze(0), x[1:].reshape(-1), x.expand(2, 3, 4)[1], x.unbind(0)[2], x.chunk(2, 1)[1], x.split(1)[2],
            x.detach(), x.data, x[..., None], x.movedim(0, 1), x.transpose(0, 1)[1:], x.unfold(1, 2, 1), x.flatten(),
            x.select(1, 3), x[2:][0], x.view(2, 6)[1, 2:], x[1:][::2], x.T[1:], x.mT, x.swapaxes(0, 1)[-1],
            x.reshape(4, 3)[1:], x.unsqueeze(1).squeeze(1)[1:], x.expand_as(x), x.float(), x.to(t.float32),
            # copies: a storage of their own
            x.clone(), x + 0, x.t().contiguous(), x.t().reshape(-1), x[:, 1].contiguous(), x[[0, 1]], x[x > 3],
            x.flip(0), x.roll(1), x.tril(), x.repeat(1, 1), x.double(), x.new_zeros(2))


def test_views_share_storage_at_pytorchs_offsets(torch_ref, et):
    def where(t):
        cases = _view_cases(t)
        base = cases[0].untyped_storage().data_ptr()
        shared = [v.untyped_storage().data_ptr() == base for v in cases]
        return [(v.storage_offset(), v.stride(), v.data_ptr() - base if s else None, s, v.untyped_storage().nbytes())
                for v, s in zip(cases, shared)]

    ours, ref = where(et), where(torch_ref)
    assert ours == ref
    assert ref[4] == (6, (4, 1), 24, True, 48)  # x[1:, 2:]
    assert ref[-1][3] is False


def test_storage_objects(torch_ref, et):
    def storages(t):
        x = t.arange(6.)
        s, u = x.storage(), x.untyped_storage()
        out = [repr(s), str(u), s.tolist(), u.tolist()[:8], s[-1], u[-1], s.size(), len(s), s.nbytes(),
               s.element_size(), s.dtype, s.device, s.type(), u.type(), u.element_size(), s.untyped() is u,
               len(u[1:5]), repr(u[1:5]), list(s), repr(t.ones(0).storage()), repr(t.tensor(True).storage()),
               repr(t.ones(2, dtype=t.long).storage()), repr(t.tensor([0.1]).storage()), t.tensor([0.1]).storage()[0],
               x.untyped_storage() is x[1:].untyped_storage(), x[1:].storage().data_ptr() == s.data_ptr(),
               x.is_set_to(x), x[1:].is_set_to(x), x.is_set_to(x.view(6)), x.is_set_to(x.view(2, 3)),
               t.is_storage(s), t.is_storage(u), t.is_storage(x), t.typename(s), t.typename(u), str(type(u))]
        s[0] = 7.
        s[1] = t.tensor(3.)
        return out + [x.tolist()]

    ref = same(torch_ref, et, storages)
    assert ref[0][1][0] == " 0.0\n 1.0\n 2.0\n 3.0\n 4.0\n 5.0\n[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 6]"
    assert ref[0][1][-1] == [7.0, 3.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("code", [
    "t.arange(6.).storage()[10]", "t.arange(6.).untyped_storage()[100]", "t.arange(6.).storage()[-7]",
    "t.arange(6.).storage()['a']", "t.arange(6.).untyped_storage()['a']", "t.arange(6.).storage().__setitem__(10, 1.)",
    "t.arange(6.).storage()[1:3]",
])
def test_storage_errors(torch_ref, et, code):
    assert same(torch_ref, et, lambda t: eval(code))[0][0] == "raised"


def test_typed_storage_warns_once(torch_ref, et):
    from engine import _storage

    def twice(t):
        x = t.ones(2)
        return x.storage().size() + x.storage().size()

    torch_ref.storage._reset_warn_typed_storage_removal()
    _storage._warned[0] = False
    ours, ref = outcome(twice, et), outcome(twice, torch_ref)
    assert ours == ref
    assert [w[0] for w in ref[1]] == ["UserWarning"] and ref[1][0][1].startswith("TypedStorage is deprecated.")


def test_flags_and_names(torch_ref, et):
    flags = ("is_sparse is_sparse_csr is_quantized is_meta is_nested is_mkldnn is_xla is_xpu is_mps is_ipu "
             "is_vulkan is_maia is_mtia is_cpu is_cuda").split()
    same(torch_ref, et, lambda t: [getattr(t.ones(1), n) for n in flags])
    same(torch_ref, et, lambda t: (t.ones(1).is_pinned(), t.ones(1).is_shared(), t.ones(2).share_memory_().tolist(),
                                   t.get_device(t.ones(1)), t.is_inference(t.ones(1))))
    same(torch_ref, et, lambda t: t.ones(1).volatile)  # (its removal warning)
    for bad in ("get_device", "is_inference"):
        same(torch_ref, et, lambda t: getattr(t, bad)(1.0))
    names = same(torch_ref, et, lambda t: (
        t.typename(t.ones(1)), t.typename(t.ones(1, dtype=t.bool)), t.typename(1.0), t.typename(t.nn.Linear(1, 1)),
        t.typename(t.float32), t.typename(t.nn.functional.relu), t.typename(t.Tensor), t.typename(t.nn.Module)))
    assert names[0][1][3] == "torch.nn.modules.linear.Linear"


def test_inference_mode_state(torch_ref, et):
    def states(t):
        seen = [t.is_inference_mode_enabled()]

        @t.inference_mode
        def bare():
            return t.is_inference_mode_enabled(), t.is_grad_enabled()

        @t.inference_mode(False)
        def off():
            return t.is_inference_mode_enabled(), t.is_grad_enabled()

        seen.append(bare())
        with t.inference_mode():
            seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled(), off()))
            with t.inference_mode(False):
                seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled()))
            seen.append(t.is_inference_mode_enabled())
        with t.no_grad(), t.inference_mode(False):
            seen.append((t.is_inference_mode_enabled(), t.is_grad_enabled()))
        with t.inference_mode().clone():
            seen.append(t.is_inference_mode_enabled())
        x = t.ones(2, requires_grad=True)
        with t.inference_mode():
            y = x * 2
        return seen + [t.is_inference_mode_enabled(), t.is_grad_enabled(), y.requires_grad]

    ref = same(torch_ref, et, states)
    assert ref[0][1][:3] == [False, (True, False), (True, False, (False, True))]


WINDOWS = {
    "hann": lambda t: [t.hann_window(n, p) for n in range(7) for p in (True, False)],
    "hamming": lambda t: [t.hamming_window(5), t.hamming_window(5, False, 0.6), t.hamming_window(6, True, 0.6, 0.3)],
    "blackman": lambda t: [t.blackman_window(n, p, dtype=t.float64) for n in range(7) for p in (True, False)],
    "bartlett": lambda t: [t.bartlett_window(n, p) for n in range(7) for p in (True, False)],
    "kaiser": lambda t: [t.kaiser_window(n, p, 5.0, dtype=t.float64) for n in range(7) for p in (True, False)]
                        + [t.kaiser_window(6)],
    "requires_grad": lambda t: t.hann_window(3, requires_grad=True),
    "negative": lambda t: t.hann_window(-1),
    "integer dtype": lambda t: [outcome(lambda t: t.hann_window(3, dtype=d), t)[0] for d in (t.long, t.int32, t.bool)]
                               + [outcome(lambda t: t.kaiser_window(3, dtype=t.uint8), t)[0]],
    "float length": lambda t: t.blackman_window(2.5),
    "empty_strided": lambda t: [(e.shape, e.stride(), e.untyped_storage().nbytes())
                                for e in (t.empty_strided((2, 3), (1, 2)), t.empty_strided((0, 3), (3, 1)),
                                          t.empty_strided((2, 2), (2, 1), dtype=t.float64))],
    "empty_strided mismatch": lambda t: t.empty_strided((2, 3), (1,)),
}


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_and_empty_strided(torch_ref, et, name):
    same(torch_ref, et, WINDOWS[name])


def test_window_values():
    import engine as t

    assert t.hann_window(5).tolist() == pytest.approx([0.0, 0.3454915, 0.9045085, 0.9045085, 0.3454915])
    assert t.bartlett_window(5, periodic=False).tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]


def test_inference_tensors(torch_ref, et):
    """What inference_mode makes: inference tensors (not views of normal ones), which autograd refuses to
    save, and which can't be changed in place, nor made to require grad, outside inference mode."""
    def inference(t):
        x = t.ones(2, 3, requires_grad=True)
        n = t.ones(2, 3)
        with t.inference_mode():
            y = x * x
            kinds = [a.is_inference() for a in (y, t.zeros(2), n[0], n.view(6), n.clone(), y[0], x.detach(),
                                                t.tensor([1.0]), t.arange(3), t.ones(2).sum(), y.detach())]
            y.add_(1)
            version = outcome(lambda t: y._version, t)[0]
            y.requires_grad_()
            n.add_(1)
            inside = [version, y.requires_grad, n._version]
        with t.inference_mode():
            z = t.zeros(2)
            p = t.nn.Parameter(t.ones(2))
        outside = [outcome(f, t)[0] for f in (
            lambda t: t.zeros(2).copy_(z), lambda t: z.requires_grad_(), lambda t: z.requires_grad_(False).shape,
            lambda t: z._version, lambda t: (z * 2).is_inference(), lambda t: z * x[0, :2],
            lambda t: (z + x[0, :2]).grad_fn.name(), lambda t: z.clone().is_inference(), lambda t: z[0].is_inference(),
            lambda t: t.is_inference(z), lambda t: z.zero_(), lambda t: t.mm(x.t(), z.view(2, 1)),
            lambda t: t.nn.Parameter(z), lambda t: (z.clone() * x[0, :2]).grad_fn.name())]
        with t.no_grad():
            outside.append(outcome(lambda t: z.mul_(2), t)[0][0])
        return kinds, inside, outside, (p.is_inference(), p.requires_grad)

    ref = same(torch_ref, et, inference)
    assert ref[0][1][0] == [True, True, False, False, True, True, False, True, True, True, True]
    assert ref[0][1][2][5][2].startswith("Inference tensors cannot be saved for backward.")


IN_PLACE_ON_INFERENCE = {
    "add_": lambda t, z: z.add_(1), "mul_ (no_grad)": lambda t, z: t.no_grad().__enter__() or z.mul_(2),
    "+=": lambda t, z: z.__iadd__(t.ones(3)), "zero_": lambda t, z: z.zero_(), "fill_": lambda t, z: z.fill_(4),
    "setitem": lambda t, z: z.__setitem__(0, 5.0), "copy_": lambda t, z: z.copy_(t.tensor([7.0, 8.0, 9.0])),
    "view then exp_": lambda t, z: z[1:].exp_(), "clamp_ with a grad arg": lambda t, z: z.clamp_(
        min=t.zeros(3, requires_grad=True)), "uniform_": lambda t, z: z.uniform_(0.5, 0.5),
}


@pytest.mark.parametrize("case", list(IN_PLACE_ON_INFERENCE))
def test_in_place_on_inference_tensor_writes_then_raises(torch_ref, et, case):
    """Outside inference mode an in-place change of an inference tensor is PyTorch's error, raised where
    the version would be counted: after the write, so the values have changed, as in PyTorch."""
    def run(t):
        with t.inference_mode():
            z = t.tensor([1.0, -2.0, 3.0])
        prev = t.is_grad_enabled()
        try:
            raised = outcome(lambda t: IN_PLACE_ON_INFERENCE[case](t, z), t)[0]
        finally:
            t.set_grad_enabled(prev)
        return raised, z.tolist()

    raised, _ = same(torch_ref, et, run)[0][1]
    assert raised[0] == "raised" and raised[2].startswith("Inplace update to inference tensor outside InferenceMode")


VIEW_DTYPE = {
    "same size": lambda t: (t.arange(4.).view(t.int32), t.arange(4.).view(dtype=t.int32),
                            t.tensor(1.5).view(t.int32), t.arange(8, dtype=t.int64).view(t.float64)),
    "larger": lambda t: (t.arange(4.).view(t.float64), t.arange(4.).view(2, 2).view(t.float64),
                         t.arange(4.)[2:4].view(t.float64), t.arange(4.)[2:4].view(t.float64).storage_offset()),
    "smaller": lambda t: (t.arange(4.).view(t.int16), t.arange(4.).view(t.bool), t.arange(4.).view(t.float16),
                          t.ones(2, 2, dtype=t.float64).view(t.float32).shape, t.ones(2, dtype=t.bool).view(t.int8)),
    "no grad": lambda t: [(t.arange(4., requires_grad=True) * 1).view(d) for d in (t.int32, t.float32, t.float64)],
    "odd last size": lambda t: t.arange(3.).view(t.float64),
    "offset": lambda t: t.arange(4.)[1:3].view(t.float64),
    "strided last dim": lambda t: t.arange(4.).view(2, 2).t().view(t.int16),
    "odd stride": lambda t: t.arange(12.).view(4, 3)[:, :2].view(t.float64),
    "even stride": lambda t: t.arange(12.).view(3, 4)[:, :2].view(t.float64),
    "0-d": lambda t: (outcome(lambda t: t.tensor(1.5).view(t.float16), t),
                      outcome(lambda t: t.tensor(1.5, dtype=t.float16).view(t.float32), t)),
}


@pytest.mark.parametrize("name", VIEW_DTYPE)
def test_view_as_another_dtype(torch_ref, et, name):
    same(torch_ref, et, VIEW_DTYPE[name])


def test_view_as_another_dtype_shares_memory(torch_ref, et):
    def shared(t):
        x = t.arange(4.)
        v = x.view(t.int32)
        v[0] = 1065353216
        return x.tolist(), x._version, v._version, v.untyped_storage().data_ptr() == x.data_ptr()

    assert same(torch_ref, et, shared)[0][1] == ([1.0, 1.0, 2.0, 3.0], 1, 1, True)


def test_large_factory_tensors_start_on_64_bytes_as_pytorchs(torch_ref, et):
    import numpy as np

    def where(t):
        made = [t.tensor(np.ones((32, 32), np.float32)), t.zeros(40, 40), t.ones(1000, dtype=t.float64),
                t.full((50, 50), 2.0), t.empty(64, 64), t.randn(33, 33), t.rand(2000), t.eye(40), t.arange(2000.),
                t.zeros(64, 64).clone(), t.nn.Linear(50, 40).weight]
        return [(x.data_ptr() % 64, x.untyped_storage().nbytes(), x.untyped_storage().data_ptr() == x.data_ptr())
                for x in made]

    ours, ref = where(et), where(torch_ref)
    assert ours == ref
    assert ref[0] == (0, 4096, True)
