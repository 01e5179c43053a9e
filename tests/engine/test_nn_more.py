"""F.interpolate (and F.upsample*, nn.Upsample*), the pixel and channel shuffles, gumbel_softmax, the
gaussian/triplet/cosine-embedding/multi-margin/multilabel losses, bilinear, pdist, local_response_norm,
rrelu, alpha dropout, lp_pool, max_unpool and their modules, and nn.init's trunc_normal_, dirac_,
sparse_ and deprecated names, against real PyTorch: values and dtypes (float32 resampling to the last
bit), errors and warnings, grads, grad_fn and next_functions (double backward too), saved attributes,
the same random draws after the same seed; and against finite differences, first and second order."""
import math
import warnings

import numpy as np
import pytest

from tests.engine.opinfo import check_grads, graded, grads_with_graph, names, outcome, same

_RNG = np.random.default_rng(7)
X3 = _RNG.standard_normal((2, 3, 5)).round(4).tolist()  # (N, C, L)
X4 = _RNG.standard_normal((2, 2, 5, 7)).round(4).tolist()  # (N, C, H, W)
X4C9 = _RNG.standard_normal((1, 9, 4, 5)).round(4).tolist()  # (more channels than a float vector holds)
X5 = _RNG.standard_normal((1, 2, 3, 4, 5)).round(4).tolist()  # (N, C, D, H, W)
A = _RNG.standard_normal((3, 4)).round(4).tolist()
B = _RNG.standard_normal((3, 4)).round(4).tolist()
C = _RNG.standard_normal((3, 4)).round(4).tolist()
POS = _RNG.uniform(0.5, 2.0, (3, 4)).round(4).tolist()
MARGIN_TARGET = [0, 3, 1]
LABELS = [[0, 3, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]]


def F(t):
    return t.nn.functional


def interp(t, x, dtype="float32", **kw):
    return F(t).interpolate(t.tensor(x, dtype=getattr(t, dtype)), **kw)


# ----- Values, dtypes, errors and warnings -----

SIZES = [dict(scale_factor=2), dict(scale_factor=0.5), dict(scale_factor=1.7), dict(scale_factor=2.1),
         dict(scale_factor=0.3, recompute_scale_factor=True), dict(size=3), dict(size=11), dict(size=1),
         dict(scale_factor=1.0)]
MODES = {"1d": (X3, ["nearest", "nearest-exact", "linear", "area"]),
         "2d": (X4, ["nearest", "nearest-exact", "bilinear", "bicubic", "area"]),
         "3d": (X5, ["nearest", "nearest-exact", "trilinear", "area"])}


def _resampled(x, modes, dtype):
    def run(t):
        out = []
        for mode in modes:
            for kw in SIZES:
                for ac in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
                    out.append(interp(t, x, dtype, mode=mode, align_corners=ac, **kw))
        return out
    return run


