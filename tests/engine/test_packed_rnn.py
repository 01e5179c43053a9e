"""``torch.nn.utils.rnn`` and packed sequences through ``nn.RNN``/``LSTM``/``GRU`` against real
PyTorch 2.13: values, reprs, errors, the ``grad_fn`` graphs (every node and its ``next_functions``
in order, double backward included), gradients, and the final hidden states."""
import importlib
import subprocess
import sys

import numpy as np
import pytest

from tests.engine.opinfo import same
from tests.engine.test_rnn import _graph

pytestmark = pytest.mark.torch


def _rnn(t):
    return importlib.import_module(t.__name__ + ".nn.utils.rnn")


# ----- the utilities: values and errors -----

def _utility_cases(t):
    r = _rnn(t)
    t.manual_seed(0)
    x = t.randn(4, 3, 2)
    ones = t.ones
    p = r.pack_padded_sequence(x, [4, 3, 2])
    return [
        lambda: r.pack_padded_sequence(x, [4, 3, 2]),
        lambda: r.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False),
        lambda: r.pack_padded_sequence(x, t.tensor([3, 1, 3]), enforce_sorted=False),  # ties keep their order
        lambda: r.pack_padded_sequence(x.transpose(0, 1), [4, 3, 2], batch_first=True),
        lambda: r.pack_padded_sequence(x.transpose(0, 1), [2, 3, 4], batch_first=True, enforce_sorted=False),
        lambda: r.pack_padded_sequence(x, t.tensor([4.0, 3.0, 2.0])),
        lambda: r.pack_padded_sequence(x, t.tensor([4, 3, 2], dtype=t.int32)).batch_sizes.dtype,
        lambda: r.pack_padded_sequence(x, [4.5, 3, 2]),
        lambda: r.pack_padded_sequence(x, [6, 3, 2]),  # longer than the input: PyTorch packs what there is
        lambda: r.pack_padded_sequence(t.arange(12).view(4, 3), [4, 2, 1]),
        lambda: r.pack_padded_sequence(t.randn(3, 4), [4, 2, 1], batch_first=True),
        lambda: r.pack_padded_sequence(x, [4, 3, 0]),
        lambda: r.pack_padded_sequence(x, [4, 0, 3], enforce_sorted=False),
        lambda: r.pack_padded_sequence(x, [3, 4, 2]),
        lambda: r.pack_padded_sequence(x, [4, 3]),
        lambda: r.pack_padded_sequence(x, [-1, 3, 2]),
        lambda: r.pack_padded_sequence(t.zeros(0, 3, 2), [4, 3, 1]),
        lambda: r.pack_padded_sequence(x, t.tensor([[4, 3, 2]])),
        lambda: r.pack_padded_sequence(x, 3),
        lambda: r.pack_padded_sequence(t.randn(4), [4]),
        lambda: r.pack_padded_sequence(t.arange(12).view(4, 3), [4, 2, 1], batch_first=True),
        lambda: r.pack_padded_sequence(x, [4, 3, 2, 1, 1], batch_first=True, enforce_sorted=False),
        lambda: r.pad_packed_sequence(p),
        lambda: r.pad_packed_sequence(p, batch_first=True, padding_value=7),
        lambda: r.pad_packed_sequence(p, total_length=6, padding_value=-1.5),
        lambda: r.pad_packed_sequence(r.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False), batch_first=True),
        lambda: r.pad_packed_sequence(r.pack_padded_sequence(t.arange(12).view(4, 3), [4, 2, 1]), padding_value=2.5),
        lambda: r.pad_packed_sequence(p, total_length=3),
        lambda: r.pad_packed_sequence(p, total_length=-1),
        lambda: r.pad_sequence([ones(2, 3), 2 * ones(4, 3), 3 * ones(1, 3)]),
        lambda: r.pad_sequence([ones(2, 3), 2 * ones(4, 3)], batch_first=True, padding_value=-1),
        lambda: r.pad_sequence([ones(2), 2 * ones(4)], padding_side="left"),
        lambda: r.pad_sequence([ones(2), 2 * ones(4)], batch_first=True, padding_side="left"),
        lambda: r.pad_sequence(t.ones(2, 3)),
        lambda: r.pad_sequence(iter([ones(1), ones(2)])),
        lambda: r.pad_sequence([ones(2, 3), ones(3, 3, dtype=t.float64)]),
        lambda: r.pad_sequence([ones(2, 3, dtype=t.int64), ones(3, 3)], padding_value=2.5),
        lambda: r.pad_sequence([ones(2), ones(3)], padding_value=True),
        lambda: r.pad_sequence([]),
        lambda: r.pad_sequence([ones(2)], padding_side="middle"),
        lambda: r.pad_sequence(3),
        lambda: r.pad_sequence([ones(2, 3), ones(3, 2)]),
        lambda: r.pad_sequence([t.tensor(1.0), ones(3)]),
        lambda: r.pack_sequence([t.tensor([1, 2, 3]), t.tensor([4, 5]), t.tensor([6])]),
        lambda: r.pack_sequence([t.tensor([4, 5]), t.tensor([1, 2, 3]), t.tensor([6])], enforce_sorted=False),
        lambda: r.pack_sequence([]),
        lambda: r.pack_sequence([ones(2), ones(3)]),
        lambda: r.pack_sequence([ones(0), ones(3)], enforce_sorted=False),
        lambda: r.unpack_sequence(r.pack_sequence([t.tensor([4, 5]), t.tensor([1, 2, 3])], enforce_sorted=False)),
        lambda: r.unpad_sequence(r.pad_sequence([ones(3, 2), ones(1, 2)]), t.tensor([3, 1])),
        lambda: r.unpad_sequence(r.pad_sequence([ones(3), ones(1)], batch_first=True), t.tensor([3, 1]), True),
        lambda: r.unpad_sequence(t.ones(3, 2, 1), t.tensor([3, 1, 1])),
        lambda: r.invert_permutation(t.tensor([2, 0, 3, 1])),
        lambda: r.invert_permutation(None),
        lambda: r.invert_permutation(t.tensor([2, 0, 1], dtype=t.int32)),
    ]


