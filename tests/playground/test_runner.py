import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import time

import pytest
from needs import missing

from playground.model.runner import Runner, limit_mode, run_code
from tests.playground.endless import stop_endless_loops

ROOT = pathlib.Path(__file__).resolve().parents[2]

HTML_MARKERS = ("&lt;", "&gt;", "&amp;", "<div", "<span", "<br", "<pre", "<p>")


def no_html(*texts):
    for text in texts:
        if text:
            assert not any(m in text for m in HTML_MARKERS), text


def test_print_is_captured(runner):
    res = runner.run("print('hello', 1 + 1)\nprint('again')")
    assert res.ok
    assert res.stdout == "hello 2\nagain\n"
    assert res.result is None


def test_last_expression_shows_its_repr(runner):
    res = runner.run(
        "x = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\nx.grad"
    )
    assert res.ok
    assert res.result == "tensor([3., 3.])"


def test_last_expression_tuple_of_tensors_and_none(runner):
    res = runner.run("a = torch.ones(2, requires_grad=True)\nb = torch.zeros(1)\na.grad, b, a * 2")
    assert res.result == (
        "(None, tensor([0.]), tensor([2., 2.], grad_fn=<MulBackward0>))"
    )


def test_none_and_semicolon_show_nothing(runner):
    assert runner.run("x = torch.ones(1)\nx.grad").result is None
    assert runner.run("x = torch.ones(1)\nx;").result is None
    assert runner.run("x = torch.ones(1)\nx  # comment").result == "tensor([1.])"


def test_all_import_forms(runner, torch_module):
    code = textwrap.dedent(
        """\
        import torch
        import torch.autograd as autograd
        from torch.autograd import Variable, Function
        from torch.autograd.function import Function as F2
        import torch.nn.functional as F
        from torch import nn
        import numpy as np
        ok = (torch is T and autograd is T.autograd and F is T.nn.functional
              and F2 is T.autograd.function.Function and bool(np.ones(2).sum() == 2))
        """
    )
    ns = runner.new_namespace()
    ns["T"] = torch_module
    res = runner.run(code, ns)
    assert res.ok, res.error
    assert ns["ok"] is True


