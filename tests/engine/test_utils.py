"""torch.utils.data and torch.nn.utils against PyTorch: the same batches in the same order (shuffled
ones too, under manual_seed), the same collated types, splits, clipped gradients, norms and errors."""
import collections
import importlib

import numpy as np
import pytest

from tests.engine.opinfo import same


def data(m):
    """``m.utils.data``, also while the engine does not yet import it from its ``__init__``."""
    return importlib.import_module(m.__name__ + ".utils.data")


def nn_utils(m):
    return importlib.import_module(m.__name__ + ".nn.utils")


def _tensor_dataset(m, n=10):
    x = m.arange(n * 2, dtype=m.float32).reshape(n, 2)
    return data(m).TensorDataset(x, m.arange(n))


def _epochs(loader, epochs=2):
    return [[list(batch) for batch in loader] for _ in range(epochs)]


# ----- DataLoader: batches, order, len -----

@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (4, True), (10, False),
                                                   (12, False), (12, True)])
def test_sequential_batches_and_len(torch_ref, et, batch_size, drop_last):
    def fn(m):
        loader = data(m).DataLoader(_tensor_dataset(m), batch_size=batch_size, drop_last=drop_last)
        return len(loader), _epochs(loader, 1)

    same(torch_ref, et, fn)


@pytest.mark.parametrize("seed", [0, 7, 2024])
@pytest.mark.parametrize("batch_size, drop_last", [(3, False), (4, True), (1, False)])
def test_shuffled_order_under_manual_seed(torch_ref, et, seed, batch_size, drop_last):
    def fn(m):
        m.manual_seed(seed)
        loader = data(m).DataLoader(_tensor_dataset(m, 11), batch_size=batch_size, shuffle=True, drop_last=drop_last)
        # three epochs, then the generator's next numbers: each pass draws what PyTorch's draws
        return _epochs(loader, 3), m.rand(3), len(loader)

    same(torch_ref, et, fn)


def test_shuffle_order_is_pytorchs_literal(et):
    et.manual_seed(0)
    loader = data(et).DataLoader(list(range(10)), batch_size=3, shuffle=True)
    assert [b.tolist() for b in loader] == [[6, 7, 1], [4, 2, 0], [9, 8, 3], [5]]


def test_shuffle_with_own_generator(torch_ref, et):
    def fn(m):
        m.manual_seed(1)
        g = m.Generator().manual_seed(3)
        loader = data(m).DataLoader(list(range(9)), batch_size=4, shuffle=True, generator=g)
        return _epochs(loader), m.rand(2), g.initial_seed()

    same(torch_ref, et, fn)


def test_unshuffled_pass_draws_like_pytorch(torch_ref, et):
    """Even without shuffling, each pass takes one number from the default generator."""
    def fn(m):
        m.manual_seed(5)
        loader = data(m).DataLoader(_tensor_dataset(m, 4), batch_size=2)
        iter(loader)
        first = m.randn(2)
        _epochs(loader, 2)
        return first, m.randn(2)

    same(torch_ref, et, fn)


def test_iterator_len_and_manual_next(torch_ref, et):
    def fn(m):
        it = iter(data(m).DataLoader(_tensor_dataset(m, 5), batch_size=2))
        return len(it), list(next(it)), list(next(it)), list(next(it))

    same(torch_ref, et, fn)
    it = iter(data(et).DataLoader(list(range(2)), batch_size=2))
    next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_custom_dataset_and_subset(torch_ref, et):
    def fn(m):
        class Squares(data(m).Dataset):
            def __len__(self):
                return 7

            def __getitem__(self, i):
                return m.tensor([float(i)]), i * i

        sub = data(m).Subset(Squares(), [6, 0, 3, 5])
        loader = data(m).DataLoader(sub, batch_size=3)
        return len(sub), list(sub[1]), _epochs(loader, 1), list(data(m).DataLoader(sub, batch_size=2).__iter__())

    same(torch_ref, et, fn)


