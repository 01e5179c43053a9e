"""Run user code with ``torch`` bound to the engine; capture output, the last expression and errors.

Works the same in-process (Pyodide, tests) and in the child process under ``panel serve``.
Everything returned is plain text: escaping for HTML is the views' job.
"""
import ast
import builtins
import contextlib
import importlib
import io
import random
import re
import signal
import sys
import threading
import time
import traceback
import types
import warnings
from dataclasses import asdict, dataclass, field

FILENAME = "<playground>"
GRADIENT_FILENAME = "<gradient>"
USER_FILES = (FILENAME, GRADIENT_FILENAME)
DEFAULT_TIME_LIMIT = 3.0
MAX_OUTPUT = 100_000
MAX_REPR = 20_000
_FILE_IN_MESSAGE = re.compile(r" \((?:/|[A-Za-z]:\\)[^()\n]*\)(?=$|\n)", re.M)


class StopExecution(BaseException):
    """Raised into user code at the time limit.

    A BaseException so that ``except Exception:`` in user code cannot swallow it.
    """


@dataclass
class ErrorInfo:
    """What went wrong, as text. ``kind`` is one of syntax, exception, timeout, memory,
    interrupted, crash, toggle, input."""

    kind: str
    type: str
    message: str
    line: int | None = None
    column: int | None = None
    traceback: str = ""
    hint: dict | None = None  # {"en": ..., "zh": ...}

    def to_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, data):
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__ if k in data})


@dataclass
class Program:
    """The compiled user code: its code objects (watched by the time limit) and source lines."""

    codes: list = field(default_factory=list)
    lines: dict = field(default_factory=dict)  # filename -> list of source lines

    def with_extra(self, filename, source, code):
        return Program(self.codes + _all_codes(code), {**self.lines, filename: source.splitlines()})

    def source_line(self, filename, lineno):
        lines = self.lines.get(filename, ())
        if lineno and 0 < lineno <= len(lines):
            return lines[lineno - 1]
        return ""


@dataclass
class RunResult:
    ok: bool
    namespace: dict
    program: Program
    stdout: str = ""
    result: str | None = None  # repr of the last bare expression, if not None
    error: ErrorInfo | None = None
    seconds: float = 0.0


@dataclass
class CallResult:
    ok: bool
    value: object = None
    stdout: str = ""
    error: ErrorInfo | None = None


_NOT_IN_ENGINE = (
    "The playground's torch is an autograd engine in NumPy: it has PyTorch's tensors, autograd, nn, optim and "
    "data tools (torch.compile too, its graph but not its generated code), but not torch.jit, torch.autocast or "
    "torch.fft.",
    "这里的 torch 是用 NumPy 写的自动求导引擎：它有 PyTorch 的张量、autograd、nn、optim 和数据工具"
    "（也有 torch.compile：它的计算图，但不生成代码），但没有 torch.jit、torch.autocast，也没有 torch.fft。",
)
_HINTS = (
    (
        "backward through the graph a second time",
        "The previous backward freed the values this graph saved. Tick retain_graph, or run the code again.",
        "上一次 backward 已经释放了计算图保存的中间值。勾选 retain_graph，或者重新运行代码。",
    ),
    (
        "grad can be implicitly created only for scalar outputs",
        "This output is not a scalar: give a gradient of the same shape, e.g. torch.ones_like(out).",
        "这个输出不是标量：需要传入一个形状相同的 gradient，例如 torch.ones_like(out)。",
    ),
    (
        "does not require grad and does not have a grad_fn",
        "Nothing this output depends on requires grad: set requires_grad=True on a leaf tensor.",
        "这个输出依赖的张量都不需要梯度：请把某个叶子张量设为 requires_grad=True。",
    ),
    (
        "leaf Variable that requires grad is being used in an in-place operation",
        "Change a leaf in place only inside `with torch.no_grad():`.",
        "只能在 `with torch.no_grad():` 里原地修改叶子张量。",
    ),
    (
        "modified by an inplace operation",
        "A tensor saved for backward was changed in place later: use an out-of-place op (y = y + 1, not y += 1).",
        "反向传播需要的张量之后被原地修改了：请改用非原地运算（y = y + 1 而不是 y += 1）。",
    ),
    (
        # torch.autocast, torch.linalg.eig, from torch import jit, import torch.fft (see make_import)
        ("module 'torch", "from 'torch'", "' in the playground"),
        *_NOT_IN_ENGINE,
    ),
    (
        "Mismatch in shape",
        "The gradient must have the same shape as the output.",
        "gradient 的形状必须和输出的形状相同。",
    ),
)


def hint_for(message):
    for needles, en, zh in _HINTS:
        if any(n in message for n in ((needles,) if isinstance(needles, str) else needles)):
            return {"en": en, "zh": zh}
    return None