VALUES = {
    **{f"interpolate {rank} {dtype}": _resampled(MODES[rank][0], MODES[rank][1], dtype)
       for rank in MODES for dtype in ("float32", "float64")},
    "interpolate float16": lambda t: [interp(t, X4, "float16", mode=m, **kw) for m in ("nearest", "bicubic")
                                      for kw in (dict(scale_factor=2.1), dict(size=(9, 4)))] + [
        interp(t, X3, "float16", mode="linear", size=8), interp(t, X5, "float16", mode="trilinear", size=3),
        interp(t, X4, "float16", mode="bilinear", size=(80, 70))],
    "interpolate uint8": lambda t: [F(t).interpolate((t.tensor(X4C9) * 60 + 128).to(t.uint8), mode=m, align_corners=ac,
                                                     **kw)
                                    for m, ac in (("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                                  ("bilinear", True), ("bicubic", False), ("bicubic", True))
                                    for kw in (dict(scale_factor=2.1), dict(size=(3, 9)), dict(size=(4, 13)))],
    "interpolate antialias": lambda t: [
        interp(t, X4C9, dt, mode=m, antialias=True, align_corners=ac, **kw)
        for dt in ("float32", "float64") for m, ac in (("bilinear", False), ("bilinear", True), ("bicubic", False),
                                                       ("lanczos", None))
        for kw in (dict(size=(2, 3)), dict(scale_factor=0.37), dict(size=(9, 4)), dict(scale_factor=2.1))] + [
        F(t).interpolate((t.tensor(X4C9) * 60 + 128).to(t.uint8), mode=m, antialias=True, **kw)
        for m in ("bilinear", "bicubic", "lanczos") for kw in (dict(size=(2, 3)), dict(size=(9, 14)))] + [
        outcome(f, t)[0] for f in (
            lambda t: interp(t, X4, "float16", size=2, mode="bilinear", antialias=True),
            lambda t: F(t).interpolate(t.ones(1, 1, 3, 4, dtype=t.long), size=2, mode="bicubic", antialias=True),
            lambda t: interp(t, X3, size=2, mode="linear", antialias=True),
            lambda t: interp(t, X4, size=2, mode="lanczos", align_corners=True, antialias=True),
            lambda t: interp(t, X4, size=2, mode="lanczos"), lambda t: interp(t, X5, size=2, mode="lanczos"))],
    "interpolate channels": lambda t: [interp(t, X4C9, mode="bilinear", align_corners=ac, **kw)
                                       for ac in (False, True) for kw in (dict(scale_factor=1.6), dict(size=(70, 71)))],
    "interpolate large outputs": lambda t: [interp(t, X4, mode=m, size=(67, 71)) for m in ("nearest", "nearest-exact")] + [
        interp(t, X3, mode="nearest", scale_factor=2.1), interp(t, X5, mode="nearest", scale_factor=2.1)],
    "interpolate special values": lambda t: [
        F(t).interpolate(t.tensor([[[1.0, math.inf, 2.0]]]), scale_factor=2, mode="linear"),
        F(t).interpolate(t.tensor([[[1.0, math.nan, 2.0]]]), scale_factor=2),
        F(t).interpolate(t.arange(12.0).reshape(1, 1, 3, 4), size=t.tensor(2)),
        F(t).interpolate(t.arange(12.0).reshape(1, 1, 3, 4), size=[2, t.tensor(3)]),
        F(t).interpolate(t.arange(12.0).reshape(1, 1, 3, 4), size=(np.int64(2), 3)),
        F(t).interpolate(t.arange(12.0).reshape(1, 1, 3, 4), scale_factor=[2, 3]),
        F(t).interpolate(t.zeros(0, 1, 3, 4), size=2), F(t).interpolate(t.zeros(0, 1, 3, 4), size=2, mode="bicubic"),
        F(t).interpolate(t.arange(24.0).reshape(1, 1, 2, 3, 4), size=1, mode="area"),
        F(t).interpolate(t.arange(24.0).reshape(1, 1, 2, 3, 4), size=(1, 2, 1), mode="area"),
        F(t).interpolate(t.ones(1, 1, 3, 4), size=1, mode="bilinear", align_corners=True)],
    "interpolate errors": lambda t: [outcome(f, t)[0] for f in (
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4, dtype=t.long), scale_factor=2),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4, dtype=t.long), scale_factor=2, mode="bilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4, dtype=t.int32), scale_factor=2, mode="bicubic"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, dtype=t.long), scale_factor=2, mode="linear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, dtype=t.bool), scale_factor=2, mode="nearest-exact"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, 3, dtype=t.uint8), scale_factor=2, mode="trilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, 3, dtype=t.uint8), scale_factor=2, mode="area"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, dtype=t.uint8), scale_factor=2, mode="area"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), scale_factor=0.1),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=(0, 2)),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=(-1, 2), mode="bilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), scale_factor=-1.0),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), scale_factor=(2,)),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=(2,)),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=(2.0, 3)),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4)),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, scale_factor=2),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, recompute_scale_factor=True),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, align_corners=True),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="area", align_corners=False),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="nearest", antialias=True),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="linear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="trilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3), size=2, mode="bilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3), size=2, mode="trilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, 3), size=2, mode="linear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, 3), size=2, mode="bilinear"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 3, 3), size=2, mode="bicubic"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3), size=2, mode="bicubic"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="foo"),
        lambda t: F(t).interpolate(t.ones(3, 4), size=2),
        lambda t: F(t).interpolate(t.ones(3, 4, 1, 1, 1, 1), size=2),
        lambda t: F(t).interpolate(t.zeros(1, 0, 3, 4), size=2),
        lambda t: F(t).interpolate(t.zeros(1, 0, 3), size=2, mode="linear"),
        lambda t: F(t).interpolate(t.zeros(1, 1, 0, 4), size=2),
        lambda t: F(t).interpolate(t.zeros(1, 1, 0), size=2),
        lambda t: F(t).interpolate(t.zeros(1, 1, 2, 0, 4), size=2),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="lanczos"),
        lambda t: F(t).interpolate(t.ones(1, 1, 3, 4), size=2, mode="lanczos", align_corners=True, antialias=True),
        lambda t: F(t).interpolate(1.0, size=2))],
    "upsample deprecated": lambda t: [outcome(f, t) for f in (
        lambda t: F(t).upsample(t.arange(12.0).reshape(1, 1, 3, 4), scale_factor=2, mode="bilinear"),
        lambda t: F(t).upsample_nearest(t.arange(12.0).reshape(1, 1, 3, 4), scale_factor=2),
        lambda t: F(t).upsample_bilinear(t.arange(12.0).reshape(1, 1, 3, 4), size=(4, 5)))],
    "upsample modules": lambda t: [
        repr(m) for m in (t.nn.Upsample(scale_factor=2), t.nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
                          t.nn.Upsample(scale_factor=(2, 3)), t.nn.Upsample(size=5, scale_factor=0),
                          t.nn.UpsamplingNearest2d(scale_factor=2), t.nn.UpsamplingBilinear2d(size=4))] + [
        t.nn.UpsamplingBilinear2d(scale_factor=2)(t.tensor(X4)), t.nn.UpsamplingNearest2d((3, 9))(t.tensor(X4)),
        t.nn.Upsample(scale_factor=1.5, mode="bicubic")(t.tensor(X4)),
        t.nn.Upsample(scale_factor=2.5, mode="trilinear", recompute_scale_factor=True)(t.tensor(X5)),
        t.nn.Upsample(size=4, mode="area")(t.tensor(X3)), t.nn.Upsample.__constants__],
    "shuffles": lambda t: [
        F(t).pixel_shuffle(t.arange(2 * 8 * 3 * 3.0).reshape(2, 8, 3, 3), 2),
        t.pixel_shuffle(t.arange(72).reshape(8, 3, 3), 2), t.pixel_shuffle(t.arange(8.0).reshape(1, 1, 8, 1, 1), 2),
        F(t).pixel_shuffle(t.ones(2, 4, 2, 2, dtype=t.bool), 1), F(t).pixel_shuffle(t.zeros(0, 4, 2, 2), 2),
        F(t).pixel_unshuffle(t.arange(2 * 2 * 6 * 6.0).reshape(2, 2, 6, 6), 3),
        t.pixel_unshuffle(t.arange(16).reshape(1, 4, 4), 2),
        F(t).channel_shuffle(t.arange(2 * 8 * 3.0).reshape(2, 8, 3), 4),
        t.channel_shuffle(t.arange(24).reshape(1, 6, 2, 2), 3), F(t).channel_shuffle(t.zeros(0, 4, 2), 2),
        F(t).channel_shuffle(t.zeros(2, 0, 2), 2),
        repr(t.nn.PixelShuffle(2)), repr(t.nn.PixelUnshuffle(3)), repr(t.nn.ChannelShuffle(4)),
        t.nn.PixelShuffle(2)(t.arange(16.0).reshape(1, 4, 2, 2)), t.nn.PixelUnshuffle(2)(t.arange(16.0).reshape(1, 1, 4, 4)),
        t.nn.ChannelShuffle(2)(t.arange(4.0).view(1, 4, 1))],
    "shuffle errors": lambda t: [outcome(f, t)[0] for f in (
        lambda t: F(t).pixel_shuffle(t.ones(8, 3), 2), lambda t: F(t).pixel_shuffle(t.ones(1, 8, 3, 3), 3),
        lambda t: F(t).pixel_shuffle(t.ones(1, 8, 3, 3), 0), lambda t: F(t).pixel_shuffle(t.ones(1, 8, 3, 3), -1),
        lambda t: F(t).pixel_shuffle(t.ones(1, 8, 3, 3), 2.0), lambda t: F(t).pixel_shuffle(1.0, 2),
        lambda t: F(t).pixel_unshuffle(t.ones(1, 8, 3, 3), 2), lambda t: F(t).pixel_unshuffle(t.ones(1, 8, 4, 3), 2),
        lambda t: F(t).pixel_unshuffle(t.ones(3, 3), 1), lambda t: F(t).pixel_unshuffle(t.ones(1, 8, 3, 3), 0),
        lambda t: F(t).channel_shuffle(t.ones(2, 8, 3), 3), lambda t: F(t).channel_shuffle(t.ones(2, 8, 3), 0),
        lambda t: F(t).channel_shuffle(t.ones(2, 8, 3), -1), lambda t: F(t).channel_shuffle(t.ones(8, 3), 2),
        lambda t: F(t).channel_shuffle(t.ones(8), 2), lambda t: F(t).channel_shuffle(t.ones(8, 3), 0),
        lambda t: F(t).channel_shuffle(t.ones(2, 8, 3), 2.0))],
    "gaussian_nll_loss": lambda t: [
        F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.tensor(POS)),
        F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.tensor(POS), full=True, reduction="sum"),
        F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.tensor(POS)[:, 0], reduction="none"),
        F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.tensor(POS)[:, :1], eps=0.8),
        F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), 0.5), F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), 0.0),
        F(t).gaussian_nll_loss(t.tensor(A, dtype=t.float64), t.tensor(B, dtype=t.float64), t.zeros(3, 4))] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), -t.ones(3, 4)),
            lambda t: F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), -1.0),
            lambda t: F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.ones(2, 4)),
            lambda t: F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.ones(1, 1)),
            lambda t: F(t).gaussian_nll_loss(t.tensor(A), t.tensor(B), t.ones(3, 4), reduction="foo"))],
    "triplet losses": lambda t: [
        F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C)),
        F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C), margin=2.5, p=1, swap=True, reduction="none"),
        F(t).triplet_margin_loss(t.tensor(A)[0], t.tensor(B)[0], t.tensor(C)[1], p=3, reduction="sum"),
        t.triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C), 1.5, 2, 1e-6, True, 0),
        F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C)),
        F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C), swap=True, margin=2.0,
                                               reduction="none"),
        F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C), reduction="sum",
                                               distance_function=lambda x, y: 1 - F(t).cosine_similarity(x, y)),
        t.nn.TripletMarginLoss(margin=0.5, swap=True)(t.tensor(A), t.tensor(B), t.tensor(C)),
        t.nn.TripletMarginWithDistanceLoss(distance_function=t.nn.PairwiseDistance(p=1))(
            t.tensor(A), t.tensor(B), t.tensor(C))] + [
        outcome(f, t) for f in (
            lambda t: F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C)[0]),
            lambda t: F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C), margin=0),
            lambda t: F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C), size_average=False),
            lambda t: F(t).triplet_margin_loss(t.tensor(A), t.tensor(B), t.tensor(C), reduction="foo"),
            lambda t: F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C), reduction="foo"),
            lambda t: F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C), margin=-1),
            lambda t: F(t).triplet_margin_with_distance_loss(t.tensor(A), t.tensor(B), t.tensor(C)[0]),
            lambda t: t.nn.TripletMarginLoss(margin=0), lambda t: t.nn.TripletMarginWithDistanceLoss(margin=-1))],
    "cosine_embedding_loss": lambda t: [
        F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1, -1, 1])),
        F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1, -1, 0]), margin=-0.5, reduction="none"),
        F(t).cosine_embedding_loss(t.tensor(A)[0], t.tensor(B)[0], t.tensor(-1), margin=-0.2),
        F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1.0, -1.0, 1.0]), reduction="sum"),
        F(t).cosine_embedding_loss(t.tensor(A).long(), t.tensor(B).long(), t.tensor([1, -1, 1])),
        t.cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1, -1, 1]), 0.1, 2),
        t.nn.CosineEmbeddingLoss(margin=-0.3)(t.tensor(A), t.tensor(B), t.tensor([-1, -1, 1]))] + [
        outcome(f, t) for f in (
            lambda t: F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([[1, 1, 1]])),
            lambda t: F(t).cosine_embedding_loss(t.tensor(A)[0], t.tensor(B)[0], t.tensor([1])),
            lambda t: F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor(1)),
            lambda t: F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1, -1, 1]), reduction="foo"),
            lambda t: F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B), t.tensor([1, -1, 1]), reduce=False),
            lambda t: F(t).cosine_embedding_loss(t.tensor(A), t.tensor(B)[:2], t.tensor([1, -1, 1])))],
    "multi_margin_loss": lambda t: [
        F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET)),
        F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), p=2, margin=0.5, reduction="none"),
        F(t).multi_margin_loss(t.tensor(A, dtype=t.float64), t.tensor(MARGIN_TARGET),
                               weight=t.tensor([0.5, 1.0, 2.0, 0.25], dtype=t.float64), reduction="sum"),
        F(t).multi_margin_loss(t.tensor(A)[0], t.tensor(2)), F(t).multi_margin_loss(t.tensor(A)[0], t.tensor([2]),
                                                                                    reduction="none"),
        F(t).multi_margin_loss(t.tensor(1.0), t.tensor(0)),
        F(t).multi_margin_loss(t.zeros(0, 4), t.zeros(0, dtype=t.long), reduction="none"),
        t.nn.MultiMarginLoss(p=2, weight=t.tensor([1.0, 2.0, 3.0, 4.0]))(t.tensor(A), t.tensor(MARGIN_TARGET))] + [
        outcome(f, t) for f in (
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor([0, 4, 1])),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor([0, -1, 1])),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor([0, 1])),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor([[0], [1], [2]])),
            lambda t: F(t).multi_margin_loss(t.tensor(A)[None], t.tensor([2])),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), p=3),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), weight=t.ones(2, 2)),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), weight=t.ones(3)),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor([0.0, 3.0, 1.0])),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET, dtype=t.int32)),
            lambda t: F(t).multi_margin_loss(t.tensor(A).long(), t.tensor(MARGIN_TARGET)),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), reduction="foo"),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET), size_average=False),
            lambda t: F(t).multi_margin_loss(t.tensor(A, dtype=t.float64), t.tensor(MARGIN_TARGET), weight=t.ones(4)),
            lambda t: F(t).multi_margin_loss(t.tensor(A), t.tensor(MARGIN_TARGET),
                                             weight=t.ones(4, requires_grad=True)),
            lambda t: t.nn.MultiMarginLoss(p=3), lambda t: t.nn.MultiMarginLoss(weight=t.ones(2, 2)))],
    "multilabel losses": lambda t: [
        F(t).multilabel_margin_loss(t.tensor(A), t.tensor(LABELS)),
        F(t).multilabel_margin_loss(t.tensor(A), t.tensor(LABELS), reduction="none"),
        F(t).multilabel_margin_loss(t.tensor(A, dtype=t.float64), t.tensor(LABELS), reduction="sum"),
        F(t).multilabel_margin_loss(t.tensor(A)[0], t.tensor([3, 0, -1, 1])),
        F(t).multilabel_margin_loss(t.tensor(A)[0], t.tensor([3, 0, -1, 1]), reduction="none"),
        F(t).multilabel_margin_loss(t.tensor(A), t.tensor([[0, 0, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]])),
        F(t).multilabel_margin_loss(t.tensor(1.0), t.tensor(0)),
        t.nn.MultiLabelMarginLoss(reduction="sum")(t.tensor(B), t.tensor(LABELS)),
        F(t).multilabel_soft_margin_loss(t.tensor(A), t.tensor(POS) > 1),
        F(t).multilabel_soft_margin_loss(t.tensor(A), (t.tensor(POS) > 1).float(), weight=t.tensor([1.0, 2, 3, 4]),
                                         reduction="none"),
        F(t).multilabel_soft_margin_loss(t.tensor(A), t.tensor(POS) / 2, reduction="sum"),
        t.nn.MultiLabelSoftMarginLoss(weight=t.tensor([1.0, 0.5, 2, 1]))(t.tensor(A), t.tensor(POS) / 2)] + [
        outcome(f, t) for f in (
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor([[0, 4, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]])),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor([[0, 3, -2, 1], [1, -1, 0, 0], [2, 1, 0, 3]])),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor([[0, 1, -1], [1, -1, 0], [2, 1, 0]])),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A)[None], t.tensor([[[3, 0, -1, 1]]])),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor(B)),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor(LABELS).float()),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A).long(), t.tensor(LABELS)),
            lambda t: F(t).multilabel_margin_loss(t.tensor(A), t.tensor(LABELS), reduce=False),
            lambda t: F(t).multilabel_soft_margin_loss(t.tensor(A), t.tensor(B), reduction="foo"),
            lambda t: F(t).multilabel_soft_margin_loss(t.tensor(A), t.tensor(B), size_average=False))],
    "bilinear": lambda t: [
        F(t).bilinear(t.tensor(A), t.tensor(B), t.arange(80.0).reshape(5, 4, 4) / 40, t.arange(5.0)),
        F(t).bilinear(t.tensor(A)[0], t.tensor(B)[0], t.ones(5, 4, 4)),
        F(t).bilinear(t.tensor(A)[None], t.tensor(B)[None], t.ones(2, 4, 4)),
        t.bilinear(t.tensor(A).long(), t.tensor(B).long(), t.ones(5, 4, 4).long()),
        repr(t.nn.Bilinear(2, 3, 4)), repr(t.nn.Bilinear(2, 3, 4, bias=False)),
        sorted(t.nn.Bilinear(2, 3, 4).state_dict())] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B)[0], t.ones(5, 4, 4)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B)[:2], t.ones(5, 4, 4)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B), t.ones(5, 3, 4)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B), t.ones(5, 4, 3)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B), t.ones(5, 4, 4), t.ones(4)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B), t.ones(5, 4)),
            lambda t: F(t).bilinear(t.tensor(A), t.tensor(B, dtype=t.float64), t.ones(5, 4, 4)),
            lambda t: t.nn.Bilinear(0, 2, 3))],
    "pdist": lambda t: [F(t).pdist(t.tensor(A), p) for p in (2, 1, 0, 3, 0.5, 1.5, math.inf)] + [
        t.pdist(t.tensor(A).t()), F(t).pdist(t.tensor(A)[:1]), F(t).pdist(t.tensor(A, dtype=t.float64), 2.5)] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).pdist(t.tensor(A)[0]), lambda t: F(t).pdist(t.tensor(A)[None]),
            lambda t: F(t).pdist(t.tensor(A), -1), lambda t: F(t).pdist(t.tensor(A).long()))],
    "half inputs": lambda t: [outcome(f, t)[0] for f in (
        lambda t: F(t).multi_margin_loss(t.tensor(A).half(), t.tensor(MARGIN_TARGET)),
        lambda t: F(t).multilabel_margin_loss(t.tensor(A).half(), t.tensor(LABELS)),
        lambda t: F(t).pdist(t.tensor(A).half()), lambda t: F(t).rrelu(t.tensor(A).half()),
        lambda t: F(t).rrelu(t.tensor(A).half(), training=True),
        lambda t: F(t).bilinear(t.tensor(A).half(), t.tensor(B).half(), t.ones(2, 4, 4).half()),
        lambda t: F(t).pixel_shuffle(t.tensor(A).half().reshape(1, 4, 3, 1), 2),
        # (distinct indices: where several values go to one place, PyTorch's threads race for it)
        lambda t: F(t).max_unpool2d(t.tensor(A).half().reshape(1, 1, 3, 4), t.arange(12).reshape(1, 1, 3, 4) * 3, 2,
                                    output_size=(6, 8)))],
    "local_response_norm": lambda t: [
        F(t).local_response_norm(t.tensor(X3), 2), F(t).local_response_norm(t.tensor(X4), 3, alpha=0.1, beta=0.5, k=2),
        F(t).local_response_norm(t.tensor(X5), 4), F(t).local_response_norm(t.zeros(0, 3, 2), 2),
        t.nn.LocalResponseNorm(2)(t.tensor(X4)), repr(t.nn.LocalResponseNorm(2)),
        repr(t.nn.LocalResponseNorm(3, 1e-3, 0.5, 2)), outcome(lambda t: F(t).local_response_norm(t.tensor(A), 2), t)],
    "rrelu evaluation": lambda t: [
        F(t).rrelu(t.tensor(A)), F(t).rrelu(t.tensor(A), 0.1, 0.3), t.rrelu(t.tensor(A, dtype=t.float64)),
        t.nn.RReLU().eval()(t.tensor(A)), repr(t.nn.RReLU()), repr(t.nn.RReLU(0.1, 0.3, inplace=True))] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).rrelu(t.tensor(A).long()), lambda t: F(t).rrelu(t.tensor(A), 0.5, 0.2, training=True),
            lambda t: F(t).rrelu(t.tensor(A), 0.5, 0.2))],
    "alpha dropout": lambda t: [
        F(t).alpha_dropout(t.tensor(A), 0.3), F(t).alpha_dropout(t.tensor(A), 0.3, True).shape,
        F(t).alpha_dropout(t.tensor(A), 0.0, True), F(t).alpha_dropout(t.tensor(A), 1.0, True),
        F(t).feature_alpha_dropout(t.tensor(X4), 0.5, False), F(t).alpha_dropout(t.zeros(0, 3), 0.5, True),
        repr(t.nn.AlphaDropout(0.2)), repr(t.nn.FeatureAlphaDropout())] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).alpha_dropout(t.tensor(A), 1.5), lambda t: F(t).feature_alpha_dropout(t.tensor(A)[0], 0.5, True),
            lambda t: F(t).feature_alpha_dropout(t.tensor(1.0), 0.5, True),
            lambda t: F(t).alpha_dropout(t.tensor(A).long(), 0.5, True), lambda t: t.nn.AlphaDropout(2))],
    "lp_pool": lambda t: [
        F(t).lp_pool1d(t.tensor(X3).abs(), 2, 2), F(t).lp_pool1d(t.tensor(X3), 3, 3, stride=1, ceil_mode=True),
        F(t).lp_pool2d(t.tensor(X4).abs(), 2, 2), F(t).lp_pool2d(t.tensor(X4), 1.5, (2, 3), stride=(1, 2)),
        F(t).lp_pool2d(t.tensor(X4), math.inf, 2), F(t).lp_pool2d(t.tensor(X4), -math.inf, 2),
        F(t).lp_pool3d(t.tensor(X5).abs(), 2, 2), t.nn.LPPool2d(2, 2)(t.tensor(X4)), t.nn.LPPool1d(1, 2)(t.tensor(X3)),
        repr(t.nn.LPPool1d(2, 3, stride=2)), repr(t.nn.LPPool2d(1.5, (2, 3))), repr(t.nn.LPPool3d(2, 2))],
    "max_unpool": lambda t: [
        outcome(lambda t: F(t).max_unpool2d(*F(t).max_pool2d(t.tensor(X4), 2, return_indices=True), 2), t),
        F(t).max_unpool2d(*F(t).max_pool2d(t.tensor(X4)[:, :, :4, :6], 2, return_indices=True), 2),
        F(t).max_unpool2d(*F(t).max_pool2d(t.tensor(X4), 2, return_indices=True), 2, output_size=(5, 7)),
        F(t).max_unpool2d(*F(t).max_pool2d(t.tensor(X4)[0], 3, stride=2, padding=1, return_indices=True), 3, 2, 1),
        F(t).max_unpool1d(*F(t).max_pool1d(t.tensor(X3), 2, return_indices=True), 2),
        F(t).max_unpool1d(*F(t).max_pool1d(t.tensor(X3), 2, return_indices=True), 2, output_size=[2, 3, 5]),
        t.nn.MaxUnpool2d(2)(*t.nn.MaxPool2d(2, return_indices=True)(t.tensor(X4))),
        repr(t.nn.MaxUnpool1d(2)), repr(t.nn.MaxUnpool2d(2, stride=1, padding=1))] + [
        outcome(f, t)[0] for f in (
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.ones(1, 1, 2, 2, dtype=t.int32), 2),
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.tensor([[[[0, 1], [2, 16]]]]), 2),
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 1, dtype=t.long), 2),
            lambda t: F(t).max_unpool2d(t.ones(2, 2), t.zeros(2, 2, dtype=t.long), 2),
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2, dtype=t.long), 2, output_size=(9, 9)),
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2, dtype=t.long), 2, output_size=(4,)),
            lambda t: F(t).max_unpool2d(t.ones(1, 1, 2, 2), t.zeros(1, 1, 2, 2, dtype=t.long), 1, padding=1))],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(VALUES))
