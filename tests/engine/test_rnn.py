"""``nn.RNN``/``LSTM``/``GRU`` and their cells against real PyTorch 2.13: the seeded initial weights,
parameter names and shapes, reprs, forward values, gradients and ``grad_fn`` graphs (every node's
name and its ``next_functions`` in order), and the error messages."""
import subprocess
import sys

import numpy as np
import pytest

from tests.engine.opinfo import same

pytestmark = pytest.mark.torch

TOL = dict(rtol=1e-5, atol=1e-5)


def _graph(fn):
    """The graph under ``fn`` depth first, one ``depth:name`` per visit (``seen:`` for a node met
    before, ``None`` for an input without grad)."""
    out, seen = [], set()

    def walk(f, depth):
        if f is None:
            out.append(f"{depth}:None")
            return
        name = type(f).__name__
        if id(f) in seen:
            out.append(f"{depth}:seen:{name}")
            return
        seen.add(id(f))
        out.append(f"{depth}:{name}")
        for g, _ in f.next_functions:
            walk(g, depth + 1)

    walk(fn, 0)
    return out


def _flat(x):
    return [t for v in x for t in _flat(v)] if isinstance(x, tuple) else [x]


def _run(t, make, shape, hidden=None, train=True, seed=0, double=False):
    """Build ``make(t.nn)`` from ``seed``, run it on a seeded input (and seeded initial states
    that require grad, of shape ``hidden``: one for ``"h"``, two for ``"hc"``), backward a weighted
    sum of every output; returns the module, the outputs and the grads of parameters and inputs."""
    t.manual_seed(seed)
    m = make(t.nn)
    m.train(train)
    dtype = t.float64 if double else t.float32
    if double:
        m.double()
    x = t.randn(*shape, dtype=dtype, requires_grad=True)
    inputs = [x]
    args = (x,)
    if hidden is not None:
        kind, hshape = hidden
        states = tuple(t.randn(*hshape, dtype=dtype, requires_grad=True) for _ in kind)
        inputs += states
        args = (x, states[0] if kind == "h" else states)
    outs = _flat(m(*args))
    sum((o * (k + 1)).sum() for k, o in enumerate(outs)).backward()
    return m, outs, [p.grad for p in m.parameters()] + [i.grad for i in inputs]


def _compare(torch_ref, et, make, shape, hidden=None, train=True, double=False):
    # PyTorch runs float32 LSTMs through oneDNN (one MkldnnRnnLayerBackward0 per layer); without it,
    # it composes them as the engine does.
    with torch_ref.backends.mkldnn.flags(enabled=False):
        tm, touts, tgrads = _run(torch_ref, make, shape, hidden, train, double=double)
    em, eouts, egrads = _run(et, make, shape, hidden, train, double=double)
    assert repr(em) == repr(tm)
    assert len(eouts) == len(touts)
    for a, b in zip(eouts, touts):
        assert (tuple(a.shape), str(a.dtype)) == (tuple(b.shape), str(b.dtype))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL)
        assert _graph(a.grad_fn) == _graph(b.grad_fn)
    assert [g is None for g in egrads] == [g is None for g in tgrads]
    for a, b in zip(egrads, tgrads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL)


