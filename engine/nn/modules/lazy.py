"""``LazyModuleMixin``: a module whose parameters take their shape from its first input."""
from ... import _grad_mode
from ..parameter import UninitializedBuffer, UninitializedParameter


class LazyModuleMixin:
    r"""For modules (``LazyLinear``, ``LazyConv2d``, ...) whose parameters are
    ``UninitializedParameter``\ s until the first ``forward``, which calls
    ``initialize_parameters(input)`` and turns the module into ``cls_to_become`` (``Linear``, ...),
    as in PyTorch."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        return any(isinstance(p, (UninitializedParameter, UninitializedBuffer))
                   for p in (*self._parameters.values(), *self._buffers.values()))


def _infer_parameters(module, args, kwargs=None):
    with _grad_mode.no_grad():
        module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become
