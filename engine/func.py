"""``torch.func``: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call`` and ``stack_module_state``.

>>> from torch.func import grad
>>> grad(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
tensor([ 3., 12.])

PyTorch runs these as functorch's levels of wrapped tensors. Here every transform is
``torch.autograd.grad`` with ``create_graph=True``, taken with respect to fresh tensors that stand in
for the inputs, so transforms nest (``grad(grad(f))``) and compose with the caller's own graph. A
result that hangs on nothing but this call's stand-ins comes back detached, as PyTorch returns it;
one that stays on the caller's graph enters it through the stand-in's ViewBackward0, a node
PyTorch's graph does not have (the alias is what keeps ``x`` as argument apart from ``x`` captured
by the function, which functorch's levels do).
``jvp``, ``jacfwd`` and ``hessian`` use the double-vjp trick, so their Jacobians are built column by
column as forward mode builds them (down to the sign of a zero). ``vmap`` calls the function once per
slice and stacks the results: the values are PyTorch's, but a graph through ``vmap`` shows the
per-slice ops and a StackBackward0 where PyTorch shows one batched op, and nothing inside the function
is a BatchedTensor (so ``.item()`` and data-dependent ``if`` work where PyTorch refuses them).
"""
import functools

from . import _grad_mode, _random
from ._factories import zeros, zeros_like
from ._ops import stack
from ._tensor import Tensor
from .autograd import grad as autograd_grad

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]


# ----- pytrees: tuples, lists, dicts and namedtuples of leaves, as torch.utils._pytree sees them -----

class TreeSpec:
    """The shape of a pytree, printed as PyTorch prints its own (error messages quote it)."""
    __slots__ = ("type", "context", "children")

    def __init__(self, type_, context, children):
        self.type, self.context, self.children = type_, context, children

    @property
    def num_leaves(self):
        return 1 if self.type is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __repr__(self, indent=0):
        if self.type is None:
            return "*"
        indent += 2
        parts = [c.__repr__(indent) for c in self.children]
        body = (",\n" + " " * indent).join(parts)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{body}])"


_LEAF = TreeSpec(None, None, ())


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    leaves = []

    def walk(x):
        if type(x) in (tuple, list) or _is_namedtuple(x):
            ctx = type(x) if _is_namedtuple(x) else None
            return TreeSpec(type(x), ctx, [walk(c) for c in x])
        if type(x) is dict:
            return TreeSpec(dict, list(x), [walk(v) for v in x.values()])
        if x is None:
            return TreeSpec(type(None), None, [])
        leaves.append(x)
        return _LEAF

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s.type is None:
            return next(it)
        children = [build(c) for c in s.children]
        if s.type is dict:
            return dict(zip(s.context, children))
        if s.type is type(None):
            return None
        if s.type is list:
            return children
        return s.type(*children) if s.context is not None else tuple(children)

    return build(spec)


class _Star:
    def __repr__(self):
        return "*"


def _pprint(spec):
    """torch.utils._pytree.treespec_pprint: the tree with a * at each leaf."""
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))


def _broadcast_to_and_flatten(prefix, spec):
    """``prefix`` (in_dims, out_dims) spread over the leaves of ``spec``; None when it does not fit."""
    if not (type(prefix) in (tuple, list, dict) or _is_namedtuple(prefix)):  # (None too: one dim for all)
        return [prefix] * spec.num_leaves
    p_spec = tree_flatten(prefix)[1]
    if spec.type is None or p_spec.type is not spec.type or p_spec.context != spec.context:
        return None
    if len(prefix) != len(spec.children):
        return None
    out = []
    for p, s in zip(prefix.values() if type(prefix) is dict else prefix, spec.children):
        sub = _broadcast_to_and_flatten(p, s)
        if sub is None:
            return None
        out += sub
    return out


# ----- the grad transforms -----

def _stand_ins(tree):
    """Fresh tensors to differentiate with respect to: a view of an input that requires grad (so the
    caller's graph runs through it), a new leaf for one that does not."""
    leaves, spec = tree_flatten(tree)
    out = []
    for t in leaves:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        out.append(t.view_as(t) if t.requires_grad else t.detach().requires_grad_())
    return out, spec


def _owned(tensors):
    return {id(t) for t in tensors}


def _hangs_outside(t, own):
    """Whether ``t``'s graph reaches a tensor that requires grad other than the stand-ins in ``own``."""
    if not t.requires_grad:
        return False
    fn = t.grad_fn
    if fn is None:
        return id(t) not in own
    seen, stack = {id(fn)}, [fn]
    while stack:
        node = stack.pop()
        var = getattr(node, "variable", None)
        if var is not None and id(var) not in own:
            return True
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return False