CASES = {
    "rnn_cell": (lambda nn: nn.RNNCell(3, 4), (2, 3), None),
    "rnn_cell_relu_no_bias_unbatched": (lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), (3,), None),
    "rnn_cell_hx": (lambda nn: nn.RNNCell(3, 4), (2, 3), ("h", (2, 4))),
    "lstm_cell": (lambda nn: nn.LSTMCell(3, 4), (2, 3), None),
    "lstm_cell_hx": (lambda nn: nn.LSTMCell(3, 4), (2, 3), ("hc", (2, 4))),
    "lstm_cell_unbatched_hx": (lambda nn: nn.LSTMCell(3, 4, bias=False), (3,), ("hc", (4,))),
    "gru_cell": (lambda nn: nn.GRUCell(3, 4), (2, 3), None),
    "gru_cell_hx_unbatched": (lambda nn: nn.GRUCell(3, 4), (3,), ("h", (4,))),
    "rnn_tanh": (lambda nn: nn.RNN(3, 4), (5, 2, 3), None),
    "rnn_relu_2_layers_batch_first": (lambda nn: nn.RNN(3, 4, 2, "relu", batch_first=True), (2, 5, 3), None),
    "rnn_unbatched_hx": (lambda nn: nn.RNN(3, 4, num_layers=2), (5, 3), ("h", (2, 4))),
    "lstm_2_layers_bidirectional_batch_first": (
        lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), (2, 5, 3), None),
    "gru_2_layers_bidirectional_batch_first": (
        lambda nn: nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True), (2, 5, 3), None),
    "lstm_no_bias": (lambda nn: nn.LSTM(3, 4, num_layers=2, bias=False, bidirectional=True), (4, 2, 3), None),
    "lstm_proj": (lambda nn: nn.LSTM(3, 4, num_layers=2, proj_size=2, bidirectional=True), (4, 2, 3), None),
    "lstm_unbatched": (lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True), (5, 3), None),
    "lstm_unbatched_hx": (lambda nn: nn.LSTM(3, 4, bidirectional=True), (5, 3), ("hc", (2, 4))),
    "lstm_hx": (lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True), (4, 2, 3), ("hc", (4, 2, 4))),
    "gru_hx": (lambda nn: nn.GRU(3, 4, num_layers=2, bidirectional=True), (4, 2, 3), ("h", (4, 2, 4))),
    "gru_dropout": (lambda nn: nn.GRU(3, 4, num_layers=3, dropout=0.5), (4, 2, 3), None),
    "lstm_dropout_bidirectional": (
        lambda nn: nn.LSTM(3, 4, num_layers=3, dropout=0.5, bidirectional=True), (4, 2, 3), None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_grads_and_graph(torch_ref, et, name):
    _compare(torch_ref, et, *CASES[name])


def test_lstm_float64(torch_ref, et):
    _compare(torch_ref, et, lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 4, 3), ("hc", (2, 2, 4)),
             double=True)


def test_dropout_is_off_in_eval(torch_ref, et):
    _compare(torch_ref, et, lambda nn: nn.LSTM(3, 4, num_layers=3, dropout=0.5), (4, 2, 3), train=False)


def test_lstm_float32_values_match_pytorchs_onednn_path(torch_ref, et):
    """By default PyTorch's float32 LSTM goes through oneDNN; its values and grads are the same."""
    def make(nn):
        return nn.LSTM(6, 5, num_layers=2, dropout=0.3, bidirectional=True, batch_first=True)

    _, touts, tgrads = _run(torch_ref, make, (3, 7, 6))
    _, eouts, egrads = _run(et, make, (3, 7, 6))
    assert type(touts[0].grad_fn.next_functions[0][0]).__name__ == "CatBackward0"
    for a, b in zip(eouts + egrads, [o.detach() for o in touts] + tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.numpy(), **TOL)


def test_lstm_cell_graph_names(et):
    """The node names PyTorch's lstm_cell shows."""
    cell = et.nn.LSTMCell(3, 4)
    h, c = cell(et.randn(2, 3))
    assert _graph(c.grad_fn) == [
        "0:AddBackward0", "1:MulBackward0", "2:SigmoidBackward0", "3:UnsafeSplitBackward0", "4:AddBackward0",
        "5:AddmmBackward0", "6:AccumulateGrad", "6:None", "6:TBackward0", "7:AccumulateGrad",
        "5:AddmmBackward0", "6:AccumulateGrad", "6:None", "6:TBackward0", "7:AccumulateGrad", "2:None",
        "1:MulBackward0", "2:SigmoidBackward0", "3:seen:UnsafeSplitBackward0", "2:TanhBackward0",
        "3:seen:UnsafeSplitBackward0"]
    assert type(h.grad_fn).__name__ == "MulBackward0"
    assert cell.weight_hh.grad is None