def test_utilities(torch_ref, et):
    for k in range(len(_utility_cases(torch_ref))):
        same(torch_ref, et, lambda t: _utility_cases(t)[k]())


def test_unpad_sequence_transposes_its_input_in_place(torch_ref, et):
    def fn(t):
        padded = _rnn(t).pad_sequence([t.ones(3, 2), t.ones(1, 2)])
        _rnn(t).unpad_sequence(padded, t.tensor([3, 1]))
        return padded.shape
    assert same(torch_ref, et, fn)[0][1] == ("Size", "torch.Size([2, 3, 2])")


def test_packed_sequence_class(torch_ref, et):
    def fn(t):
        r = _rnn(t)
        p = r.pack_sequence([t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0, 5.0])], enforce_sorted=False)
        d = p.double()
        return [repr(p), repr(d), type(d).__name__, d.data.dtype, d.sorted_indices, p.to(t.float32) is p,
                p.cpu() is p, p.to("cpu") is p, p.is_cuda, p.long().data, p.int().data.dtype, p.short().data.dtype,
                p.char().data.dtype, p.byte().data.dtype, p.half().data.dtype, p.float() is p, p._fields,
                isinstance(p, tuple), tuple(p)[1], p[0] is p.data, len(p),
                repr(r.PackedSequence(t.ones(3), t.tensor([2, 1]))),
                repr(r.PackedSequence((t.ones(3), t.tensor([2, 1])))),
                repr(r.PackedSequence(t.ones(3), t.tensor([2, 1]), t.tensor([1, 0]))),
                repr(p._replace(sorted_indices=None))]
    same(torch_ref, et, fn)
    for k, call in enumerate([lambda p: p.cuda(), lambda p: p.to("cuda"), lambda p: p.pin_memory(),
                              lambda p, t=None: type(p)(p.data)]):
        same(torch_ref, et, lambda t: call(_rnn(t).pack_sequence([t.ones(2), t.ones(1)])))


def test_repr_of_the_docstring_example(et):
    r = et.nn.utils.rnn
    packed = r.pack_padded_sequence(et.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]]), [2, 1, 3], batch_first=True,
                                    enforce_sorted=False)
    assert repr(packed) == ("PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes=tensor([3, 2, 1]), "
                            "sorted_indices=tensor([2, 0, 1]), unsorted_indices=tensor([1, 2, 0]))")
    padded, lengths = r.pad_packed_sequence(packed, batch_first=True)
    assert padded.tolist() == [[1, 2, 0], [3, 0, 0], [4, 5, 6]] and lengths.tolist() == [2, 1, 3]