def test_values_match_torch(torch_ref, et, name):
    same(torch_ref, et, VALUES[name])


@pytest.mark.torch
def test_float32_resampling_to_the_last_bit(torch_ref, et):
    """Resampling reproduces PyTorch's float32 (and uint8) kernels bit for bit, rounding included."""
    cases = [(X3, "linear", dict(scale_factor=2.1)), (X4, "bilinear", dict(scale_factor=1.7)),
             (X4C9, "bilinear", dict(size=(9, 13))), (X4, "bilinear", dict(size=(67, 71))),
             (X4, "bicubic", dict(size=(67, 71))), (X4, "bicubic", dict(scale_factor=0.45)),
             (X5, "trilinear", dict(size=(4, 9, 11)))]
    for x, mode, kw in cases:
        for ac in (False, True):
            ours = interp(et, x, mode=mode, align_corners=ac, **kw).numpy()
            ref = interp(torch_ref, x, mode=mode, align_corners=ac, **kw).numpy()
            assert np.array_equal(ours, ref), (mode, kw, ac)
    for mode in ("bilinear", "bicubic"):  # (PyTorch's separable antialiased kernels, upsampling)
        ours = interp(et, X4C9, mode=mode, antialias=True, scale_factor=1.5).numpy()
        assert np.array_equal(ours, interp(torch_ref, X4C9, mode=mode, antialias=True, scale_factor=1.5).numpy()), mode
    img = (np.asarray(X4C9) * 60 + 128).clip(0, 255).astype(np.uint8)
    for mode in ("bilinear", "bicubic", "lanczos"):  # (fixed point, as PyTorch's uint8 kernels)
        for antialias in ((False, True) if mode != "lanczos" else (True,)):
            ours = F(et).interpolate(et.tensor(img), size=(11, 3), mode=mode, antialias=antialias).numpy()
            ref = F(torch_ref).interpolate(torch_ref.tensor(img), size=(11, 3), mode=mode, antialias=antialias)
            assert np.array_equal(ours, ref.numpy()), (mode, antialias)


