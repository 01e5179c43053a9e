"""``gradcheck`` / ``gradgradcheck``: analytical gradients against central finite differences.

PyTorch's slow mode is followed step by step (numerical Jacobian column by column, analytical
Jacobian row by row with ``torch.autograd.grad``, then the "multiplied by grad_output" and
"undefined grad" checks), so the verdicts and messages are PyTorch's. Use float64 inputs.

>>> x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(torch.sin, (x,))
True
"""
import collections.abc
import warnings

import numpy as np

from .._graph import Node
from .._tensor import Tensor, _wrap

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    r"""Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


GradcheckError.__module__ = "torch.autograd.gradcheck"

FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _grad(*args, **kwargs):
    from . import grad

    return grad(*args, **kwargs)


# ----- Small helpers -----

def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _is_float_tensor(obj):
    return isinstance(obj, Tensor) and obj._data.dtype.kind == "f"


def _iter_tensors(x, only_requiring_grad=False):
    if isinstance(x, Tensor):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _allclose(a, b, rtol, atol):
    """``torch.allclose`` after type promotion, on the NumPy arrays."""
    dt = np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dt), b.astype(dt)
    return bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))


def _t(arr):
    return _wrap(np.asarray(arr))


def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and "
                    "is not a double precision floating point or complex. "
                    "This check will likely fail if all the inputs are "
                    "not of double precision floating point or complex. ",
                    stacklevel=3)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp._data.strides, inp._data.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only "
                    "supports inputs that are non-overlapping to be able to "
                    "compute the numerical gradients correctly. You should call "
                    ".contiguous on the input before passing it to gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True.")
    return True


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype"
            f" when inputs are perturbed {on_index}by {eps}, but got:"
            f" dtypes {output1.dtype} and {output2.dtype}.")


# ----- Numerical Jacobian: central differences, one input element at a time -----

def _perturbed_outputs(fn, inputs, data, idx, delta):
    """Outputs of ``fn`` with ``data[idx]`` (the input's own storage) moved by ``delta``."""
    orig = np.array(data[idx], copy=True)
    data[idx] = orig - delta
    outa = tuple(o.clone() for o in _as_tuple(fn(*inputs)))
    data[idx] = orig + delta
    outb = tuple(o.clone() for o in _as_tuple(fn(*inputs)))
    data[idx] = orig
    return outa, outb


def _writable_data(inp):
    """The input's array, made writable in place so that perturbing it is seen by ``fn``."""
    data = inp._data
    if not isinstance(data, np.ndarray) or not data.flags.writeable:
        data = inp._data = np.array(data, copy=True)
    return data


def _central_difference(outa, outb, norm, idx=None, eps=None):
    cols = []
    for a, b in zip(outa, outb):
        _check_outputs_same_dtype_and_shape(a, b, eps=eps, idx=idx)
        if a._data.dtype.kind == "b":
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.")
        cols.append(((b._data - a._data) / (2 * norm)).reshape(-1))
    return cols


def _numerical_jacobian(fn, inputs, outputs=None, eps=1e-3):
    """One tuple per input requiring grad, of one ``(input.numel(), output.numel())`` array per
    floating-point output (PyTorch's ``_get_numerical_jacobian``)."""
    if outputs is None:
        outputs = _as_tuple(fn(*_as_tuple(inputs)))
    jacobians = []
    inp_indices = [i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a.requires_grad]
    for inp, _ in zip(_iter_tensors(inputs, True), inp_indices):
        data = _writable_data(inp)
        jac = [np.zeros((data.size, o._data.size), dtype=o._data.dtype) for o in outputs if _is_float_tensor(o)]
        for d_idx, idx in enumerate(np.ndindex(*data.shape)):
            outa, outb = _perturbed_outputs(fn, inputs, data, idx, eps)
            cols = _central_difference(outa, outb, eps, idx=idx, eps=eps)
            for j, col in zip(jac, cols):
                j[d_idx] = col
        jacobians.append(tuple(jac))
    return jacobians


# ----- Analytical Jacobian: torch.autograd.grad against each basis vector -----

def _stack_and_check(rows, inputs, numel_output):
    diff_inputs = list(_iter_tensors(inputs, True))
    out = [np.zeros((t._data.size, numel_output), dtype=t._data.dtype)
           for t in inputs if _is_float_tensor(t) and t.requires_grad]
    correct_sizes = correct_types = True
    for i, tensor_list in enumerate(rows):
        inp = diff_inputs[i]
        for j, t in enumerate(tensor_list):
            if t is not None and t._data.shape != inp._data.shape:
                correct_sizes = False
            elif t is not None and t._data.dtype != inp._data.dtype:
                correct_types = False
            if t is None:
                out[i][:, j] = 0
            else:
                if out[i][:, j].size != t._data.size:
                    raise AssertionError(
                        f"Expected out_jacobian column to have {t._data.size} elements, "
                        f"but got {out[i][:, j].size}")
                out[i][:, j] = t._data.reshape(-1)
    return out, correct_sizes, correct_types


def _analytical_rows(vjp_fn, output, v=None):
    if v is not None:
        return [[g.clone() if isinstance(g, Tensor) else None] for g in vjp_fn(v.reshape(output.shape))]
    rows = []
    base = np.zeros(output._data.shape, dtype=output._data.dtype)
    flat = base.reshape(-1)
    for j in range(flat.size):
        flat[:] = 0
        flat[j] = 1
        grads = vjp_fn(_wrap(base.copy()))
        for i, d_x in enumerate(grads):
            if j == 0:
                rows.append([])
            rows[i].append(d_x.clone() if isinstance(d_x, Tensor) else None)
    return rows


def _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes, fast_mode=False, v=None):
    diff_inputs = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return _grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)

    # Everything runs twice, to catch a backward that is not deterministic ("reentrant").
    vjps1 = _analytical_rows(vjp_fn, output, v if fast_mode else None)
    vjps2 = _analytical_rows(vjp_fn, output, v if fast_mode else None)
    numel = 1 if fast_mode else output._data.size
    # PyTorch unpacks these two flags in swapped order; the checks below keep its behaviour.
    jac1, types_ok, sizes_ok = _stack_and_check(vjps1, inputs, numel)
    jac2, _, _ = _stack_and_check(vjps2, inputs, numel)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(jac1, jac2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with "
            "same input and grad_output multiple times gives different values, "
            "although analytical gradient matches numerical gradient."
            f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return jac1


def _get_notallclose_msg(analytical, numerical, output_idx, input_idx, is_forward_ad=False):
    mode = "computed with forward mode " if is_forward_ad else ""
    return (f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _forward_ad_jacobians(func, inputs):
    """PyTorch's ``_get_analytical_jacobian_forward_ad``: per input that requires grad, per float
    output, the ``(input.numel(), output.numel())`` Jacobian, one column per basis tangent."""
    from . import forward_ad as fwAD

    diff = [i for i, a in enumerate(inputs) if _is_float_tensor(a) and a.requires_grad]
    jacobians = []
    with fwAD.dual_level():
        duals, tangents = list(inputs), []
        for i in diff:
            tangent = _wrap(np.zeros(inputs[i]._data.shape, dtype=inputs[i]._data.dtype))
            duals[i] = fwAD.make_dual(inputs[i].detach(), tangent)
            tangents.append(tangent._data.reshape(-1))  # (set in place: the dual reads it at each op)
        for flat in tangents:
            columns = []
            for k in range(flat.size):
                flat[k] = 1
                outs = [o for o in _as_tuple(func(*duals)) if _is_float_tensor(o)]
                tangents = [fwAD.unpack_dual(o).tangent for o in outs]
                columns.append([np.zeros(o._data.size) if t is None else t._data.reshape(-1)
                                for o, t in zip(outs, tangents)])
                flat[k] = 0
            jacobians.append(tuple(np.array([c[j] for c in columns]).reshape(flat.size, -1)
                                   for j in range(len(columns[0]) if columns else 0)))
    return jacobians


def _forward_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps)
    numerical = list(zip(*_numerical_jacobian(func, tupled_inputs, func_out, eps=eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    analytical = _forward_ad_jacobians(func, tupled_inputs)
    for i, n_per_out in enumerate(numerical):
        for j, n in enumerate(n_per_out):
            a = analytical[j][i]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_get_notallclose_msg(_t(a), _t(n), i, j, is_forward_ad=True))
    return True


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    for jacobians in _numerical_jacobian(func, inputs, func_out, eps=eps):
        for jacobian in jacobians:
            if np.count_nonzero(jacobian) > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                    masked=False):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps)
    numerical = list(zip(*_numerical_jacobian(func, tupled_inputs, func_out, eps=eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_get_notallclose_msg(_t(a), _t(n), i, j))
    return True


# ----- Fast mode: compare v^T J u instead of whole Jacobians -----

def _make_vectors(inp_tensors, outputs):
    # A private generator, as PyTorch's, so the user's random stream is untouched.
    rng = np.random.default_rng(67280421310721)

    def vec(t):
        r = rng.random(t._data.size).astype(t._data.dtype)
        return r / np.linalg.norm(r)

    all_u = [vec(t) for t in inp_tensors]
    all_v = [vec(o) for o in outputs]
    return all_v, all_u


def _fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, masked=False):
    inp_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    inp_tensors = [inputs[i] for i in inp_idx]
    all_v, all_u = _make_vectors(inp_tensors, outputs)
    func_out_t = _as_tuple(func_out)
    numerical = []
    for inp, u in zip(inp_tensors, all_u):
        data = _writable_data(inp)
        delta = (u * eps).reshape(data.shape)
        outa, outb = _perturbed_outputs(func, inputs, data, Ellipsis, delta)
        jus = _central_difference(outa, outb, eps, eps=eps)
        jus = [ju for ju, o in zip(jus, func_out_t) if _is_float_tensor(o)]
        numerical.append([np.dot(v, ju) for v, ju in zip(all_v, jus)])
    if not outputs:
        for row in numerical:
            for n in row:
                if n != 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
    analytical = []
    for o, v in zip(outputs, all_v):
        vjs = _check_analytical_jacobian_attributes(inputs, o, nondet_tol, check_grad_dtypes, fast_mode=True,
                                                    v=_wrap(v))
        analytical.append([np.dot(vj.T.reshape(-1), u) for vj, u in zip(vjs, all_u)])
    for i, n_for_input in enumerate(numerical):
        for j, n in enumerate(n_for_input):
            a = analytical[j][i]
            adjusted_atol = atol * float(all_u[i].sum()) * float(all_v[j].sum())
            if not _allclose(np.asarray(a), np.asarray(n), rtol, adjusted_atol):
                extra = _slow_mode_error(func, inputs, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(f"Jacobian mismatch for output {j:d} with respect to input {i:d},\n"
                                     f"numerical:{float(n)}\nanalytical:{float(a)}\n" + extra)
    return True


def _slow_mode_error(func, inputs, outputs, input_idx, output_idx, rtol, atol, eps):
    slow_numerical = _numerical_jacobian(func, inputs, outputs, eps=eps)[input_idx][output_idx]
    slow_analytical = _check_analytical_jacobian_attributes(
        inputs, outputs[output_idx], float("inf"), False)[input_idx]
    max_diff = np.abs(slow_numerical - slow_analytical).max()
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {_t(slow_numerical)}\n"
        f"Analytical:\n{_t(slow_analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {float(max_diff)}.\n")
    if _allclose(slow_analytical, slow_numerical, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


# ----- Checks that run after the Jacobians match -----

def _test_backward_mul_by_grad_output(outputs, inputs, masked):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = _grad(outputs, diff_inputs, [_wrap(np.zeros_like(o._data)) for o in outputs], allow_unused=True)
    for gi, di in zip(grads_input, diff_inputs):
        if gi is None:
            continue
        if masked:
            if not np.allclose(gi._data, 0):
                raise GradcheckError("backward not multiplied by grad_output")
        elif not (gi._data == 0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._data.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")
    return True


class _UndefinedGradBackward(Node):
    """PyTorch's ``UndefinedGrad``: passes an undefined (None) gradient on, whatever it receives."""

    def __init__(self):
        super().__init__()
        self._op = None

    def _custom_backward(self, grads, create_graph):
        return [None] * len(self._next)


def _undefined_grad(t):
    node = _UndefinedGradBackward()
    node._next = ((t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._grad_accumulator(), 0),)
    out = _wrap(t._data)
    out._vc = t._vc
    out._grad_fn, out._requires_grad = node, True
    return out


def _test_undefined_backward_mode(func, outputs, inputs):
    diff_inputs = list(_iter_tensors(inputs, True))
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking "
            "feature is enabled by default, but it may break existing callers "
            "of this function. If this is true for you, you can call this "
            'function with "check_undefined_grad=False" to disable the feature',
            stacklevel=2)

    def check_undefined_grad_support(output_to_check):
        grads_output = [_wrap(np.zeros_like(o._data)) for o in output_to_check]
        try:
            grads_input = _grad(output_to_check, diff_inputs, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. "
                'Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"') from e
        for gi in grads_input:
            if gi is not None and not (gi._data == 0).all():
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined "
                    'or zero. Please look at "Notes about undefined output gradients" in '
                    '"tools/autograd/derivatives.yaml"')
        return True

    outputs_to_check = [[_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))
                         if isinstance(o, Tensor)]]
    # With several outputs, undefining one at a time must work too.
    if len(outputs_to_check[0]) > 1:
        for undef_idx in range(len(outputs)):
            output_to_check = _differentiable_outputs(func(*inputs))
            outputs_to_check.append([_undefined_grad(o) if idx == undef_idx else o
                                     for idx, o in enumerate(output_to_check)])
    return all(check_undefined_grad_support(output) for output in outputs_to_check)


