"""``torch.accelerator``, as PyTorch answers with no accelerator: the tutorials' first line,
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``."""

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def is_available():
    return False


def current_accelerator(check_available=False):
    return None


def device_count():
    return 0


def current_device_index():
    raise RuntimeError(_NONE)


def set_device_index(device):
    raise RuntimeError(_NONE)


def synchronize(device=None):
    raise RuntimeError(_NONE)


current_device_idx = current_device_index
set_device_idx = set_device_index
