"""Every op that takes a dim rejects one out of range with PyTorch's IndexError and message, never
NumPy's AxisError or a silently wrapped axis."""
import pytest

pytestmark = pytest.mark.torch


def ops(T):
    F = T.nn.functional
    x = T.arange(24.0).reshape(2, 3, 4)
    i = T.zeros(2, 3, 4, dtype=T.int64)
    first = T.tensor([0])

    def wider(d):  # (for the ops whose dim ranges over one more than x has)
        return d + 1 if d >= 0 else d - 1
    return {
        "sum": lambda d: x.sum(d), "mean": lambda d: x.mean(d), "prod": lambda d: x.prod(d),
        "std": lambda d: x.std(d), "var": lambda d: x.var(d), "max": lambda d: x.max(d), "min": lambda d: x.min(d),
        "argmax": lambda d: x.argmax(d), "argmin": lambda d: x.argmin(d), "softmax": lambda d: x.softmax(d),
        "log_softmax": lambda d: x.log_softmax(d), "cumsum": lambda d: x.cumsum(d), "cumprod": lambda d: x.cumprod(d),
        "squeeze": lambda d: x.squeeze(d), "unsqueeze": lambda d: x.unsqueeze(wider(d)), "transpose": lambda d: x.transpose(0, d),
        "narrow": lambda d: x.narrow(d, 0, 1), "select": lambda d: x.select(d, 0),
        "index_select": lambda d: x.index_select(d, first), "gather": lambda d: x.gather(d, i),
        "scatter": lambda d: x.scatter(d, i, 1.0), "cat": lambda d: T.cat([x, x], d), "stack": lambda d: T.stack([x, x], wider(d)),
        "chunk": lambda d: x.chunk(2, d), "split": lambda d: x.split(1, d), "unbind": lambda d: x.unbind(d),
        "flip": lambda d: x.flip(d), "roll": lambda d: x.roll(1, d), "movedim": lambda d: x.movedim(0, d),
        "diagonal": lambda d: x.diagonal(0, 0, d), "topk": lambda d: x.topk(1, d), "sort": lambda d: x.sort(d),
        "argsort": lambda d: x.argsort(d), "kthvalue": lambda d: x.kthvalue(1, d), "median": lambda d: x.median(d),
        "mode": lambda d: x.mode(d), "logsumexp": lambda d: x.logsumexp(d), "norm": lambda d: x.norm(dim=d),
        "all": lambda d: x.all(d), "any": lambda d: x.any(d), "count_nonzero": lambda d: x.count_nonzero(d),
        "nansum": lambda d: x.nansum(d), "nanmean": lambda d: x.nanmean(d), "amax": lambda d: x.amax(d),
        "amin": lambda d: x.amin(d), "aminmax": lambda d: x.aminmax(dim=d), "cummax": lambda d: x.cummax(d),
        "cummin": lambda d: x.cummin(d), "logcumsumexp": lambda d: x.logcumsumexp(d),
        "repeat_interleave": lambda d: x.repeat_interleave(2, d), "diff": lambda d: x.diff(dim=d),
        "renorm": lambda d: x.renorm(2, d, 1.0), "normalize": lambda d: F.normalize(x, dim=d),
        "glu": lambda d: F.glu(x, d), "softmin": lambda d: F.softmin(x, d),
        "cosine_similarity": lambda d: F.cosine_similarity(x, x, dim=d),
        "index_add": lambda d: x.index_add(d, first, x.narrow(0, 0, 1)),
        "index_fill": lambda d: x.index_fill(d, first, 1.0), "tensor_split": lambda d: x.tensor_split(2, d),
        "unfold": lambda d: x.unfold(d, 1, 1), "size": lambda d: x.size(d), "stride": lambda d: x.stride(d),
        "flatten": lambda d: x.flatten(d), "unflatten": lambda d: x.unflatten(d, (1, -1)),
        "permute": lambda d: x.permute(0, 1, d), "std_mean": lambda d: T.std_mean(x, d),
        "take_along_dim": lambda d: T.take_along_dim(x, i, d),
    }


NAMES = sorted(ops(__import__("engine")))


@pytest.mark.parametrize("name", NAMES)
def test_dim_out_of_range(et, torch_ref, name):
    def outcome(T, d):
        try:
            ops(T)[name](d)
        except Exception as e:  # noqa: BLE001 - the type and message are the observation
            return type(e).__name__, str(e).splitlines()[0]
        return "ok"

    for d in (3, -4, 5):
        want = outcome(torch_ref, d)
        assert want != "ok"
        assert outcome(et, d) == want
