"""Loss modules: each holds its options and calls its ``torch.nn.functional`` form."""
import warnings

from .. import functional as F
from .module import Module

__all__ = ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "SmoothL1Loss",
           "HuberLoss", "KLDivLoss", "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CosineEmbeddingLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss"]


def _legacy_reduction(size_average, reduce):
    """The ``reduction`` that the deprecated ``size_average``/``reduce`` flags stand for."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=3)
    return reduction


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    r"""The mean absolute error between ``input`` and ``target``: :math:`|x - y|`, then
    ``reduction`` (``'mean'`` | ``'sum'`` | ``'none'``)."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    r"""The mean squared error between ``input`` and ``target``: :math:`(x - y)^2`, then
    ``reduction`` (``'mean'`` | ``'sum'`` | ``'none'``).

    >>> loss = nn.MSELoss()
    >>> loss(torch.zeros(3), torch.ones(3))
    tensor(1.)
    """

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    r"""Cross entropy between logits ``input`` (``(N, C)`` or ``(C,)``, or ``(N, C, d1, ...)``) and a
    ``target`` of class indices or of class probabilities: ``log_softmax`` then ``nll_loss``.

    Args:
        weight: a rescaling weight per class
        ignore_index: a target value that contributes nothing. Default: -100
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'``
        label_smoothing: in [0, 1], the share of the target spread over all classes. Default: 0.0
    """

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    r"""The negative log likelihood of class indices ``target`` under log-probabilities ``input``.

    Args:
        weight: a rescaling weight per class
        ignore_index: a target value that contributes nothing. Default: -100
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'``
    """

    __constants__ = ["ignore_index", "reduction"]

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    r"""Binary cross entropy between probabilities ``input`` and ``target``:
    :math:`-w [y \log x + (1 - y) \log(1 - x)]`, the logs clamped at -100."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    r"""A sigmoid and binary cross entropy in one, numerically stable, on logits ``input``.

    Args:
        weight: a rescaling weight per element
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'``
        pos_weight: a weight of positive examples, per class
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class SmoothL1Loss(_Loss):
    r"""A squared term :math:`0.5 (x - y)^2 / \beta` where :math:`|x - y| < \beta`, else
    :math:`|x - y| - 0.5 \beta`, then ``reduction``.

    Args:
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'``
        beta: where the loss turns from squared to linear; non-negative. Default: 1.0
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    r"""A squared term :math:`0.5 (x - y)^2` where :math:`|x - y| < \delta`, else
    :math:`\delta (|x - y| - 0.5 \delta)`, then ``reduction``.

    Args:
        reduction: ``'mean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'``
        delta: where the loss turns from squared to linear; positive. Default: 1.0
    """

    __constants__ = ["reduction", "delta"]

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    r"""The Kullback-Leibler divergence of ``target`` from log-probabilities ``input``:
    :math:`y (\log y - x)` (``log_target``: :math:`e^y (y - x)`), then ``reduction``.

    Args:
        reduction: ``'mean'`` | ``'batchmean'`` | ``'sum'`` | ``'none'``. Default: ``'mean'`` (warns:
            ``'batchmean'`` is the mathematical definition)
        log_target: ``target`` is given as log-probabilities. Default: ``False``
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class SoftMarginLoss(_Loss):
    r"""The two-class logistic loss :math:`\log(1 + e^{-y x})` of a target :math:`y` of 1 or -1,
    then ``reduction`` (``'mean'`` | ``'sum'`` | ``'none'``)."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    r""":math:`\max(0, -y (x_1 - x_2) + \text{margin})`: whether ``input1`` should rank above
    ``input2`` (:math:`y = 1`) or below (:math:`y = -1`), then ``reduction``."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    r""":math:`x` where :math:`y = 1`, :math:`\max(0, \text{margin} - x)` where :math:`y = -1`, then
    ``reduction``."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    r"""The Poisson negative log likelihood :math:`e^x - y x` (of the log rate :math:`x`; with
    ``log_input=False``, :math:`x - y \log(x + \text{eps})`), then ``reduction``."""

    __constants__ = ["log_input", "full", "eps", "reduction"]

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    r"""The Gaussian negative log likelihood of ``target`` under mean ``input`` and variance ``var``:
    :math:`0.5 (\log \text{var} + (x - y)^2 / \text{var})`, the variance clamped to ``eps``."""

    __constants__ = ["full", "eps", "reduction"]

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    r""":math:`\max(0, \text{margin} + d(a, p) - d(a, n))` with the p-norm ``pairwise_distance``."""

    __constants__ = ["margin", "p", "eps", "swap", "reduction"]

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    r""":math:`\max(0, \text{margin} + d(a, p) - d(a, n))` with any ``distance_function``
    (``PairwiseDistance()`` by default)."""

    __constants__ = ["margin", "swap", "reduction"]

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        from .distance import PairwiseDistance

        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    r""":math:`1 - \cos(x_1, x_2)` where ``target`` is 1, :math:`\max(0, \cos(x_1, x_2) - \text{margin})`
    where it is -1, then ``reduction``."""

    __constants__ = ["margin", "reduction"]

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    r"""The multi-class hinge loss :math:`\sum_{j \ne y} \max(0, \text{margin} - x_y + x_j)^p / C`
    (``p`` 1 or 2), each sample's loss times ``weight[y]``."""

    __constants__ = ["p", "margin", "reduction"]

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    r"""The multi-label hinge loss: ``target`` holds each sample's class indices, ended by -1."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    r"""The per-class logistic loss of a 0/1 ``target``, averaged over the classes."""

    __constants__ = ["reduction"]

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)
