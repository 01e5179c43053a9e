"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells.

The forward passes are composed of the engine's ops in the order PyTorch's CPU kernels
(aten/src/ATen/native/RNN.cpp) compose them, so that ``grad_fn`` graphs show the same nodes: the
input projection of a whole layer is one ``linear`` unbound along time, each step adds the hidden
projection, splits the gates and applies sigmoid/tanh, and the steps are stacked. A
``PackedSequence`` runs through RNN.cpp's packed layers: each step narrows the projected input to
the sequences still running, the hidden state is narrowed when sequences end (their final states
set aside) and the step outputs are concatenated.
"""
import math
import numbers
import warnings

from ... import _factories, _ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ----- the kernels (RNN.cpp's cells and layers) -----

class _CellParams:
    """One layer-direction's weights, with ``linear_ih``/``linear_hh``/``matmul_hr`` as RNN.cpp's ``CellParams``."""

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, input):
        return F.linear(input, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        return F.linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h):
        return h if self.w_hr is None else _ops.matmul(h, self.w_hr.t())


def _gates(x, n):
    return _ops.unsafe_chunk(x, n, 1)


def _simple_cell(nonlinearity):
    def cell(input, hidden, params, pre_compute_input=False):
        hh = params.linear_hh(hidden)
        return nonlinearity(hh + (input if pre_compute_input else params.linear_ih(input)))
    return cell


def _lstm_cell(input, hidden, params, pre_compute_input=False):
    hx, cx = hidden
    hh = params.linear_hh(hx)
    gates = hh + (input if pre_compute_input else params.linear_ih(input))
    ingate, forgetgate, cellgate, outgate = _gates(gates, 4)
    ingate = _ops.sigmoid(ingate)
    forgetgate = _ops.sigmoid(forgetgate)
    cellgate = _ops.tanh(cellgate)
    outgate = _ops.sigmoid(outgate)
    cy = forgetgate * cx + ingate * cellgate
    hy = outgate * _ops.tanh(cy)
    return params.matmul_hr(hy), cy


def _gru_cell(input, hidden, params, pre_compute_input=False):
    igates = _gates(input if pre_compute_input else params.linear_ih(input), 3)
    hgates = _gates(params.linear_hh(hidden), 3)
    reset_gate = _ops.sigmoid(hgates[0] + igates[0])
    input_gate = _ops.sigmoid(hgates[1] + igates[1])
    new_gate = _ops.tanh(igates[2] + hgates[2] * reset_gate)
    return (hidden - new_gate) * input_gate + new_gate


def _step_inputs(params, input):
    """The input projected for the whole sequence at once, one tensor per step."""
    inputs_w = params.linear_ih(input)
    if inputs_w.size(0) == 0:  # checked before unbind, which the engine refuses along an empty dimension
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return inputs_w.unbind(0)


def _run_steps(cell, step_inputs, hidden, params, output_of):
    outputs = []
    for x in step_inputs:
        hidden = cell(x, hidden, params, True)
        outputs.append(output_of(hidden))
    return outputs, hidden


def _full_layer(cell, input, hidden, params, output_of):
    outputs, hidden = _run_steps(cell, _step_inputs(params, input), hidden, params, output_of)
    return _ops.stack(outputs, 0), hidden


def _bidirectional_layer(cell, input, hiddens, params, output_of):
    fw_outputs, fw_hidden = _run_steps(cell, _step_inputs(params[0], input), hiddens[0], params[0], output_of)
    fw_output = _ops.stack(fw_outputs, 0)
    rev_steps = _step_inputs(params[1], input)[::-1]
    rev_outputs, rev_hidden = _run_steps(cell, rev_steps, hiddens[1], params[1], output_of)
    rev_output = _ops.stack(rev_outputs[::-1], 0)
    return _ops.cat([fw_output, rev_output], fw_output.dim() - 1), [fw_hidden, rev_hidden]


def _hidden_slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _hidden_concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(_ops.cat(list(hs), 0) for hs in zip(*hiddens))
    return _ops.cat(hiddens, 0)


def _packed_layer(batch_sizes):
    """RNN.cpp's ``PackedLayer`` over the packed ``input`` (its data) with these batch sizes: when
    the batch shrinks, the finished sequences' hidden states are set aside; they and the last
    step's come back in batch order."""
    def layer(cell, input, hidden, params, output_of):
        input_w = params.linear_ih(input)
        step_outputs, hiddens = [], []
        offset, last_batch_size = 0, batch_sizes[0]
        for batch_size in batch_sizes:
            step_input = input_w.narrow(0, offset, batch_size)
            offset += batch_size
            if last_batch_size > batch_size:
                hiddens.append(_hidden_slice(hidden, batch_size, last_batch_size))
                hidden = _hidden_slice(hidden, 0, batch_size)
            last_batch_size = batch_size
            hidden = cell(step_input, hidden, params, True)
            step_outputs.append(output_of(hidden))
        hiddens.append(hidden)
        return _ops.cat(step_outputs, 0), _hidden_concat(hiddens[::-1])
    return layer


