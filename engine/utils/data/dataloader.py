"""``DataLoader``: batches from a dataset, loaded in this process (there are no worker processes,
neither in CPython here nor in Pyodide)."""
import math
import warnings

from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _draw_seed

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info():
    """``None``: data is always loaded in the main process here."""
    return None


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an iterable dataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples merged by ``collate_fn``,
    in order or shuffled (``shuffle=True``), or in the order a ``sampler``/``batch_sampler`` gives.

    Any ``num_workers`` is accepted; the samples are always loaded in this process.
    """

    _initialized = False
    _base_seed = None

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        # Tutorial code asks for workers (num_workers=2): the samples are loaded here all the same, in
        # the same order, as there are no worker processes (nor in the browser).
        if num_workers == 0:
            if prefetch_factor is not None:
                raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                                 "to enable multiprocessing, otherwise set prefetch_factor to None.")
            if persistent_workers:
                raise ValueError("persistent_workers option needs num_workers > 0")
            if multiprocessing_context is not None:
                raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                                 f"but got num_workers={num_workers}")
        elif prefetch_factor is None:
            prefetch_factor = 2
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            given = (("shuffle", shuffle, shuffle not in (None, False)), ("sampler", sampler, sampler is not None),
                     ("batch_sampler", batch_sampler, batch_sampler is not None))
            for name, value, is_given in given:
                if is_given:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, "
                                     f"but got {name}={value}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        self._IterableDataset_len_called = None

    def __setattr__(self, name, value):
        if self._initialized and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        # PyTorch draws its workers' base seed even with no workers: without this draw the random numbers
        # after the loop, and the next epoch's shuffle, would differ from PyTorch's. Persistent workers
        # are started once, so their seed is drawn at the first epoch only.
        if not (self.persistent_workers and self.num_workers > 0 and self._base_seed is not None):
            self._base_seed = _draw_seed(self.generator)
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        n = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class _SingleProcessDataLoaderIter:
    """One pass over a ``DataLoader``."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._dataset_iter = iter(self._dataset) if self._iterable else None
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        data = self._fetch(next(self._sampler_iter))
        self._num_yielded += 1
        expected = self._IterableDataset_len_called
        if self._iterable and expected is not None and self._num_yielded > expected:
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be {expected}(when accessing "
                          f"len(dataloader)), but {self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def _fetch(self, index):
        if self._iterable:
            return self._fetch_stream(index)
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        getitems = getattr(self._dataset, "__getitems__", None)
        samples = getitems(index) if getitems else [self._dataset[i] for i in index]
        return self._collate_fn(samples)

    def _fetch_stream(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        samples = []
        for _ in index:
            try:
                samples.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not samples or (self._drop_last and len(samples) < len(index)):
            raise StopIteration
        return self._collate_fn(samples)
