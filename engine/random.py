"""``torch.random``: the default generator's seed and state (the same as ``torch.manual_seed`` and
friends), and ``fork_rng``, which puts the state back when its block ends."""
import contextlib

from ._factories import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Draws inside the block leave the generator as it was before it (there is only the CPU's here)."""
    if device_type == "meta" or not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
