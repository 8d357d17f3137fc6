"""Speed and memory of posattn's attention, measured in one run on the same data.

    python benchmarks/bench_attention.py

Prints ratios, not verdicts on absolute times (machines here are noisy):
1. vectorised `self_attention` vs the literal `attention_loop` at n = 16, 64, 256 (target ≥ 100× at 256);
2. `self_attention` vs PyTorch's fused CPU `scaled_dot_product_attention`, n = 2048, d = 64, float64,
   when torch is installed (target ≤ 1.2× torch's time); torch is not a project requirement;
3. peak memory of `self_attention` at n = 2048 against the one n×n matrix it must return;
4. `import posattn` against `import numpy`, each in a fresh interpreter (target ≤ 1.2×).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import tracemalloc
from functools import partial

import numpy as np

import posattn as pa


def median_time(f, repeats: int = 7) -> float:
    f()  # warm up: first call pays for page faults and BLAS thread start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def inputs(n: int, d: int, seed: int = 0):
    X = np.random.default_rng(seed).standard_normal((n, d))  # (n, d)
    return X, pa.default_projections(d, d, d, seed=seed)


def loop_vs_vectorised() -> None:
    print("1. vectorised self_attention vs attention_loop (d = d_k = d_v = 16)")
    for n in (16, 64, 256):
        X, W = inputs(n, 16)
        loop = median_time(partial(pa.attention_loop, X, *W), repeats=3 if n == 256 else 7)
        fast = median_time(partial(pa.self_attention, X, *W), repeats=50)
        print(f"   n = {n:4d}: loop {loop * 1e3:9.2f} ms   vectorised {fast * 1e3:7.3f} ms   speed-up {loop / fast:8.0f}×")


def against_torch(n: int = 2048, d: int = 64) -> None:
    print(f"2. self_attention vs torch scaled_dot_product_attention (n = {n}, d = {d}, float64, CPU)")
    try:
        import torch
    except (ImportError, OSError):  # OSError: a broken or half-installed torch
        print("   torch is not installed or does not load: skipped (pip install torch to compare)")
        return
    X, W = inputs(n, d)
    tX, tW = torch.from_numpy(X), [torch.from_numpy(w) for w in W]

    def torch_self_attention():
        with torch.no_grad():
            Q, K, V = (tX @ w for w in tW)  # the same three projections
            return torch.nn.functional.scaled_dot_product_attention(Q[None], K[None], V[None])

    ours = median_time(lambda: pa.self_attention(X, *W))
    theirs = median_time(torch_self_attention)
    Y_torch = torch_self_attention()[0].numpy()
    agree = np.abs(Y_torch - pa.self_attention(X, *W)[0]).max()
    print(f"   torch {torch.__version__}, {torch.get_num_threads()} threads: torch {theirs * 1e3:.1f} ms   "
          f"posattn {ours * 1e3:.1f} ms   ratio {ours / theirs:.2f}× (target ≤ 1.2×); outputs agree to {agree:.0e}")


def peak_memory(n: int = 2048, d: int = 64) -> None:
    X, W = inputs(n, d)
    tracemalloc.start()
    pa.self_attention(X, *W)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    A_bytes = n * n * 8
    print(f"3. peak memory of self_attention at n = {n}: {peak / 2**20:.1f} MiB = {peak / A_bytes:.2f}× "
          f"the n×n matrix A it returns ({A_bytes / 2**20:.0f} MiB)")


def import_time(module: str, repeats: int = 9) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(repeats)]
    return statistics.median(runs)


def imports() -> None:
    numpy_t, posattn_t = import_time("numpy"), import_time("posattn")
    print(f"4. import numpy {numpy_t * 1e3:.1f} ms   import posattn {posattn_t * 1e3:.1f} ms   "
          f"ratio {posattn_t / numpy_t:.2f}× (target ≤ 1.2×)")


if __name__ == "__main__":
    loop_vs_vectorised()
    against_torch()
    peak_memory()
    imports()