def test_distinctive_messages(et):
    r = et.nn.utils.rnn
    x = et.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match=r"^`lengths` array must be sorted in decreasing order when "
                                           r"`enforce_sorted` is True. You can pass `enforce_sorted=False`"):
        r.pack_padded_sequence(x, [3, 4, 2])
    with pytest.raises(RuntimeError, match=r"^Length of all samples has to be greater than 0, but found an element "
                                           r"in 'lengths' that is <= 0$"):
        r.pack_padded_sequence(x, [4, 0, 2], enforce_sorted=False)
    with pytest.raises(ValueError, match=r"^Expected total_length to be at least the length of the longest sequence "
                                         r"in input, but got total_length=2 and max sequence length being 4$"):
        r.pad_packed_sequence(r.pack_padded_sequence(x, [4, 2, 2]), total_length=2)


# ----- the utilities: graphs and gradients -----

def _util_graphs(t, case):
    """The graph of each output of ``case`` and of each input's grad after a weighted backward."""
    r = _rnn(t)
    t.manual_seed(0)
    x = t.randn(4, 3, 2, dtype=t.float64, requires_grad=True)
    seqs = [t.randn(n, 2, dtype=t.float64, requires_grad=True) for n in (2, 4, 1)]
    outs = {
        "pack_sorted": lambda: [r.pack_padded_sequence(x, [4, 3, 1]).data],
        "pack_unsorted": lambda: [r.pack_padded_sequence(x, [2, 4, 2], enforce_sorted=False).data],
        "pack_batch_first": lambda: [r.pack_padded_sequence(x, [3, 1, 3, 2], batch_first=True, enforce_sorted=False)
                                     .data],
        "pack_one_block": lambda: [r.pack_padded_sequence(x, [4, 4, 4]).data],
        "pad_packed": lambda: list(r.pad_packed_sequence(r.pack_padded_sequence(x, [4, 3, 3]))),
        "pad_packed_unsorted": lambda: list(r.pad_packed_sequence(
            r.pack_padded_sequence(x, [1, 4, 3], enforce_sorted=False), total_length=6, padding_value=0.5)),
        "pad_packed_batch_first": lambda: list(r.pad_packed_sequence(
            r.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False), batch_first=True)),
        "pad_packed_one_block": lambda: list(r.pad_packed_sequence(r.pack_padded_sequence(x, [4, 4, 4]))),
        "pad_sequence": lambda: [r.pad_sequence(seqs)],
        "pad_sequence_left_batch_first": lambda: [r.pad_sequence(seqs, batch_first=True, padding_side="left")],
        "pack_sequence": lambda: [r.pack_sequence(seqs, enforce_sorted=False).data],
        "unpack_sequence": lambda: r.unpack_sequence(r.pack_sequence(seqs, enforce_sorted=False)),
        "unpad_sequence": lambda: r.unpad_sequence(r.pad_sequence(seqs), t.tensor([2, 4, 1])),
    }[case]()
    outs = [o for o in outs if o.is_floating_point()]
    sum(((k + 1) * o * o).sum() for k, o in enumerate(outs)).backward()
    inputs = [x] + seqs
    return ([_graph(o.grad_fn) for o in outs], [o.detach().numpy() for o in outs],
            [None if i.grad is None else i.grad.numpy() for i in inputs])


UTIL_CASES = ["pack_sorted", "pack_unsorted", "pack_batch_first", "pack_one_block", "pad_packed",
              "pad_packed_unsorted", "pad_packed_batch_first", "pad_packed_one_block", "pad_sequence",
              "pad_sequence_left_batch_first", "pack_sequence", "unpack_sequence", "unpad_sequence"]


@pytest.mark.parametrize("case", UTIL_CASES)
def test_utility_graphs_and_grads(torch_ref, et, case):
    eg, eo, egrads = _util_graphs(et, case)
    tg, to, tgrads = _util_graphs(torch_ref, case)
    assert eg == tg
    for a, b in zip(eo, to):
        np.testing.assert_array_equal(a, b)
    assert [g is None for g in egrads] == [g is None for g in tgrads]
    for a, b in zip(egrads, tgrads):
        if b is not None:
            np.testing.assert_array_equal(a, b)