@pytest.mark.torch
def test_random_draws_match_torch_after_the_same_seed(torch_ref, et):
    def run(t):
        t.manual_seed(3)
        x = t.tensor([[0.5, -1.0, -2.0, 3.0], [-0.1, 0.0, 2.0, -4.0]])
        rrelu = F(t).rrelu(x, training=True)
        module = t.nn.RReLU(0.2, 0.4)(t.tensor(A, dtype=t.float64))
        inplace = x.clone()
        F(t).rrelu_(inplace, training=True)
        alpha = F(t).alpha_dropout(t.tensor(A), 0.3, True)
        feature = F(t).feature_alpha_dropout(t.ones(4, 3, 2), 0.5, True)
        modules = t.nn.AlphaDropout(0.4)(t.tensor(B)), t.nn.FeatureAlphaDropout(0.2)(t.tensor(X4))
        soft = F(t).gumbel_softmax(t.tensor(A), tau=0.5)
        hard = F(t).gumbel_softmax(t.tensor(A), hard=True, dim=0)
        leaf = t.tensor(B, requires_grad=True)
        in_place = F(t).alpha_dropout(leaf * 1, 0.5, True, inplace=True)
        torch_names = (t.alpha_dropout(t.tensor(A), 0.2, True), t.alpha_dropout_(t.tensor(A), 0.2, True),
                       t.feature_alpha_dropout(t.tensor(X4), 0.4, True), t.feature_alpha_dropout_(t.tensor(X4), 0.4, True),
                       t.rrelu(t.tensor(A), 0.1, 0.5, True), t.rrelu_(t.tensor(A), training=True))
        return (rrelu, module, inplace, alpha, feature, modules, soft, hard, in_place, names(in_place.grad_fn),
                torch_names)

    same(torch_ref, et, run)


