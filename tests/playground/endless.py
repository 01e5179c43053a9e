"""The endless-loop check, importable without pytest: test_runner runs it in this process, or
under another Python (3.12+) for the sys.monitoring limit."""
import time

from playground.model.runner import Runner

ENDLESS = ("while True: pass", "while True:\n    try:\n        pass\n    except Exception:\n        pass")


def stop_endless_loops(torch_module, mode):
    """For each endless loop: what the runner reports, and how long it took."""
    runner = Runner(torch_module, time_limit=1.0, limit_mode=mode)
    out = []
    for code in ENDLESS:
        started = time.monotonic()
        res = runner.run(code)
        err = res.error
        out.append({"ok": res.ok, "kind": err and err.kind, "type": err and err.type, "message": err and err.message,
                    "line": err and err.line, "elapsed": time.monotonic() - started})
    return out
