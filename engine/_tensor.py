"""The Tensor: a NumPy array plus what autograd needs (``requires_grad``, ``grad``, ``grad_fn``)."""
import numbers
import warnings
import weakref

import numpy as np

from . import _dtypes, _grad_mode
from ._grad_mode import _inference
from ._graph import AccumulateGrad, HookedAttrs, _HookDict, _Recorded, _sequence, add_hook, expose, freed_error
from ._memory import aligned_copy

_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/"
    "TensorBody.h:493.)"
)
_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
_SCALAR_OF_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\nConsider using "
    "tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/generated/"
    "python_variable_methods.cpp:822.)"
)
_warned_float = False
_AMBIGUOUS = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
    "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or "
    "both outside (if you want the inplace to be tracked)."
)
_NO_GRAD_VIEW_INPLACE = "A view was created in no_grad mode and is being modified inplace with grad mode enabled. " + _AMBIGUOUS
_NO_GRAD_VIEW_OF_VIEW = ("Output 0 of {name} is a view of a view which was created in no_grad mode and is being "
                         "modified inplace with grad mode enabled. " + _AMBIGUOUS)
_NO_GRAD_VIEW_CHANGED = ("A view was created in no_grad mode and its base or another view of its base has been modified "
                         "inplace with grad mode enabled. " + _AMBIGUOUS)
_VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_MULTI_OUTPUT_VIEW = (
    "Output {nr} of {name} is a view and is being modified inplace. This view is the output of a function that "
    "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one."
)
_NONLEAF_FLAG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
    "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)

# C++ type names, as PyTorch's messages print them.
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                   "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}

MAX_ELEMENTS = 10**8  # a playground guard: refuse allocations a browser tab cannot hold


class Size(tuple):
    """A tensor's shape, printed as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple(self) + other)

    def __radd__(self, other):
        return Size(other + tuple(self))


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                 "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """Only the CPU exists here; ``device('cpu')`` and ``'cpu'`` are accepted everywhere."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        type = str(type)
        if ":" in type:
            type, idx = type.split(":", 1)
            index = int(idx)
        if type not in _DEVICE_TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
                f"vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # As in PyTorch, a device never equals a string: torch.device("cpu") == "cpu" is False.
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_CPU = device("cpu")


def check_device(dev):
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev) if isinstance(dev, str) else None
    if d is not None and d.type != "cpu":
        raise AssertionError("Torch not compiled with CUDA enabled")


def check_size(n):
    if n > MAX_ELEMENTS:
        raise MemoryError(
            f"refusing to allocate a tensor of {n:,} elements: the playground's limit is {MAX_ELEMENTS:,}"
        )


class _Saved:
    """A tensor saved for backward, with the version it had, so in-place changes are caught.
    An output is kept without its grad_fn (like PyTorch's SavedVariable), so a node never
    holds a reference cycle through its own output."""

    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, tensor, is_output=False):
        if is_output:
            alias = _wrap(tensor._data)
            alias._vc = tensor._vc
            if tensor._output_nr:  # (a class default otherwise: no instance dict made)
                alias._output_nr = tensor._output_nr
            tensor = alias
        self.tensor = tensor
        self.version = tensor._vc[0]
        self.is_output = is_output


class _SavedResult:
    """An op's output saved for its backward: the array and version counter, not the tensor (whose
    grad_fn is the node: a reference cycle). unpack_saved makes the tensor a rule on tensors reads.
    (Made by ``record`` with its slots set directly: a Python ``__init__`` costs more per op.)"""

    __slots__ = ("data", "vc", "version", "tangent")  # (tangent: set only under forward AD)


class _Meta(tuple):
    """``(shape, NumPy dtype)`` of a node's input, kept at record time; it stands in for an input
    the backward rule needs only the shape and dtype of, so no stand-in is built per backward."""

    __slots__ = ()

    @property
    def shape(self):
        return Size(self[0])

    @property
    def dtype(self):
        return _dtypes.from_numpy_dtype(self[1])

    def dim(self):
        return len(self[0])

    def numel(self):
        return self.shape.numel()

    def size(self, d=None):
        return self.shape if d is None else self.shape[d]


def _wrap(data, requires_grad=False):
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._grad_fn = None
    if _inference[0]:
        t._inference = True
        t._vc = _NoVersion((0,))
    else:
        t._vc = [0]
    return t