def _all_codes(code):
    found, stack = [], [code]
    while stack:
        c = stack.pop()
        found.append(c)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return found


class _Output(io.TextIOBase):
    """stdout/stderr of user code, capped so a printing loop cannot eat the memory."""

    def __init__(self, limit=MAX_OUTPUT):
        self._parts = []
        self._size = 0
        self._limit = limit
        self._truncated = False

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        room = self._limit - self._size
        if len(s) > room:
            self._truncated = True
            s_kept = s[: max(room, 0)]
        else:
            s_kept = s
        if s_kept:
            self._parts.append(s_kept)
            self._size += len(s_kept)
        return len(s)

    def getvalue(self):
        text = "".join(self._parts)
        if self._truncated:
            text += "\n... output truncated ...\n"
        return text


# --- the time limit -------------------------------------------------------------------------
# Three ways, best first: a SIGALRM timer (main thread of a real OS process: zero overhead and
# also stops long loops inside the engine), sys.monitoring JUMP events on the user's code
# objects only (Python 3.12+, e.g. Pyodide: other code runs at full speed), sys.settrace (last
# resort: slows every Python call while active).


def limit_mode():
    if (
        sys.platform != "emscripten"
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    ):
        return "signal"
    if hasattr(sys, "monitoring"):
        return "monitoring"
    return "trace"


_monitoring_tool = None


def _claim_monitoring_tool():
    global _monitoring_tool
    if _monitoring_tool is None:
        mon = sys.monitoring
        for tool in (4, 3):
            if mon.get_tool(tool) is None:
                mon.use_tool_id(tool, "autograd-playground")
                _monitoring_tool = tool
                break
    return _monitoring_tool


@contextlib.contextmanager
def time_limit(seconds, program=None, mode=None):
    """Raise StopExecution into user code once ``seconds`` have passed (None: no limit)."""
    if not seconds:
        yield
        return
    mode = mode or limit_mode()
    deadline = time.monotonic() + seconds
    if mode == "signal":

        def on_alarm(signum, frame):
            raise StopExecution

        previous = signal.signal(signal.SIGALRM, on_alarm)
        # Repeat every 50 ms after the deadline, in case user code catches it with a bare except.
        signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    elif mode == "monitoring" and _claim_monitoring_tool() is not None:
        mon, tool = sys.monitoring, _monitoring_tool
        # Backward jumps are enough: code without loops ends (or hits the recursion limit).
        events = mon.events.JUMP

        def check(*args):
            if time.monotonic() > deadline:
                raise StopExecution

        codes = program.codes if program else []
        mon.register_callback(tool, events, check)
        for code in codes:
            mon.set_local_events(tool, code, events)
        try:
            yield
        finally:
            for code in codes:
                mon.set_local_events(tool, code, 0)
            mon.register_callback(tool, events, None)
    else:

        def local(frame, event, arg):
            if time.monotonic() > deadline:
                raise StopExecution
            return local

        def global_(frame, event, arg):
            if frame.f_code.co_filename in USER_FILES:
                # Opcode events too: on 3.11 `while True: pass` jumps to itself without a line event.
                frame.f_trace_opcodes = True
                return local(frame, event, arg)
            return None

        previous = sys.gettrace()
        sys.settrace(global_)
        try:
            yield
        finally:
            sys.settrace(previous)


# --- imports ----------------------------------------------------------------------------------


def make_import(torch_module):
    """An ``__import__`` that maps ``torch`` and ``torch.xxx`` to the engine (or any module)."""
    real_import = builtins.__import__
    target = torch_module.__name__

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if level or not (name == "torch" or name.startswith("torch.")):
            return real_import(name, globals, locals, fromlist, level)
        if name == "torch":
            module = torch_module
        else:
            mapped = target + name[len("torch"):]
            try:
                module = importlib.import_module(mapped)
            except ModuleNotFoundError as exc:
                if exc.name and (mapped == exc.name or mapped.startswith(exc.name + ".")):
                    raise ModuleNotFoundError(
                        f"No module named '{name}' in the playground", name=name
                    ) from None
                raise
        if not fromlist:
            return torch_module
        for item in fromlist:
            if item != "*" and not hasattr(module, item):
                try:
                    importlib.import_module(f"{module.__name__}.{item}")
                except ImportError:
                    pass  # the from-import itself reports the missing name
        return module

    return import_


# --- running ----------------------------------------------------------------------------------


def _code_lines(code):
    return code.splitlines()


def _silenced(source_lines, node):
    """True when the last expression ends with ';' (IPython: show nothing)."""
    line = source_lines[node.end_lineno - 1] if node.end_lineno <= len(source_lines) else ""
    rest = line.encode("utf-8")[node.end_col_offset:].decode("utf-8", "replace")
    return rest.lstrip().startswith(";")


