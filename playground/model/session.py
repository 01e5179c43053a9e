"""The live session behind the views: one small command interface returning JSON-ready snapshots.

``InProcessSession`` runs user code in this process (Pyodide, tests). ``SubprocessSession``
(panel serve) runs an InProcessSession in a child process with CPU and memory limits, kills it
when a command overruns the wall-clock limit, and restores the last good state in a new child.

Semantics kept by both: after any error the last good graph, inspector and grads stay (the
error is reported beside them, ``stale`` says the graph is not from the code shown); a second
Backward without retain_graph gives PyTorch's own error plus a hint.
"""
import dataclasses
import importlib
import json
import os
import signal
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field

from . import gradcheck as gradcheck_mod
from . import graph as graph_mod
from .layout import layered_layout
from .modules import CallRecorder, module_groups, module_names
from .program import NotToggleable, analyse, set_requires_grad
from .runner import DEFAULT_TIME_LIMIT, ErrorInfo, Program, Runner
from .steps import CodeBackwards, StepRecorder

MAX_FUNCTIONS = 20_000  # grad_fn nodes traced per snapshot; beyond, graph["truncated"] is True
_RESTORED = {
    "en": "The last good state was restored.",
    "zh": "已恢复到上一次成功运行的状态。",
}
_RESTARTED = {
    "en": "Python was restarted with an empty state: run your code again.",
    "zh": "Python 已重新启动，状态已清空：请重新运行代码。",
}


@dataclass
class Snapshot:
    """Everything the views show. ``to_dict()`` is plain JSON.

    code: the code in the editor. ok/error: result of the last command. stdout/result: its
    printed output and the repr of the code's last bare expression. graph: {"nodes", "edges",
    "truncated"}, nodes with "x"/"y". inspector: one row per named tensor. outputs: names of
    tensors with a grad_fn (scalars first); default_output: the one to preselect.
    last_backward: settings of the last successful backward, with the gradient text used.
    grad_history: [{"id", "label", "entries": [{"count", "event", "grad", "values"}]}].
    walk: the last backward one node at a time (model.steps), until the next run or Zero grad.
    stale: graph/inspector come from an earlier successful run than the code shown.
    replay: {"code", "actions"} that rebuild this state (share links, restarts).
    action: the command that produced this snapshot.
    gradcheck: the last gradient check (model.gradcheck), until the next run.
    """

    code: str = ""
    ok: bool = True
    error: dict | None = None
    stdout: str = ""
    result: str | None = None
    graph: dict = field(default_factory=lambda: {"nodes": [], "edges": [], "truncated": False})
    inspector: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    default_output: str | None = None
    last_backward: dict | None = None
    grad_history: list = field(default_factory=list)
    backward_count: int = 0
    walk: dict | None = None
    stale: bool = False
    replay: dict = field(default_factory=lambda: {"code": None, "actions": []})
    action: str = "init"
    gradcheck: dict | None = None

    def to_dict(self):
        # Shallow: the fields hold plain JSON built afresh for each snapshot (asdict's deep copy
        # was a third of a 50-node re-run in the browser).
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data):
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