MODULES = {
    "lstm": lambda nn: nn.LSTM(3, 4),
    "lstm_2_bidirectional_batch_first": lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True),
    "lstm_proj_no_bias": lambda nn: nn.LSTM(3, 5, num_layers=2, bias=False, proj_size=2, bidirectional=True),
    "gru_dropout": lambda nn: nn.GRU(3, 4, 2, dropout=0.25),
    "rnn_relu_positional": lambda nn: nn.RNN(3, 4, 2, "relu", False, True, 0.5, True),
    "rnn_cell_relu": lambda nn: nn.RNNCell(3, 4, False, "relu"),
    "lstm_cell": lambda nn: nn.LSTMCell(3, 4),
    "gru_cell_no_bias": lambda nn: nn.GRUCell(3, 4, bias=False),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_structure_and_seeded_init(torch_ref, et, name):
    """Names, shapes and order of the parameters, state_dict keys, repr, and the exact values
    PyTorch draws after the same seed."""
    def build(t):
        t.manual_seed(0)
        return MODULES[name](t.nn)

    em, tm = build(et), build(torch_ref)
    assert repr(em) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in em.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert list(em.state_dict()) == list(tm.state_dict())
    for (_, a), (_, b) in zip(em.named_parameters(), tm.named_parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    if hasattr(tm, "_flat_weights_names"):
        assert em._flat_weights_names == tm._flat_weights_names
        assert [[tuple(w.shape) for w in ws] for ws in em.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
        assert all(a is getattr(em, n) for a, n in zip(em._flat_weights, em._flat_weights_names))
        assert em.mode == tm.mode


def test_lstm_repr_and_first_weights(et):
    et.manual_seed(0)
    m = et.nn.LSTM(3, 4)
    assert repr(et.nn.LSTM(3, 4, num_layers=2, batch_first=True)) == "LSTM(3, 4, num_layers=2, batch_first=True)"
    np.testing.assert_allclose(m.weight_ih_l0[0].detach().numpy(), [-0.0037, 0.2682, -0.4115], atol=1e-4)
    np.testing.assert_allclose(m.bias_hh_l0[:3].detach().numpy(), [-0.1749, -0.4098, -0.1064], atol=1e-4)


def _lstm_errors(t):
    t.manual_seed(0)
    m = t.nn.LSTM(3, 4, 2)
    z = t.zeros
    return [
        lambda: m(t.randn(2, 1, 5)),
        lambda: m(t.randn(2, 1, 3), (z(2, 2, 4), z(2, 1, 4))),
        lambda: m(t.randn(2, 1, 3), (z(2, 1, 4), z(2, 1, 5))),
        lambda: m(t.randn(2, 1, 3), (z(2, 1), z(2, 1, 5))),
        lambda: m(t.randn(2, 3), (z(2, 1, 4), z(2, 1, 5))),
        lambda: m(t.randn(2)),
        lambda: m(t.randn(2, 1, 3).double()),
        lambda: m(t.randn(0, 1, 3)),
    ]


def _rnn_gru_errors(t):
    g, r = t.nn.GRU(3, 4), t.nn.RNN(3, 4)
    return [
        lambda: g(t.randn(2, 1, 3), t.zeros(1, 2, 4)),
        lambda: g(t.randn(2, 1, 3), t.zeros(2, 4)),
        lambda: g(t.randn(2, 3), t.zeros(1, 1, 4)),
        lambda: g(t.randn(2, 1, 1, 3)),
        lambda: r(t.randn(2, 1, 1, 3)),
        lambda: r(t.randn(0, 1, 3)),
        lambda: g(t.randn(2, 1, 3).double()),
        lambda: [x.shape for x in g(t.randn(2, 0, 3))],
    ]


def _constructor_errors(t):
    nn = t.nn
    return [lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), lambda: nn.GRU(3, 4, proj_size=2),
            lambda: nn.RNN(3, 4, proj_size=2), lambda: nn.LSTM(3, 4, proj_size=4), lambda: nn.LSTM(3, 4, dropout=1.5),
            lambda: nn.LSTM(3, 4, dropout=True), lambda: repr(nn.LSTM(3, 4, dropout=0.5)), lambda: nn.LSTM(3, 0),
            lambda: nn.LSTM(3, 4, bias=1), lambda: nn.LSTM(3, 4, batch_first=None), lambda: nn.LSTM(3.0, 4),
            lambda: nn.LSTM(0, 4), lambda: nn.LSTM(3, 4.0), lambda: nn.LSTM(3, 4, num_layers=0),
            lambda: nn.LSTM(3, 4, proj_size=-1)]


def _cell_errors(t):
    t.manual_seed(0)
    c, g, r = t.nn.LSTMCell(3, 4), t.nn.GRUCell(3, 4), t.nn.RNNCell(3, 4)
    z = t.zeros
    return [
        lambda: c(t.randn(2, 5)),
        lambda: c(t.randn(2, 3), (z(3, 4), z(2, 4))),
        lambda: c(t.randn(2, 3), (z(2, 4), z(3, 4))),
        lambda: c(t.randn(2, 3), (z(2, 5), z(2, 4))),
        lambda: c(t.randn(2, 3), (z(2, 4), z(2, 5))),
        lambda: c(t.randn(2, 3, 3)),
        lambda: c(t.randn(2, 3), (z(2, 4, 1), z(2, 5))),
        lambda: g(t.randn(2, 5)),
        lambda: g(t.randn(2, 3), z(3, 4)),
        lambda: g(t.randn(2, 3, 1)),
        lambda: g(t.randn(2, 3), z(2, 3, 1)),
        lambda: r(t.randn(2, 5)),
        lambda: r(t.randn(3), z(5)),
        lambda: r(t.randn(2, 3).double()),
        lambda: t.nn.RNNCell(3, 4, nonlinearity="foo")(t.randn(2, 3)),
    ]


ERRORS = {"lstm": _lstm_errors, "rnn_gru": _rnn_gru_errors, "constructors": _constructor_errors,
          "cells": _cell_errors}


@pytest.mark.parametrize("group", list(ERRORS))
def test_errors(torch_ref, et, group):
    for k in range(len(ERRORS[group](torch_ref))):
        same(torch_ref, et, lambda t: ERRORS[group](t)[k]())


def test_distinctive_messages(et):
    with pytest.raises(RuntimeError, match=r"^input.size\(-1\) must be equal to input_size. Expected 3, got 5$"):
        et.nn.LSTM(3, 4)(et.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]$"):
        et.nn.GRU(3, 4)(et.randn(5, 2, 3), et.zeros(1, 3, 4))
    with pytest.raises(RuntimeError, match=r"^hidden1 has inconsistent hidden_size: got 5, expected 4$"):
        et.nn.LSTMCell(3, 4)(et.randn(2, 3), (et.zeros(2, 4), et.zeros(2, 5)))


def test_module_conversions_keep_flat_weights(torch_ref, et):
    """``double()``, reassigning a weight, deepcopy and pickle: the forward uses the module's current parameters."""
    import copy
    import pickle

    def fn(t):
        t.manual_seed(0)
        m = t.nn.GRU(3, 4, num_layers=2).double()
        m.weight_hh_l1 = t.nn.Parameter(t.full((12, 4), 0.1, dtype=t.float64))
        m2 = pickle.loads(pickle.dumps(copy.deepcopy(m)))
        out, h = m2(t.randn(4, 2, 3, dtype=t.float64))
        return out, h, m2._flat_weights[3] is m2.weight_hh_l1, m._flat_weights[3] is m.weight_hh_l1

    same(torch_ref, et, fn)


def test_not_imported_with_engine():
    code = ("import sys, engine; assert 'engine.nn.modules.rnn' not in sys.modules; "
            "engine.nn.LSTM; engine.nn.modules.GRUCell; assert 'engine.nn.modules.rnn' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