@pytest.mark.torch
def test_alpha_dropout_keeps_selu_statistics(et):
    et.manual_seed(0)
    x = et.randn(200000, dtype=et.float64)
    y = F(et).alpha_dropout(x, 0.2, True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    a = 1 / math.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(y, -1.7580993408473766 * a * 0.8)  # (SELU's saturation, scaled and shifted)
    assert 0.19 < dropped.mean() < 0.21
    assert np.allclose(y[~dropped], x.numpy()[~dropped] * a + 1.7580993408473766 * a * 0.2)
    z = F(et).feature_alpha_dropout(et.ones(500, 40, 3, dtype=et.float64), 0.5, True).numpy()
    assert (z == z[:, :, :1]).all() and len(np.unique(z)) == 2


# ----- gumbel_softmax -----

def test_gumbel_softmax_samples_and_straight_through_graph(et):
    logits = et.tensor(A, dtype=et.float64, requires_grad=True)
    et.manual_seed(1)
    soft = F(et).gumbel_softmax(logits, tau=0.7, dim=1)
    et.manual_seed(1)
    g = -et.empty_like(logits).exponential_().log()
    expected = ((logits.detach() + g) / 0.7).softmax(1)
    assert np.allclose(soft.detach().numpy(), expected.numpy(), rtol=1e-12)
    assert np.allclose(soft.detach().sum(1).numpy(), 1)
    et.manual_seed(1)
    hard = F(et).gumbel_softmax(logits, tau=0.7, hard=True, dim=1)
    h = hard.detach().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and (h.sum(1) == 1).all()
    assert (h.argmax(1) == soft.detach().numpy().argmax(1)).all()
    w = et.arange(12.0, dtype=et.float64).reshape(3, 4)
    (gh,) = et.autograd.grad((hard * w).sum(), logits)
    (gs,) = et.autograd.grad((soft * w).sum(), logits)
    assert np.allclose(gh.numpy(), gs.numpy())  # (straight through: the soft sample's grads)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F(et).gumbel_softmax(logits, eps=1e-5)


@pytest.mark.torch
def test_gumbel_softmax_grads_and_nodes_match_torch(torch_ref, et):
    def run(t):
        logits = t.tensor(A, dtype=t.float64, requires_grad=True)
        t.manual_seed(5)
        soft = F(t).gumbel_softmax(logits, tau=2.0)
        t.manual_seed(5)
        hard = F(t).gumbel_softmax(logits, hard=True)
        (soft * t.arange(12.0, dtype=t.float64).reshape(3, 4)).sum().backward()
        g1 = logits.grad.clone()
        (hard * t.arange(12.0, dtype=t.float64).reshape(3, 4)).sum().backward()
        return soft, hard, names(soft.grad_fn, 4), names(hard.grad_fn, 5), g1, logits.grad

    same(torch_ref, et, run)


def test_gumbel_softmax_finite_differences(et):
    logits = et.tensor(A, dtype=et.float64, requires_grad=True)

    def fn(x):
        et.manual_seed(2)  # (the same sample at every evaluation)
        return F(et).gumbel_softmax(x, tau=0.8)

    assert et.autograd.gradcheck(fn, [logits])
    assert et.autograd.gradgradcheck(fn, [logits])


# ----- Grads and nodes -----

def _unpool(t, x, nd):
    pool = F(t).max_pool2d if nd == 2 else F(t).max_pool1d
    unpool = F(t).max_unpool2d if nd == 2 else F(t).max_unpool1d
    return unpool(*pool(x, 2, return_indices=True), 2, output_size=x.shape[-nd:])


GRADS = {
    **{f"interpolate {mode} {i}": (lambda t, x, mode=mode, kw=kw: F(t).interpolate(x, mode=mode, **kw), x)
       for x, mode in ((X3, "nearest"), (X4, "nearest"), (X5, "nearest"), (X3, "nearest-exact"), (X4, "nearest-exact"),
                       (X5, "nearest-exact"), (X3, "area"), (X4, "area"), (X5, "area"))
       for i, kw in enumerate((dict(scale_factor=1.7), dict(size=(3, 3, 3)[:len(np.shape(x)) - 2])))},
    **{f"interpolate {mode} {ac} {i}": (
        lambda t, x, mode=mode, ac=ac, kw=kw: F(t).interpolate(x, mode=mode, align_corners=ac, **kw), x)
       for x, mode in ((X3, "linear"), (X4, "bilinear"), (X4, "bicubic"), (X5, "trilinear"))
       for ac in (False, True)
       for i, kw in enumerate((dict(scale_factor=1.7), dict(size=(3, 3, 3)[:len(np.shape(x)) - 2])))},
    "interpolate nearest 2x (2-d)": (lambda t, x: F(t).interpolate(x, scale_factor=2.1), X4),
    **{f"interpolate {mode} antialias {ac} {i}": (
        lambda t, x, mode=mode, ac=ac, kw=kw: F(t).interpolate(x, mode=mode, align_corners=ac, antialias=True, **kw),
        X4C9)
       for mode, ac in (("bilinear", False), ("bilinear", True), ("bicubic", False), ("lanczos", None))
       for i, kw in enumerate((dict(size=(2, 3)), dict(scale_factor=1.7)))},
    "upsample modules": (lambda t, x: (t.nn.UpsamplingBilinear2d(scale_factor=2)(x), t.nn.UpsamplingNearest2d(4)(x)),
                         X4),
    "pixel_shuffle": (lambda t, x: F(t).pixel_shuffle(x, 2), np.arange(2 * 8 * 3 * 3.0).reshape(2, 8, 3, 3).tolist()),
    "pixel_unshuffle": (lambda t, x: t.pixel_unshuffle(x, 2), np.arange(2 * 2 * 4 * 6.0).reshape(2, 2, 4, 6).tolist()),
    "channel_shuffle": (lambda t, x: F(t).channel_shuffle(x, 4), np.arange(2 * 8 * 3.0).reshape(2, 8, 3).tolist()),
    "gaussian_nll_loss": (lambda t, x, y, v: F(t).gaussian_nll_loss(x, y, v), A, B, POS),
    "gaussian_nll_loss full none": (lambda t, x, y, v: F(t).gaussian_nll_loss(x, y, v, full=True, reduction="none"),
                                    A, B, POS),
    "gaussian_nll_loss broadcast var": (lambda t, x, y, v: F(t).gaussian_nll_loss(x, y, v[:, 0], reduction="sum"),
                                        A, B, POS),
    "gaussian_nll_loss float var": (lambda t, x, y: F(t).gaussian_nll_loss(x, y, 0.7), A, B),
    "triplet_margin_loss": (lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=2.0), A, B, C),
    "triplet_margin_loss swap p=1": (lambda t, a, p, n: F(t).triplet_margin_loss(a, p, n, margin=3.0, p=1, swap=True,
                                                                                 reduction="none"), A, B, C),
    "triplet_margin_with_distance_loss": (lambda t, a, p, n: F(t).triplet_margin_with_distance_loss(
        a, p, n, margin=2.0, swap=True), A, B, C),
    "triplet_margin_with_distance_loss cosine": (lambda t, a, p, n: F(t).triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1 - F(t).cosine_similarity(x, y), reduction="sum"), A, B, C),
    "cosine_embedding_loss": (lambda t, a, b: F(t).cosine_embedding_loss(a, b, t.tensor([1, -1, 1]), margin=-0.5),
                              A, B),
    "cosine_embedding_loss 0-d": (lambda t, a, b: F(t).cosine_embedding_loss(a[0], b[0], t.tensor(-1), margin=-0.9),
                                  A, B),
    "multi_margin_loss": (lambda t, x: F(t).multi_margin_loss(x, t.tensor(MARGIN_TARGET), margin=1.5), A),
    "multi_margin_loss p=2 weight none": (lambda t, x: F(t).multi_margin_loss(
        x, t.tensor(MARGIN_TARGET), p=2, weight=t.tensor([0.5, 1.0, 2.0, 0.25], dtype=t.float64), reduction="none"), A),
    "multi_margin_loss 1-d sum": (lambda t, x: F(t).multi_margin_loss(x[0], t.tensor(2), reduction="sum"), A),
    "multilabel_margin_loss": (lambda t, x: F(t).multilabel_margin_loss(x, t.tensor(LABELS)), A),
    "multilabel_margin_loss none": (lambda t, x: F(t).multilabel_margin_loss(x, t.tensor(LABELS), reduction="none"), B),
    "multilabel_soft_margin_loss": (lambda t, x, y: F(t).multilabel_soft_margin_loss(x, y), A, POS),
    "multilabel_soft_margin_loss weight none": (lambda t, x, w: F(t).multilabel_soft_margin_loss(
        x, t.tensor(POS, dtype=t.float64) / 2, weight=w, reduction="none"), A, [1.0, 0.5, 2.0, 1.5]),
    "bilinear": (lambda t, a, b, w, c: F(t).bilinear(a, b, w, c), A, B, (np.arange(80.0).reshape(5, 4, 4) / 40).tolist(),
                 [0.5, 1.0, -1.0, 2.0, 0.0]),
    "bilinear no bias 3-d": (lambda t, a, b, w: t.bilinear(a[None], b[None], w), A, C,
                             (np.arange(32.0).reshape(2, 4, 4) / 20).tolist()),
    **{f"pdist p={p}": (lambda t, x, p=p: F(t).pdist(x, p), A) for p in (2, 1, 3, 1.5, 0.5, math.inf)},
    "local_response_norm 3-d": (lambda t, x: F(t).local_response_norm(x, 2), X3),
    "local_response_norm 4-d": (lambda t, x: F(t).local_response_norm(x, 3, alpha=0.1, beta=0.5, k=2.0), X4),
    "rrelu evaluation": (lambda t, x: F(t).rrelu(x, 0.1, 0.3), A),
    "rrelu in place": (lambda t, x: F(t).rrelu_(x * 1), A),
    "alpha_dropout p=1": (lambda t, x: F(t).alpha_dropout(x, 1.0, True), A),
    "lp_pool1d": (lambda t, x: F(t).lp_pool1d(x, 2, 2), np.abs(X3).tolist()),
    "lp_pool2d": (lambda t, x: F(t).lp_pool2d(x, 3, (2, 3), stride=1), np.abs(X4).tolist()),
    "lp_pool3d": (lambda t, x: F(t).lp_pool3d(x, 1.5, 2), np.abs(X5).tolist()),
    "lp_pool2d inf": (lambda t, x: F(t).lp_pool2d(x, math.inf, 2), X4),
    "max_unpool2d": (lambda t, x: _unpool(t, x, 2), X4),
    "max_unpool1d": (lambda t, x: _unpool(t, x, 1), X3),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_grads_match_torch(torch_ref, et, name):
    op, *values = GRADS[name]
    same(torch_ref, et, graded(op, *values, divisor=10))