def test_batch_size_none_converts_each_sample(torch_ref, et):
    def fn(m):
        samples = [np.array([1.5, 2.0]), (np.int64(3), [np.float32(0.5)]), {"k": np.ones(2, dtype=np.int32)}]
        out = list(data(m).DataLoader(samples, batch_size=None))
        return out[0], out[1], sorted(out[2].items())

    same(torch_ref, et, fn)


def test_sampler_and_batch_sampler_arguments(torch_ref, et):
    def fn(m):
        d = data(m)
        ds = list(range(8))
        by_sampler = list(d.DataLoader(ds, batch_size=3, sampler=[7, 1, 4, 4, 0]))
        by_batches = list(d.DataLoader(ds, batch_sampler=[[0, 5], [2], [7, 6, 1]]))
        return by_sampler, by_batches

    same(torch_ref, et, fn)


def test_iterable_dataset(torch_ref, et):
    def fn(m):
        class Stream(data(m).IterableDataset):
            def __iter__(self):
                return iter(range(7))

        return (list(data(m).DataLoader(Stream(), batch_size=3)),
                list(data(m).DataLoader(Stream(), batch_size=3, drop_last=True)),
                list(data(m).DataLoader(Stream(), batch_size=None))[:3])

    same(torch_ref, et, fn)


def test_pin_memory_warns_once_per_pass(torch_ref, et):
    same(torch_ref, et, lambda m: _epochs(data(m).DataLoader(list(range(3)), batch_size=2, pin_memory=True), 1))


# ----- default_collate -----

def test_collate_tuples_numbers_and_strings(torch_ref, et):
    def fn(m):
        samples = [(m.tensor([1.0, 2.0]), 3, 0.5, True, "a"), (m.tensor([3.0, 4.0]), 4, 1.5, False, "b")]
        return list(data(m).DataLoader(samples, batch_size=2))

    same(torch_ref, et, fn)


def test_collate_dicts(torch_ref, et):
    def fn(m):
        samples = [{"x": m.full((2, 2), float(i)), "label": i, "w": i / 4, "meta": {"id": [i, i + 1]}}
                   for i in range(5)]
        batches = list(data(m).DataLoader(samples, batch_size=2))
        return [(type(b).__name__, sorted(b), b["x"], b["label"], b["w"], b["meta"]["id"]) for b in batches]

    same(torch_ref, et, fn)


def test_collate_numpy_lists_and_namedtuples(torch_ref, et):
    Point = collections.namedtuple("Point", "x y")

    def fn(m):
        collate = data(m).default_collate
        return (collate([np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)]),
                collate([np.float32(1.5), np.float32(2.5)]),
                collate([np.bool_(True), np.bool_(False)]),
                collate([[1, 2.5], [3, 4.5]]),
                type(collate([Point(1, 2.0), Point(3, 4.0)])).__name__,
                tuple(collate([Point(1, 2.0), Point(3, 4.0)])),
                collate([m.tensor(1.0, requires_grad=True), m.tensor(2.0)]),
                collate([b"x", b"y"]))

    same(torch_ref, et, fn)


@pytest.mark.parametrize("batch", [[None, None], [[1, 2], [3]], [np.array(["a"]), np.array(["b"])],
                                   [object(), object()]], ids=["none", "ragged", "str_array", "object"])
def test_collate_errors(torch_ref, et, batch):
    same(torch_ref, et, lambda m: data(m).default_collate(batch))


def test_collate_stack_size_error(torch_ref, et):
    same(torch_ref, et, lambda m: data(m).default_collate([m.zeros(2), m.zeros(3)]))


def test_default_convert(torch_ref, et):
    def fn(m):
        convert = data(m).default_convert
        return (convert(np.arange(3)), convert((np.float64(1.0), "s", [np.int8(2)])), convert(m.ones(1)), convert(4))

    same(torch_ref, et, fn)


# ----- datasets and random_split -----