def test_pack_and_pad_graph_names(et):
    r = et.nn.utils.rnn
    x = et.randn(3, 2, requires_grad=True)
    p = r.pack_padded_sequence(x, [2, 3], enforce_sorted=False)
    assert _graph(p.data.grad_fn) == ["0:PackPaddedSequenceBackward0", "1:IndexSelectBackward0", "2:AccumulateGrad"]
    padded, _ = r.pad_packed_sequence(p)
    assert _graph(padded.grad_fn)[:4] == ["0:IndexSelectBackward0", "1:CopySlices", "2:CopySlices", "3:None"]
    assert type(r.pad_sequence([x, x[:1]]).grad_fn).__name__ == "CopySlices"


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_double_backward(torch_ref, et, batch_first):
    """PyTorch's _pack_padded_sequence_backward is composed of ops (zeros, one copy per step, a
    transpose for batch_first), so a grad that requires grad has their graph."""
    def run(t):
        t.manual_seed(0)
        x = t.randn(*((3, 4, 2) if batch_first else (4, 3, 2)), dtype=t.float64, requires_grad=True)
        p = _rnn(t).pack_padded_sequence(x, [4, 1, 3], batch_first=batch_first, enforce_sorted=False)
        gx, = t.autograd.grad((p.data ** 2).sum(), x, create_graph=True)
        gx.sin().sum().backward()
        return _graph(gx.grad_fn), gx.detach().numpy(), x.grad.numpy()

    (eg, egx, exg), (tg, tgx, txg) = run(et), run(torch_ref)
    assert eg == tg
    assert "3:CopySlices" in eg
    np.testing.assert_array_equal(egx, tgx)
    np.testing.assert_allclose(exg, txg, rtol=1e-12, atol=1e-14)


def test_saved_attributes(torch_ref, et):
    def fn(t):
        x = t.randn(4, 3, 2, requires_grad=True)
        f = _rnn(t).pack_padded_sequence(x.transpose(0, 1), [4, 3, 1], batch_first=True).data.grad_fn
        return f._saved_batch_first, f._saved_input_sym_sizes, f._saved_result1
    same(torch_ref, et, fn)


def test_gradcheck(et):
    r = et.nn.utils.rnn

    def round_trip(x, a, b):
        packed = r.pack_padded_sequence(x, [2, 4, 3], batch_first=True, enforce_sorted=False)
        padded, _ = r.pad_packed_sequence(packed, total_length=5, padding_value=0.25)
        return padded, r.pad_sequence([a, b], padding_side="left"), r.pack_sequence([b, a], enforce_sorted=False).data

    et.manual_seed(0)
    inputs = tuple(et.randn(*shape, dtype=et.float64, requires_grad=True) for shape in ((3, 4, 2), (2, 3), (4, 3)))
    assert et.autograd.gradcheck(round_trip, inputs)
    assert et.autograd.gradgradcheck(round_trip, inputs)


# ----- packed sequences through RNN, LSTM and GRU -----

def _run_packed(t, make, shape, lengths, enforce_sorted=False, hidden=None, batch_first=False, double=False,
                train=True):
    """Build ``make(t.nn)`` from a seed, pack a seeded padded input with ``lengths``, run it (with
    seeded initial states of shape ``hidden`` that require grad), pad the output back, and backward
    a weighted sum of the packed output, the padded one and the final states."""
    r = _rnn(t)
    t.manual_seed(0)
    m = make(t.nn)
    m.train(train)
    dtype = t.float64 if double else t.float32
    if double:
        m.double()
    x = t.randn(*shape, dtype=dtype, requires_grad=True)
    inputs = [x]
    packed = r.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    args = (packed,)
    if hidden is not None:
        kind, hshape = hidden
        states = tuple(t.randn(*hshape, dtype=dtype, requires_grad=True) for _ in kind)
        inputs += states
        args = (packed, states[0] if kind == "h" else states)
    out, h = m(*args)
    assert type(out).__name__ == "PackedSequence"
    padded, lengths_back = r.pad_packed_sequence(out, batch_first=batch_first)
    outs = [out.data, padded] + (list(h) if isinstance(h, tuple) else [h])
    sum(((k + 1) * o).sum() for k, o in enumerate(outs)).backward()
    indices = [out.batch_sizes, out.sorted_indices, out.unsorted_indices, lengths_back]
    return outs, [p.grad for p in m.parameters()] + [i.grad for i in inputs], indices


