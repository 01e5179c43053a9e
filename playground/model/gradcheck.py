"""A gradient check to look at: autograd's gradient of an output, element by element, beside
central finite differences taken from re-runs of the code with that one element nudged.

The re-runs are the user's own code, statement by statement: a leaf is nudged as soon as the
statement that made it has run, before anything uses it (the runner seeds every run alike, so
random leaves and a module's initial weights come out the same each time). The output's
elements are weighed with the Backward gradient, so the function checked is
``(out * gradient).sum()``, the one whose gradient Backward puts into ``.grad``.
"""
import time

import numpy as np

from playground.model.graph import shape_text

MAX_ELEMENTS = 48  # elements checked in all (2 re-runs each), spread over the leaves
BUDGET_S = 4.0  # the re-runs stop after this long; the result says how many were checked
# (eps, rtol, atol, machine epsilon) by dtype, from the most precise: float64 as
# torch.autograd.gradcheck; in float32 a central difference is good to about three digits, so
# the check asks for 1%. A leaf takes the looser of its own dtype's and the output's (a float64
# leaf cast to float32 on the way would lose a float64-sized nudge). Rounding in the output,
# about |out| machine epsilons, also bounds what a difference can resolve.
_TOLERANCE = {"float64": (1e-6, 1e-3, 1e-5, 2.0 ** -52), "float32": (1e-3, 1e-2, 1e-3, 2.0 ** -23),
              "float16": (1e-2, 5e-2, 1e-2, 2.0 ** -10), "bfloat16": (1e-2, 5e-2, 1e-2, 2.0 ** -7)}
_ORDER = list(_TOLERANCE)


def _looser(*dtypes):
    return max((d if d in _TOLERANCE else "float32" for d in dtypes), key=_ORDER.index)


class _Leaves:
    """Called after each top-level statement: notes the leaves that require grad (named tensors
    and named modules' parameters), in the order they appear, and nudges the one asked for."""

    def __init__(self, torch, module_type, nudge=None):
        self.torch, self.module_type = torch, module_type
        self.nudge = nudge  # (leaf number, flat index, delta) or None
        self.found, self.labels, self._seen = [], [], set()
        self.applied = None  # (value before, value after) of the nudged element

    def __call__(self, ns):
        for name, value in list(ns.items()):
            if name.startswith("__"):
                continue
            if isinstance(value, self.torch.Tensor):
                self._note(name, value)
            elif self.module_type is not None and isinstance(value, self.module_type):
                for pname, p in value.named_parameters():
                    self._note(f"{name}.{pname}", p)

    def _note(self, label, t):
        if id(t) in self._seen or not (t.is_leaf and t.requires_grad and t.is_floating_point()):
            return
        self._seen.add(id(t))
        if self.nudge is not None and self.nudge[0] == len(self.found):
            _, flat, delta = self.nudge
            index = tuple(int(i) for i in np.unravel_index(flat, tuple(t.shape)))
            with self.torch.no_grad():
                before = float(t.detach()[index])
                t[index] += delta
                self.applied = (before, float(t.detach()[index]))
        self.found.append(t)
        self.labels.append(label)


