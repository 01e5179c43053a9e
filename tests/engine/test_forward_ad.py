"""Forward-mode AD (``torch.autograd.forward_ad``) against PyTorch 2.13: the tangent of every op in
the shared op table, dual tensors as PyTorch prints and unpacks them, in-place ops and views,
custom Functions with ``jvp``, ``gradcheck(check_forward_ad=True)``, PyTorch's forward-AD tutorial,
and the errors."""
import numpy as np
import pytest

import engine
import opinfo
from test_ops import as_outputs

CASES = opinfo.CASES


def _tangents(case, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape) for a in case.inputs()]


def _jvp(T, case):
    """The op's outputs and their tangents, float64, each input that would require grad made dual."""
    fwAD = T.autograd.forward_ad
    with fwAD.dual_level():
        inputs = []
        for a, t, dual in zip(case.inputs(), _tangents(case), case.grad_flags()):
            x = T.tensor(a, dtype=T.float64)
            inputs.append(fwAD.make_dual(x, T.tensor(t, dtype=T.float64)) if dual else x)
        outs = as_outputs(case.fn(T, *inputs))
        return [(o.detach().numpy().copy(),
                 None if fwAD.unpack_dual(o).tangent is None else fwAD.unpack_dual(o).tangent.numpy().copy())
                for o in outs]


def _finite_difference(case, eps=1e-6):
    """(f(x + eps t) - f(x - eps t)) / 2 eps, in float64, for each float output."""
    def at(sign):
        xs = [engine.tensor(a + sign * eps * t if dual else a, dtype=engine.float64)
              for a, t, dual in zip(case.inputs(), _tangents(case), case.grad_flags())]
        return [o.detach().numpy() for o in as_outputs(case.fn(engine, *xs))]
    return [(p - m) / (2 * eps) if p.dtype.kind == "f" else None for p, m in zip(at(1), at(-1))]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_tangent_of_every_op(case, torch_ref):
    """Each op's tangent is PyTorch's; where PyTorch has no forward formula, finite differences'."""
    ours = _jvp(engine, case)
    try:
        ref = _jvp(torch_ref, case)
    except NotImplementedError:
        ref = None
    if ref is None:
        for (value, tangent), fd in zip(ours, _finite_difference(case)):
            if fd is not None:
                np.testing.assert_allclose(tangent, fd, rtol=1e-4, atol=1e-5)
        return
    assert len(ours) == len(ref)
    for k, ((v, t), (rv, rt)) in enumerate(zip(ours, ref)):
        np.testing.assert_allclose(v, rv, rtol=1e-7, atol=1e-9, err_msg=f"output {k} value")
        assert (t is None) == (rt is None), f"output {k}: tangent {'missing' if t is None else 'unexpected'}"
        if t is not None:
            np.testing.assert_allclose(t, rt, rtol=1e-6, atol=1e-8, err_msg=f"output {k} tangent")