# ----- Public API -----

def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    r"""Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Returns True, or raises :class:`GradcheckError` naming the output and input whose Jacobians
    differ (returns False instead with ``raise_exception=False``). Inputs should be float64.

    >>> x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda t: t.exp(), (x,), eps=1e-6, atol=1e-4)
    True

    ``check_forward_ad`` compares the Jacobian forward-mode AD gives (one tangent per input
    element, in fast mode too) with the numerical one. This engine has no batched grads:
    ``check_batched_forward_grad`` raises; ``check_batched_grad`` adds no check.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_batched_forward_grad:
        raise NotImplementedError("check_batched_forward_grad=True needs vmap over forward AD, which this engine "
                                  "does not have")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                                 check_grad_dtypes, fast_mode, masked, check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      fast_mode, masked, check_forward_ad=False, check_backward_ad=True):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        check = _fast_gradcheck if fast_mode else _slow_gradcheck
        check(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, masked=masked)
    if check_forward_ad:
        _forward_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol)
    if check_backward_ad:
        _test_backward_mul_by_grad_output(outputs, tupled_inputs, masked)
        if check_undefined_grad:
            _test_undefined_backward_mode(func, outputs, tupled_inputs)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    r"""Check second derivatives: :func:`gradcheck` applied to the gradients of ``func``.

    Without ``grad_outputs``, random ones in [-1, 1) that require grad are used, as in PyTorch.

    >>> x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(torch.sin, (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        from .._factories import rand

        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            _wrap(np.asarray(rand(x.shape, dtype=x.dtype if x._data.dtype.kind == "f" else None)._data * 2 - 1),
                  True)
            for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = _grad(outputs, diff_input_args, grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated in PyTorch: the numerical Jacobian of ``fn(inputs)`` (first output) per input."""
    warnings.warn(
        "`get_numerical_jacobian` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a specific use "
        "for this or feature request for this to be a stable API, please file us an issue at "
        "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    jacobians = _numerical_jacobian(lambda *inps: fn(inps), _as_tuple(inputs), None, eps)
    return tuple(_t(j[0]) for j in jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated in PyTorch: (jacobians, reentrant, sizes_ok, types_ok) of ``output``."""
    warnings.warn(
        "`get_analytical_jacobian` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a specific use "
        "for this or feature request for this to be a stable API, please file us an issue at "
        "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer "
                         "supports values of grad_out != 1.0.")
    diff_inputs = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return _grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)

    jac1, types_ok, sizes_ok = _stack_and_check(_analytical_rows(vjp_fn, output), inputs, output._data.size)
    jac2, _, _ = _stack_and_check(_analytical_rows(vjp_fn, output), inputs, output._data.size)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(jac1, jac2))
    return tuple(_t(j) for j in jac1), reentrant, sizes_ok, types_ok