class InProcessSession:
    """``torch_module``: what ``import torch`` gives user code (default: the engine package)."""

    def __init__(self, torch_module=None, *, time_limit=DEFAULT_TIME_LIMIT, max_functions=MAX_FUNCTIONS,
                 limit_mode=None, seed=0):
        self.runner = Runner(torch_module, time_limit=time_limit, limit_mode=limit_mode, seed=seed)
        self.torch = self.runner.torch
        self.max_functions = max_functions
        nn = getattr(self.torch, "nn", None)
        self._module_type = getattr(nn, "Module", None)
        self.code = ""
        self._good_code = None
        self._ns = None
        self._program = Program()
        self._analysis = analyse("")
        self._editor_analysis = self._analysis
        self._actions = []
        self._history = {}  # id(tensor) -> {"id", "label", "entries"}
        self._history_refs = {}  # keeps those tensors alive so ids stay unique
        self._backward_count = 0
        self._last_backward = None
        self._code_output = None  # the tensor the code's last backward() was called on
        self._walk = None  # a StepRecorder until the next snapshot resolves it, then its JSON
        self._calls = []  # the last good run's module calls (model.modules)
        self._error = None
        self._stdout = ""
        self._result = None
        self._run_output = ("", None)  # what the last good run printed, and its last expression
        self._action = "init"
        self._gradcheck = None

    # --- commands -------------------------------------------------------------------------

    def run(self, code):
        self._action = "run"
        self._set_code(code)
        with CallRecorder(self.torch) as calls, CodeBackwards(self.torch) as backwards:
            res = self.runner.run(code)
        self._stdout, self._result, self._error = res.stdout, res.result, res.error
        if res.ok:
            self._ns, self._program = res.namespace, res.program
            self._good_code = code
            self._analysis = self._editor_analysis
            self._actions = []
            self._history, self._history_refs = {}, {}
            self._backward_count = backwards.count  # the code's own backward() calls
            self._last_backward = None
            self._code_output = backwards.output
            self._walk = backwards.last
            self._run_output = (res.stdout, res.result)
            self._calls = calls.calls
            self._gradcheck = None
            return self._snapshot(record="run" if backwards.count else None)
        return self._snapshot()

    def gradcheck(self, output, gradient=None):
        """Autograd's gradient of ``output`` (weighed by ``gradient``, as Backward) against finite
        differences, from fresh runs of the last good code: the live tensors are left alone."""
        self._action = "gradcheck"
        self._stdout, self._result = self._run_output
        if self._ns is None:
            return self._fail("input", "Run the code first: there is no graph yet.")
        self._error = None
        with self.runner.random_state_kept():  # (a later gradient=torch.randn(...) draws as without the check)
            self._gradcheck = gradcheck_mod.check(self.runner, self._good_code, output,
                                                  (gradient or "").strip() or None, self._module_type)
        return self._snapshot()

    def backward(self, output, gradient=None, retain_graph=None, create_graph=False):
        """``output.backward(gradient=..., retain_graph=..., create_graph=...)`` on the live
        tensors. ``gradient`` is code evaluated in the user's namespace; empty means implicit
        for a one-element output and ``torch.ones_like(output)`` otherwise."""
        self._action = "backward"
        self._stdout, self._result = "", None
        if self._ns is None:
            return self._fail("input", "Run the code first: there is no graph yet.")
        tensors = dict(self._named())
        t = tensors.get(output)
        if t is None:
            return self._fail("input", f"There is no tensor named {output!r}.")
        text = (gradient or "").strip()
        if not text and t.numel() != 1:
            text = f"torch.ones_like({output})"
        value = None
        if text:
            res = self.runner.evaluate(text, self._ns, self._program)
            if not res.ok:
                self._stdout, self._error = res.stdout, res.error
                return self._snapshot()
            value = res.value
        recorder = StepRecorder(t, tensors.values())
        with recorder:
            res = self.runner.call(
                lambda: t.backward(gradient=value, retain_graph=retain_graph, create_graph=create_graph),
                self._program,
            )
        self._action_output(res)
        if res.ok:
            self._walk = recorder
            self._last_backward = {"output": output, "gradient": text or None,
                                   "retain_graph": retain_graph, "create_graph": bool(create_graph)}
            self._actions.append({"op": "backward", "output": output, "gradient": gradient,
                                  "retain_graph": retain_graph, "create_graph": bool(create_graph)})
            self._backward_count += 1
            return self._snapshot(record="backward")
        return self._snapshot()

    def zero_grad(self):
        """``t.grad.zero_()`` for every tensor in the graph that has a grad (like the tutorial)."""
        self._action = "zero_grad"
        self._stdout, self._result = "", None
        if self._ns is None:
            return self._fail("input", "Run the code first: there is no graph yet.")
        graph = self._trace()

        def zero():
            for t in graph.tensors.values():
                grad = graph_mod._read_grad(t)
                if grad is not None:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    grad.zero_()

        res = self.runner.call(zero, self._program)
        self._action_output(res)
        if res.ok:
            self._walk = None
            self._actions.append({"op": "zero_grad"})
            return self._snapshot(record="zero_grad")
        return self._snapshot()

    def _action_output(self, res):
        # An action that prints nothing (most backward calls) leaves the run's output in view, so
        # what the code printed does not give way to "Nothing printed.".
        self._stdout, self._error = res.stdout, res.error
        if res.ok and not res.stdout:
            self._stdout, self._result = self._run_output

    def toggle(self, name, requires_grad):
        """Edit the code so ``name`` is created with this requires_grad, then re-run it."""
        try:
            new_code = set_requires_grad(self.code, name, requires_grad)
        except NotToggleable as exc:
            self._action = "toggle"
            self._stdout, self._result = "", None
            return self._fail("toggle", str(exc), type_name="NotToggleable")
        snap = self.run(new_code)
        snap.action = self._action = "toggle"
        return snap

    def snapshot(self):
        self._action = "snapshot"
        return self._snapshot()

    def restore(self, code, actions=()):
        """Run ``code`` and replay ``actions`` (from Snapshot.replay or a share link)."""
        snap = self.run(code)
        if snap.ok:
            for action in actions:
                if action.get("op") == "zero_grad":
                    snap = self.zero_grad()
                else:
                    snap = self.backward(action.get("output"), action.get("gradient"),
                                         action.get("retain_graph"), action.get("create_graph", False))
                if not snap.ok:
                    break
        snap.action = self._action = "restore"
        return snap

    def adopt_failure(self, editor_code, error, action):
        """After the child process was restarted: show the user's code and what went wrong
        beside the restored state."""
        self._set_code(editor_code)
        self._error = ErrorInfo.from_dict(error) if isinstance(error, dict) else error
        self._stdout, self._result = "", None
        self._action = action
        return self._snapshot()

    # --- internals ----------------------------------------------------------------------------

    def _set_code(self, code):
        self.code = code
        self._editor_analysis = analyse(code)

    def _fail(self, kind, message, type_name="ValueError"):
        self._error = ErrorInfo(kind, type_name, message, traceback=f"{type_name}: {message}")
        return self._snapshot()

    def _named(self):
        if self._ns is None:
            return []
        return graph_mod.collect_tensors(self._ns, self.torch.Tensor, self._analysis.order, self._module_type)

    def _trace(self, output=None):
        return graph_mod.trace(self._named(), output, self._analysis.origins, self.max_functions)

    def _outputs(self, named):
        seen, candidates = set(), []
        for label, t in named:
            if t.grad_fn is not None and id(t) not in seen:
                seen.add(id(t))
                candidates.append((label, t))
        if not candidates:
            return [], None
        labels = [label for label, _ in candidates]
        if self._last_backward and self._last_backward["output"] in labels:
            default = self._last_backward["output"]
        else:  # the tensor the code called backward() on, else the last one made
            default = next((label for label, t in candidates if t is self._code_output), None)
        if default is None:
            plain = [label for label in labels if not label.endswith(".grad")]
            default = (plain or labels)[-1]
        ordered = [label for label, t in candidates if t.numel() == 1]
        ordered += [label for label, t in candidates if t.numel() != 1]
        return ordered, default

    def _record(self, graph, event):
        for node in graph.nodes:
            t = graph.tensors.get(node["id"])
            if t is None:
                continue
            entry = self._history.get(id(t))
            if node["grad_state"] != "computed" and entry is None:
                continue
            if entry is None:
                entry = self._history[id(t)] = {"id": node["id"], "label": node["label"], "entries": []}
                self._history_refs[id(t)] = t
            entry["entries"].append({
                "count": self._backward_count,
                "event": event,
                "grad": node["grad"],
                "values": graph_mod.grad_values(t),
            })

    def _snapshot(self, record=None):
        with graph_mod.gc_paused():
            return self._build_snapshot(record)

    def _build_snapshot(self, record):
        graph_dict = {"nodes": [], "edges": [], "truncated": False}
        inspector, outputs, default = [], [], None
        if self._ns is not None:
            named = self._named()
            outputs, default = self._outputs(named)
            graph = graph_mod.trace(named, default, self._analysis.origins, self.max_functions)
            if record:
                self._record(graph, record)
            if isinstance(self._walk, StepRecorder):
                self._walk = self._walk.resolve(graph)
            ids = [n["id"] for n in graph.nodes]
            positions = layered_layout(ids, [(e["to"], e["from"]) for e in graph.edges if e["kind"] != "saved"])
            for node in graph.nodes:
                node["x"], node["y"] = positions[node["id"]]
            graph_dict = graph.to_dict()
            if self._calls:
                names = module_names(self._ns, self._module_type, self._analysis.order)
                graph_dict["groups"] = module_groups(graph, self._calls, names)
            inspector = self._inspector(named, graph)
        error = self._error
        return Snapshot(
            code=self.code,
            ok=error is None,
            error=error.to_dict() if error is not None else None,
            stdout=self._stdout,
            result=self._result,
            graph=graph_dict,
            inspector=inspector,
            outputs=outputs,
            default_output=default,
            last_backward=dict(self._last_backward) if self._last_backward else None,
            grad_history=[{**h, "entries": list(h["entries"])} for h in self._history.values()],
            backward_count=self._backward_count,
            walk=self._walk if self._ns is not None else None,
            stale=self._good_code is not None and self._good_code != self.code,
            replay={"code": self._good_code, "actions": [dict(a) for a in self._actions]},
            action=self._action,
            gradcheck=self._gradcheck,
        )

    def _inspector(self, named, graph):
        rows = []
        for label, _t in named:
            node = graph.node(graph.by_label[label])
            toggleable, reason = self._editor_analysis.toggleable(label)
            rows.append({
                "name": label,
                "node": node["id"],
                "kind": node["kind"],
                "shape": node["shape"],
                "shape_text": node["shape_text"],
                "dtype": node["dtype"],
                "value": node["value"],
                "requires_grad": node["requires_grad"],
                "is_leaf": node["is_leaf"],
                "grad_fn": node["grad_fn"],
                "grad": node["grad"],
                "grad_state": node["grad_state"],
                "retains_grad": node["retains_grad"],
                "origin": node["origin"],
                "toggleable": toggleable,
                "toggle_reason": reason,
            })
        return rows


