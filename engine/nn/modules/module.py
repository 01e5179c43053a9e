"""``torch.nn.Module``: the base class that registers parameters, buffers and submodules."""
import functools
import inspect
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtypes, _grad_mode
from ..._graph import _sequence
from ..._tensor import Tensor, check_device, typename as _typename
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter

_param_reads = None  # {id(parameter): when first read} while torch.compile runs a call (engine/_compile.py)

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook", "register_module_full_backward_pre_hook",
           "register_module_backward_hook", "register_module_full_backward_hook", "Module"]


def _addindent(text, spaces):
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first] + [pad + line for line in rest])


def _forget(d, name, stores):
    """Drop ``name`` from a module's ``__dict__`` and ``stores``: it is about to be registered elsewhere."""
    d.pop(name, None)
    for store in stores:
        if store in d:
            d[store].pop(name, None)
    if "_non_persistent_buffers_set" in d:
        d["_non_persistent_buffers_set"].discard(name)


class _WrappedHook:
    """A hook called with the module as its first argument (the non-full backward hooks, set on a
    grad_fn): the module is held weakly."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)

        self.with_module = False

        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]

        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# Hooks every module runs, before its own (``register_module_*``).
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
# False until a backward hook is registered (or unpickled) anywhere: Module.__call__ reads the four
# backward hook dicts only from then on, so calls pay nothing for them in the common case.
_backward_hooks_seen = False


def _saw_backward_hooks():
    global _backward_hooks_seen
    _backward_hooks_seen = True


def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module, run before the module's own: ``hook(module, args)``;
    a returned value (wrapped in a tuple unless it is one) replaces the positional arguments."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook for every module, run before the module's own: ``hook(module, args, output)``
    (``hook(module, args, kwargs, output)`` with ``with_kwargs``); a returned value replaces the output.
    With ``always_call`` it runs even when the call raised."""
    # As PyTorch: removing the handle leaves the id in the with_kwargs dict (ids are never reused).
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[_global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    """A non-full backward hook for every module (deprecated: see ``Module.register_backward_hook``)."""
    return _register_global_backward_hook(hook, full=False)


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook for every module, run before the module's own: ``hook(module, grad_output)``;
    a returned tuple replaces ``grad_output``."""
    _saw_backward_hooks()
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """A full backward hook for every module, run before the module's own:
    ``hook(module, grad_input, grad_output)``; a returned tuple replaces ``grad_input``."""
    return _register_global_backward_hook(hook, full=True)


def _register_global_backward_hook(hook, full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full
    _saw_backward_hooks()
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _tensor_tuple(x, does, grads):
    """``x`` as a tuple of tensors, or None after PyTorch's warning that a non-full backward hook misses
    some grads of a module whose output or input is anything else."""
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple) and all(isinstance(t, Tensor) for t in x):
        return x
    warnings.warn(
        f"Using non-full backward hooks on a Module that does not {does} a single Tensor or a tuple of Tensors "
        f"is deprecated and will be removed in future versions. This hook will be missing some of the {grads}. "
        "Please use register_full_backward_hook to get the documented behavior.",
        FutureWarning, stacklevel=3)
    return None


class Module:
    r"""Base class for all neural network modules; models subclass it.

    Assigning a :class:`Parameter`, or another Module, as an attribute registers it, so that
    ``parameters()``, ``state_dict()``, ``to()`` ... see it::

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(4, 8)
                self.fc2 = nn.Linear(8, 1)

            def forward(self, x):
                return self.fc2(F.relu(self.fc1(x)))

    ``training`` says whether the module is in training or evaluation mode.
    """

    _version = 1
    training: bool
    dump_patches = False
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        # Straight into __dict__: __setattr__ reads these very dicts.
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_modules"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ----- registration -----
    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is part of the module's state but not a parameter (a running mean);
        ``persistent=False`` leaves it out of ``state_dict()``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (or None, a parameter slot left empty) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``; it is then an attribute too."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``"net.0"``); ``""`` is self."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (``"net.0.weight"``)."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    # ----- attributes -----
    def __getattr__(self, name):
        # Only reached when normal lookup fails: parameters, buffers and modules live in their dicts.
        d = self.__dict__
        if "_parameters" in d:
            store = d["_parameters"]
            if name in store:
                if _param_reads is not None:  # (a compiled call orders its graph's inputs by these reads)
                    _param_reads.setdefault(id(store[name]), next(_sequence))
                return store[name]
            store = d["_buffers"]
            if name in store:
                return store[name]
            store = d["_modules"]
            if name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _forget(d, name, ("_buffers", "_modules"))
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _forget(d, name, ("_parameters", "_buffers"))
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers, is_buffer = d.get("_buffers"), isinstance(value, Buffer)
        if is_buffer or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = value.persistent if is_buffer else name not in d["_non_persistent_buffers_set"]
            if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
                self.register_buffer(name, value, persistent)
            elif "persistent" in inspect.signature(self.register_buffer).parameters:
                self.register_buffer(name, value, persistent)  # (a subclass's own register_buffer)
            else:
                if not persistent:
                    raise RuntimeError("Registering a non-persistent buffer on a Module subclass that "
                                       "implements register_buffer() without the persistent argument is "
                                       "not allowed.")
                self.register_buffer(name, value)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if name in d.get(store, ()):
                del d[store][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        attrs = list(super().__dir__())
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Modules pickled before these attributes existed (by PyTorch's older versions, or this engine's).
        d = self.__dict__
        for name in ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs"):
            if name not in d:
                d[name] = OrderedDict()
        d.setdefault("_is_full_backward_hook", None)
        d.setdefault("_non_persistent_buffers_set", set())
        if d["_backward_hooks"] or d["_backward_pre_hooks"]:
            _saw_backward_hooks()

    # ----- calling -----
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or _global_forward_pre_hooks or _global_forward_hooks
                or _backward_hooks_seen and (self._backward_hooks or self._backward_pre_hooks
                                             or _global_backward_pre_hooks or _global_backward_hooks)):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        result = None
        called_always = set()
        try:
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

            if _global_forward_pre_hooks or self._forward_pre_hooks:
                for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                    if hook_id in self._forward_pre_hooks_with_kwargs:
                        new = hook(self, args, kwargs)
                        if new is not None:
                            if not (isinstance(new, tuple) and len(new) == 2):
                                raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                                   f"new_kwargs), but got {new}.")
                            args, kwargs = new
                    else:
                        new = hook(self, args)
                        if new is not None:
                            args = new if isinstance(new, tuple) else (new,)

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = self.forward(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                    if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                        called_always.add(hook_id)
                    if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                        new = hook(self, args, kwargs, result)
                    else:
                        new = hook(self, args, result)
                    if new is not None:
                        result = new

            if bw_hook:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)

            if non_full_backward_hooks:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            # always_call hooks not yet run run now; what they raise is only warned about, as the
            # first error is the one re-raised. (PyTorch passes kwargs to no global hook here.)
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                    try:
                        new = hook(self, args, result)
                        if new is not None:
                            result = new
                    except Exception as e:  # noqa: BLE001
                        warnings.warn("global module forward hook with ``always_call=True`` raised an exception "
                                      f"that was silenced as another error was raised in forward: {e}",
                                      stacklevel=2)
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            new = hook(self, args, kwargs, result)
                        else:
                            new = hook(self, args, result)
                        if new is not None:
                            result = new
                    except Exception as e:  # noqa: BLE001
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                                      f"that was silenced as another error was raised in forward: {e}",
                                      stacklevel=2)
            raise

    def _add_hook(self, hooks, hook, prepend, flags):
        handle = RemovableHandle(hooks, extra_dict=[f for f, on in flags if on])
        hooks[handle.id] = hook
        for f, on in flags:
            if on:
                f[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` runs before ``forward``; a returned value replaces the arguments.
        With ``with_kwargs=True`` it is ``hook(module, args, kwargs)`` returning ``(args, kwargs)``."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend,
                              [(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` runs after ``forward``; a returned value replaces the output."""
        return self._add_hook(self._forward_hooks, hook, prepend,
                              [(self._forward_hooks_with_kwargs, with_kwargs),
                               (self._forward_hooks_always_called, always_call)])

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the grads of the module's outputs are computed,
        before ``register_full_backward_hook``'s; a returned tuple replaces ``grad_output``."""
        _saw_backward_hooks()
        return self._add_hook(self._backward_pre_hooks, hook, prepend, [])

    def register_backward_hook(self, hook):
        """Deprecated for ``register_full_backward_hook``: ``hook(module, grad_input, grad_output)`` is
        set on the grad_fn of the module's (first) output and sees that node's grads only."""
        return self._add_backward_hook(hook, False, False)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs once the grads of the module's positional inputs
        are computed (entries are None for non-tensor arguments); a returned tuple replaces ``grad_input``."""
        return self._add_backward_hook(hook, True, prepend)

    def _add_backward_hook(self, hook, full, prepend):
        # A module has one kind of backward hook: full ones or the deprecated ones, never both.
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = full
        _saw_backward_hooks()
        return self._add_hook(self._backward_hooks, hook, prepend, [])

    def _get_backward_hooks(self):
        """The hooks for one call: (full backward hooks, non-full ones), the global ones first."""
        full_backward_hooks = []
        if _global_is_full_backward_hook is True:
            full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full_backward_hooks += self._backward_hooks.values()

        non_full_backward_hooks = []
        if _global_is_full_backward_hook is False:
            non_full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full_backward_hooks += self._backward_hooks.values()

        return full_backward_hooks, non_full_backward_hooks

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        result = _tensor_tuple(result, "return", "grad_output")
        if result is None:
            return
        inputs = _tensor_tuple(inputs, "take as input", "grad_input")
        if inputs is None:
            return

        # inputs and result are tuples of tensors here
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output.",
                FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different autograd Nodes "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output. Please use register_full_backward_hook to get the documented behavior.",
                FutureWarning, stacklevel=2)
        else:
            # the grad_output part of the hook is most likely right
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}

            next_functions = {n[0] for n in grad_fn.next_functions}

            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple autograd Nodes "
                    "is deprecated and will be removed in future versions. This hook will be missing "
                    "some grad_input. Please use register_full_backward_hook to get the documented "
                    "behavior.",
                    FutureWarning, stacklevel=2)

    # ----- iteration -----
    def _walk(self, prefix, remove_duplicate):
        """``named_modules()``'s list: the tree in preorder, without generators (optimizer steps and
        ``zero_grad`` walk it every iteration)."""
        out = []
        memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if id(module) in memo:
                continue
            if remove_duplicate:
                memo.add(id(module))
            out.append((name, module))
            children = [(name + "." + k if name else k, m) for k, m in module._modules.items() if m is not None]
            stack.extend(reversed(children))
        return out

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        for module_prefix, module in self._walk(prefix, remove_duplicate) if recurse else [(prefix, self)]:
            for k, v in get_members(module):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (module_prefix + "." + k if module_prefix else k), v

    def parameters(self, recurse=True):
        """An iterator over the parameters (of submodules too, when ``recurse``), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(name, parameter)`` pairs with dotted names (``"0.weight"``), each parameter once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        """The immediate child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self):
        """Every module of the tree, self first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            yield from self._walk(prefix, remove_duplicate)
            return
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ----- modes and gradients -----
    def train(self, mode=True):
        """Set training mode (``mode=False``: evaluation) on this module and its children."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to None, or with ``set_to_none=False`` to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    # ----- state -----
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer, detached, under dotted names."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(value)}")
                continue
            if param.dim() == 0 and value.dim() == 1:  # (checkpoints from before 0-d tensors)
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with _grad_mode.no_grad():
                    if not assign:
                        param.copy_(value)
                    elif name in self._parameters:
                        setattr(self, name, Parameter(value, requires_grad=param.requires_grad))
                    else:
                        setattr(self, name, value)
            except Exception as ex:  # noqa: BLE001 - reported as PyTorch reports it
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                                  f"exception occurred : {ex.args}.")
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                head, dot, _ = key[len(prefix):].partition(".")
                if (head not in self._modules) if dot else (head not in local_state):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module and its children.
        With ``strict`` the keys must match ``state_dict()``'s exactly. Returns
        ``(missing_keys, unexpected_keys)``."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ----- conversion -----
    def apply(self, fn):
        """Call ``fn`` on every submodule (children first, then self), as for initialising weights."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            # The Parameter object stays (optimizers hold it); it takes the converted values.
            with _grad_mode.no_grad():
                param.data = fn(param)
                if param.grad is not None:
                    param.grad.data = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(dtype)``, ``to(device)``, ``to(tensor)``.
        Only floating dtypes are accepted, and only floating tensors are cast; returns self."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                            f"'{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, bool):
                continue  # non_blocking
            else:
                device = a
        check_device(device)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast floating parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # ----- printing -----
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings in its repr (``in_features=2, out_features=3, bias=True``);
        subclasses override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2) for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"
