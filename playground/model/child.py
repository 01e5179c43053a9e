"""The child process of SubprocessSession: an InProcessSession behind JSON lines.

Run as ``python -m playground.model.child --module engine``. One JSON command per line in,
one ``{"snapshot": {...}}`` line out. Limits: address space (after imports), CPU time per
command and file size via setrlimit, no new processes; the parent adds a wall-clock limit and
kills the child's whole process group.
"""
import argparse
import importlib
import json
import math
import os
import re
import sys


def _vm_size_bytes():
    try:
        with open("/proc/self/status") as f:
            match = re.search(r"VmSize:\s+(\d+) kB", f.read())
        return int(match.group(1)) * 1024 if match else None
    except OSError:
        return None


FILE_LIMIT_MB = 16  # the largest file user code may write


def _deny_processes():
    """User code may not start processes: a fork bomb or a stray server would outlive the
    session. (Python-level, so it holds for root too, where RLIMIT_NPROC does not.)"""
    def denied(*args, **kwargs):
        raise PermissionError("The playground does not let code start processes.")

    for name in ("fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp",
                 "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
                 "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe"):
        if hasattr(os, name):
            setattr(os, name, denied)
    import subprocess

    subprocess.Popen.__init__ = denied


def _set_limits(memory_mb):
    try:
        import resource
        import signal
    except ImportError:  # not on Linux/macOS: the parent's wall-clock limit still applies
        return None
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Too big a file: the write fails with an error (EFBIG) instead of a signal killing us.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    size = FILE_LIMIT_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size if hard == resource.RLIM_INFINITY else min(size, hard), hard))
    base = _vm_size_bytes()
    if base is not None and memory_mb:
        limit = base + int(memory_mb) * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return resource


def _cpu_budget(resource, seconds):
    """Let the next command use ``seconds`` more CPU time (the limit counts the whole life)."""
    if resource is None or not seconds:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _dispatch(session, msg):
    op = msg.get("op")
    if op == "run":
        return session.run(msg["code"])
    if op == "backward":
        return session.backward(msg["output"], msg.get("gradient"), msg.get("retain_graph"),
                                msg.get("create_graph", False))
    if op == "zero_grad":
        return session.zero_grad()
    if op == "toggle":
        return session.toggle(msg["name"], msg["requires_grad"])
    if op == "gradcheck":
        return session.gradcheck(msg["output"], msg.get("gradient"))
    if op == "snapshot":
        return session.snapshot()
    if op == "restore":
        return session.restore(msg["code"], msg.get("actions", []))
    if op == "recover":
        if msg.get("code") is not None:
            session.restore(msg["code"], msg.get("actions", []))
        return session.adopt_failure(msg["editor_code"], msg["error"], msg.get("action", "run"))
    raise ValueError(f"unknown command {op!r}")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--module", default="engine")
    parser.add_argument("--time-limit", type=float, default=3.0)
    parser.add_argument("--memory-mb", type=float, default=1024)
    parser.add_argument("--cpu-seconds", type=float, default=10)
    parser.add_argument("--max-functions", type=int, default=20_000)
    args = parser.parse_args(argv)

    # The protocol gets private copies of fds 0/1; the user's code sees /dev/null there.
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)

    from playground.model.session import InProcessSession

    torch_module = importlib.import_module(args.module)
    session = InProcessSession(torch_module, time_limit=args.time_limit, max_functions=args.max_functions)
    resource = _set_limits(args.memory_mb)
    _deny_processes()

    def send(obj):
        proto_out.write(json.dumps(obj).encode("utf-8") + b"\n")
        proto_out.flush()

    send({"ready": True})
    for line in proto_in:
        try:
            msg = json.loads(line)
            _cpu_budget(resource, args.cpu_seconds)
            reply = {"snapshot": _dispatch(session, msg).to_dict()}
            text = json.dumps(reply)
        except MemoryError:
            text = json.dumps({"error": "The snapshot did not fit in the memory limit."})
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            text = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        proto_out.write(text.encode("utf-8") + b"\n")
        proto_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
