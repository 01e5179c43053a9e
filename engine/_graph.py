"""Backward-graph nodes: ``grad_fn`` objects, ``AccumulateGrad`` and hook handles."""
import itertools

from .utils.hooks import RemovableHandle

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

_sequence = itertools.count()
# AccumulateGrad's _seq, PyTorch's UINT64_MAX: larger than any other node's, the backward walk runs a
# ready one at once.
_ACCUMULATE_FIRST = 2 ** 64 - 1


class _HookDict(dict):
    __slots__ = ("__weakref__",)


def add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class Node:
    """A node of the backward graph (PyTorch's ``torch.autograd.graph.Node``).

    ``next_functions`` holds one ``(node or None, output_nr)`` pair per differentiable input.
    """

    # (``_plain``: one output, no hooks, nothing retained; the backward walk checks this one flag.
    # It and ``_n_outputs`` are slots, not class defaults, as CPython caches only a slot's read.)
    __slots__ = ("_next", "_op", "_saved", "_freed", "_metas", "_attrs", "_seq", "_plain", "_n_outputs",
                 "__weakref__", "__dict__")
    # Rarely set, so they live in the instance dict only when set: creating a node stays cheap.
    # ``_plain`` turns False once any of them is set.
    _pre_hooks = None
    _hooks = None
    _tensor_pre_hooks = None
    _retains = None
    _trace = None
    _given = None  # arguments as the user gave them, for _saved_* (see _ops._given)

    def __init__(self):
        self._next = ()
        self._saved = None
        self._freed = False
        self._seq = next(_sequence)
        self._plain = True
        self._n_outputs = 1

    @property
    def next_functions(self):
        edges = self._next
        for child, _ in edges:
            expose(child)
        return edges

    @next_functions.setter
    def next_functions(self, edges):
        self._next = edges

    @property
    def metadata(self):
        return self.__dict__.setdefault("_metadata", {})

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def requires_grad(self):
        return True

    _c_base = None  # the C++-backed base class PyTorch's argument errors name, when not the node's own

    def _sequence_nr(self, *args, **kwargs):
        """The order of creation: a node made later has a larger number (the backward walk runs it
        first); AccumulateGrad's is UINT64_MAX."""
        if args or kwargs:
            owner = self._c_base or type(expose(self)).__name__
            raise TypeError(f"{owner}._sequence_nr() takes no keyword arguments" if kwargs
                            else f"{owner}._sequence_nr() takes no arguments ({len(args)} given)")
        return self._seq

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node computed its input grads."""
        if self._hooks is None:
            self._hooks = _HookDict()
            self._plain = False
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; a returned tuple replaces the grads."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
            self._plain = False
        return add_hook(self._pre_hooks, fn)

    def _tensor_hooks(self, output_nr):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
            self._plain = False
        hooks = self._tensor_pre_hooks.get(output_nr)
        if hooks is None:
            hooks = self._tensor_pre_hooks[output_nr] = _HookDict()
        return hooks

    def _release(self):
        if self._saved is not None:
            self._saved = None
            self._freed = True
            attrs = getattr(self, "_attrs", None)
            if type(attrs) is HookedAttrs:
                attrs.packed = dict.fromkeys(attrs.packed)  # (what was saved, without it)

    def _register_hook_dict(self, tensor):
        pass

    def __call__(self, *grads):
        from .autograd._engine import call_node

        return call_node(self, list(grads))


class HookedAttrs(dict):
    """A node's attrs once pack hooks took the tensors kept among them (an index, a mask, a target):
    ``packed`` maps each one's spec (_ops.TensorAttr) to a _PackedAttr, and the dict holds None in
    its place; backward and ``grad_fn._saved_*`` unpack them."""

    __slots__ = ("packed",)

    def __init__(self, attrs):
        dict.__init__(self, attrs or ())
        self.packed = {}


class AccumulateGrad(Node):
    """The node that adds incoming gradients into a leaf's ``.grad``; ``variable`` is that leaf.

    ``_plain`` also says the leaf has no hooks (the tensor's own hooks turn it off, see
    Tensor._leaf_hooked): the backward walk then runs this node inline."""

    __slots__ = ("variable",)
    __module__ = "builtins"  # ``type(fn)`` prints as "<class 'AccumulateGrad'>", as in PyTorch

    def __init__(self, variable):
        self._next = ()
        self._op = None
        self._saved = None
        self._freed = False
        self._seq = _ACCUMULATE_FIRST
        self._n_outputs = 1
        self.variable = variable
        self._plain = variable._hooks is None and variable._post_hooks is None

    def name(self):
        return "torch::autograd::AccumulateGrad"


class _NamedNode(Node):
    __slots__ = ()
    _cpp_name = None

    def name(self):
        return self._cpp_name or type(self).__name__


class _Recorded(_NamedNode):
    """What ``record`` makes every node as: one class, so the attribute reads and writes of the
    hot paths (recording, the backward walk) are cached by CPython, which a class per op defeats.
    A node takes its op's class (``MulBackward0``, ...) as soon as user code can see it: through
    ``Tensor.grad_fn`` and ``next_functions`` (see ``expose``), or its name or repr."""

    __slots__ = ()

    def name(self):
        return expose(self).name()

    def __repr__(self):
        return repr(expose(self))


def expose(node):
    if type(node) is _Recorded:
        node.__class__ = node._op.node_cls
    return node


_classes = {}


def node_class(name, cpp_name=None):
    """One class per backward-function name, so ``type(y.grad_fn).__name__`` is PyTorch's."""
    cls = _classes.get(name)
    if cls is None:
        cls = _classes[name] = type(name, (_NamedNode,), {"__slots__": (), "_cpp_name": cpp_name})
        cls.__module__ = "builtins"  # PyTorch's C++ node types: repr(type(fn)) is "<class 'MulBackward0'>"
    return cls


def freed_error():
    return RuntimeError(_FREED)
