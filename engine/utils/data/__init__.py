"""``torch.utils.data``: datasets, samplers and the single-process ``DataLoader``.

Shuffling draws from the engine's generator as PyTorch's does, so after ``torch.manual_seed(s)``
a shuffled ``DataLoader`` yields PyTorch's batches in PyTorch's order.
"""
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
           "random_split"]