def _release(tree, own):
    """The results of a transform as the caller sees them: detached where only ``own`` made them."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if isinstance(t, Tensor) and not _hangs_outside(t, own) else t
                           for t in leaves], spec)


def _grads(outputs, inputs, grad_outputs):
    """autograd.grad of ``outputs`` (those that require grad) w.r.t. ``inputs``; zeros where unused."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    got = [None] * len(inputs)
    if pairs:
        got = autograd_grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                            create_graph=True, allow_unused=True)
    return [zeros_like(i) if g is None else g for g, i in zip(got, inputs)]


def _check_argnum(argnum, n):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < n:
        return argnum
    if -n <= argnum < 0:
        return argnum + n
    raise RuntimeError(f"Got argnum={argnum}, but only {n} positional inputs")


def _argnums(argnums, n):
    if isinstance(argnums, int):
        return _check_argnum(argnums, n)
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(_check_argnum(a, n) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _differentiable_args(args, argnums):
    """(the differentiated part of ``args``, its stand-ins flattened, their spec, ``args`` with them in)."""
    nums = _argnums(argnums, len(args))
    diff = args[nums] if isinstance(nums, int) else tuple(args[i] for i in nums)
    leaves, spec = _stand_ins(diff)
    new = tree_unflatten(leaves, spec)
    args = list(args)
    if isinstance(nums, int):
        args[nums] = new
    else:
        for i, v in zip(nums, new):
            args[i] = v
    return leaves, spec, args


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def grad_and_value(func, argnums=0, has_aux=False):
    """``grad`` that also returns the value of ``func`` (and its aux)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _grad_mode.enable_grad():  # (a transform ignores an outer no_grad, as functorch's do)
            leaves, spec, args = _differentiable_args(args, argnums)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            grads = _grads([output], leaves, [None])
        own = _owned(leaves)
        value = _release(output, own) if not has_aux else (_release(output, own), _release(aux, own))
        return _release(tree_unflatten(grads, spec), own), value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function that returns a scalar, with respect to its argument(s) ``argnums``:
    ``grad(f)(x)`` is ``f``'s derivative at ``x``, and ``grad(grad(f))`` its second derivative."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _check_outputs(leaves, api):
    if not leaves or (len(leaves) == 1 and leaves[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {leaves})")
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _vjp(func, primals, argnums, has_aux):
    """What vjp and jacrev share: (outputs flattened, their spec, aux, the stand-ins, their spec)."""
    with _grad_mode.enable_grad():
        if argnums is None:
            leaves, spec = _stand_ins(primals)
            args = tree_unflatten(leaves, spec)
        else:
            leaves, spec, args = _differentiable_args(primals, argnums)
        output, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
        outs, out_spec = tree_flatten(output)
        _check_outputs(outs, "vjp(f, *primals)")
        for o in outs:
            if not o.is_floating_point():
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
    return outs, out_spec, aux, leaves, spec


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(v)`` is the vector-Jacobian product, one grad per primal."""
    outs, out_spec, aux, leaves, spec = _vjp(func, primals, None, has_aux)
    own = _owned(leaves)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        cts, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {_pprint(ct_spec)}, primal output: {_pprint(out_spec)}")
        for i, (c, o) in enumerate(zip(cts, outs)):
            if isinstance(c, Tensor) and c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] has a "
                                   f"shape of {o.shape}.")
        with _grad_mode.enable_grad():
            grads = _grads(outs, leaves, cts)
        return _release(tree_unflatten(grads, spec), own)

    out = _release(tree_unflatten(outs, out_spec), own)
    return (out, vjp_fn) if not has_aux else (out, vjp_fn, _release(aux, own))


def _jvp_setup(func, primals, tangents, has_aux, api="jvp(f, primals, tangents)"):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    if tangents is not None:
        flat_t, t_spec = tree_flatten(tangents)
        if p_spec != t_spec:
            raise RuntimeError(
                f"{api}: Expected primals and tangents to have the same python structure. For example, if primals "
                f"is a tuple of 3 tensors, tangents also must be. Got primals with structure {p_spec} and tangents "
                f"with structure {t_spec}")
    for name, flat in (("primals", flat_p),) + ((("tangents", flat_t),) if tangents is not None else ()):
        if not flat:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    if tangents is not None:
        for p, t in zip(flat_p, flat_t):
            if p.shape != t.shape:
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                    f"this is not supported. Tensor is of size {list(p.shape)} while the given forward gradient is "
                    f"of size {list(t.shape)}.")
    with _grad_mode.enable_grad():
        leaves, spec = _stand_ins(primals)
        output, aux = _split_aux(func(*tree_unflatten(leaves, spec)), has_aux, api)
        outs, out_spec = tree_flatten(output)
        _check_outputs(outs, api)
        return _Linear(outs, leaves), out_spec, aux