def _reversed_packed_layer(cell, input, input_hidden, params, output_of, batch_sizes):
    """RNN.cpp's ``ReversedPackedLayer``: from the last step back, the hidden state grows by the
    initial states of the sequences that start running."""
    input_w = params.linear_ih(input)
    step_outputs = []
    offset, last_batch_size = input.size(0), batch_sizes[-1]
    hidden = _hidden_slice(input_hidden, 0, last_batch_size)
    for batch_size in batch_sizes[::-1]:
        if batch_size > last_batch_size:
            hidden = _hidden_concat([hidden, _hidden_slice(input_hidden, last_batch_size, batch_size)])
        step_input = input_w.narrow(0, offset - batch_size, batch_size)
        offset -= batch_size
        last_batch_size = batch_size
        hidden = cell(step_input, hidden, params, True)
        step_outputs.append(output_of(hidden))
    return _ops.cat(step_outputs[::-1], 0), hidden


def _packed_bidirectional_layer(batch_sizes):
    forward = _packed_layer(batch_sizes)

    def layer(cell, input, hiddens, params, output_of):
        fw_output, fw_hidden = forward(cell, input, hiddens[0], params[0], output_of)
        rev_output, rev_hidden = _reversed_packed_layer(cell, input, hiddens[1], params[1], output_of, batch_sizes)
        return _ops.cat([fw_output, rev_output], -1), [fw_hidden, rev_hidden]
    return layer


def _rnn_impl(cell, input, params, hiddens, num_layers, dropout_p, train, bidirectional, output_of, batch_sizes=None):
    """RNN.cpp's ``apply_layer_stack``: the layers in turn, with dropout between them in training;
    returns the last layer's output and every layer-direction's final hidden state. With
    ``batch_sizes`` (a list), ``input`` is a packed sequence's data."""
    num_directions = 2 if bidirectional else 1
    if batch_sizes is None:
        full_layer, bidirectional_layer = _full_layer, _bidirectional_layer
    else:
        full_layer, bidirectional_layer = _packed_layer(batch_sizes), _packed_bidirectional_layer(batch_sizes)
    layer_input, final_hiddens = input, []
    for layer in range(num_layers):
        k = layer * num_directions
        if bidirectional:
            layer_input, finals = bidirectional_layer(cell, layer_input, hiddens[k:k + 2], params[k:k + 2], output_of)
            final_hiddens.extend(finals)
        else:
            layer_input, final = full_layer(cell, layer_input, hiddens[k], params[k], output_of)
            final_hiddens.append(final)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout_p, True)
    return layer_input, final_hiddens


def _gather_params(flat_weights, has_biases, has_projections):
    per_layer = 2 + 2 * has_biases + has_projections
    if len(flat_weights) % per_layer:
        raise RuntimeError("got an incorrect number of RNN parameters")
    params = []
    for k in range(0, len(flat_weights), per_layer):
        w = flat_weights[k:k + per_layer]
        biases = w[2:4] if has_biases else (None, None)
        params.append(_CellParams(w[0], w[1], *biases, w[-1] if has_projections else None))
    return params


# ----- modules -----

