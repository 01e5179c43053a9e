"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``, laid out as PyTorch's
``torch/nn/modules/conv.py`` (the same attributes, initialisation draws, reprs and errors)."""
from ... import _factories
from ... import _conv as C
from ..._conv import _pair, _single, _triple
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin, _infer_parameters
from .linear import Linear
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {{'zeros', 'reflect', 'replicate', 'circular'}}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first) for the padding modes other than zeros
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding) for _ in range(2))
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(_factories.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_factories.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    reset_parameters = Linear.reset_parameters  # (the same draws as PyTorch's _ConvNd's)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _conv_forward(self, input, weight, bias):
        conv = self._functional
        if self.padding_mode != "zeros":
            return conv(C.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, self._ntuple(0), self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _Conv(_ConvNd):
    """What Conv1d/2d/3d share: their arguments, each read by the class's ``_ntuple``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        t = self._ntuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride),
                         padding if isinstance(padding, str) else t(padding), t(dilation), False, t(0), groups, bias,
                         padding_mode, device, dtype)


class Conv1d(_Conv):
    r"""1-D convolution over an input of shape (N, C_in, L) or (C_in, L).

    Args:
        in_channels, out_channels: channels of the input and of the output
        kernel_size, stride, dilation: ints or 1-tuples
        padding: int, 1-tuple, ``'valid'`` or ``'same'``. Default: 0
        groups: blocked connections from input to output channels. Default: 1
        bias: learn an additive bias. Default: ``True``
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``

    >>> m = nn.Conv1d(16, 33, 3, stride=2)
    >>> m(torch.randn(20, 16, 50)).shape
    torch.Size([20, 33, 24])
    """

    _functional = staticmethod(C.conv1d)
    _ntuple = staticmethod(_single)


class Conv2d(_Conv):
    r"""2-D convolution over an input of shape (N, C_in, H, W) or (C_in, H, W).

    Args:
        in_channels, out_channels: channels of the input and of the output
        kernel_size, stride, dilation: ints or 2-tuples
        padding: int, 2-tuple, ``'valid'`` or ``'same'``. Default: 0
        groups: blocked connections from input to output channels. Default: 1
        bias: learn an additive bias. Default: ``True``
        padding_mode: ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``

    Weight and bias start as :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})`, :math:`k = \text{groups} /
    (C_\text{in} \cdot \prod \text{kernel\_size})`, drawn as PyTorch draws them.

    >>> nn.Conv2d(1, 2, 3)
    Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))
    >>> nn.Conv2d(1, 2, 3)(torch.randn(8, 1, 28, 28)).shape
    torch.Size([8, 2, 26, 26])
    """

    _functional = staticmethod(C.conv2d)
    _ntuple = staticmethod(_pair)


class Conv3d(_Conv):
    r"""3-D convolution over an input of shape (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _functional = staticmethod(C.conv3d)
    _ntuple = staticmethod(_triple)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """The output_padding that gives ``output_size`` (None: the layer's own)."""
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d]
                        + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[2:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        nd = len(self.kernel_size)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, nd,
                                              self.dilation)
        return self._functional(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


class _ConvTranspose(_ConvTransposeNd):
    """What ConvTranspose1d/2d/3d share: their arguments, each read by the class's ``_ntuple``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        t = self._ntuple
        super().__init__(in_channels, out_channels, t(kernel_size), t(stride), t(padding), t(dilation), True,
                         t(output_padding), groups, bias, padding_mode, device, dtype)


class ConvTranspose1d(_ConvTranspose):
    r"""1-D transposed convolution over an input of shape (N, C_in, L) or (C_in, L): the input
    grad of a ``Conv1d``, as a layer (weight: (C_in, C_out / groups, kW))."""

    _functional = staticmethod(C.conv_transpose1d)
    _ntuple = staticmethod(_single)


class ConvTranspose2d(_ConvTranspose):
    r"""2-D transposed convolution over an input of shape (N, C_in, H, W) or (C_in, H, W)
    (weight: (C_in, C_out / groups, kH, kW)); ``forward(input, output_size)`` picks the output
    padding that gives ``output_size``.

    >>> nn.ConvTranspose2d(16, 33, 3, stride=2)(torch.randn(20, 16, 50, 100)).shape
    torch.Size([20, 33, 101, 201])
    """

    _functional = staticmethod(C.conv_transpose2d)
    _ntuple = staticmethod(_pair)


class ConvTranspose3d(_ConvTranspose):
    r"""3-D transposed convolution over an input of shape (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _functional = staticmethod(C.conv_transpose3d)
    _ntuple = staticmethod(_triple)


class _LazyConvMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the first input's channels dim."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = input.shape[0 if input.dim() == len(self.kernel_size) + 1 else 1]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            shape = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                     else (self.out_channels, self.in_channels // self.groups)) + tuple(self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(name, base, transposed):
    def _uninitialized(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    if transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                          padding_mode)
            _uninitialized(self, out_channels, bias, dtype)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
            _uninitialized(self, out_channels, bias, dtype)

    doc = (f"A ``{base.__name__}`` whose ``in_channels`` come from its first input's channels; it becomes a "
           f"``{base.__name__}`` then.")
    cls = type(name, (_LazyConvMixin, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc})
    cls.__module__ = __name__
    return cls


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, False)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, False)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, False)
LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, True)
LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, True)