def test_tensor_dataset(torch_ref, et):
    def fn(m):
        ds = _tensor_dataset(m, 4)
        return len(ds), ds[1], ds[[0, 3]], ds[1:3]

    same(torch_ref, et, fn)


@pytest.mark.parametrize("make", [
    lambda m: data(m).TensorDataset(m.zeros(3, 2), m.zeros(4)),
    lambda m: data(m).Dataset()[0],
    lambda m: data(m).ConcatDataset([]),
    lambda m: data(m).DataLoader(data(m).TensorDataset(m.zeros(0)), shuffle=True),
], ids=["size_mismatch", "base_getitem", "empty_concat", "empty_shuffle"])
def test_dataset_errors(torch_ref, et, make):
    same(torch_ref, et, make)


def test_concat_dataset(torch_ref, et):
    def fn(m):
        both = _tensor_dataset(m, 3) + _tensor_dataset(m, 2)
        return len(both), both[3], both[-1], both.cumulative_sizes, list(data(m).DataLoader(both, batch_size=4))

    same(torch_ref, et, fn)


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.5], [0.25, 0.25, 0.5], [0.1, 0.1, 0.8], [10],
                                     [2, 2, 2, 4]])
@pytest.mark.parametrize("own_generator", [False, True])
def test_random_split(torch_ref, et, lengths, own_generator):
    def fn(m):
        m.manual_seed(11)
        n = 2 if lengths == [0.1, 0.1, 0.8] else 10
        ds = list(range(100, 100 + n))
        kw = {"generator": m.Generator().manual_seed(4)} if own_generator else {}
        parts = data(m).random_split(ds, lengths, **kw)
        return [len(p) for p in parts], [list(p) for p in parts], [p.indices for p in parts], m.rand(1)

    ref = same(torch_ref, et, fn)
    result = ref[0][1]
    members = sorted(v for part in result[1] for v in part)
    assert members == sorted(members) and len(set(members)) == len(members) == sum(result[0])


@pytest.mark.parametrize("lengths", [[3, 3], [1.5, -0.5], [0.2, 0.2]], ids=["sum", "fraction", "fraction_sum"])
def test_random_split_errors(torch_ref, et, lengths):
    same(torch_ref, et, lambda m: data(m).random_split(list(range(10)), lengths))


# ----- samplers -----

def test_samplers(torch_ref, et):
    def fn(m):
        d = data(m)
        m.manual_seed(3)
        rnd = d.RandomSampler(range(6))
        with_replacement = d.RandomSampler(range(5), replacement=True, num_samples=40)
        more = d.RandomSampler(range(4), num_samples=10)
        batches = d.BatchSampler(d.SequentialSampler(range(7)), 3, drop_last=False)
        dropped = d.BatchSampler(range(7), 3, drop_last=True)
        return (list(d.SequentialSampler(range(4))), list(rnd), list(rnd), list(with_replacement), list(more),
                len(more), list(batches), len(batches), list(dropped), len(dropped),
                list(d.SubsetRandomSampler([10, 20, 30, 40])), m.rand(1))

    same(torch_ref, et, fn)


@pytest.mark.parametrize("make", [
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), True, False),
    lambda d: d.BatchSampler(range(3), 2, "no"),
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.RandomSampler(range(3), num_samples=2.0),
], ids=["batch_size_0", "batch_size_bool", "drop_last_str", "replacement_int", "num_samples_0", "num_samples_float"])
def test_sampler_errors(torch_ref, et, make):
    same(torch_ref, et, lambda m: make(data(m)))


# ----- DataLoader argument errors -----

@pytest.mark.parametrize("kw", [
    {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"persistent_workers": True},
    {"sampler": [0, 1], "shuffle": True}, {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "drop_last": True}, {"batch_size": None, "drop_last": True},
    {"multiprocessing_context": "spawn"},
], ids=lambda kw: "-".join(kw))
def test_dataloader_argument_errors(torch_ref, et, kw):
    same(torch_ref, et, lambda m: data(m).DataLoader(list(range(4)), **kw))