class RNNBase(Module):
    r"""Base class of ``RNN``, ``LSTM`` and ``GRU``: registers the parameters of every layer and
    direction (``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``, then
    ``weight_hr_l{k}`` with projections, ``_reverse`` for the backward direction), all drawn from
    :math:`\mathcal{U}(-1/\sqrt{\text{hidden\_size}}, 1/\sqrt{\text{hidden\_size}})` in that order."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        gate_sizes = {"LSTM": 4 * hidden_size, "GRU": 3 * hidden_size, "RNN_TANH": hidden_size,
                      "RNN_RELU": hidden_size}
        if mode not in gate_sizes:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gate_sizes[mode]

        def param(*shape):
            return Parameter(_factories.empty(shape, device=device, dtype=dtype))

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                layer_params = [param(gate_size, layer_input_size), param(gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    layer_params += [param(gate_size), param(gate_size)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    layer_params.append(param(proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, p in zip(names, layer_params):
                    setattr(self, name, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        names = self.__dict__.get("_flat_weights_names")
        if names is not None and attr in names and "_flat_weights" in self.__dict__:
            self._flat_weights[names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """A no-op: PyTorch packs the weights into one buffer only for cuDNN."""

    def _apply(self, fn):
        ret = super()._apply(fn)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _update_flat_weights(self):
        if any(getattr(self, n, None) is not w for n, w in zip(self._flat_weights_names, self._flat_weights)):
            self._init_flat_weights()

    def check_input(self, input, batch_sizes):
        if input.dtype != self._flat_weights[0].dtype:
            w = self._flat_weights[0].dtype
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w}). "
                             f"Convert input: input.to({w}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _batched(self, input, hx, one_hidden):
        """PyTorch's unbatched handling: ``(input, hx, is_batched, batch_dim)`` with a batch
        dimension added to a 2-D input (and to its hx), after the checks on ranks."""
        if input.dim() not in (2, 3):
            name = "RNN" if self.mode.startswith("RNN") else self.mode
            tail = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail}")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is not None:
            rank = 3 if is_batched else 2
            kind = "batched 3-D" if is_batched else "unbatched 2-D"
            if one_hidden:
                if hx.dim() != rank:
                    raise RuntimeError(f"For {kind} input, hx should also be {rank}-D but got {hx.dim()}-D tensor")
                if not is_batched:
                    hx = hx.unsqueeze(1)
            else:
                if hx[0].dim() != rank or hx[1].dim() != rank:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {rank}-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                if not is_batched:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        return input, hx, is_batched, batch_dim

    def _zeros(self, input, size):
        num_directions = 2 if self.bidirectional else 1
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        return _factories.zeros(self.num_layers * num_directions, max_batch_size, size, dtype=input.dtype,
                                device=input.device)

    def _packed(self, input, hx, sizes):
        """A packed input's data and batch sizes, and ``hx`` in the sequences' sorted order (zeros
        of ``sizes`` when None)."""
        data, batch_sizes, sorted_indices, _ = input
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            hx = tuple(_factories.zeros(self.num_layers * num_directions, int(batch_sizes[0]), size, dtype=data.dtype,
                                        device=data.device) for size in sizes)
            hx = hx[0] if len(sizes) == 1 else hx
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        return data, batch_sizes, hx

    def _one_hidden_forward(self, input, hx, cell):
        """RNN.cpp's ``rnn_tanh``/``rnn_relu``/``gru`` and the Python forward around them."""
        self._update_flat_weights()
        if isinstance(input, PackedSequence):
            data, batch_sizes, hx = self._packed(input, hx, (self.hidden_size,))
            self.check_forward_args(data, hx, batch_sizes)
            params = _gather_params(self._flat_weights, self.bias, False)
            output, finals = _rnn_impl(cell, data, params, hx.unbind(0), self.num_layers, self.dropout, self.training,
                                       self.bidirectional, lambda h: h, batch_sizes.tolist())
            output = PackedSequence(output, batch_sizes, input.sorted_indices, input.unsorted_indices)
            return output, self.permute_hidden(_ops.stack(finals, 0), input.unsorted_indices)
        input, hx, is_batched, batch_dim = self._batched(input, hx, True)
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        x = input.transpose(0, 1) if self.batch_first else input
        params = _gather_params(self._flat_weights, self.bias, False)
        output, finals = _rnn_impl(cell, x, params, hx.unbind(0), self.num_layers, self.dropout, self.training,
                                   self.bidirectional, lambda h: h)
        hidden = _ops.stack(finals, 0)
        if self.batch_first:
            output.transpose_(0, 1)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    r"""A multi-layer Elman RNN: :math:`h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})`,
    or with ``nonlinearity='relu'`` the ReLU in place of :math:`\tanh`.

    Args:
        input_size: the number of features of the input
        hidden_size: the number of features of the hidden state
        num_layers: the number of stacked layers. Default: 1
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``
        bias: with ``False``, no ``b_ih`` and ``b_hh``. Default: ``True``
        batch_first: inputs and outputs are ``(batch, seq, feature)``. Default: ``False``
        dropout: dropout probability on the outputs of all but the last layer. Default: 0
        bidirectional: run a second, reverse direction too. Default: ``False``

    ``forward(input, hx=None)`` returns ``(output, h_n)``.

    >>> rnn = nn.RNN(10, 20, 2)
    >>> output, hn = rnn(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        cell = _simple_cell(_ops.tanh if self.mode == "RNN_TANH" else _ops.relu)
        return self._one_hidden_forward(input, hx, cell)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory RNN. For each step:

    .. math::
        i, f, g, o = \sigma, \sigma, \tanh, \sigma \text{ of the chunks of } x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh}
        c_t = f \odot c_{t-1} + i \odot g, \quad h_t = o \odot \tanh(c_t)

    and with ``proj_size > 0``, :math:`h_t` is multiplied by ``weight_hr``.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional: as for ``RNN``
        proj_size: if ``> 0``, the size of the projected hidden state. Default: 0

    ``forward(input, (h_0, c_0)=None)`` returns ``(output, (h_n, c_n))``.

    >>> rnn = nn.LSTM(10, 20, 2)
    >>> output, (hn, cn) = rnn(torch.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _lstm(self, input, hx, batch_sizes=None):
        """RNN.cpp's ``_lstm_impl``: the output and the stacked final ``h`` and ``c``."""
        # (as RNN.cpp tells projections: by the sizes of h and c)
        params = _gather_params(self._flat_weights, self.bias, hx[0].size(2) != hx[1].size(2))
        hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        output, finals = _rnn_impl(_lstm_cell, input, params, hiddens, self.num_layers, self.dropout, self.training,
                                   self.bidirectional, lambda h: h[0], batch_sizes)
        return output, _ops.stack([h for h, _ in finals], 0), _ops.stack([c for _, c in finals], 0)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        if isinstance(input, PackedSequence):
            # PyTorch checks neither shapes nor dtypes here: the kernel's ops raise. When the sequences
            # all have the same length (and there are no projections) it sends a float32 batch through
            # oneDNN as a padded one; this is the graph it shows otherwise, and without oneDNN.
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            data, batch_sizes, hx = self._packed(input, hx, (real_hidden_size, self.hidden_size))
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("lstm expects two hidden states")
            output, hy, cy = self._lstm(data, hx, batch_sizes.tolist())
            output = PackedSequence(output, batch_sizes, input.sorted_indices, input.unsorted_indices)
            return output, self.permute_hidden((hy, cy), input.unsorted_indices)
        input, hx, is_batched, batch_dim = self._batched(input, hx, False)
        if hx is None:
            hx = (self._zeros(input, self.proj_size if self.proj_size > 0 else self.hidden_size),
                  self._zeros(input, self.hidden_size))
        self.check_forward_args(input, hx, None)
        # PyTorch runs float32 LSTMs through oneDNN on the CPU (MkldnnRnnLayerBackward0 nodes);
        # this is its composed kernel, the one it uses for other dtypes and with projections.
        x = input.transpose(0, 1) if self.batch_first else input
        output, hy, cy = self._lstm(x, hx)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            return output.squeeze(batch_dim), (hy.squeeze(1), cy.squeeze(1))
        return output, (hy, cy)