PACKED_CASES = {
    "rnn_tanh": (lambda nn: nn.RNN(3, 4), (5, 3, 3), [5, 2, 3]),
    "rnn_relu_2_layers_hx_sorted": (lambda nn: nn.RNN(3, 4, 2, "relu"), (4, 3, 3), [4, 4, 2],
                                    dict(enforce_sorted=True, hidden=("h", (2, 3, 4)))),
    "rnn_bidirectional_batch_first": (lambda nn: nn.RNN(3, 4, bidirectional=True, batch_first=True), (4, 5, 3),
                                      [2, 5, 1, 5], dict(batch_first=True)),
    "gru": (lambda nn: nn.GRU(3, 4), (5, 4, 3), [1, 5, 3, 3]),
    "gru_2_layers_bidirectional_hx": (lambda nn: nn.GRU(3, 4, 2, bidirectional=True), (5, 3, 3), [5, 2, 3],
                                      dict(hidden=("h", (4, 3, 4)))),
    "gru_dropout": (lambda nn: nn.GRU(3, 4, 3, dropout=0.5), (4, 3, 3), [3, 4, 2]),
    "lstm": (lambda nn: nn.LSTM(3, 4), (5, 3, 3), [3, 5, 1]),
    "lstm_2_layers_bidirectional_batch_first_hx": (
        lambda nn: nn.LSTM(3, 4, 2, bidirectional=True, batch_first=True), (3, 5, 3), [2, 5, 1],
        dict(batch_first=True, hidden=("hc", (4, 3, 4)))),
    "lstm_proj_bidirectional_sorted": (lambda nn: nn.LSTM(3, 5, 2, proj_size=2, bidirectional=True), (5, 3, 3),
                                       [5, 4, 1], dict(enforce_sorted=True)),
    "lstm_proj_hx_no_bias": (lambda nn: nn.LSTM(3, 5, proj_size=3, bias=False), (4, 3, 3), [2, 4, 4],
                             dict(proj_states=True)),
    "lstm_dropout_bidirectional": (lambda nn: nn.LSTM(3, 4, 3, dropout=0.4, bidirectional=True), (4, 3, 3),
                                   [4, 1, 2]),
    "lstm_dropout_eval": (lambda nn: nn.LSTM(3, 4, 2, dropout=0.4), (4, 3, 3), [4, 1, 2], dict(train=False)),
    "lstm_one_sequence": (lambda nn: nn.LSTM(3, 4, bidirectional=True), (4, 1, 3), [3]),
}


def _run_case(t, name, double):
    make, shape, lengths, *rest = PACKED_CASES[name]
    kwargs = dict(rest[0]) if rest else {}
    if kwargs.pop("proj_states", False):
        return _run_packed_proj(t, make, shape, lengths, double=double)
    return _run_packed(t, make, shape, lengths, double=double, **kwargs)


def _run_packed_proj(t, make, shape, lengths, double=False):
    """As _run_packed, with initial states of different sizes (h of proj_size, c of hidden_size)."""
    r = _rnn(t)
    t.manual_seed(0)
    m = make(t.nn)
    dtype = t.float64 if double else t.float32
    if double:
        m.double()
    x = t.randn(*shape, dtype=dtype, requires_grad=True)
    h0 = t.randn(1, shape[1], m.proj_size, dtype=dtype, requires_grad=True)
    c0 = t.randn(1, shape[1], m.hidden_size, dtype=dtype, requires_grad=True)
    out, (h, c) = m(r.pack_padded_sequence(x, lengths, enforce_sorted=False), (h0, c0))
    padded, lengths_back = r.pad_packed_sequence(out)
    outs = [out.data, padded, h, c]
    sum(((k + 1) * o).sum() for k, o in enumerate(outs)).backward()
    indices = [out.batch_sizes, out.sorted_indices, out.unsorted_indices, lengths_back]
    return outs, [p.grad for p in m.parameters()] + [x.grad, h0.grad, c0.grad], indices