def test_iterable_dataset_rejects_shuffle_and_samplers(torch_ref, et):
    def fn(m):
        class Stream(data(m).IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return data(m).DataLoader(Stream(), shuffle=True)

    same(torch_ref, et, fn)


def test_frozen_attributes(torch_ref, et):
    def fn(m):
        loader = data(m).DataLoader(list(range(4)))
        loader.collate_fn = len  # allowed
        loader.batch_size = 2

    same(torch_ref, et, fn)


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_load_in_this_process_in_the_same_order(torch_ref, et, workers):
    def fn(m):
        m.manual_seed(3)
        loader = data(m).DataLoader(data(m).TensorDataset(m.arange(10.)), batch_size=4, shuffle=True,
                                    num_workers=workers, persistent_workers=workers > 1, prefetch_factor=3)
        return [b for epoch in range(2) for b in loader], loader.prefetch_factor, m.rand(2)

    same(torch_ref, et, fn)
    assert data(et).get_worker_info() is None


def test_import_paths(et):
    d = data(et)
    for path, name in [("utils.data.dataloader", "DataLoader"), ("utils.data.dataset", "TensorDataset"),
                       ("utils.data.sampler", "RandomSampler"), ("utils.data._utils.collate", "default_collate")]:
        assert getattr(importlib.import_module(f"{et.__name__}.{path}"), name) is getattr(d, name)


# ----- nn.utils: clipping -----

def _params(m, second_dtype=None):
    a = m.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    b = m.tensor([0.25, -4.0, 2.0], requires_grad=True, dtype=second_dtype(m) if second_dtype else None)
    unused = m.tensor([1.0], requires_grad=True)
    (a.sum() * 3 + (b * b).sum() + (a * a).sum()).backward()
    return [a, b, unused]


def _grads(params):
    return [p.grad for p in params]


@pytest.mark.parametrize("norm_type", [2, 1, float("inf"), "inf", 3.0, 0.5, 0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(torch_ref, et, norm_type, max_norm, foreach):
    def fn(m):
        params = _params(m)
        total = nn_utils(m).clip_grad_norm_(params, max_norm, norm_type=norm_type, foreach=foreach)
        return total, _grads(params)

    same(torch_ref, et, fn)


def test_clip_grad_norm_mixed_dtypes(torch_ref, et):
    def fn(m):
        params = _params(m, lambda m: m.float64)
        return nn_utils(m).clip_grad_norm_(params, 1.0), _grads(params)

    same(torch_ref, et, fn)


def test_clip_grad_norm_model_and_single_tensor(torch_ref, et):
    def fn(m):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 1))
        model(m.randn(5, 3)).pow(2).sum().backward()
        total = nn_utils(m).clip_grad_norm_(model.parameters(), max_norm=0.1)
        w = m.tensor([3.0, 4.0], requires_grad=True)
        w.sum().backward()
        single = nn_utils(m).clip_grad_norm_(w, 1.0, norm_type=1)
        return total, [p.grad for p in model.parameters()], single, w.grad

    same(torch_ref, et, fn)


def test_clip_grad_norm_without_grads(torch_ref, et):
    def fn(m):
        p = m.zeros(2, requires_grad=True)
        return nn_utils(m).clip_grad_norm_([p], 1.0), nn_utils(m).clip_grad_norm_((x for x in [p]), 1.0), p.grad

    same(torch_ref, et, fn)


def test_clip_grad_norm_empty_generator_warns(torch_ref, et):
    same(torch_ref, et, lambda m: nn_utils(m).clip_grad_norm_((p for p in []), 1.0))


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
@pytest.mark.parametrize("error", [True, False])
def test_clip_grad_norm_nonfinite(torch_ref, et, bad, error):
    def fn(m):
        p = m.zeros(3, requires_grad=True)
        p.grad = m.tensor([1.0, bad, 2.0])
        return nn_utils(m).clip_grad_norm_([p], 1.0, error_if_nonfinite=error), p.grad

    same(torch_ref, et, fn)


def test_clip_grad_norm_deprecated_alias(torch_ref, et):
    def fn(m):
        params = _params(m)
        return nn_utils(m).clip_grad_norm(params, 1.0), _grads(params)

    same(torch_ref, et, fn)


def test_get_total_norm_and_clip_grads_with_norm(torch_ref, et):
    def fn(m):
        params = _params(m)
        u = nn_utils(m)
        total = u.get_total_norm([p.grad for p in params if p.grad is not None], norm_type=1)
        result = u.clip_grads_with_norm_(params, 2.0, total)
        return (total, result, _grads(params), u.get_total_norm([]), u.get_total_norm(m.tensor([3.0, -4.0])),
                u.get_total_norm([m.tensor([1.0, 2.0], dtype=m.float64)], norm_type="inf"))

    same(torch_ref, et, fn)


@pytest.mark.parametrize("clip", [0.5, 2, 10.0])
def test_clip_grad_value(torch_ref, et, clip):
    def fn(m):
        params = _params(m)
        result = nn_utils(m).clip_grad_value_(params, clip)
        w = m.tensor([1.0, -1.0], requires_grad=True)
        (w * 5).sum().backward()
        nn_utils(m).clip_grad_value_(w, clip_value=clip, foreach=True)
        return result, _grads(params), w.grad

    same(torch_ref, et, fn)


def test_clipping_does_not_record_graph(et):
    params = _params(et)
    total = nn_utils(et).clip_grad_norm_(params, 1.0)
    assert total.grad_fn is None and all(p.grad is None or p.grad.grad_fn is None for p in params)


# ----- nn.utils: parameters as one vector -----

def test_parameters_to_vector_and_back(torch_ref, et):
    def fn(m):
        m.manual_seed(2)
        model = m.nn.Linear(3, 2)
        u = nn_utils(m)
        vec = u.parameters_to_vector(model.parameters())
        grad_fn = type(vec.grad_fn).__name__
        new = m.arange(8, dtype=m.float32) / 10
        u.vector_to_parameters(new, model.parameters())
        before = [p.clone() for p in model.parameters()]
        new[0] = 5.0  # the parameters are views of the vector now
        return vec, grad_fn, before, list(model.parameters()), [p.requires_grad for p in model.parameters()]

    same(torch_ref, et, fn)


@pytest.mark.parametrize("make", [
    lambda m, u: u.vector_to_parameters([1.0, 2.0], [m.zeros(2)]),
    lambda m, u: u.vector_to_parameters(m.zeros(3), [m.zeros(2, 2)]),
    lambda m, u: u.parameters_to_vector([]),
    lambda m, u: u.parameters_to_vector([m.zeros(2), 3.0]),
], ids=["not_tensor", "too_short", "empty", "not_parameter"])
def test_vector_conversion_errors(torch_ref, et, make):
    same(torch_ref, et, lambda m: make(m, nn_utils(m)))


# ----- together, as a tutorial's training loop uses them -----

def test_training_loop(torch_ref, et):
    def fn(m):
        m.manual_seed(0)
        x = m.randn(20, 3)
        y = x @ m.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * m.randn(20, 1)
        train, _ = data(m).random_split(data(m).TensorDataset(x, y), [0.8, 0.2])
        model = m.nn.Linear(3, 1)
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        norms = []
        for _ in range(3):
            for xb, yb in data(m).DataLoader(train, batch_size=5, shuffle=True):
                opt.zero_grad()
                m.nn.functional.mse_loss(model(xb), yb).backward()
                norms.append(nn_utils(m).clip_grad_norm_(model.parameters(), 1.0))
                opt.step()
        return [n.item() for n in norms], [p.tolist() for p in model.parameters()]

    # the same batches in the same order; float32 matmuls may round their last bit differently
    ours, ref = fn(et), fn(torch_ref)
    assert len(ours[0]) == len(ref[0]) == 12
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-5)
    for a, b in zip(ours[1], ref[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