@pytest.mark.torch
@pytest.mark.parametrize("name", list(GRADS))
def test_rule_graphs_match_torch(torch_ref, et, name):
    """The graph each rule builds from an upstream grad that requires grad (what a double backward
    draws): three levels of nodes below each input's grad, and the second-order grads."""
    op, *values = GRADS[name]

    def run(t):
        xs, us, gs = grads_with_graph(t, op, values, 10)
        graphs = [None if g is None else (g.requires_grad, names(g.grad_fn)) for g in gs]
        try:
            seconds = t.autograd.grad([g.sum() for g in gs if g is not None and g.requires_grad], us,
                                      allow_unused=True)
        except Exception as e:  # noqa: BLE001 - PyTorch has no formula for some: the error is compared
            seconds = (type(e).__name__, str(e))
        return graphs, seconds

    same(torch_ref, et, run)


NOT_SMOOTH = {"lp_pool2d inf", "rrelu in place"}  # (kinks at sample points: maxima ties, a zero)
NO_GRADGRAD = {"multi_margin_loss", "multi_margin_loss p=2 weight none", "multi_margin_loss 1-d sum",
               "multilabel_margin_loss", "multilabel_margin_loss none",
               *(f"pdist p={p}" for p in (2, 1, 3, 1.5, 0.5, math.inf))}  # (PyTorch has no formula)