def _compare_packed(torch_ref, et, name, double):
    # (PyTorch sends a float32 LSTM batch of equal lengths through oneDNN: see the test below)
    with torch_ref.backends.mkldnn.flags(enabled=False):
        touts, tgrads, tidx = _run_case(torch_ref, name, double)
    eouts, egrads, eidx = _run_case(et, name, double)
    tol = dict(rtol=1e-10, atol=1e-10) if double else dict(rtol=1e-5, atol=1e-6)
    assert [i if i is None else i.tolist() for i in eidx] == [i if i is None else i.tolist() for i in tidx]
    assert len(eouts) == len(touts)
    for a, b in zip(eouts, touts):
        assert (tuple(a.shape), str(a.dtype)) == (tuple(b.shape), str(b.dtype))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
        assert _graph(a.grad_fn) == _graph(b.grad_fn)
    assert [g is None for g in egrads] == [g is None for g in tgrads]
    for a, b in zip(egrads, tgrads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


@pytest.mark.parametrize("name", list(PACKED_CASES))
def test_packed_float32(torch_ref, et, name):
    _compare_packed(torch_ref, et, name, double=False)


def test_lstm_float32_packed_graph_without_onednn(torch_ref, et):
    """Packed float32 LSTMs of different lengths take PyTorch's composed kernel whether oneDNN is on
    or not; with equal lengths PyTorch runs oneDNN on the padded batch, whose values are the same."""
    def make(nn):
        return nn.LSTM(3, 4, num_layers=2, bidirectional=True)

    touts, tgrads, _ = _run_packed(torch_ref, make, (4, 3, 3), [4, 2, 3])
    eouts, egrads, _ = _run_packed(et, make, (4, 3, 3), [4, 2, 3])
    assert all(_graph(a.grad_fn) == _graph(b.grad_fn) for a, b in zip(eouts, touts))
    touts, tgrads, _ = _run_packed(torch_ref, make, (4, 3, 3), [4, 4, 4])
    eouts, egrads, _ = _run_packed(et, make, (4, 3, 3), [4, 4, 4])
    assert _graph(touts[0].grad_fn)[0] == "0:ViewBackward0"
    assert "2:MkldnnRnnLayerBackward0" in _graph(touts[0].grad_fn)
    assert _graph(eouts[0].grad_fn)[0] == "0:CatBackward0"
    for a, b in zip(eouts + egrads, [o.detach() for o in touts] + tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["rnn_relu_2_layers_hx_sorted", "gru_2_layers_bidirectional_hx",
                                  "lstm_2_layers_bidirectional_batch_first_hx", "lstm_proj_bidirectional_sorted",
                                  "lstm_proj_hx_no_bias", "lstm_dropout_bidirectional"])
def test_packed_float64(torch_ref, et, name):
    _compare_packed(torch_ref, et, name, double=True)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_final_state_is_each_sequences_last_step(et, kind):
    """h_n (and c_n) of a packed batch, unsorted back, equal those of each sequence run alone; the
    padded output equals each one's output and is zero past its end."""
    r = et.nn.utils.rnn
    et.manual_seed(0)
    m = getattr(et.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
    lengths = [2, 5, 1, 4]
    x = et.randn(5, 4, 3, dtype=et.float64)
    out, h = m(r.pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, _ = r.pad_packed_sequence(out)
    states = h if kind == "LSTM" else (h,)
    for b, n in enumerate(lengths):
        alone_out, alone_h = m(x[:n, b])
        for state, alone in zip(states, alone_h if kind == "LSTM" else (alone_h,)):
            np.testing.assert_allclose(state[:, b].detach().numpy(), alone.detach().numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(padded[:n, b].detach().numpy(), alone_out.detach().numpy(), rtol=1e-12, atol=1e-14)
        assert not padded[n:, b].detach().numpy().any()


def test_packed_gradcheck(et):
    r = et.nn.utils.rnn
    et.manual_seed(0)
    gru = et.nn.GRU(2, 3, bidirectional=True).double()
    lstm = et.nn.LSTM(2, 3, proj_size=2).double()

    def fn(x, h0):
        packed = r.pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False)
        out, h = gru(packed, h0)
        out2, (h2, c2) = lstm(packed)
        return r.pad_packed_sequence(out)[0], h, out2.data, h2, c2

    inputs = (et.randn(3, 3, 2, dtype=et.float64, requires_grad=True),
              et.randn(2, 3, 3, dtype=et.float64, requires_grad=True))
    assert et.autograd.gradcheck(fn, inputs)
    assert et.autograd.gradgradcheck(fn, inputs)


def _packed_errors(t):
    r = _rnn(t)
    t.manual_seed(0)
    lstm, gru, rnn = t.nn.LSTM(3, 4), t.nn.GRU(3, 4, 2), t.nn.RNN(3, 4)
    p = r.pack_padded_sequence(t.randn(4, 2, 3), [4, 2])
    unsorted = r.pack_padded_sequence(t.randn(4, 2, 3), [2, 4], enforce_sorted=False)
    p5 = r.pack_padded_sequence(t.randn(4, 2, 5), [4, 2])
    z = t.zeros
    return [
        lambda: lstm(p5),
        lambda: lstm(p, (z(1, 3, 4), z(1, 2, 4))),
        lambda: lstm(p, (z(1, 2, 4), z(1, 2, 5))),
        lambda: lstm(p, (z(1, 2, 4), z(1, 2, 4), z(1, 2, 4))),
        lambda: lstm(unsorted, (z(1, 2, 4),)),
        lambda: lstm(p.double()),
        lambda: lstm(p, (z(2, 4), z(2, 4))),
        lambda: gru(p5),
        lambda: gru(p, z(1, 2, 4)),
        lambda: gru(unsorted, z(2, 3, 4)),
        lambda: gru(p, z(2, 4)),
        lambda: rnn(p.double()),
        lambda: rnn(unsorted, z(1, 2, 5)),
        lambda: rnn(r.PackedSequence(t.randn(6, 2, 3), p.batch_sizes)),
    ]


def test_packed_errors(torch_ref, et):
    for k in range(len(_packed_errors(torch_ref))):
        same(torch_ref, et, lambda t: _packed_errors(t)[k]())


def test_not_imported_with_engine():
    code = ("import sys, engine; assert 'engine.nn.utils.rnn' not in sys.modules; "
            "engine.nn.utils.rnn.pack_sequence; assert 'engine.nn.utils.rnn' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("split", ["unbind", "split", "chunk", "unsafe_chunk", "split_with_sizes"])
def test_one_part_splits_record_their_node(torch_ref, et, split):
    """A split into one part (a one-layer RNN's h0 unbound) is PyTorch's node with one output; its
    grad, double backward and tangent go through."""
    def fn(t):
        h = t.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64, requires_grad=True)
        part = {"unbind": lambda: h[:1].unbind(0), "split": lambda: h.split(5, 1), "chunk": lambda: h.chunk(1),
                "unsafe_chunk": lambda: t.unsafe_chunk(h, 1), "split_with_sizes": lambda: h.split([2])}[split]()
        g, = t.autograd.grad((part[0] ** 3).sum(), h, create_graph=True)
        g.sum().backward()
        with t.autograd.forward_ad.dual_level():
            dual = t.autograd.forward_ad.make_dual(h.detach(), t.ones(2, 2, dtype=t.float64))
            tangent = t.autograd.forward_ad.unpack_dual(dual.unbind(0)[0] if split == "unbind" else
                                                        dual.split(5, 1)[0]).tangent
        return len(part), type(part[0].grad_fn).__name__, part[0].grad_fn._saved_dim, g, h.grad, tangent, \
            _graph(g.grad_fn)
    fn(torch_ref)  # (PyTorch's first forward-AD use warns about torch.jit.script)
    same(torch_ref, et, fn)


def test_one_layer_with_initial_state_that_requires_grad(torch_ref, et):
    def fn(t):
        t.manual_seed(0)
        rnn, lstm = t.nn.RNN(3, 4), t.nn.LSTM(3, 4)
        h0 = t.randn(1, 2, 4, requires_grad=True)
        c0 = t.randn(1, 2, 4, requires_grad=True)
        x = t.randn(5, 2, 3)
        packed = _rnn(t).pack_padded_sequence(x, [5, 3])
        outs = [rnn(x, h0)[1], rnn(packed, h0)[1], lstm(packed, (h0, c0))[1][0]]
        sum(o.sum() for o in outs).backward()
        return outs, h0.grad, c0.grad
    same(torch_ref, et, fn)