class _Linear:
    """The double-vjp trick: ``g(u) = J^T u`` with ``u`` a fresh leaf per output, so that the grad of
    ``g`` with grad_outputs ``t`` is ``J t``, the Jacobian-vector product."""
    def __init__(self, outs, leaves):

        self.outs, self.leaves = outs, leaves
        self.us = [zeros_like(o).requires_grad_() for o in outs]
        self.g = _grads(outs, leaves, self.us)
        self.own = _owned(leaves) | _owned(self.us)

    def __call__(self, tangents):
        with _grad_mode.enable_grad():
            pairs = [(g, t) for g, t in zip(self.g, tangents) if g.requires_grad]
            return _grads([g for g, _ in pairs], self.us, [t for _, t in pairs])


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, with ``tangents`` shaped as ``primals``."""
    lin, out_spec, aux = _jvp_setup(func, primals, tangents, has_aux)
    flat_t, _ = tree_flatten(tangents)
    if strict and not any(o.requires_grad for o in lin.outs):
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
                           "This is not allowed with strict=True.")
    out = _release(tree_unflatten(lin.outs, out_spec), lin.own)
    tangent_out = _release(tree_unflatten(lin(flat_t), out_spec), lin.own)
    return (out, tangent_out) if not has_aux else (out, tangent_out, _release(aux, lin.own))


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``, where ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``."""
    lin, out_spec, _ = _jvp_setup(func, primals, None, False, api="linearize(f, *primals)")
    _, p_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argument structure as the primals "
                               f"{p_spec}")
        return _release(tree_unflatten(lin(flat_t), out_spec), lin.own)

    return _release(tree_unflatten(lin.outs, out_spec), lin.own), jvp_fn


def _jacobian_tree(blocks, out_spec, in_spec):
    """``blocks[o][i]`` (output leaf, input leaf) as PyTorch nests them: outputs outside, inputs inside."""
    per_out = [tree_unflatten(row, in_spec) for row in blocks]
    return tree_unflatten(per_out, out_spec)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, row by row (reverse mode):
    shaped ``output.shape + input.shape``."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        outs, out_spec, aux, leaves, spec = _vjp(func, args, argnums, has_aux)
        blocks = []
        with _grad_mode.enable_grad():
            for o in outs:
                rows = [[] for _ in leaves]
                n = o.numel()
                for k in range(n):
                    e = zeros(n, dtype=o.dtype)
                    e[k] = 1
                    for r, g in zip(rows, _grads([o], leaves, [e.view(o.shape)])):
                        r.append(g)
                blocks.append([_block(r, 0, tuple(o.shape) + tuple(leaf.shape), leaf.dtype)
                               for r, leaf in zip(rows, leaves)])
        own = _owned(leaves)
        jac = _release(_jacobian_tree(blocks, out_spec, spec), own)
        return (jac, _release(aux, own)) if has_aux else jac

    return wrapper


def _block(parts, dim, shape, dtype):
    """One Jacobian block: its rows (dim 0) or columns (dim -1) stacked, or zeros when there are none."""
    return stack(parts, dim).view(shape) if parts else zeros(shape, dtype=dtype)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, column by column (forward mode,
    by the double-vjp trick): shaped ``output.shape + input.shape``."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        with _grad_mode.enable_grad():
            leaves, spec, args2 = _differentiable_args(args, argnums)
            output, aux = _split_aux(func(*args2), has_aux, "jvp(f, primals, tangents)")
            outs, out_spec = tree_flatten(output)
            _check_outputs(outs, "jvp(f, primals, tangents)")
            lin = _Linear(outs, leaves)
            blocks = [[None] * len(leaves) for _ in outs]
            for i, leaf in enumerate(leaves):
                n = leaf.numel()
                cols = [[] for _ in outs]
                for k in range(n):
                    e = zeros(n, dtype=leaf.dtype)
                    e[k] = 1
                    tangents = [e.view(leaf.shape) if j == i else zeros(x.shape, dtype=x.dtype)
                                for j, x in enumerate(leaves)]
                    for c, col in zip(cols, lin(tangents)):
                        c.append(col)
                for o, (out, c) in enumerate(zip(outs, cols)):
                    blocks[o][i] = _block(c, -1, tuple(out.shape) + tuple(leaf.shape), out.dtype)
        jac = _release(_jacobian_tree(blocks, out_spec, spec), lin.own)
        return (jac, _release(aux, lin.own)) if has_aux else jac

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ----- vmap -----

