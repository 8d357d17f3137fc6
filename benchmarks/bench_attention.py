"""Speed and memory of posattn's attention, measured in one run on the same data.

    python benchmarks/bench_attention.py

Prints ratios, not verdicts on absolute times (machines here are noisy):
1. vectorised `self_attention` vs the literal `attention_loop` at n = 16, 64, 256
   (target ≥ 100× at 256);
2. `self_attention` vs PyTorch's fused CPU `scaled_dot_product_attention`, n = 2048, d = 64,
   float64, when torch is installed (target ≤ 1.2× torch's time); torch is not a requirement;
3. peak memory of `self_attention` at n = 2048 against the one n×n matrix A it must return
   (target ≤ 2.5×, see MEMORY_TARGET); for information, a gradient through it by autograd;
4. `import posattn` against `import numpy`, each in a fresh interpreter (target ≤ 1.2×).
"""

import statistics
import subprocess
import sys
import time
import tracemalloc
from functools import partial

import numpy as np

import posattn as pa

# The kernels are plain code, with no in-place branch for autograd: softmax rebinds S at each step
# (shift, exp, normalise), so the scores it replaces are freed and two n×n arrays are alive at a
# time, plus Q, K and V (3·d/n of A, 0.09× at n = 2048, d = 64).
MEMORY_TARGET = 2.5


def seconds(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def compare(f, g, repeats: int = 7) -> tuple[float, float, float]:
    """Median times of f and g and the median ratio f/g, the two timed in turn.

    Interleaving means a burst of load elsewhere on the machine hits both sides alike.
    """
    f(), g()  # warm up: the first call pays for page faults and BLAS thread start
    pairs = [(seconds(f), seconds(g)) for _ in range(repeats)]
    return (statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs),
            statistics.median(a / b for a, b in pairs))


def inputs(n: int, d: int, seed: int = 0):
    X = np.random.default_rng(seed).standard_normal((n, d))  # (n, d)
    return X, pa.default_projections(d, d, d, seed=seed)


def loop_vs_vectorised() -> None:
    print("1. vectorised self_attention vs attention_loop (d = d_k = d_v = 16)")
    for n in (16, 64, 256):
        X, W = inputs(n, 16)
        loop, fast, ratio = compare(partial(pa.attention_loop, X, *W),
                                    partial(pa.self_attention, X, *W),
                                    repeats=5 if n == 256 else 15)
        print(f"   n = {n:4d}: loop {loop * 1e3:9.2f} ms   vectorised {fast * 1e3:7.3f} ms   "
              f"speed-up {ratio:6.0f}×" + ("   (target ≥ 100×)" if n == 256 else ""))


def against_torch(n: int = 2048, d: int = 64) -> None:
    print(f"2. self_attention vs torch scaled_dot_product_attention (n = {n}, d = {d}, float64)")
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

    ours, theirs, ratio = compare(partial(pa.self_attention, X, *W), torch_self_attention,
                                  repeats=9)
    Y_torch = torch_self_attention()[0].numpy()
    agree = np.abs(Y_torch - pa.self_attention(X, *W)[0]).max()
    print(f"   torch {torch.__version__}, {torch.get_num_threads()} threads: "
          f"torch {theirs * 1e3:.1f} ms   posattn {ours * 1e3:.1f} ms   ratio {ratio:.2f}× "
          f"(target ≤ 1.2×); outputs agree to {agree:.0e}")


def peak(f) -> int:
    """The largest number of bytes numpy held at once while f ran (tracemalloc sees its arrays)."""
    tracemalloc.start()
    f()
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return top


def peak_memory(n: int = 2048, d: int = 64) -> None:
    X, W = inputs(n, d)
    A_bytes = n * n * 8
    print(f"3. peak memory at n = {n}, against the n×n matrix A self_attention returns "
          f"({A_bytes / 2**20:.0f} MiB)")
    runs = {"self_attention": partial(pa.self_attention, X, *W)}
    try:
        from autograd import grad
    except ImportError:
        print("   autograd is not installed: the gradient run is skipped")
    else:
        loss = lambda X: pa.self_attention(X, *W)[0].sum()  # noqa: E731
        runs["autograd gradient of sum(Y)"] = partial(grad(loss), X)
    for label, f in runs.items():
        top = peak(f)
        target = f"   (target ≤ {MEMORY_TARGET}×)" if label == "self_attention" else \
            "   (not a target)"
        print(f"   {label:28s} {top / 2**20:6.1f} MiB = {top / A_bytes:.2f}× A" + target)


def import_time(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(run.stdout)


def imports(repeats: int = 11) -> None:
    # interleaved, so a burst of load elsewhere on the machine hits both sides alike
    pairs = [(import_time("numpy"), import_time("posattn")) for _ in range(repeats)]
    numpy_t = statistics.median(p[0] for p in pairs)
    posattn_t = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[1] / p[0] for p in pairs)
    print(f"4. import numpy {numpy_t * 1e3:.1f} ms   import posattn {posattn_t * 1e3:.1f} ms   "
          f"ratio {ratio:.2f}× (median of {repeats} interleaved pairs; target ≤ 1.2×)")


if __name__ == "__main__":
    loop_vs_vectorised()
    against_torch()
    peak_memory()
    imports()
