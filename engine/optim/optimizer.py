"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``
and step hooks, shared by every optimizer."""
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

import numpy as np

from .. import _dtypes, _grad_mode
from .._tensor import Tensor, _wrap, typename as _typename
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _use_grad_for_differentiable(step):
    """Run ``step`` with grad mode set to the optimizer's ``differentiable`` default (off, normally)."""

    @functools.wraps(step)
    def _use_grad(self, *args, **kwargs):
        with _grad_mode.set_grad_enabled(self.defaults["differentiable"]):
            return step(self, *args, **kwargs)

    return _use_grad


def _to_scalar(x):
    """A hyperparameter as the update arithmetic takes it: a number, or a one-element tensor's
    0-d array (NumPy then promotes with it as PyTorch does with a 0-d tensor)."""
    return x._data.reshape(()) if isinstance(x, Tensor) else x


def _get_scalar_dtype():
    return _dtypes.float64 if _dtypes.get_default_dtype() is _dtypes.float64 else _dtypes.float32


def _scalar_tensor(value, fused=False):
    """The 0-d ``step`` counter PyTorch keeps in an optimizer's state (float32 when fused)."""
    dt = _dtypes.float32 if fused else _get_scalar_dtype()
    return _wrap(np.array(value, dtype=dt.np))


def _zeros_like(p):
    return _wrap(np.zeros_like(p._data))


def _set(t, value):
    """Write ``value`` into ``t``'s array in place and bump its version, as an in-place op does."""
    t._data[...] = value
    t._vc[0] += 1


def _update_param(p, value):
    """``_set`` for a parameter. Steps run under no_grad; with ``differentiable=True`` they do not,
    and then an in-place update of a leaf that requires grad raises PyTorch's error."""
    if _grad_mode._enabled and p._requires_grad:
        p._check_inplace()
        raise NotImplementedError("differentiable=True: stepping through a non-leaf parameter is not supported")
    _set(p, value)


# capturable=True: PyTorch's check of the parameters' device at the first update, which a CPU
# tensor always fails.
_CAPTURABLE_ON_CPU = ("If capturable=True, params and state_steps must be on supported devices: "
                      "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


def _check_adam_args(lr, eps, betas, weight_decay):
    """The argument checks the Adam family shares, in PyTorch's order and words."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def register_optimizer_step_pre_hook(hook):
    r"""Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs)`` returns None
    or modified ``(args, kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    r"""Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`torch.Tensor` s or :class:`dict` s (parameter
            groups), or of ``(name, tensor)`` pairs. Specifies what Tensors should be optimized.
        defaults (dict): a dict containing default values of optimization options (used when a
            parameter group doesn't specify them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()

        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def _restore_state(self, group_defaults, scalars=("step",), flag=lambda group: False):
        """The rest of a subclass's ``__setstate__`` for a state saved by an older PyTorch: group keys
        added since get their defaults, and the per-parameter ``scalars`` (``step``, ...) become 0-d
        tensors (``_scalar_tensor``'s ``fused`` argument is ``flag(group)``)."""
        for group in self.param_groups:
            for key, default in group_defaults:
                group.setdefault(key, default)
            for p in group["params"]:
                p_state = self.state.get(p)
                if p_state:
                    for key in scalars:
                        if not isinstance(p_state[key], Tensor):
                            p_state[key] = _scalar_tensor(float(p_state[key]), flag(group))

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(("\n" if i else "") + f"Parameter Group {i}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        return "\n".join(lines) + "\n)"

    # ----- step and its hooks -----
    @staticmethod
    def profile_hook_step(func):
        """Wrap a ``step`` so the global and per-optimizer step hooks run around it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self):
        # As PyTorch: the class's step (a subclass's own, too) is wrapped once, on first use.
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        r"""Register ``hook(optimizer, args, kwargs)``, called before ``step``; it returns None or
        modified ``(args, kwargs)``. Returns a handle whose ``remove()`` unregisters it."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        r"""Register ``hook(optimizer, args, kwargs)``, called after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @staticmethod
    def _add_hook(hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        r"""Register ``hook(optimizer)``, called before :meth:`state_dict`."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        r"""Register ``hook(optimizer, state_dict)``, called after :meth:`state_dict`; a returned
        dict replaces the state dict."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        r"""Register ``hook(optimizer, state_dict)``, called before :meth:`load_state_dict`; a
        returned dict is loaded instead."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        r"""Register ``hook(optimizer)``, called after :meth:`load_state_dict`."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def step(self, closure=None):
        r"""Perform a single optimization step to update parameter.

        Args:
            closure (Callable): A closure that reevaluates the model and returns the loss.
                Optional for most optimizers.
        """
        raise NotImplementedError

    def _group_params(self, group, init, capturable_error=_CAPTURABLE_ON_CPU):
        """The group's parameters that have a grad, as ``(p, state, grad)``: a parameter's state made by
        ``init(p)`` (its entries, ``step`` first) before its first update, the grad negated under
        ``maximize``. capturable=True fails here, before any update, as PyTorch's device check does."""
        params = [p for p in group["params"] if p.grad is not None]
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state.update(init(p))
        if params and group["capturable"]:
            raise AssertionError(capturable_error)
        maximize = group["maximize"]
        return ((p, self.state[p], -p.grad._data if maximize else p.grad._data) for p in params)

    def _step(self, closure):
        """The frame of every built-in ``step``: the closure with grad on, then each group's update."""
        loss = None
        if closure is not None:
            with _grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._step_group(group)
        return loss

    # ----- parameter groups -----
    def add_param_group(self, param_group):
        r"""Add a param group to the :class:`Optimizer` s ``param_groups`` (a frozen layer made
        trainable, say): a dict with ``'params'`` and any options that differ from the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)

        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        param_set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not param_set.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        r"""Reset the gradients of all optimized :class:`torch.Tensor` s.

        Args:
            set_to_none (bool, optional): Instead of setting to zero, set the grads to None
                (then a parameter that gets no gradient is skipped by the next step). Default: ``True``
        """
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    # ----- state dict -----
    def state_dict(self):
        r"""Return the state of the optimizer as a :class:`dict`, with parameters replaced by
        their index in the order of ``param_groups``:

        * ``state``: ``{index: {'momentum_buffer': tensor(...), ...}}``, the per-parameter state
          (the same dicts and tensors the optimizer holds, not copies).
        * ``param_groups``: a list of dicts with each group's options and ``'params'``, a list of
          indices (and ``'param_names'`` when the group was given names).
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        index = {}
        param_groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # As PyTorch: a parameter of an earlier group keeps its index; one listed twice in
            # this group takes its last position.
            index.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index})
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        packed_state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}

        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        # ``step`` keeps its dtype unless fused or capturable; other float state takes the
        # parameter's dtype (no copy when it already has it).
        group = next((pg for pg in param_groups if param_id in pg["params"]), {})
        if key == "step":
            if group.get("fused", False) or group.get("capturable", False):
                return value.to(dtype=_dtypes.float32)
            return value
        return value.to(dtype=param.dtype) if param.is_floating_point() else value

    def load_state_dict(self, state_dict):
        r"""Load the optimizer state.

        Args:
            state_dict (dict): optimizer state. Should be an object returned from a call to
                :meth:`state_dict`; its parameters are matched to this optimizer's by position.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, key=k) for k, v in value.items()}
            if isinstance(value, Iterable):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, k)
            else:
                state[k] = v

        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