@pytest.mark.parametrize("name", [n for n in GRADS if n not in NOT_SMOOTH])
def test_gradcheck(et, name):
    op, *values = GRADS[name]
    check_grads(et, op, values, gradgrad=name not in NO_GRADGRAD)


@pytest.mark.torch
def test_double_backward_errors_where_torch_has_no_formula(torch_ref, et):
    def run(t, op):
        x = t.tensor(A, dtype=t.float64, requires_grad=True)
        (g,) = t.autograd.grad(op(t, x), x, create_graph=True)
        return outcome(lambda t: t.autograd.grad(g.sum(), x), t)

    for op in (lambda t, x: F(t).pdist(x).sum(), lambda t, x: F(t).multi_margin_loss(x, t.tensor(MARGIN_TARGET)),
               lambda t, x: F(t).multilabel_margin_loss(x, t.tensor(LABELS))):
        assert run(et, op) == run(torch_ref, op)


@pytest.mark.torch
def test_nearest_backward_doubles_as_torch_does(torch_ref, et):
    """PyTorch's nearest backward takes ``o // 2`` when the size doubles whatever the scale, though its
    1-d and 3-d forward kernels do not: the engine's grads are PyTorch's, not the forward's adjoint."""
    def run(t):
        out = []
        for x in (X3, X5):
            x = t.tensor(x, dtype=t.float64, requires_grad=True)
            y = F(t).interpolate(x, scale_factor=2.1)
            y.backward(t.arange(y.numel(), dtype=t.float64).reshape(y.shape))
            out += [y, x.grad]
        return out

    same(torch_ref, et, run)