def syntax_error_info(exc, filename=FILENAME, lines=None):
    lineno = getattr(exc, "lineno", None)
    offset = getattr(exc, "offset", None)
    msg = getattr(exc, "msg", None) or str(exc)
    type_name = type(exc).__name__
    parts = []
    if lineno:
        where = f"line {lineno}" if filename == FILENAME else f"{filename.strip('<>')}, line {lineno}"
        parts.append(f"  {where}")
        text = (getattr(exc, "text", None) or "").rstrip("\n")
        if not text.strip() and lines and lineno <= len(lines):
            text = lines[lineno - 1]
        if text.strip():
            stripped = text.lstrip()
            parts.append("    " + stripped.rstrip())
            if offset:
                indent = len(text) - len(stripped)
                end = getattr(exc, "end_offset", None)
                width = 1
                if end and getattr(exc, "end_lineno", lineno) == lineno and end > offset:
                    width = end - offset
                parts.append("    " + " " * max(offset - 1 - indent, 0) + "^" * width)
    parts.append(f"{type_name}: {msg}")
    message = msg
    if lineno:
        message += f" (line {lineno}" + (f", column {offset})" if offset else ")")
    return ErrorInfo("syntax", type_name, message, lineno, offset, "\n".join(parts))


def _user_frames(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename in USER_FILES]
    return frames


def _format_frames(frames, program):
    out, previous, repeats = [], None, 0
    for f in frames:
        key = (f.filename, f.lineno, f.name)
        if key == previous:
            repeats += 1
            if repeats > 3:
                continue
        else:
            if repeats > 3:
                out.append(f"  [Previous line repeated {repeats - 3} more times]")
            previous, repeats = key, 1
        where = f"line {f.lineno}" if f.filename == FILENAME else f"{f.filename.strip('<>')}, line {f.lineno}"
        out.append(f"  {where}, in {f.name}")
        src = program.source_line(f.filename, f.lineno).strip()
        if src:
            out.append(f"    {src}")
    if repeats > 3:
        out.append(f"  [Previous line repeated {repeats - 3} more times]")
    return out


def exception_info(exc, program, time_limit_s=None):
    frames = _user_frames(exc)
    line = frames[-1].lineno if frames and frames[-1].filename == FILENAME else None
    if isinstance(exc, StopExecution):
        kind, type_name = "timeout", "TimeoutError"
        message = f"Your code ran for more than {time_limit_s:g} s and was stopped"
        hint = {
            "en": "Look for a loop that never ends, or make the computation smaller.",
            "zh": "检查是否有永不结束的循环，或者把计算规模改小。",
        }
    elif isinstance(exc, KeyboardInterrupt):
        kind, type_name, message, hint = "interrupted", "KeyboardInterrupt", "Your code was stopped", None
    elif isinstance(exc, MemoryError) or (
        isinstance(exc, RuntimeError) and "allocate memory" in str(exc)
    ):
        kind = "memory"
        type_name = "MemoryError" if isinstance(exc, MemoryError) else type(exc).__name__
        detail = str(exc).strip()
        message = "Out of memory" + (f": {detail}" if detail else ": the code needs more memory than the playground allows")
        hint = {
            "en": "Use smaller tensors: the playground is for graphs you can look at.",
            "zh": "请使用更小的张量：这里的计算图是用来观察的。",
        }
    else:
        # (the hint is matched once the message names torch, not the engine: see Runner._guarded)
        kind, type_name, message, hint = "exception", type(exc).__name__, str(exc), None
    if isinstance(exc, SyntaxError) and not frames:
        return syntax_error_info(exc, getattr(exc, "filename", None) or FILENAME)
    lines = _format_frames(frames, program)
    if lines:
        lines.insert(0, "Traceback (most recent call last):")
    lines.append(f"{type_name}: {message}" if message else type_name)
    return ErrorInfo(kind, type_name, message, line, None, "\n".join(lines), hint)


def safe_repr(value, limit=MAX_REPR):
    text = repr(value)
    if len(text) > limit:
        text = text[:limit] + " ... (truncated)"
    return text