def test_torch_maps_to_another_module(tmp_path, monkeypatch):
    pkg = tmp_path / "fake_engine"
    (pkg / "autograd").mkdir(parents=True)
    (pkg / "nn").mkdir()
    (pkg / "__init__.py").write_text("NAME = 'fake'\n")
    (pkg / "autograd" / "__init__.py").write_text("class Variable: pass\nclass Function: pass\n")
    (pkg / "autograd" / "function.py").write_text("from . import Function\n")
    (pkg / "nn" / "__init__.py").write_text("")
    (pkg / "nn" / "functional.py").write_text("def relu(x): return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    fake = importlib.import_module("fake_engine")
    res = run_code(
        "import torch\nimport torch.autograd as autograd\nfrom torch.autograd import Variable, Function\n"
        "from torch.autograd.function import Function as G\nimport torch.nn.functional as F\n"
        "names = (torch.NAME, autograd.__name__, Variable.__module__, G is Function, F.__name__)\n"
        "import torch.missing\n",
        fake,
        time_limit=None,
    )
    assert res.namespace["names"] == ("fake", "fake_engine.autograd", "fake_engine.autograd", True,
                                      "fake_engine.nn.functional")
    assert not res.ok
    assert res.error.message == "No module named 'torch.missing' in the playground"
    assert "fake_engine" not in res.error.traceback


def test_syntax_error_has_line_and_column(runner):
    res = runner.run("x = 1\ny = x + * 2\n")
    assert not res.ok
    err = res.error
    assert err.kind == "syntax" and err.type == "SyntaxError"
    assert err.line == 2 and err.column == 9
    assert "line 2" in err.message and "column 9" in err.message
    assert err.traceback.splitlines() == ["  line 2", "    y = x + * 2", "            ^", "SyntaxError: invalid syntax"]


def test_unclosed_bracket_and_compile_time_errors(runner):
    assert runner.run("y = (1 +\n").error.line == 1
    err = runner.run("x = 1\nreturn x\n").error
    assert err.kind == "syntax" and err.line == 2 and "outside function" in err.message


def test_traceback_lists_only_user_lines(runner):
    code = "x = torch.ones(2)\ndef f(t):\n    return t.nope\ny = f(x)\n"
    err = runner.run(code).error
    assert err.kind == "exception" and err.type == "AttributeError"
    assert err.line == 3
    assert err.traceback.splitlines() == [
        "Traceback (most recent call last):",
        "  line 4, in <module>",
        "    y = f(x)",
        "  line 3, in f",
        "    return t.nope",
        "AttributeError: 'Tensor' object has no attribute 'nope'",
    ]
    assert "File " not in err.traceback and ".py" not in err.traceback


def test_error_from_torch_internals_shows_user_line_only(runner):
    err = runner.run("a = torch.ones(2, 3)\nb = torch.ones(4, 5)\nc = a @ b\n").error
    assert err.type == "RuntimeError" and err.line == 3
    lines = err.traceback.splitlines()
    assert lines[1:3] == ["  line 3, in <module>", "    c = a @ b"]
    assert len(lines) == 4


def test_user_code_called_back_by_autograd(runner):
    code = textwrap.dedent(
        """\
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                raise ValueError("broken backward")
        x = torch.ones(2, requires_grad=True)
        Bad.apply(x).sum().backward()
        """
    )
    err = runner.run(code).error
    assert err.type == "ValueError" and err.message == "broken backward"
    assert "  line 9, in <module>" in err.traceback
    assert "  line 7, in backward" in err.traceback


def test_recursion_traceback_is_compressed(runner):
    err = runner.run("def f(n):\n    return f(n + 1)\nf(0)").error
    assert err.type == "RecursionError"
    assert "[Previous line repeated" in err.traceback
    assert len(err.traceback.splitlines()) < 20


def test_hints_for_common_autograd_errors(runner):
    err = runner.run("x = torch.ones(2, requires_grad=True)\n(x * 2).backward()").error
    assert "scalar outputs" in err.message
    assert err.hint and "gradient" in err.hint["en"] and err.hint["zh"]


@pytest.mark.parametrize("code, message", [
    ("torch.autocast('cpu')", "module 'torch' has no attribute 'autocast'"),
    ("torch.linalg.eig(torch.eye(2))", "module 'torch.linalg' has no attribute 'eig'"),
    ("from torch import jit", "cannot import name 'jit' from 'torch'"),
    ("import torch.fft", "No module named 'torch.fft' in the playground"),
])
def test_a_part_of_torch_the_engine_lacks_is_named_and_explained(runner, code, message):
    err = runner.run(code).error
    assert err.message == message
    assert err.hint["en"].startswith("The playground's torch is an autograd engine in NumPy")
    assert "torch.jit" in err.hint["zh"]
    assert runner.run("torch.tensor(1.).foo").error.hint is None  # a Tensor attribute: no such hint


def python_with_monitoring():
    """A Python 3.12+ on this machine (on PATH or under pyenv), for the sys.monitoring limit."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = [shutil.which(f"python3.{minor}") for minor in range(12, 20)]
    found += sorted(glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3")))
    for exe in filter(None, found):
        if subprocess.run([exe, "-c", "import sys; sys.monitoring"], capture_output=True).returncode == 0:
            return exe
    return None


def stop_endless_loops_in(exe):
    # The runner is plain stdlib, so it runs under that Python with a stand-in torch module.
    script = ("import json, sys, types\nsys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
              "from endless import stop_endless_loops\n"
              "print(json.dumps(stop_endless_loops(types.ModuleType('torch'), 'monitoring')))")
    done = subprocess.run([exe, "-c", script, str(ROOT), str(ROOT / "tests" / "playground")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("mode", ["signal", "trace", "monitoring"])
def test_endless_loop_is_stopped(torch_module, mode):
    if mode == "signal" and limit_mode() != "signal":
        missing("no SIGALRM here")
    if mode == "monitoring" and not hasattr(sys, "monitoring"):
        exe = python_with_monitoring()
        if exe is None:
            missing("sys.monitoring needs Python 3.12+, and none was found on PATH or under pyenv")
        results = stop_endless_loops_in(exe)
    else:
        results = stop_endless_loops(torch_module, mode)
    for res in results:
        assert not res["ok"]
        assert res["kind"] == "timeout" and res["type"] == "TimeoutError"
        assert res["message"] == "Your code ran for more than 1 s and was stopped"
        assert res["line"] is not None
        assert 0.9 < res["elapsed"] < 5


def test_time_limit_covers_hooks_run_by_backward(torch_module):
    runner = Runner(torch_module, time_limit=1.0)
    res = runner.run(
        "x = torch.ones(2, requires_grad=True)\n"
        "def hook(g):\n    while True:\n        pass\n"
        "x.register_hook(hook)\n"
    )
    assert res.ok
    x = res.namespace["x"]
    started = time.monotonic()
    call = runner.call(lambda: (x * 2).sum().backward(), res.program)
    assert call.error.kind == "timeout"
    assert "line 3, in hook" in call.error.traceback
    assert time.monotonic() - started < 5


def test_time_limit_adds_no_tracing_in_cpython(torch_module):
    # Library code (like the engine) called from user code must run at full speed: in a
    # CPython main thread the limit is a timer signal, never a per-line trace function.
    from playground.model.runner import limit_mode

    assert limit_mode() == "signal"
    res = Runner(torch_module, time_limit=30).run("import sys\ntracer = sys.gettrace()\n")
    assert res.ok and res.namespace["tracer"] is None


def test_memory_error_is_readable(runner):
    err = runner.run("x = [0] * 10**10").error
    assert err.kind == "memory" and err.type == "MemoryError"
    assert err.message.startswith("Out of memory")
    assert err.line == 1


def test_huge_tensor_is_refused(runner):
    err = runner.run("x = torch.ones(100000, 100000)").error
    assert err.kind == "memory"


def test_warnings_are_shown_with_the_user_line(runner):
    res = runner.run("x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.grad")
    assert res.ok
    assert res.stdout.startswith("line 3: UserWarning: The .grad attribute of a Tensor that is not a leaf")


def test_output_is_capped(runner):
    res = runner.run("for i in range(20000):\n    print('a long line of output', i)")
    assert res.ok
    assert len(res.stdout) < 120_000
    assert res.stdout.endswith("... output truncated ...\n")


def test_text_is_never_html_escaped(runner):
    res = runner.run("print('<b>bold</b> & co')\n'<div>'")
    assert res.stdout == "<b>bold</b> & co\n"
    assert res.result == "'<div>'"
    err = runner.run("raise ValueError('<i>x</i> & y')").error
    assert err.message == "<i>x</i> & y"
    no_html(err.traceback.replace("<i>x</i> & y", ""), res.stdout.replace("<b>bold</b> & co", ""))


def test_runs_are_seeded(runner):
    a = runner.run("torch.rand(3)").result
    b = runner.run("torch.rand(3)").result
    assert a == b


def test_sys_exit_zero_is_not_an_error(runner):
    res = runner.run("print('before')\nimport sys\nsys.exit()\nprint('after')")
    assert res.ok and res.stdout == "before\n"


def test_evaluate_gradient_text(runner):
    res = runner.run("v = torch.ones(3)")
    ok = runner.evaluate("v * 2", res.namespace, res.program)
    assert ok.ok and ok.value.tolist() == [2.0, 2.0, 2.0]
    bad = runner.evaluate("v *", res.namespace, res.program)
    assert bad.error.kind == "syntax"
    missing = runner.evaluate("w", res.namespace, res.program)
    assert missing.error.type == "NameError" and "gradient, line 1" in missing.error.traceback