class GRU(RNNBase):
    r"""A multi-layer gated recurrent unit RNN. For each step:

    .. math::
        r = \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}), \quad
        z = \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz})
        n = \tanh(W_{in} x_t + b_{in} + r \odot (W_{hn} h_{t-1} + b_{hn})), \quad
        h_t = (1 - z) \odot n + z \odot h_{t-1}

    Args: as for ``RNN``, without ``nonlinearity``.

    ``forward(input, hx=None)`` returns ``(output, h_n)``.

    >>> rnn = nn.GRU(10, 20, 2)
    >>> output, hn = rnn(torch.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._one_hidden_forward(input, hx, _gru_cell)


class RNNCellBase(Module):
    r"""Base class of the cells: ``weight_ih`` (``num_chunks * hidden_size x input_size``),
    ``weight_hh`` (``num_chunks * hidden_size x hidden_size``) and, with ``bias``, ``bias_ih`` and
    ``bias_hh``, all drawn from :math:`\mathcal{U}(-1/\sqrt{\text{hidden\_size}}, 1/\sqrt{\text{hidden\_size}})`."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias

        def param(*shape):
            return Parameter(_factories.empty(shape, device=device, dtype=dtype))

        self.weight_ih = param(num_chunks * hidden_size, input_size)
        self.weight_hh = param(num_chunks * hidden_size, hidden_size)
        if bias:
            self.bias_ih = param(num_chunks * hidden_size)
            self.bias_hh = param(num_chunks * hidden_size)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _params(self):
        return _CellParams(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

    def _check_ranks(self, name, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, h in hx:
            if h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.dim()}D instead")

    def _check_cell(self, input, hiddens):
        """RNN.cpp's ``check_rnn_cell_forward_input`` and ``check_rnn_cell_forward_hidden``."""
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                               f"{self.weight_ih.size(1)}")
        for label, hx in enumerate(hiddens):
            if input.size(0) != hx.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size "
                                   f"{hx.size(0)}")
            if hx.size(1) != self.weight_hh.size(1):
                raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected "
                                   f"{self.weight_hh.size(1)}")

    def _batched(self, input, hx, states):
        """``input`` and its ``states`` hidden tensors (zeros when ``hx`` is None) with a batch dim, and
        whether ``input`` came with one."""
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = (_factories.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device),) * states
        elif not is_batched:
            hx = tuple(h.unsqueeze(0) for h in hx)
        return input, tuple(hx), is_batched


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell: :math:`h' = \tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh})`, or ReLU
    with ``nonlinearity='relu'``.

    Args:
        input_size: the number of features of the input
        hidden_size: the number of features of the hidden state
        bias: with ``False``, no ``bias_ih`` and ``bias_hh``. Default: ``True``
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``

    ``forward(input, hx=None)`` returns the next hidden state.
    """

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        self._check_ranks("RNNCell", input, [] if hx is None else [("hidden", hx)])
        input, (hx,), is_batched = self._batched(input, None if hx is None else (hx,), 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_cell(input, [hx])
        cell = _simple_cell(_ops.tanh if self.nonlinearity == "tanh" else _ops.relu)
        ret = cell(input, hx, self._params())
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""A long short-term memory cell: from the chunks :math:`i, f, g, o` of
    :math:`x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh}`, :math:`c' = \sigma(f) c + \sigma(i) \tanh(g)`
    and :math:`h' = \sigma(o) \tanh(c')`.

    Args:
        input_size: the number of features of the input
        hidden_size: the number of features of the hidden and cell states
        bias: with ``False``, no ``bias_ih`` and ``bias_hh``. Default: ``True``

    ``forward(input, (h, c)=None)`` returns ``(h', c')``.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        self._check_ranks("LSTMCell", input, [] if hx is None else [(f"hx[{i}]", h) for i, h in enumerate(hx)])
        input, hx, is_batched = self._batched(input, hx, 2)
        self._check_cell(input, hx)
        hy, cy = _lstm_cell(input, hx, self._params())
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit cell: from the chunks :math:`r, z, n` of :math:`x W_{ih}^T + b_{ih}`
    and of :math:`h W_{hh}^T + b_{hh}`, :math:`h' = (1 - z) \odot n + z \odot h` with
    :math:`r, z` through a sigmoid and :math:`n = \tanh(n_i + r \odot n_h)`.

    Args:
        input_size: the number of features of the input
        hidden_size: the number of features of the hidden state
        bias: with ``False``, no ``bias_ih`` and ``bias_hh``. Default: ``True``

    ``forward(input, hx=None)`` returns the next hidden state.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        self._check_ranks("GRUCell", input, [] if hx is None else [("hidden", hx)])
        input, (hx,), is_batched = self._batched(input, None if hx is None else (hx,), 1)
        self._check_cell(input, [hx])
        ret = _gru_cell(input, hx, self._params())
        return ret if is_batched else ret.squeeze(0)