# --- the child-process session ---------------------------------------------------------------
# Why subprocess + JSON lines rather than multiprocessing: nothing to pickle (modules, tensors),
# no re-import of panel's __main__ under 'spawn', a plain process the parent can always kill,
# and the child moves the protocol to private file descriptors so user code writing to fd 1
# (os.write, C printf) cannot corrupt it.

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _ChildFailure(Exception):
    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


def _reap(proc):
    """The child closed its pipe: let it finish exiting (to read its exit code), else kill it."""
    import subprocess

    try:
        proc.wait(timeout=1)
    except subprocess.TimeoutExpired:
        _kill(proc)


def _kill(proc):
    import subprocess

    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own group: take anything it started
        except OSError:
            try:
                proc.kill()
            except OSError:
                pass
    if proc is not None:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class SubprocessSession:
    """Same commands as InProcessSession; the code runs in a child process.

    ``torch_module_name``: module the child binds to ``torch`` ("engine", or "torch" in tests).
    ``time_limit``: per command inside the child; ``wall_timeout``: the parent kills the child
    after this long and restores the last good state in a new one. ``memory_mb``: address space
    the child may add after its imports; ``cpu_seconds``: CPU time per command.
    """

    def __init__(self, torch_module_name="engine", *, time_limit=DEFAULT_TIME_LIMIT, wall_timeout=None,
                 memory_mb=1024, cpu_seconds=None, startup_timeout=60.0, max_functions=MAX_FUNCTIONS,
                 python=None):
        self.module_name = torch_module_name
        self.time_limit = time_limit
        self.wall_timeout = wall_timeout if wall_timeout is not None else time_limit + 3.0
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds if cpu_seconds is not None else max(10.0, 2 * self.wall_timeout)
        self.startup_timeout = startup_timeout
        self.max_functions = max_functions
        self.python = python or sys.executable
        self._lock = threading.Lock()
        self._proc = None
        self._stderr = None
        self._buffer = b""
        self._ready = False
        self._replay = {"code": None, "actions": []}
        self._last = None
        self.code = ""
        self._finalizer = weakref.finalize(self, SubprocessSession._cleanup, [None])
        self._spawn()

    @staticmethod
    def _cleanup(holder):
        _kill(holder[0])

    # --- commands -------------------------------------------------------------------------

    def run(self, code):
        return self._command({"op": "run", "code": code}, editor_code=code)

    def backward(self, output, gradient=None, retain_graph=None, create_graph=False):
        return self._command({"op": "backward", "output": output, "gradient": gradient,
                              "retain_graph": retain_graph, "create_graph": create_graph})

    def zero_grad(self):
        return self._command({"op": "zero_grad"})

    def toggle(self, name, requires_grad):
        try:
            editor_code = set_requires_grad(self.code, name, requires_grad)
        except NotToggleable:
            editor_code = self.code
        return self._command({"op": "toggle", "name": name, "requires_grad": requires_grad}, editor_code)

    def snapshot(self):
        if self._last is not None:
            return Snapshot.from_dict(self._last.to_dict())
        return self._command({"op": "snapshot"})

    def gradcheck(self, output, gradient=None):
        # (up to MAX_ELEMENTS pairs of runs, each under the time limit; the check stops at its budget)
        return self._command({"op": "gradcheck", "output": output, "gradient": gradient},
                             timeout=self.wall_timeout + gradcheck_mod.BUDGET_S + 2 * self.time_limit)

    def restore(self, code, actions=()):
        return self._command({"op": "restore", "code": code, "actions": list(actions)}, editor_code=code,
                             timeout=self.wall_timeout * (1 + len(actions)))

    def close(self):
        with self._lock:
            _kill(self._proc)
            self._proc = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- the child ----------------------------------------------------------------------------

    def _spawn(self):
        import subprocess  # here, not at the top: Pyodide has no processes
        import tempfile

        env = dict(os.environ)
        env["PYTHONPATH"] = _ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = "1"  # one thread: less memory reserved, and the CPU limit means what it says
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [self.python, "-m", "playground.model.child", "--module", self.module_name,
             "--time-limit", str(self.time_limit), "--memory-mb", str(self.memory_mb),
             "--cpu-seconds", str(self.cpu_seconds), "--max-functions", str(self.max_functions)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            cwd=_ROOT, env=env, close_fds=True, start_new_session=True,
        )
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, SubprocessSession._cleanup, [self._proc])
        self._buffer = b""
        self._ready = False

    def _stderr_tail(self):
        try:
            self._stderr.seek(0)
            return self._stderr.read().decode("utf-8", "replace")[-2000:].strip()
        except (OSError, ValueError):
            return ""

    def _failure(self, timed_out, timeout):
        if timed_out:
            return ErrorInfo("timeout", "TimeoutError", f"Your code ran for more than {timeout:g} s and was stopped",
                             traceback=f"TimeoutError: Your code ran for more than {timeout:g} s and was stopped",
                             hint=dict(_RESTORED))
        code = self._proc.poll() if self._proc else None
        if code is not None and code < 0 and -code == getattr(signal, "SIGXCPU", -1):
            kind, message = "timeout", f"Your code used more than {self.cpu_seconds:g} s of CPU time and was stopped"
        elif code is not None and code < 0 and -code == signal.SIGKILL:
            kind, message = "memory", "The Python process running your code was killed (out of memory?)"
        elif code is not None:
            kind, message = "crash", f"The Python process running your code stopped (exit code {code})"
        else:
            kind, message = "crash", "The Python process running your code stopped answering"
        if not self._ready:
            tail = self._stderr_tail()
            if tail:
                message += f"\n{tail}"
        return ErrorInfo(kind, "ProcessError", message, traceback=message, hint=dict(_RESTORED))

    def _readline(self, deadline):
        import select

        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def _request(self, message, timeout):
        """Send one command; return the child's Snapshot or raise _ChildFailure."""
        try:
            if not self._ready:
                hello = self._readline(time.monotonic() + self.startup_timeout)
                if not hello.get("ready"):
                    raise EOFError
                self._ready = True
            self._proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            self._proc.stdin.flush()
            reply = self._readline(time.monotonic() + timeout)
        except TimeoutError:
            raise _ChildFailure(self._failure(self._ready, timeout if self._ready else self.startup_timeout)) from None
        except (EOFError, OSError, ValueError):  # ValueError: a reply that is not JSON
            _reap(self._proc)
            raise _ChildFailure(self._failure(False, timeout)) from None
        if "snapshot" not in reply:
            raise _ChildFailure(ErrorInfo("crash", "ProcessError", reply.get("error", "bad reply from the child"),
                                          hint=dict(_RESTORED)))
        return Snapshot.from_dict(reply["snapshot"])

    def _command(self, message, editor_code=None, timeout=None):
        with self._lock:
            editor_code = self.code if editor_code is None else editor_code
            try:
                snap = self._request(message, timeout or self.wall_timeout)
            except _ChildFailure as failure:
                snap = self._recover(editor_code, failure.error, message["op"])
            self._last = snap
            self.code = snap.code
            self._replay = snap.replay
            return Snapshot.from_dict(snap.to_dict())

    def _recover(self, editor_code, error, action):
        _kill(self._proc)
        replay = self._replay
        budget = self.startup_timeout + self.wall_timeout * (1 + len(replay["actions"]))
        for attempt in (replay, {"code": None, "actions": []}):
            if attempt is not replay:  # replaying the last good state failed too: start empty
                error = dataclasses.replace(error, hint=dict(_RESTARTED))
            self._spawn()
            try:
                return self._request({"op": "recover", "code": attempt["code"], "actions": attempt["actions"],
                                      "editor_code": editor_code, "error": error.to_dict(), "action": action}, budget)
            except _ChildFailure:
                _kill(self._proc)
        # The child cannot even start: report it, keep the last snapshot's state.
        self._spawn()
        base = self._last.to_dict() if self._last is not None else Snapshot().to_dict()
        base.update(code=editor_code, ok=False, error=error.to_dict(), stdout="", result=None, action=action,
                    stale=True)
        return Snapshot.from_dict(base)


def make_session(kind="in_process", **kwargs):
    """``make_session("in_process", torch_module=...)`` or ``make_session("subprocess", torch_module_name=...)``."""
    if kind == "subprocess":
        return SubprocessSession(**kwargs)
    if "torch_module_name" in kwargs:
        kwargs["torch_module"] = importlib.import_module(kwargs.pop("torch_module_name"))
    return InProcessSession(**kwargs)