class Runner:
    """Runs user code and session actions with output capture, user-only tracebacks and a time limit.

    ``torch_module`` is what ``import torch`` gives the user (default: the ``engine`` package).
    ``seed``: torch/random/numpy are seeded before each run so re-runs and share links reproduce.
    """

    def __init__(self, torch_module=None, *, time_limit=DEFAULT_TIME_LIMIT, limit_mode=None, seed=0):
        self.torch = torch_module if torch_module is not None else importlib.import_module("engine")
        self.time_limit = time_limit
        self.limit_mode = limit_mode
        self.seed = seed
        self._builtins = dict(builtins.__dict__)
        self._builtins["__import__"] = make_import(self.torch)

    def new_namespace(self):
        return {"__name__": "__main__", "__builtins__": self._builtins, "torch": self.torch}

    def _seed(self):
        if self.seed is None:
            return
        random.seed(self.seed)
        manual_seed = getattr(self.torch, "manual_seed", None)
        if manual_seed is not None:
            manual_seed(self.seed)
        np = sys.modules.get("numpy")
        if np is not None:
            np.random.seed(self.seed)

    @contextlib.contextmanager
    def random_state_kept(self):
        """The generators ``_seed`` seeds, left as they were by whatever runs inside."""
        get, put = getattr(self.torch, "get_rng_state", None), getattr(self.torch, "set_rng_state", None)
        np = sys.modules.get("numpy")
        saved = (get() if get and put else None, random.getstate(), np.random.get_state() if np else None)
        try:
            yield
        finally:
            if saved[0] is not None:
                put(saved[0])
            random.setstate(saved[1])
            if np is not None:
                np.random.set_state(saved[2])

    def _guarded(self, fn, program):
        out = _Output()

        def show_warning(message, category, filename, lineno, file=None, line=None):
            where = f"line {lineno}: " if filename == FILENAME else ""
            out.write(f"{where}{category.__name__}: {message}\n")

        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), warnings.catch_warnings():
                warnings.simplefilter("default")
                warnings.showwarning = show_warning
                with time_limit(self.time_limit, program, self.limit_mode):
                    value = fn()
            return CallResult(True, value, out.getvalue(), None)
        except BaseException as exc:  # noqa: BLE001 - anything user code raises becomes a message
            if isinstance(exc, SystemExit) and exc.code in (None, 0):
                return CallResult(True, None, out.getvalue(), None)
            info = exception_info(exc, program, self.time_limit)
            info.message = self._as_torch(info.message)
            info.traceback = self._as_torch(info.traceback)
            info.hint = info.hint or hint_for(info.message)
            exc.__traceback__ = None  # don't keep the user's frames alive
            return CallResult(False, None, out.getvalue(), info)

    def _as_torch(self, text):
        """Import errors name the module the user imported (torch), not the engine or a file path."""
        text = _FILE_IN_MESSAGE.sub("", text)
        name = self.torch.__name__
        if name != "torch":
            text = text.replace(f"'{name}'", "'torch'").replace(f"'{name}.", "'torch.")
        return text

    def run(self, code, namespace=None, after_statement=None):
        """Execute ``code`` in ``namespace`` (default: a fresh one); ``after_statement(ns)`` is
        called after each top-level statement (the gradient check nudges new leaves there)."""
        started = time.perf_counter()
        ns = namespace if namespace is not None else self.new_namespace()
        lines = _code_lines(code)
        program = Program([], {FILENAME: lines})
        try:
            tree = ast.parse(code, FILENAME, "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr) and not _silenced(lines, tree.body[-1]):
                last = ast.Expression(tree.body.pop().value)
            bodies = ([compile(tree, FILENAME, "exec")] if after_statement is None else
                      [compile(ast.Module([stmt], []), FILENAME, "exec") for stmt in tree.body])
            expr = compile(last, FILENAME, "eval") if last is not None else None
        except (SyntaxError, ValueError) as exc:  # ValueError: null bytes in the source
            return RunResult(False, ns, program, error=syntax_error_info(exc, FILENAME, lines), seconds=time.perf_counter() - started)
        program.codes = [c for body in bodies for c in _all_codes(body)] + (_all_codes(expr) if expr is not None else [])

        def execute():
            self._seed()
            for body in bodies:
                exec(body, ns)
                if after_statement is not None:
                    after_statement(ns)
            if expr is not None:
                value = eval(expr, ns)
                if value is not None:
                    return safe_repr(value)
            return None

        outcome = self._guarded(execute, program)
        return RunResult(
            outcome.ok, ns, program, outcome.stdout, outcome.value, outcome.error, time.perf_counter() - started
        )

    def call(self, fn, program=None):
        """Run a session action (backward, zero_grad...) under the same limits and capture."""
        return self._guarded(fn, program or Program())

    def evaluate(self, text, namespace, program=None):
        """Evaluate an expression typed by the user (e.g. the gradient for backward)."""
        program = program or Program()
        try:
            code = compile(text.strip(), GRADIENT_FILENAME, "eval")
        except (SyntaxError, ValueError) as exc:
            return CallResult(False, error=syntax_error_info(exc, GRADIENT_FILENAME, [text.strip()]))
        program = program.with_extra(GRADIENT_FILENAME, text.strip(), code)
        return self._guarded(lambda: eval(code, namespace), program)


def run_code(code, torch_module=None, **kwargs):
    """One-shot convenience: ``run_code("x = torch.ones(2)")``."""
    return Runner(torch_module, **kwargs).run(code)
