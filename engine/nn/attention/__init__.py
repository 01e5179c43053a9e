"""``torch.nn.attention``: ``sdpa_kernel`` picks the kernels ``F.scaled_dot_product_attention`` may run."""
import contextlib
import enum

from ... import _attention

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(int, enum.Enum):
    """The kernels of ``scaled_dot_product_attention``; on the CPU, MATH and FLASH_ATTENTION run."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self):
        return f"SDPBackend.{self.name}"

    __format__ = object.__format__


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, ``scaled_dot_product_attention`` runs only the kernels in ``backends`` (one or a
    list): asked for alone, a kernel that cannot take the inputs warns why and raises."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = dict(_attention._ALLOWED)
    _attention._ALLOWED.update(flash=SDPBackend.FLASH_ATTENTION in backends, math=SDPBackend.MATH in backends)
    try:
        yield {}
    finally:
        _attention._ALLOWED.update(previous)
