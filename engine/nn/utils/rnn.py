"""``torch.nn.utils.rnn``: packed sequences, and padding lists of sequences.

``pack_padded_sequence`` is one ``PackPaddedSequenceBackward0`` node, as PyTorch's
``_pack_padded_sequence`` is; ``pad_packed_sequence`` and ``pad_sequence`` are composed as their ATen
kernels (PackedSequence.cpp, PadSequence) compose them: a tensor full of the padding value and an
in-place copy into a view of it per block, so the graph shows one ``CopySlices`` per block.
"""
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import _dtypes, _factories, _ops
from ..._ops import _saved_attr, _saved_sizes, _saved_tensor_attr, defop, register_saved
from ..._grad_mode import no_grad
from ..._tensor import Tensor, _wrap, record

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor
    unsorted_indices: Tensor


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    r"""The steps of a batch of sequences of different lengths, packed: ``data`` holds, step after
    step, the step of every sequence still running (``batch_sizes[t]`` of them at step ``t``), the
    sequences sorted longest first; ``sorted_indices`` is that order (None when the input was
    sorted already) and ``unsorted_indices`` its inverse.

    Made by :func:`pack_padded_sequence` and :func:`pack_sequence`, and taken by ``nn.RNN``,
    ``nn.LSTM`` and ``nn.GRU``.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """``data.to(*args, **kwargs)``, the indices moved to its device; ``self`` when ``data`` is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        ex = _factories.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = _factories.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_dtypes.float64)

    def float(self):
        return self.to(dtype=_dtypes.float32)

    def half(self):
        return self.to(dtype=_dtypes.float16)

    def long(self):
        return self.to(dtype=_dtypes.int64)

    def int(self):
        return self.to(dtype=_dtypes.int32)

    def short(self):
        return self.to(dtype=_dtypes.int16)

    def char(self):
        return self.to(dtype=_dtypes.int8)

    def byte(self):
        return self.to(dtype=_dtypes.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    # PackedSequence(data, batch_sizes, ...) or PackedSequence((data, batch_sizes), ...)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of the 1-D index tensor ``permutation`` (None for None)."""
    if permutation is None:
        return None
    output = _factories.empty_like(permutation)
    output.scatter_(0, permutation, _factories.arange(0, permutation.numel(), device=permutation.device))
    return output


# ----- _pack_padded_sequence: one node, its backward composed as ATen's _pack_padded_sequence_backward -----

def _pack_padded_sequence_backward(g, ans, input, batch_sizes, batch_first):
    size = list(input.shape)
    if batch_first:
        size[0], size[1] = size[1], size[0]
    grad_input = _factories.zeros(size, dtype=g.dtype)
    offset = 0
    for i, b in enumerate(batch_sizes.tolist()):
        grad_input[i].narrow(0, 0, b).copy_(g.narrow(0, offset, b))
        offset += b
    return grad_input.transpose(0, 1) if batch_first else grad_input


PACK_PADDED_SEQUENCE = defop("PackPaddedSequenceBackward0", _pack_padded_sequence_backward, keeps=True)
register_saved({"PackPaddedSequenceBackward0": {"batch_first": _saved_attr("batch_first"),
                                                "input_sym_sizes": _saved_sizes,
                                                "result1": _saved_tensor_attr("batch_sizes")}})


def _pack_padded(input, lengths, batch_first):
    """ATen's ``_pack_padded_sequence``: ``(data, batch_sizes)``."""
    if input.numel() <= 0:
        raise RuntimeError("Cannot pack empty tensors.")
    with no_grad():  # (for the shape and the errors: the node is PackPaddedSequenceBackward0 alone)
        x = input.transpose(0, 1) if batch_first else input
    if lengths.dim() != 1:  # (always int64 here)
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D cpu Long "
                           "tensor")
    batch_size = x.size(1)
    x = x._data
    lens = lengths.tolist()
    if len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch_size})")
    if lens[batch_size - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if any(lens[i + 1] > lens[i] for i in range(batch_size - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                           "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    # From the shortest sequence up, each block of steps where the same sequences are running
    steps, batch_sizes, prev_l = [], [], 0
    for i in range(batch_size):
        length = lens[batch_size - 1 - i]
        if length > prev_l:
            current = batch_size - i
            steps.append(x[prev_l:length, :current].reshape((-1,) + x.shape[2:]))
            batch_sizes += [current] * (length - prev_l)
            prev_l = length
    batch_sizes = _wrap(np.array(batch_sizes, dtype=np.int64))
    data = record(PACK_PADDED_SEQUENCE, (input,), np.concatenate(steps),
                  {"batch_sizes": batch_sizes, "batch_first": bool(batch_first)})
    return data, batch_sizes


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Pack ``input`` (``T x B x *``, or ``B x T x *`` with ``batch_first``), a batch of padded
    sequences of the given ``lengths`` (a list or a CPU tensor), into a :class:`PackedSequence`.

    With ``enforce_sorted`` (the default) the sequences must come longest first; otherwise they are
    sorted here (``index_select`` along the batch) and the order is kept in ``sorted_indices``.
    """
    if not isinstance(lengths, Tensor):
        lengths = _factories.as_tensor(lengths, dtype=_dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _ops.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """ATen's ``_pad_packed_sequence``: ``(padded, lengths)``, each run of steps with the same batch
    size copied into its block of a tensor full of ``padding_value``."""
    sizes = batch_sizes.tolist()
    max_batch_size, max_real_seq_length = sizes[0], len(sizes)
    max_seq_length = max(total_length, max_real_seq_length)
    rest = tuple(data.shape[1:])
    output = _factories.full((max_seq_length, max_batch_size) + rest, padding_value, dtype=data.dtype)
    lengths = np.empty(max_batch_size, dtype=np.int64)
    last = max_batch_size - 1
    data_offset, prev_batch_size, prev_i = 0, max_batch_size, 0
    for i in range(max_real_seq_length + 1):
        batch_size = sizes[i] if i != max_real_seq_length else 0
        if batch_size != prev_batch_size:
            n = prev_batch_size * (i - prev_i)
            block = data.narrow(0, data_offset, n).view((i - prev_i, prev_batch_size) + rest)
            output.narrow(0, prev_i, i - prev_i).narrow(1, 0, prev_batch_size).copy_(block)
            data_offset += n
            prev_i = i
        for _ in range(prev_batch_size - batch_size):
            lengths[last] = i
            last -= 1
        prev_batch_size = batch_size
    if batch_first:
        output = output.transpose(0, 1)
    return output, _wrap(lengths)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""Undo :func:`pack_padded_sequence`: the padded batch (``T x B x *``, or ``B x T x *`` with
    ``batch_first``) in the sequences' original order, and their lengths. ``total_length`` pads to
    that many steps (at least the longest sequence's)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                         max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    r"""Stack the tensors ``sequences`` (each ``L_i x *``) along a new batch dimension, padded with
    ``padding_value`` to the longest's length on the ``padding_side`` (``'right'`` or ``'left'``):
    ``T x B x *``, or ``B x T x *`` with ``batch_first``."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(sequences[0].shape[1:])
    max_len = max(s.size(0) for s in sequences)
    out_dims = ((len(sequences), max_len) if batch_first else (max_len, len(sequences))) + trailing
    out = _factories.full(out_dims, padding_value, dtype=sequences[0].dtype)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.size(0)
        start = max_len - length if padding_side == "left" else 0
        view = out.select(0, i).narrow(0, start, length) if batch_first else out.narrow(0, start, length).select(1, i)
        _ops._broadcast_checked(view._data.shape, seq._data.shape)  # PyTorch's message for trailing dims that differ
        view.copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    r"""Undo :func:`pad_sequence`: the list of the sequences in ``padded_sequences`` cut to their
    ``lengths``. Without ``batch_first`` this transposes ``padded_sequences`` in place first, as
    PyTorch's does."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _factories.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    r"""Pack a list of sequences (each ``L_i x *``): ``pad_sequence`` then ``pack_padded_sequence``."""
    lengths = _factories.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    r"""Undo :func:`pack_sequence`: the list of the sequences in ``packed_sequences``."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