def _chosen(sizes, limit=MAX_ELEMENTS):
    """Flat indices to check in each leaf: all of them when they fit, else evenly spread."""
    if sum(sizes) <= limit:
        return [list(range(n)) for n in sizes]
    share = [max(1, min(n, limit * n // max(sum(sizes), 1))) for n in sizes]
    return [sorted({int(round(i)) for i in np.linspace(0, n - 1, k)}) if n else [] for n, k in zip(sizes, share)]


def _said(error):
    return f"{error.type}: {error.message}" if error.message else error.type


def _index_text(flat, shape):
    if not shape:
        return ""
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def check(runner, code, output, gradient=None, module_type=None, budget=BUDGET_S, limit=MAX_ELEMENTS):
    """The check as plain JSON: {"output", "gradient", "weighed" (None: a one-element output;
    "ones"; or the gradient's text), "leaves": [...], "checked", "total", "disagree", "timed_out",
    "error"}; each leaf {"label", "shape", "dtype", "numel", "unused",
    "eps", "rtol", "rows": [{"index", "autograd", "numeric", "ok", "failed"}]}."""
    torch = runner.torch
    started = time.perf_counter()
    result = {"output": output, "gradient": gradient or None, "weighed": None, "leaves": [], "checked": 0, "total": 0,
              "disagree": 0, "timed_out": False, "error": None}

    def fail(kind, message):
        result["error"] = {"kind": kind, "message": message}
        return result

    leaves = _Leaves(torch, module_type)
    base = runner.run(code, after_statement=leaves)
    if not base.ok:
        return fail("run", _said(base.error))
    out = base.namespace.get(output)
    if not isinstance(out, torch.Tensor) or out.grad_fn is None:
        return fail("output", output)
    if not leaves.found:
        return fail("leaves", output)
    weights = None
    result["weighed"] = gradient or (None if out.numel() == 1 else "ones")
    if gradient:
        res = runner.evaluate(gradient, base.namespace, base.program)
        if not res.ok:
            return fail("gradient", _said(res.error))
        weights = res.value
    elif out.numel() != 1:
        weights = torch.ones_like(out)
    res = runner.call(lambda: torch.autograd.grad(out, leaves.found, grad_outputs=weights, allow_unused=True),
                      base.program)
    if not res.ok:
        return fail("autograd", _said(res.error))
    grads = res.value
    if all(g is None for g in grads):
        return fail("leaves", output)
    w = 1.0 if weights is None else np.asarray(weights.detach().numpy(), dtype=np.float64)

    def weighed(ns):
        t = ns.get(output)
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != tuple(out.shape):
            return None
        return float((np.asarray(t.detach().numpy(), dtype=np.float64) * w).sum())

    sizes = [t.numel() if g is not None else 0 for t, g in zip(leaves.found, grads)]
    picks = _chosen(sizes, limit)
    result["total"] = sum(sizes)
    for number, (t, g, flats) in enumerate(zip(leaves.found, grads, picks)):
        dtype = str(t.dtype).replace("torch.", "")
        precision = _looser(dtype, str(out.dtype).replace("torch.", ""))
        eps, rtol, atol, ulp = _TOLERANCE[precision]
        leaf = {"label": leaves.labels[number], "shape": shape_text(list(t.shape)), "dtype": dtype,
                "numel": t.numel(), "unused": g is None, "eps": eps, "rtol": rtol, "rows": []}
        result["leaves"].append(leaf)
        if g is None:
            continue
        values = np.asarray(g.detach().numpy(), dtype=np.float64).reshape(-1)
        scale = max(1.0, float(np.abs(values).max()) if values.size else 1.0)
        for flat in flats:
            if time.perf_counter() - started + 2 * base.seconds > budget:  # (the next pair would overrun)
                result["timed_out"] = True
                break
            row = {"index": _index_text(flat, tuple(t.shape)), "autograd": float(values[flat]),
                   "numeric": None, "ok": False, "failed": None}
            sides, step = [], eps * max(1.0, abs(float(t.detach().reshape(-1)[flat])))
            for sign in (1, -1):
                nudged = _Leaves(torch, module_type, (number, flat, sign * step))
                rerun = runner.run(code, after_statement=nudged)
                value = weighed(rerun.namespace) if rerun.ok else None
                if not rerun.ok:
                    row["failed"] = _said(rerun.error)
                elif nudged.applied is None or nudged.labels[number:number + 1] != [leaves.labels[number]]:
                    row["failed"] = "the re-run made its leaves differently"
                elif value is None:
                    row["failed"] = f"the re-run gave no {output} of shape {shape_text(list(out.shape))}"
                if row["failed"]:
                    break
                sides.append((value, nudged.applied[1] - nudged.applied[0]))
            if row["failed"] is None:
                (up, dx_up), (down, dx_down) = sides
                row["numeric"] = (up - down) / (dx_up - dx_down)
                noise = 8 * ulp * max(abs(up), abs(down)) / abs(dx_up - dx_down)
                row["ok"] = bool(np.isclose(row["autograd"], row["numeric"], rtol=rtol, atol=max(atol * scale, noise)))
            result["checked"] += 1
            result["disagree"] += not row["ok"]
            leaf["rows"].append(row)
        if result["timed_out"]:
            break
    return result
