"""``torch.cuda`` on a machine without CUDA, as PyTorch's CPU build answers: tutorial code asks
whether a GPU is there, seeds it, empties its cache, and takes its CPU branch."""

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "is_bf16_supported", "current_device", "get_device_name", "get_device_properties",
           "get_device_capability", "synchronize", "get_rng_state", "set_rng_state", "set_device"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Queued in PyTorch until CUDA starts, which never happens here; the seed must still be a number."""
    int(seed)


manual_seed_all = manual_seed


def seed():
    return None


seed_all = seed


def empty_cache():
    return None


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def is_bf16_supported(including_emulation=True):
    return False


def _lazy_init():
    raise AssertionError(_NOT_COMPILED)


def current_device():
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def synchronize(device=None):
    _lazy_init()


def get_rng_state(device="cuda"):
    _lazy_init()


def set_rng_state(new_state, device="cuda"):
    """Queued in PyTorch until CUDA starts, which never happens here."""


def set_device(device):
    raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")