def typename(obj):
    """``torch.typename``: a tensor's legacy type (``'torch.FloatTensor'``), else the object's qualified
    name, this package's classes under PyTorch's module names (``torch.nn.modules.linear.Linear``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    if module == "engine" or module.startswith("engine."):
        module = "torch" + module[len("engine"):]
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


_ndarray = np.ndarray  # (NumPy's module has a __getattr__, so np.ndarray is never a cached read)
_NO_EDGE = (None, 0)  # next_functions entry of an input that does not require grad
_new = object.__new__


def _as_array(x):
    return x if type(x) is _ndarray else np.asarray(x)


_SCALARS = (float, int, bool)


def is_scalar(x):
    t = type(x)
    return t in _SCALARS or (t is not Tensor and isinstance(x, (numbers.Number, np.generic))
                             and not isinstance(x, Tensor))


def record(op, inputs, result, attrs=None, n_outputs=1, keep=None):
    """Run-time half of every primitive: wrap the NumPy result and, when grad mode is on and an
    input requires grad, attach a node holding exactly what ``op``'s backward rule needs.
    ``keep``: positions of outputs the rules read back (``attrs["outs"]``, see _SavedOutputs)."""
    if type(result) is tuple:
        outs = tuple(_wrap(_as_array(r)) for r in result)
    else:
        outs = _new(Tensor)  # _wrap(result), inlined: this runs once per op
        outs._data = result if type(result) is _ndarray else np.asarray(result)
        outs._requires_grad = False
        outs._grad_fn = None
        outs._vc = [0]
    if not _grad_mode._enabled:
        if _grad_mode._inference[0]:
            _mark_inference(outs)
        if _grad_mode._fw_active:
            _forward_tangents(op, inputs, outs, attrs, n_outputs, keep)
        return outs
    edges = []
    metas = []  # (shape, dtype) per input; unpack_saved makes the stand-ins a rule reads (Op.standins)
    needed = False
    missing = False  # an input without an edge: see Op.save_for
    for t in inputs:
        if type(t) is Tensor or isinstance(t, Tensor):
            if t._view_version is not None and t._view_version != t._vc[0]:
                _refresh_view(t)
            d = t._data
            metas.append((d.shape, d.dtype))
            if t._requires_grad:
                needed = True
                fn = t._grad_fn
                if fn is not None:
                    edges.append((fn, t._output_nr))
                else:  # a leaf: its AccumulateGrad (Tensor._grad_accumulator, inlined)
                    acc = t._accumulator
                    acc = acc() if acc is not None else None
                    edges.append((acc if acc is not None else t._grad_accumulator(), 0))
            else:
                edges.append(_NO_EDGE)
                missing = True
        else:
            metas.append(None)
            edges.append(_NO_EDGE)
            missing = True
    if not needed:
        if _grad_mode._fw_active:
            _forward_tangents(op, inputs, outs, attrs, n_outputs, keep)
        return outs
    node = _new(_Recorded)  # Node.__init__ inlined: this runs once per recorded op
    node._seq = next(_sequence)
    node._freed = False
    node._op = op
    node._attrs = attrs
    node._n_outputs = n_outputs
    node._plain = n_outputs == 1
    node._next = tuple(edges)
    node._metas = metas
    saves = op.saves
    if saves:
        saved = []
        save_for = op.save_for if missing else None
        for i in saves:
            if save_for is not None:
                users = save_for.get(i)
                if users is not None:
                    for u in users:
                        if edges[u] is not _NO_EDGE:
                            break
                    else:
                        saved.append(_UNUSED)  # no rule that reads it will run
                        continue
            if type(i) is int:
                t = inputs[i]
                # A saved input is a plain (tensor, version) pair, any other value a one-item list:
                # cheaper to make and read than a _Saved, which this runs for nearly every op.
                if isinstance(t, Tensor):
                    if t._inference:
                        raise RuntimeError(INFERENCE_SAVED)
                    saved.append((t, t._vc[0]))
                else:
                    saved.append([t])
            else:  # "result"
                out = outs if n_outputs == 1 else outs[0]
                s = _new(_SavedResult)
                s.data, s.vc, s.version = out._data, out._vc, out._vc[0]
                saved.append(s)
        node._saved = saved
    else:
        node._saved = () if op.keeps else None  # (): something for backward to free
    if _grad_mode._anomaly["enabled"]:
        from .autograd.anomaly_mode import record_trace

        record_trace(node)
    if n_outputs == 1:
        if outs._data.dtype.kind == "f":
            outs._grad_fn = node
            outs._requires_grad = True
    else:
        for i, o in enumerate(outs):
            if i in op.differentiable_outputs:
                o._grad_fn = node
                o._output_nr = i
                o._requires_grad = True
        if keep:
            from ._ops import _SavedOutputs

            attrs["outs"] = _SavedOutputs(outs, keep)
    if _SAVED_HOOKS and (saves or attrs):  # (once the output has its grad_fn, which the pack hook sees)
        _pack_saved(node, outs if n_outputs == 1 else outs[0])
    if _grad_mode._fw_active:  # (once the outputs have their grad_fn, which a tangent's graph reaches)
        _forward_tangents(op, inputs, outs, attrs, n_outputs, keep)
    return outs


INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in "
    "autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")


class _NoVersion(list):
    """An inference tensor's version counter. PyTorch's have none: an in-place change outside inference
    mode raises where it would be counted, after the write (the values have changed, as in PyTorch)."""
    __slots__ = ()

    def __setitem__(self, i, v):
        if not _inference[0]:
            raise RuntimeError(_INFERENCE_INPLACE)
        list.__setitem__(self, i, v)


def _mark_inference(outs):
    """Tensors made in inference mode are inference tensors (views of normal tensors are reset by _view_of)."""
    for o in (outs if type(outs) is tuple else (outs,)):
        o._inference = True
        o._vc = _NoVersion(o._vc)


def _refresh_view(t):
    # The base (or another view of it) changed in place since this view's grad_fn was made.
    from ._ops import refresh_view

    refresh_view(t)


_INVALID = type("Invalid", (), {})()  # what a tensor's repr names as grad_fn when asking for it raises

_UNUSED = object()  # a saved slot left empty: see Op.save_for
_UNWORKED = object()  # a slot of Op's not worked out yet: see Op.standins


# ----- Saved tensors hooks (torch.autograd.graph.saved_tensors_hooks) -----

_SAVED_HOOKS = []  # (pack_hook, unpack_hook) pairs, innermost last: record packs with the last one
_PACK_INPLACE = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                 "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                 "open an issue if you need to perform in-place operations on the input to a pack hook.")


class _Packed:
    """A saved tensor handed to a pack hook: what the hook returned, the unpack hook, and what the
    tensor it unpacks to carries (PyTorch's SavedVariable with hooks: no version check from then on)."""

    __slots__ = ("packed", "unpack", "is_output", "requires_grad", "grad_fn", "output_nr", "accumulator",
                 "version")

    def unpacked(self, node):
        t = self.unpack(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        out = _wrap(t._data)
        out._vc = [self.version]
        fn = node if self.is_output else self.grad_fn
        if fn is not None:
            out._grad_fn, out._requires_grad = fn, True
            if self.output_nr:
                out._output_nr = self.output_nr
        elif self.requires_grad:
            out._requires_grad = True
            out._accumulator = self.accumulator  # grads through it reach the very leaf
        return out


def _pack(t, hooks, is_output, given=None):
    """Call the pack hook on ``given`` (the tensor itself by default), under no_grad, as PyTorch does."""
    pack, unpack = hooks
    p = _new(_Packed)
    p.unpack, p.is_output, p.version = unpack, is_output, t._vc[0]
    p.requires_grad, p.output_nr = t._requires_grad, t._output_nr
    p.grad_fn = None if is_output else t._grad_fn
    p.accumulator = t._accumulator
    prev = _grad_mode._enabled
    _grad_mode._set(False)
    try:
        p.packed = pack(t if given is None else given)
    finally:
        _grad_mode._set(prev)
    if t._vc[0] != p.version and not is_output:
        raise RuntimeError(_PACK_INPLACE)
    return p


class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one tensor a node saved, on which a pair of pack / unpack
    hooks can be registered (``register_hooks``), as on PyTorch's SavedVariable. ``pos``: a saved
    slot's position; or ``spec``, a tensor kept among the node's attrs, and ``part``, which of its
    tensors (an index has one per dim)."""

    __slots__ = ("_node", "_pos", "_spec", "_part")

    def __init__(self, node, pos=None, spec=None, part=0):
        self._node, self._pos, self._spec, self._part = node, pos, spec, part

    def register_hooks(self, pack_hook, unpack_hook):
        node = self._node
        if node._saved is None and node._freed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you "
                "need to backward through the graph a second time or if you need to access saved variables after "
                "calling backward.")
        hooks = (pack_hook, unpack_hook)
        if self._spec is not None:
            return self._register_on_attr(hooks)
        saves, saved = node._op.saves, node._saved
        k = saves.index(self._pos) if self._pos in saves else None
        s = saved[k] if k is not None else None
        if type(s) is _Packed:
            raise RuntimeError(_HOOKS_SET)
        if type(s) is tuple:  # the input itself is saved: the pack hook gets it detached
            saved[k] = _pack(s[0], hooks, False, s[0].detach())
        elif type(s) is _SavedResult:
            out = _wrap(s.data)
            out._vc = s.vc
            saved[k] = _pack(out, hooks, True)
        else:
            raise RuntimeError(_HOOKS_ON_NONE)

    def _register_on_attr(self, hooks):
        node, spec, part = self._node, self._spec, self._part
        attrs = node._attrs
        entry = attrs.packed.get(spec) if type(attrs) is HookedAttrs else None
        if entry is not None and type(entry.parts[part]) is _Packed:
            raise RuntimeError(_HOOKS_SET)
        parts = entry.parts if entry is not None else spec.tensors(node)
        t = parts[part]
        if not isinstance(t, Tensor):
            raise RuntimeError(_HOOKS_ON_NONE)
        if entry is None:
            hooked = attrs if type(attrs) is HookedAttrs else HookedAttrs(attrs)
            entry = hooked.packed[spec] = _PackedAttr(list(parts), spec.joiner(node))
            if spec.key is not None:
                hooked[spec.key] = None  # (its hooks hold it now)
            _take_attrs(node, hooked)
        entry.parts[part] = _pack(t, hooks, spec.is_output(t), t.detach())


SavedTensor.__module__ = "torch._C._autograd"
_HOOKS_SET = ("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
              "hooks is allowed at a time.")
_HOOKS_ON_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"


class _PackedAttr:
    """A tensor kept among a node's attrs, given to pack hooks. ``parts``: per tensor (an index has
    one per dim) a _Packed, a tensor not given to a hook, or what is not a tensor; ``join`` makes
    the attr the rule reads from the unpacked parts."""

    __slots__ = ("parts", "join")

    def __init__(self, parts, join):
        self.parts, self.join = parts, join

    def unpacked(self, node):
        return [p.unpacked(node) if type(p) is _Packed else p for p in self.parts]


def _take_attrs(node, hooked):
    """``hooked`` becomes the node's attrs: the node then runs on backward's general path, which
    unpacks them, and backward frees it."""
    node._attrs = hooked
    node._plain = False
    if node._saved is None:
        node._saved = ()


def _formula_order(op):
    """Saved slots where PyTorch's order is not known: where the first formula reading it comes."""
    saves, users = op.saves, op.save_for or {}
    return sorted(range(len(saves)), key=lambda k: (min(users.get(saves[k], (len(saves),))), k))


def _pack_plan(op):
    """What a node of ``op`` saves, in the order PyTorch's generated code saves and unpacks it: the
    inputs by name, then the outputs by name (MulBackward0: other, self; PowBackward1: exponent,
    self, result). An entry is a slot's index in ``op.saves`` or a tensor attr's spec."""
    plan = op._plan
    if plan is not None:
        return plan
    specs = op.node_cls.__dict__.get("_getters_saved")
    if specs is None:
        plan = tuple(_formula_order(op))
    else:
        named, seen = [], set()
        for name, get in specs.items():
            pos = getattr(get, "slot", _UNUSED)
            if pos is not _UNUSED:
                if pos not in op.saves:
                    continue
                entry, output = op.saves.index(pos), pos == "result"
                seen.add(entry)
            elif hasattr(get, "joiner"):
                entry, output = get, get.output
            else:
                continue
            named.append((output or name.startswith("result"), name, entry))  # (result1, result2: outputs too)
        named.sort(key=lambda e: e[:2])
        plan = tuple(e for _, _, e in named) + tuple(k for k in _formula_order(op) if k not in seen)
    op._plan = plan
    return plan


def _pack_saved(node, out):
    hooks = _SAVED_HOOKS[-1]
    saved = node._saved
    hooked = None
    plan = _pack_plan(node._op)
    kept = {e: e.tensors(node) for e in plan if type(e) is not int}  # (all before any hook runs)
    for e in plan:
        if type(e) is int:
            s = saved[e]
            if type(s) is tuple:
                saved[e] = _pack(s[0], hooks, False)
            elif type(s) is _SavedResult:
                saved[e] = _pack(out, hooks, True)
            continue
        parts = kept[e]
        if not any(isinstance(t, Tensor) for t in parts):
            continue
        if hooked is None:
            hooked = HookedAttrs(node._attrs)
        hooked.packed[e] = _PackedAttr([_pack(t, hooks, e.is_output(t)) if isinstance(t, Tensor) else t
                                        for t in parts], e.joiner(node))
        if e.key is not None:
            hooked[e.key] = None
    if hooked is not None:
        _take_attrs(node, hooked)


def _unpack_hooked(node, arrays, attrs=None):
    """unpack_saved for a node with packed slots: unpack hooks run in the order the pack hooks did.
    ``attrs``: a copy of the node's HookedAttrs, into which its packed tensors are unpacked too."""
    op, saved = node._op, node._saved
    args = list(node._metas)
    result = None
    packed = node._attrs.packed if attrs is not None else None
    for k in _pack_plan(op):
        if type(k) is not int:
            entry = packed.get(k) if packed is not None else None
            if entry is not None:
                v = entry.join(entry.unpacked(node))
                if k.key is not None:
                    attrs[k.key] = v
            continue
        pos, s = op.saves[k], saved[k]
        if s is _UNUSED:
            continue
        if type(s) is list:
            args[pos] = s[0]
            continue
        v = _slot_value(node, s)
        if pos == "result":
            result = v._data if arrays else v
        else:
            args[pos] = v._data if arrays else v
    return result, args


def unpack_with_attrs(node):
    """What a backward rule is called with: unpack_saved's result and inputs, and the attrs; where
    pack hooks took tensors among the attrs, everything is unpacked in the order it was packed."""
    attrs = node._attrs
    if type(attrs) is not HookedAttrs:
        result, args = unpack_saved(node)
        return result, args, attrs
    if node._saved is None and node._freed:
        raise freed_error()
    attrs = dict(attrs)
    result, args = _unpack_hooked(node, False, attrs)
    return result, _with_standins(node._op, args), attrs


def saved_value(node, pos):
    """One saved slot, as ``grad_fn._saved_<name>`` reads it: checked for in-place changes, and only
    its own unpack hook runs. ``_UNUSED`` for a slot left empty."""
    saved = node._saved
    if saved is None and node._freed:
        raise freed_error()
    s = saved[node._op.saves.index(pos)]
    if s is _UNUSED:
        return s
    return s[0] if type(s) is list else _slot_value(node, s)


def _slot_value(node, s):
    """The tensor of a saved slot: an input (checked for in-place changes), the result, or what
    its unpack hook gives back."""
    if type(s) is tuple:
        v, version = s
        if v._vc[0] != version:
            raise RuntimeError(_version_message(v, version, None))
        return v
    if type(s) is _SavedResult:
        return _saved_result(s, node)
    return s.unpacked(node)


def unpack_saved(node, arrays=False):
    """The inputs a backward rule sees: saved tensors (checked for in-place changes), scalars,
    or the ``_Meta`` stand-ins with shape and dtype. ``arrays``: the saved tensors' arrays, for
    a rule run on arrays (see Op.array_vjps)."""
    saved = node._saved
    if saved is None and node._freed:
        raise freed_error()
    op = node._op
    args = list(node._metas)
    result = None
    if saved:
        for pos, s in zip(op.saves, saved):
            if type(s) is tuple:  # a saved input, the commonest slot
                t, version = s
                if t._vc[0] != version:
                    raise RuntimeError(_version_message(t, version, None))
                args[pos] = t._data if arrays else t
                continue
            if s is _UNUSED:
                continue
            if type(s) is list:  # a saved Python value
                args[pos] = s[0]
                continue
            if type(s) is not _SavedResult:  # given to a pack hook: unpacked in the order it was packed
                result, args = _unpack_hooked(node, arrays)
                break
            if arrays and s.vc[0] == s.version:
                result = s.data
                continue
            result = _saved_result(s, node)
    return result, _with_standins(op, args)


def _with_standins(op, args):
    standins = op._standins
    if standins is _UNWORKED:
        standins = op.standins
    if standins is None:
        standins = [i for i, a in enumerate(args) if type(a) is tuple]
    for i in standins:
        if i < len(args) and type(args[i]) is tuple:  # (a slot Op.save_for left empty, or never saved)
            args[i] = _Meta(args[i])
    return args


def _saved_result(s, node):
    # The saved result. Its tensor is rebuilt with this node as its grad_fn, like PyTorch's
    # SavedVariable: no reference cycle, yet higher-order grads flow through it.
    result = _wrap(s.data, _grad_mode._enabled)
    result._vc = s.vc
    if s.vc[0] != s.version:
        raise RuntimeError(_version_message(result, s.version, node))
    if _grad_mode._enabled:
        result._grad_fn = node
    if _grad_mode._fw_active:  # the output's tangent too, for a backward that forward AD goes through
        result._fw_grad = getattr(s, "tangent", None)
    return result


def _version_message(t, expected, node):
    desc = f"[torch.{_dtypes.from_numpy_dtype(t._data.dtype)._legacy} {list(t._data.shape)}]"
    fn = node if node is not None else t.grad_fn  # the property: a stale view names AsStrided, as in PyTorch
    if fn is not None:
        name = fn.name()
        if name.endswith("Backward0") and not hasattr(fn, "_is_custom"):
            name = name[: -len("Backward0")]
        desc += f", which is output {t._output_nr} of {name},"
    if _grad_mode._anomaly["enabled"]:
        hint = ("the backtrace further above shows the operation that failed to compute its gradient. The "
                "variable in question was changed in there or anywhere later. Good luck!")
    else:
        hint = ("enable anomaly detection to find the operation that failed to compute its gradient, with "
                "torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc} is at version {t._vc[0]}; expected version {expected} instead. Hint: {hint}"
    )


class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    >>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    >>> out = (x * x).mean()
    >>> out
    tensor(7.5000, grad_fn=<MeanBackward0>)
    >>> out.backward(); x.grad
    tensor([[0.5000, 1.0000],
            [1.5000, 2.0000]])
    """

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_vc", "__weakref__", "__dict__")
    # Rarely set, so they live in the instance dict only when set: creating a tensor stays cheap.
    _output_nr = 0
    _grad = None
    _base = None
    _view_version = None  # set on differentiable views: the version their grad_fn was made at
    _no_grad_view = False  # a view made under no_grad: it must not be modified in place with grad on
    _custom_view = None  # a view a custom Function returned, or a view of one (see autograd.function._wrap_outputs)
    _inference = False  # made in inference_mode (not a view of a normal tensor): see _mark_inference
    _retains_grad = False
    _hooks = None
    _post_hooks = None
    _accumulator = None
    _fw_grad = None  # the tangent at the current forward-AD level (autograd.forward_ad)
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        from ._factories import legacy_new

        t = legacy_new(None, args, kwargs)  # None: the default dtype, as torch.Tensor(...) follows it
        if cls is not Tensor:
            sub = object.__new__(cls)
            for k in Tensor.__slots__[:-2]:
                setattr(sub, k, getattr(t, k))
            sub.__dict__.update(t.__dict__)
            return sub
        return t

    # ----- autograd state -----
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def _set_requires_grad(self, value, dtype_message):
        if self._grad_fn is not None:
            if not value:
                raise RuntimeError(_NONLEAF_FLAG)
            return
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(dtype_message)
        if value and self._inference and not _grad_mode._inference[0]:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")
        return self

    @property
    def grad_fn(self):
        if self._no_grad_view:
            self._check_no_grad_view()
        if self._view_version is not None and self._view_version != self._vc[0]:
            _refresh_view(self)
        return expose(self._grad_fn)  # (user code sees the node: it takes its op's class)

    @property
    def is_leaf(self):
        if self._no_grad_view:
            self._check_no_grad_view()
        return self._grad_fn is None

    def _check_no_grad_view(self):
        # A view made under no_grad of a tensor that requires grad: once it or its base changed in
        # place, PyTorch can't tell what its grad_fn should be, and says so wherever it is asked.
        if self._requires_grad and self._vc[0] != self._no_grad_version:
            raise RuntimeError(_NO_GRAD_VIEW_CHANGED)

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def is_inference(self):
        return self._inference

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(_NONLEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of size "
                    f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_TYPE_NAMES[value._data.dtype.name]}' to a "
                    f"tensor with grad_dtype '{_dtypes.from_numpy_dtype(self._data.dtype)._legacy[:-6]}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
                    "caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep ``.grad`` on this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        fn = self._grad_fn
        if fn._retains is None:
            fn._retains = {}
            fn._plain = False
        fn._retains[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """``hook(grad)`` runs when the gradient for this tensor is computed; a returned tensor
        replaces it. Returns a handle whose ``remove()`` unregisters the hook."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return add_hook(self._grad_fn._tensor_hooks(self._output_nr), hook)
        if self._hooks is None:
            self._hooks = _HookDict()
            self._leaf_hooked()
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_hooks is None:
            self._post_hooks = _HookDict()
            self._leaf_hooked()
        return add_hook(self._post_hooks, hook)

    def _leaf_hooked(self):
        acc = self._live_accumulator()
        if acc is not None:  # (one made later sees the hooks itself)
            acc._plain = False  # the backward walk no longer runs it inline

    def _live_accumulator(self):
        """This leaf's AccumulateGrad while a graph holds it, else None."""
        return self._accumulator() if self._accumulator is not None else None

    def _grad_accumulator(self):
        if self._no_grad_view:  # None: no grad flows into it (see _ops._view_of)
            self._check_no_grad_view()
            return None
        acc = self._live_accumulator()
        if acc is None:
            acc = AccumulateGrad(self)
            self._accumulator = weakref.ref(acc)
        return acc

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (a vector-Jacobian product
        with ``gradient`` when self is not a scalar)."""
        if gradient is None and inputs is None:  # loss.backward(): straight to the walk
            _backward_one(self, retain_graph, create_graph)
        else:
            _autograd_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        t = _wrap(self._data)
        t._vc = self._vc
        if self._inference or _inference[0]:  # (an alias: an inference tensor when self is one)
            t._inference = self._inference
        return t

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    def resize_(self, *sizes, memory_format=None):
        """The elements in memory order, as many as ``sizes`` hold; a shrunk tensor keeps its memory,
        so growing it again gives the old elements back (new ones are zeros here, not garbage)."""
        from ._factories import _size

        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        shape = _size(sizes, "resize_")
        n = int(np.prod(shape))
        check_size(n)
        d = self._data
        flat = d.reshape(-1)
        root = d.base if isinstance(d.base, np.ndarray) else None
        while root is not None and isinstance(root.base, np.ndarray):
            root = root.base
        if root is not None and root.flags.c_contiguous and root.dtype == d.dtype:
            # the memory from the first element on, in memory order: what a shrink (or a view) kept
            at, extra = divmod(d.__array_interface__["data"][0] - root.__array_interface__["data"][0], d.itemsize)
            if not extra and 0 <= at < root.size:
                flat = root.reshape(-1)[at:]
        if n <= flat.size:
            self._data = flat[:n].reshape(shape)
        else:
            grown = np.zeros(n, d.dtype)
            grown[:flat.size] = flat
            self._data = grown.reshape(shape)
        self._vc[0] += 1
        return self

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other.shape)

    @property
    def data(self):
        return _wrap(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    # ----- metadata -----
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim, ndim=None):
        n = self._data.ndim if ndim is None else ndim
        lo, hi = (-1, 0) if n == 0 else (-n, n - 1)
        if not lo <= dim <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
        return dim % max(n, 1)

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return _dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    # (memory on the CPU, strided and dense: every other kind of tensor PyTorch has is not made here)
    is_sparse = is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = False
    is_xla = is_xpu = is_mps = is_ipu = is_vulkan = is_maia = is_mtia = False

    def is_pinned(self, device=None):
        return False

    def is_shared(self):
        return False

    def share_memory_(self):
        return self

    @property
    def volatile(self):
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @property
    def layout(self):
        return "torch.strided"

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return False

    def element_size(self):
        return self._data.itemsize

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        if dim is not None and not self._data.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return st if dim is None else st[self._wrap_dim(dim)]

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def get_device(self):
        return -1

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """The legacy type name (``'torch.FloatTensor'``), or a cast to a dtype, a legacy type
        (``torch.DoubleTensor``) or its name; ``self`` when the type is already right."""
        if dtype is None:
            return f"torch.{_dtypes.from_numpy_dtype(self._data.dtype)._legacy}"
        if isinstance(dtype, str):
            by_name = {f"torch.{d._legacy}": d for d in _dtypes._FROM_NP.values()}
            if dtype not in by_name:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = by_name[dtype]
        elif not isinstance(dtype, _dtypes.dtype) and isinstance(getattr(dtype, "dtype", None), _dtypes.dtype):
            dtype = dtype.dtype  # torch.DoubleTensor and friends
        if dtype.np == self._data.dtype:
            return self
        return self.to(dtype)

    @property
    def is_cpu(self):
        return True

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def new(self, *args, **kwargs):
        """Legacy ``x.new(2, 3)`` / ``x.new([1, 2])``: like ``torch.Tensor(...)`` with ``x``'s dtype."""
        from ._factories import legacy_new

        return legacy_new(_dtypes.from_numpy_dtype(self._data.dtype), args, kwargs)

    # ----- conversion to Python / NumPy -----
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, force=False):
        if self._requires_grad and not force and _grad_mode._enabled:  # (PyTorch allows it under no_grad)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _grad_mode._enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data if dtype is None else self._data.astype(dtype)

    def _scalar(self, kind):
        if self._data.size != 1:
            if kind == "bool":
                many = "no values" if self._data.size == 0 else "more than one value"
                raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __float__(self):
        global _warned_float
        if self._requires_grad and not _warned_float:
            _warned_float = True  # TORCH_WARN_ONCE: once per process
            warnings.warn(_SCALAR_OF_REQUIRES_GRAD, UserWarning, stacklevel=2)
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        from . import _ops

        return iter(_ops.unbind(self, 0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        return bool((self._data == (element._data if isinstance(element, Tensor) else element)).any())

    def __repr__(self, *, tensor_contents=None):
        from ._printing import format_tensor

        try:
            fn = self.grad_fn
        except RuntimeError:  # a no_grad view changed in place (see _check_no_grad_view)
            fn = _INVALID
        return format_tensor(
            self._data,
            _dtypes.from_numpy_dtype(self._data.dtype).name,
            requires_grad=self._requires_grad,
            # PyTorch prints type(grad_fn).__name__: "CopySlices", not name()'s "torch::autograd::CopySlices"
            grad_fn_name=_printed_name(fn) if fn is not None and not isinstance(fn, AccumulateGrad) else None,
            default_dtype_name=_dtypes.get_default_dtype().name,
            tangent=self._tangent_for_repr(),
        )

    def _tangent_for_repr(self):
        t = self._fw_grad
        return None if t is None or not _grad_mode._fw_active else f"{t}"

    def __format__(self, spec):
        # As PyTorch: a 0-d tensor formats as its Python number (f"{loss}" shows 0.2469...), others
        # as str(self), and a format spec on those is a TypeError naming Tensor.__format__.
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self._data.item(), spec)
        return object.__format__(self, spec)

    def __deepcopy__(self, memo):
        t = _wrap(aligned_copy(self._data), self._requires_grad)
        if self._grad is not None:
            t._grad = _wrap(self._grad._data.copy())
        t.__dict__.update(self.__dict__)
        return t

    def __reduce_ex__(self, proto):
        return (_rebuild, (self._data, self._requires_grad))

    # ----- in-place machinery -----
    def _check_inplace(self):
        d = self._data
        if 0 in d.strides and d.size and any(st == 0 and n > 1 for st, n in zip(d.strides, d.shape)):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.")
        if not _grad_mode._enabled:
            return
        if self._no_grad_view and self._base._requires_grad:
            fn = self._grad_fn  # (a view taken with grad on of a no_grad view has one)
            raise RuntimeError(_NO_GRAD_VIEW_INPLACE if fn is None else
                               _NO_GRAD_VIEW_OF_VIEW.format(name=fn.name().replace("Backward0", "")))
        if self._requires_grad and self._grad_fn is None:
            raise RuntimeError(_LEAF_INPLACE)
        if self._view_version is not None:
            if self._custom_view is not None:
                from .autograd.function import custom_view_error

                raise custom_view_error(self, False)
            base = self._base
            if base._requires_grad and base._grad_fn is None:
                raise RuntimeError(_VIEW_LEAF_INPLACE)
            fn = self._grad_fn
            if fn is not None and fn._n_outputs > 1:
                name = fn.name()
                name = name[:-len("Backward0")] if name.endswith("Backward0") else name
                raise RuntimeError(_MULTI_OUTPUT_VIEW.format(nr=self._output_nr, name=name))

    def _bump(self):
        self._vc[0] += 1

    def _adopt(self, out):
        """Make ``self`` hold ``out``'s values and history: the end of every in-place op."""
        if out._data.dtype != self._data.dtype and not np.can_cast(out._data.dtype, self._data.dtype, "same_kind"):
            a = _dtypes.from_numpy_dtype(out._data.dtype)._legacy.replace("Tensor", "")
            b = _dtypes.from_numpy_dtype(self._data.dtype)._legacy.replace("Tensor", "")
            raise RuntimeError(f"result type {a} can't be cast to the desired output type {b}")
        if out._data.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(out._data.shape)}"
            )
        if out._grad_fn is not None and self._no_grad_view:
            raise RuntimeError(_NO_GRAD_VIEW_INPLACE)
        self._data[...] = out._data
        self._bump()
        if _grad_mode._fw_active and out._fw_grad is not None:
            _adopt_tangent(self, out._fw_grad)
        if out._grad_fn is not None:
            if self._view_version is not None:
                # The op changed the base too: its history becomes CopySlices, as in PyTorch.
                from ._ops import copy_slices

                copy_slices(self, out)
                return self
            self._grad_fn = out._grad_fn
            self._output_nr = out._output_nr
            self._requires_grad = True
        return self


