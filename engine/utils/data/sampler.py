"""Samplers: the order in which a ``DataLoader`` visits a dataset's indices, and their batching."""
import itertools
from typing import Generic, TypeVar

from ..._dtypes import float64
from ..._factories import as_tensor
from ..._random import Generator, default_generator
from ..._sampling import multinomial

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def _draw_seed(generator):
    """``torch.empty((), dtype=torch.int64).random_(generator=...).item()``: one 64-bit draw, kept to 63 bits."""
    g = default_generator if generator is None else generator
    return int(g.integers((), 0, 1 << 63))


class Sampler(Generic[T_co]):
    """An iterable over dataset indices (or lists of them)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (repeated to ``num_samples``), or ``num_samples``
    independent draws with ``replacement``.

    Without a ``generator``, each pass seeds a fresh one from the default generator, as PyTorch
    does: ``torch.manual_seed(s)`` then fixes every later epoch's order.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        n = self.num_samples
        if not isinstance(n, int) or n <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={n}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator
        if g is None:
            g = Generator().manual_seed(_draw_seed(None))
        if self.replacement:
            # PyTorch draws in chunks of 32; the chunking decides which draws land where
            for _ in range(self.num_samples // 32):
                yield from g.integers((32,), 0, n).tolist()
            yield from g.integers((self.num_samples % 32,), 0, n).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from g.permutation(n).tolist()
            yield from g.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        g = default_generator if self.generator is None else self.generator
        for i in g.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with the given (unnormalised) weights, by ``torch.multinomial``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = as_tensor(weights, dtype=float64)
        if len(weights.shape) != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter unless ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)
