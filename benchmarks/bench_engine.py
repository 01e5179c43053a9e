"""Engine speed against PyTorch 2.13 (CPU) and hand-written NumPy, in one run.

    ./dev bench            (or: python benchmarks/bench_engine.py [--quick])

Prints, for each workload, the time per step of each implementation and the ratios the issue
sets goals for: tiny-tensor overhead engine/PyTorch <= 1.0, MLP step engine/NumPy <= 1.15.
"""
import os

# One BLAS thread for NumPy, as PyTorch gets one thread below: a like-for-like comparison.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import engine  # noqa: E402

try:
    import torch
except ImportError:  # the ratios against PyTorch are then left out
    torch = None


def timeit(fns, repeat, number):
    """Median seconds per call of each of ``fns`` ({name: fn}). The implementations take turns,
    one batch of ``number`` calls each per round, so a change in the machine's load hits all alike."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - t0) / number)
    return {name: statistics.median(ts) for name, ts in times.items()}


# ----- 1. Per-op overhead: forward + backward of a 20-op expression on 4-element tensors -----

def tiny_expression(T):
    a = T.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    b = T.tensor([0.5, -0.6, 0.7, -0.8], requires_grad=True)

    def step():
        x = a * b          # 1
        x = x + a          # 2
        x = x.tanh()       # 3
        x = x - b          # 4
        x = x * 2.0        # 5
        x = x.exp()        # 6
        x = x / (b + 3.0)  # 7, 8
        x = x.sigmoid()    # 9
        x = x ** 2         # 10
        x = x + a * a      # 11, 12
        x = x.sqrt()       # 13
        x = x.log()        # 14
        x = -x             # 15
        x = x.relu()       # 16
        x = x * b          # 17
        x = x.sin()        # 18
        x = x + 1.0        # 19
        loss = x.sum()     # 20
        loss.backward()
        a.grad = None
        b.grad = None

    return step


# ----- 2. MLP training step: 784-256-10, batch 128, SGD, cross-entropy -----

def mlp_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    w1 = (rng.standard_normal((784, 256)) * 0.05).astype(np.float32)
    b1 = np.zeros(256, np.float32)
    w2 = (rng.standard_normal((256, 10)) * 0.05).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    return x, y, [w1, b1, w2, b2]


def mlp_framework(T, lr=0.01):
    x, y, params = mlp_data()
    X, Y = T.from_numpy(x), T.from_numpy(y.astype(np.int64))
    P = [T.tensor(p, requires_grad=True) for p in params]
    F = T.nn.functional

    def step():
        w1, b1, w2, b2 = P
        h = (X @ w1 + b1).relu()
        loss = F.cross_entropy(h @ w2 + b2, Y)
        loss.backward()
        with T.no_grad():
            for p in P:
                p -= lr * p.grad
                p.grad = None
        return loss

    return step


def mlp_numpy(lr=0.01):
    x, y, (w1, b1, w2, b2) = mlp_data()
    n = len(y)
    rows = np.arange(n)

    def step():
        z = x @ w1 + b1
        h = np.maximum(z, 0)
        logits = h @ w2 + b2
        m = logits.max(axis=1, keepdims=True)
        e = np.exp(logits - m)
        s = e.sum(axis=1, keepdims=True)
        loss = (np.log(s)[:, 0] + m[:, 0] - logits[rows, y]).mean()
        dlogits = e / s
        dlogits[rows, y] -= 1
        dlogits /= n
        dw2 = h.T @ dlogits
        db2 = dlogits.sum(0)
        dh = dlogits @ w2.T
        dz = dh * (z > 0)
        dw1 = x.T @ dz
        db1 = dz.sum(0)
        for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            p -= lr * g
        return loss

    return step


# ----- 3. micrograd's moons demo: 2-16-16-1 MLP, 100 points, SVM loss + L2, vectorised -----

def moons(n=100, seed=1):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    half = n // 2
    xs = np.concatenate([np.c_[np.cos(t[:half]), np.sin(t[:half])],
                         np.c_[1 - np.cos(t[half:]), 0.5 - np.sin(t[half:])]])
    xs += rng.normal(0, 0.1, xs.shape)
    ys = np.r_[-np.ones(half), np.ones(n - half)]
    return xs.astype(np.float32), ys.astype(np.float32)


def moons_framework(T):
    xs, ys = moons()
    rng = np.random.default_rng(2)
    X, Y = T.from_numpy(xs), T.from_numpy(ys)
    sizes = [2, 16, 16, 1]
    P = []
    for i in range(3):
        P.append(T.tensor(rng.uniform(-1, 1, (sizes[i], sizes[i + 1])).astype(np.float32), requires_grad=True))
        P.append(T.zeros(sizes[i + 1], requires_grad=True))

    def step():
        h = X
        for i in range(3):
            h = h @ P[2 * i] + P[2 * i + 1]
            if i < 2:
                h = h.relu()
        scores = h.squeeze(1)
        loss = (1 - Y * scores).relu().mean() + 1e-4 * sum((p * p).sum() for p in P)
        loss.backward()
        with T.no_grad():
            for p in P:
                p -= 0.05 * p.grad
                p.grad = None
        return loss

    return step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    # Many short rounds: step times on a shared VM drift in phases, and 21 rounds let one phase decide the median.
    r = 5 if args.quick else 101
    if torch is not None:
        torch.set_num_threads(1)

    rows = []

    def row(name, make, number, numpy_step=None, goal=""):
        fns = {"engine": make(engine)}
        if torch is not None:
            fns["torch"] = make(torch)
        if numpy_step is not None:
            fns["numpy"] = numpy_step
        m = timeit(fns, r, number)
        rows.append((name, m["engine"], m.get("torch"), m.get("numpy"), goal))

    row("tiny: 20 ops fwd+bwd, 4 elements", tiny_expression, 200, goal="engine/PyTorch <= 1.0")
    # 50 steps a turn, as a training loop runs them: in turns of 10, the first steps after another
    # implementation's turn run on its caches, and the ratio moved with who else was in the rotation.
    row("MLP 784-256-10, batch 128, SGD step", mlp_framework, 50, mlp_numpy(), "engine/NumPy <= 1.15")
    row("moons MLP 2-16-16-1, 100 points", moons_framework, 50, goal="reported")

    print(f"engine vs PyTorch {torch.__version__ if torch else '(not installed)'} (1 thread) vs hand-written NumPy"
          f" -- Python {sys.version.split()[0]}, NumPy {np.__version__}")
    print(f"{'workload':40} {'engine':>10} {'PyTorch':>10} {'NumPy':>10} {'eng/PT':>7} {'eng/NP':>7}  goal")
    for name, e, t, n, goal in rows:
        f = lambda v: f"{v * 1e3:8.3f}ms" if v is not None else f"{'-':>10}"
        rt = f"{e / t:7.2f}" if t else f"{'-':>7}"
        rn = f"{e / n:7.2f}" if n else f"{'-':>7}"
        print(f"{name:40} {f(e)} {f(t)} {f(n)} {rt} {rn}  {goal}")


if __name__ == "__main__":
    main()