@pytest.mark.torch
def test_forward_ad_matches_torch(torch_ref, et):
    """Tangents through the new ops (from their backward rules), or PyTorch's error where it has none."""
    ops = [lambda t, d: F(t).interpolate(d, scale_factor=2, mode="bilinear"),
           lambda t, d: F(t).interpolate(d, size=(5, 3), mode="bicubic", align_corners=True),
           lambda t, d: F(t).interpolate(d[0], size=7, mode="linear"),
           lambda t, d: F(t).interpolate(d, scale_factor=1.5, mode="nearest-exact"),
           lambda t, d: F(t).pixel_shuffle(d.reshape(1, 4, 1, 3), 2), lambda t, d: F(t).channel_shuffle(d[0], 1),
           lambda t, d: F(t).rrelu(d - 0.5), lambda t, d: F(t).rrelu(d - 0.5, training=True),
           lambda t, d: F(t).bilinear(d[0, 0], d[0, 0], t.ones(2, 4, 4, dtype=t.float64)),
           lambda t, d: F(t).max_unpool2d(*F(t).max_pool2d(d, 2, return_indices=True), 2),
           lambda t, d: F(t).pdist(d[0, 0]), lambda t, d: F(t).multi_margin_loss(d[0, 0], t.tensor([0, 1, 2])),
           lambda t, d: F(t).multilabel_margin_loss(d[0, 0, :, :3], t.tensor([[0, -1, 1], [1, 2, 0], [2, -1, 0]]))]

    def run(t):
        fa = t.autograd.forward_ad
        x = t.tensor(np.arange(12.0).reshape(1, 1, 3, 4) / 7, dtype=t.float64)
        out = []
        with fa.dual_level():
            d = fa.make_dual(x, t.arange(12.0, dtype=t.float64).reshape(1, 1, 3, 4))
            for op in ops:
                t.manual_seed(0)
                out.append(outcome(lambda t: fa.unpack_dual(op(t, d)).tangent, t)[0])
        return out

    with warnings.catch_warnings():  # (PyTorch's first forward AD warns of its own imports)
        warnings.simplefilter("ignore")
        run(torch_ref)
    same(torch_ref, et, run)


# ----- Saved attributes -----

@pytest.mark.torch
def test_saved_attributes_match_torch(torch_ref, et):
    def saved(node):  # (rrelu's noise is left unwritten in evaluation: compared in training only)
        return [(a, getattr(node, a)) for a in dir(node) if a.startswith("_saved_") and a != "_saved_self"
                and not (a == "_saved_noise" and not node._saved_training)]

    def run(t):
        x3, x4, x5 = (t.tensor(v, requires_grad=True) for v in (X3, X4, X5))
        out = []
        for y in (F(t).interpolate(x4, scale_factor=2, mode="bilinear"),
                  F(t).interpolate(x4, size=(5, 9), mode="bicubic", align_corners=True),
                  F(t).interpolate(x3, scale_factor=1.5), F(t).interpolate(x3, size=7, mode="linear"),
                  F(t).interpolate(x5, scale_factor=(2, 1.5, 1), mode="trilinear"),
                  F(t).interpolate(x5, size=3, mode="nearest-exact"),
                  F(t).interpolate(x4, scale_factor=2.5, mode="nearest", recompute_scale_factor=True)):
            (g,) = t.autograd.grad(y, x3 if y.dim() == 3 else x4 if y.dim() == 4 else x5, t.ones_like(y).requires_grad_(),
                                   create_graph=True)
            out += [y.grad_fn.name(), saved(y.grad_fn), g.grad_fn.name(), saved(g.grad_fn)]
        a = t.tensor(A, requires_grad=True)
        for y in (F(t).pixel_shuffle(x4.reshape(1, 4, 5, 7), 2), F(t).pixel_unshuffle(x4, 1),
                  F(t).channel_shuffle(x4, 2), F(t).pdist(a, 1.5), F(t).multi_margin_loss(a, t.tensor(MARGIN_TARGET)),
                  F(t).multi_margin_loss(a, t.tensor(MARGIN_TARGET), p=2, margin=0.5, weight=t.ones(4),
                                         reduction="sum"),
                  F(t).multilabel_margin_loss(a, t.tensor(LABELS), reduction="none"),
                  F(t).rrelu(a, 0.1, 0.2), F(t).bilinear(a, a, t.ones(2, 4, 4)),
                  F(t).max_unpool2d(*F(t).max_pool2d(x4, 2, return_indices=True), 2, output_size=(5, 7))):
            node = y.grad_fn if y.grad_fn.name() != "ViewBackward0" else y.grad_fn.next_functions[0][0]
            out += [node.name(), saved(node)]
        t.manual_seed(0)
        y = F(t).rrelu(a, training=True)
        z = F(t).rrelu_(a * 1)
        return out + [saved(y.grad_fn), z.grad_fn.name(), saved(z.grad_fn)]

    same(torch_ref, et, run)


# ----- nn.init -----

@pytest.mark.torch
def test_init_draws_match_torch(torch_ref, et):
    def trunc(t, mean=0.0, std=1.0, a=-2.0, b=2.0, shape=(5, 7)):
        t.manual_seed(0)
        return t.nn.init.trunc_normal_(t.empty(shape), mean, std, a, b)

    def run(t):
        out = [trunc(t), trunc(t, 0, 1, 1.5, 4), trunc(t, 0, 0.02, -0.04, 0.04, (64,)),
               trunc(t, 0, 1, -0.1, 0.05, (40,)), outcome(lambda t: trunc(t, 5, 1, -1, 1), t)]
        t.manual_seed(0)
        out += [t.nn.init.sparse_(t.empty(6, 4), 0.4), t.nn.init.sparse_(t.empty(5, 3), 0.1, std=2.0),
                t.nn.init.trunc_normal_(t.empty(3, 3, dtype=t.float64), std=0.5)]
        w = t.nn.Parameter(t.empty(3, 4))
        out += [t.nn.init.trunc_normal_(w), w.requires_grad, w.grad_fn]
        return out

    same(torch_ref, et, run)


@pytest.mark.torch
def test_init_dirac_and_errors_match_torch(torch_ref, et):
    same(torch_ref, et, lambda t: [t.nn.init.dirac_(t.empty(s), g)
                                   for s, g in (((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((2, 4, 3, 2, 5), 1), ((3, 5, 2), 1))] + [
        outcome(f, t)[0] for f in (lambda t: t.nn.init.dirac_(t.empty(3, 4)), lambda t: t.nn.init.dirac_(t.empty(3, 4, 3), 2),
                                   lambda t: t.nn.init.sparse_(t.empty(6), 0.4))])


@pytest.mark.torch
@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                                  "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_init_names_warn_as_torch(torch_ref, et, name):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(name, ())
    shape = (4, 3, 3) if name == "dirac" else (4, 3)

    def run(t):
        t.manual_seed(0)
        return getattr(t.nn.init, name)(t.empty(shape), *args), getattr(t.nn.init, name).__name__

    ref = same(torch_ref, et, run)
    assert ref[1] == [("FutureWarning", f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.")]


def test_trunc_normal_stays_in_bounds(et):
    et.manual_seed(0)
    for a, b in ((-2.0, 2.0), (0.5, 3.0), (-0.01, 0.01)):
        x = et.nn.init.trunc_normal_(et.empty(20000, dtype=et.float64), 0.0, 1.0, a, b).numpy()
        assert x.min() >= a and x.max() <= b
    x = et.nn.init.trunc_normal_(et.empty(200000, dtype=et.float64)).numpy()
    assert abs(x.mean()) < 0.01 and abs(x.std() - 0.8796) < 0.01  # (the std of N(0, 1) cut at +-2)