def _adopt_tangent(t, tangent):
    """An in-place op's tangent, written into ``t``'s own (so views of it see the change); a view
    without one gets the matching view of its base's tangent, made zeros first if need be."""
    from .autograd.forward_ad import set_tangent

    own = t._fw_grad
    if own is None and t._base is not None:
        base = t._base
        if base._fw_grad is None:
            set_tangent(base, _wrap(np.zeros_like(base._data)))
        from ._ops import view_tangent

        view_tangent(t, base)
        own = t._fw_grad
    if own is None:
        set_tangent(t, tangent)
    else:
        own._data[...] = tangent._data
        own._vc[0] += 1


def has_tangent(*tensors):
    """Whether a forward-AD level is on and one of ``tensors`` carries a tangent."""
    return _grad_mode._fw_active and any(isinstance(t, Tensor) and t._fw_grad is not None for t in tensors)


def _printed_name(fn):
    name = type(fn).__name__
    return fn.name().rsplit("::", 1)[-1] if name == "CppFunction" else name


def _forward_tangents(*args):
    # Bound on first use (forward_ad imports this module).
    global _forward_tangents
    from .autograd.forward_ad import _op_tangents as _forward_tangents

    _forward_tangents(*args)


def _backward_one(*args):
    # Bound on first use, as _autograd_backward below.
    global _backward_one
    from .autograd._engine import backward_one as _backward_one

    _backward_one(*args)


def _autograd_backward(*args, **kwargs):
    # Bound on first use (engine.autograd imports this module), then called directly.
    global _autograd_backward
    from .autograd import backward as _autograd_backward

    _autograd_backward(*args, **kwargs)


def _rebuild(data, requires_grad):
    return _wrap(data, requires_grad)


def _rebuild_size(dims):
    return Size(dims)


def _rebuild_device(type, index):
    return device(type, index)


# ``type(x)`` shows "<class 'torch.Tensor'>", as in PyTorch. Pickling goes through the
# module-level helpers above, so it never looks these classes up under the name "torch".
for _cls in (Tensor, Size, device):
    _cls.__module__ = "torch"
Size.__reduce__ = lambda self: (_rebuild_size, (tuple(self),))
device.__reduce__ = lambda self: (_rebuild_device, (self.type, self.index))
