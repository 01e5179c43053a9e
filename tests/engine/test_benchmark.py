"""The speed benchmark (``./dev bench``) runs and prints every ratio the issue asks for. Its
figures are not asserted: timing goals live in the benchmark, not in tests."""
import importlib.util
import pathlib
import re

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_engine.py"


@pytest.mark.torch
def test_benchmark_prints_ratios_against_pytorch_and_numpy(torch_ref, capsys):
    spec = importlib.util.spec_from_file_location("bench_engine", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    threads = torch_ref.get_num_threads()
    try:
        bench.main(["--quick"])
    finally:  # (the benchmark runs PyTorch on one thread; tests after it in this process expect the default)
        torch_ref.set_num_threads(threads)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"engine vs PyTorch {torch_ref.__version__} (1 thread) vs hand-written NumPy")
    rows = {line[:40].strip(): line[40:].split() for line in out[2:]}
    assert list(rows) == ["tiny: 20 ops fwd+bwd, 4 elements", "MLP 784-256-10, batch 128, SGD step",
                          "moons MLP 2-16-16-1, 100 points"]
    number = re.compile(r"^\d+\.\d+(ms)?$")
    tiny, mlp, moons = rows.values()
    assert all(number.match(v) for v in tiny[:2] + tiny[3:4]) and tiny[2] == "-" and tiny[4] == "-"
    assert all(number.match(v) for v in mlp[:5])  # engine, PyTorch, NumPy, eng/PT, eng/NP
    assert all(number.match(v) for v in moons[:2] + moons[3:4])
    assert " ".join(mlp[5:]) == "engine/NumPy <= 1.15" and " ".join(tiny[5:]) == "engine/PyTorch <= 1.0"