def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _random_error():
    raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                       "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dimension of its inputs (``in_dims``), the results stacked along
    ``out_dims``: ``vmap(torch.dot)(a, b)`` is the dot product of each row of ``a`` with that of ``b``."""
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _name(func)
        _check_out_dims(out_dims, name)
        flat_args, args_spec, flat_dims, size = _batched_inputs(in_dims, args, name)
        results = []
        state = _random.default_generator.get_state() if randomness == "same" else None
        for b in range(size):
            if state is not None:
                _random.default_generator.set_state(state)
            sliced = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_dims)]
            results.append(_call_guarded(func, tree_unflatten(sliced, args_spec), kwargs, randomness))
        if not size:  # the output's shape from one call on empty stand-ins
            sliced = [a if d is None else zeros(a.shape[:d] + a.shape[d + 1:], dtype=a.dtype)
                      for a, d in zip(flat_args, flat_dims)]
            return _stack_outputs([_call_guarded(func, tree_unflatten(sliced, args_spec), kwargs, randomness)],
                                  out_dims, name, empty=True)
        return _stack_outputs(results, out_dims, name)

    return wrapped


def _call_guarded(func, args, kwargs, randomness):
    previous = _random._draw_guard
    _random._draw_guard = _random_error if randomness == "error" else None
    try:
        return func(*args, **kwargs)
    finally:
        _random._draw_guard = previous


def _check_out_dims(out_dims, name):
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                             "collection of ints representing where in the outputs the vmapped dimension should "
                             "appear.")


def _batched_inputs(in_dims, args, name):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {args_spec}.")
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either an integer dimension "
                             "or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type {type(arg)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        nd = arg.dim()
        if d < -nd or d >= nd:
            raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                             f"{nd} so expected in_dim to satisfy -{nd} <= in_dim < {nd}.")
        flat_dims[i] = d % nd
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return flat_args, args_spec, flat_dims, sizes[0]


def _stack_outputs(results, out_dims, name, empty=False):
    spec = tree_flatten(results[0])[1]
    if isinstance(results[0], Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            dims = list(out_dims)
        else:
            dims = None
    else:
        dims = _broadcast_to_and_flatten(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
                         f"structure {spec}.")
    columns = list(zip(*(tree_flatten(r)[0] for r in results)))
    out = []
    for column, d in zip(columns, dims):
        first = column[0]
        if d is None:
            # (no BatchedTensor here to ask: an output equal in every slice is taken as unbatched)
            if isinstance(first, Tensor) and not all(c is first or isinstance(c, Tensor) and c.shape == first.shape
                                                     and bool((c == first).all()) for c in column):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            out.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you "
                             "mean to set out_dims= to None for output?")
        stacked = stack(column, d)
        out.append(stacked.narrow(d, 0, 0) if empty else stacked)
    return tree_unflatten(out, spec)


# ----- modules as functions -----

def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced, for this call only, by the
    tensors in ``parameter_and_buffer_dicts`` (keyed by their names in ``named_parameters()``)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        values = {}
        seen = set()
        for d in parameter_and_buffer_dicts:
            dup = seen & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            seen |= set(d)
            values.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    if tie_weights:
        values = _untie(module, values)
    if strict:
        names = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
                [n for n, _ in module.named_buffers(remove_duplicate=False)]
        missing = [n for n in names if n not in values]
        unexpected = [n for n in values if n not in names]
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(type(module).__name__,
                                                                                  "\n\t".join(msgs)))
    undo = []
    try:
        for name, value in values.items():
            undo.append(_swap(module, name, value))
        return module(*args, **kwargs)
    finally:
        for restore in reversed(undo):
            restore()


def _untie(module, values):
    """With tie_weights: a value given for one name of a tensor the module holds under several names
    (tied weights) goes to every one of them."""
    names_of = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(t), []).append(name)
    out = dict(values)
    for names in names_of.values():
        given = [n for n in names if n in values]
        if not given:
            continue
        for n in given[1:]:
            if values[n] is not values[given[0]]:
                raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. Consider "
                                 "using tie_weights=False")
        for n in names:
            out.setdefault(n, values[given[0]])
    return out


def _swap(module, name, value):
    *path, attr = name.split(".")
    owner = module
    for p in path:
        owner = getattr(owner, p)
    d = owner.__dict__
    for store in ("_parameters", "_buffers"):
        table = d.get(store)
        if table is not None and attr in table:
            old = table[attr]
            table[attr] = value

            def restore(table=table, attr=attr, old=old):
                table[attr] = old
            return restore
    missing = object()
    old = d.get(attr, missing)
    object.__setattr__(owner, attr, value)

    def restore_attr():
        if old is missing:
            d.pop(attr, None)
        else:
            d[attr] = old
    return restore_attr


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of ``models`` (modules of one class) stacked
    along a new first dimension, for ``vmap`` over an ensemble with ``functional_call``."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    every = all(t.requires_grad for t in tensors)
    if not every and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if every else result
