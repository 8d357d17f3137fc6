"""`make mutants`: the series' mutation check. Break one formula, and the notebooks that teach it
must fail nbval.

    python -m tools.run.mutants [NAME ...]      # default: every mutant in MUTANTS
    python -m tools.run.mutants --list          # the mutants, each with its reason and notebooks

nbval compares a notebook's printed evidence with the stored one, so evidence that does not
depend on its formula cannot catch that formula breaking (a sinusoid counted from 1 printed
nothing different). Each mutant below changes one line of the package, and names the notebooks
that teach the formula it breaks. For each mutant, src/ is copied into a temporary directory
(removed afterwards, also on Ctrl+C), the line is changed there (a line not found exactly once
is an error: a refactor never skips a mutant silently), and nbval runs the named notebooks with
that copy first on the import path (PYTHONPATH beats the editable install's path entry). A probe
notebook, run first by the same nbval, checks that the kernel imports the mutated copy. A
notebook stops at its first failing cell. The mutant is caught when every named notebook fails;
the exit status is 1 if any survived. The working tree is only read: nothing is written into
notebooks/ or the repository. Run after `make test`, which shows each notebook passes unmutated.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import NamedTuple

from pluggy import HookimplMarker

ROOT = Path(__file__).resolve().parents[2]
SRC, NOTEBOOKS = ROOT / "src", ROOT / "notebooks"
REPORT = "POSATTN_MUTANT_REPORT"  # where this module, as nbval's plugin, writes what failed
JOBS = 2  # mutants at a time: the machines have 2 cores


class Mutant(NamedTuple):
    """One single-line change of the package's math, and the notebooks that must catch it."""

    name: str
    file: str  # under src/posattn
    original: str  # found exactly once in the file
    replacement: str
    reason: str  # the formula it breaks
    formula: str  # its family: one of FORMULAS
    notebooks: tuple[str, ...]  # numbers, "08": each must fail nbval


# The formulas the notebooks teach; every one has a mutant (tests/test_mutants.py). The scheme
# names are those of posattn.SCHEMES.
FORMULAS = ("scores", "scale", "softmax", "weighted sum", "mask", "sinusoidal", "learned",
            "rope", "frequencies", "alibi", "alibi_symmetric", "causal", "relative",
            "relative clip", "layer norm", "multi-head", "residual", "symmetry measures", "rnn",
            "convolution", "cross-attention", "padding mask")

MUTANTS = (
    # attention.py: S = Q Kᵀ/√d_k + B, A = softmax(S), Y = A V
    Mutant("scores-Q-Qt", "attention.py",
           "S = Q @ K.swapaxes(-1, -2) * (1.0", "S = Q @ Q.swapaxes(-1, -2) * (1.0",
           "S = Q Kᵀ/√d_k: the scores pair a query with itself, Q Qᵀ", "scores",
           ("03", "04", "05")),
    Mutant("scale-over-d_k", "attention.py",
           "(1.0 / math.sqrt(Q.shape[-1]))", "(1.0 / Q.shape[-1])",
           "the scale 1/√d_k becomes 1/d_k", "scale", ("03", "04", "05")),
    Mutant("softmax-no-max-shift", "attention.py",
           "S = S - S.max(axis=axis, keepdims=True)", "S = S - 0.0",
           "softmax without subtracting the row max: exp overflows on large scores",
           "softmax", ("03",)),
    Mutant("softmax-normalises-columns", "attention.py",
           "return S / S.sum(axis=axis, keepdims=True)", "return S / S.sum(axis=0, keepdims=True)",
           "softmax normalises along the first axis, not along each row", "softmax", ("03", "05")),
    Mutant("weighted-sum-At-V", "attention.py",
           "return A @ V, A", "return A.swapaxes(-1, -2) @ V, A",
           "Y = A V becomes Aᵀ V", "weighted sum", ("03",)),
    Mutant("mask-inverted", "attention.py",
           "np.where(mask, 0.0, -np.inf)", "np.where(mask, -np.inf, 0.0)",
           "a mask hides the keys it allows instead of the keys it forbids", "mask",
           ("05", "06", "07", "08")),
    Mutant("cross-values-unpaired", "attention.py",
           "return X @ W_Q, Z @ W_K, Z @ W_V", "return X @ W_Q, Z @ W_K, Z[::-1] @ W_V",
           "V = Z W_V: each value no longer sits beside its key", "cross-attention", ("06",)),
    Mutant("padding-mask-one-more", "positions.py",
           "np.tile(np.arange(n) < length, (n, 1))", "np.tile(np.arange(n) <= length, (n, 1))",
           "the padding mask lets every query see the first padding row", "padding mask",
           ("06",)),
    # positions.py (the encodings) and schemes.py (where each scheme puts them): the schemes
    Mutant("sinusoidal-from-1", "positions.py",
           "E = _sinusoids(np.arange(n), d, base)", "E = _sinusoids(np.arange(1, n + 1), d, base)",
           "sinusoidal positions counted from 1, not 0", "sinusoidal", ("06", "08")),
    Mutant("sinusoidal-cos-first", "positions.py",
           "np.stack([np.sin(theta), np.cos(theta)], axis=-1)",
           "np.stack([np.cos(theta), np.sin(theta)], axis=-1)",
           "E[p, 2i] = cos(p ω_i) and E[p, 2i+1] = sin(p ω_i): the pair swapped", "sinusoidal",
           ("05", "06", "08")),
    Mutant("learned-rows-shifted", "schemes.py",
           "return X + _table_rows(E, p)", "return X + _table_rows(E, p + 1)",
           "token p gets row p + 1 of the learned table", "learned", ("05", "08")),
    Mutant("rope-keys-unturned", "schemes.py",
           "self.turn(Q, p), self.turn(K, p), V,", "self.turn(Q, p), K, V,",
           "the rope scheme turns the queries only, not the keys", "rope", ("05", "08")),
    Mutant("alibi-penalty-sign", "positions.py",
           "return -m * np.abs(", "return m * np.abs(",
           "B = −m·|i − j| becomes +m·|i − j|: far keys are favoured", "alibi", ("05", "08")),
    Mutant("alibi-unmasked", "schemes.py",
           "return _causal_mask(n), _alibi_bias(n, slope)",
           "return None, _alibi_bias(n, slope)",
           "the paper's ALiBi without its causal mask", "alibi", ("05", "08")),
    Mutant("alibi-symmetric-signed", "positions.py",
           "np.abs(i[:, None] - i[None, :])", "(i[:, None] - i[None, :])",
           "−m·|i − j| becomes −m·(i − j): the symmetric variant sees direction", "alibi_symmetric",
           ("05", "08")),
    Mutant("causal-mask-ahead", "positions.py",
           "return np.tri(n, dtype=bool)", "return np.tri(n, dtype=bool).T",
           "the causal mask lets token i see j ≥ i instead of j ≤ i", "causal", ("05", "06", "08")),
    Mutant("relative-clip-2", "positions.py",
           "RELATIVE_CLIP = 4", "RELATIVE_CLIP = 2",
           "the relative scheme's default clip k = 4 becomes 2", "relative clip", ("05", "09")),
    Mutant("relative-clip-narrower", "positions.py",
           "np.clip(i[None, :] - i[:, None], -max_distance, max_distance)",
           "np.clip(i[None, :] - i[:, None], 1 - max_distance, max_distance - 1)",
           "clip(j − i, −k, k) clips at ±(k − 1)", "relative", ("10",)),
    # rope.py: ω_i = base^(−2i/d), and the turn R(p ω_i)
    Mutant("frequencies-exponent", "rope.py",
           "return base ** (-2.0 * i / d)", "return base ** (-1.0 * i / d)",
           "ω_i = base^(−2i/d) becomes base^(−i/d)", "frequencies", ("05", "08", "10")),
    Mutant("rope-base-100", "rope.py",
           "positions=None, base: float = 10000.0,", "positions=None, base: float = 100.0,",
           "RoPE's base 10000 becomes 100", "frequencies", ("08",)),
    Mutant("rope-turns-backwards", "rope.py",
           "np.tile([-1.0, 1.0], d_k // 2)", "np.tile([1.0, -1.0], d_k // 2)",
           "RoPE turns each pair by −p ω_i instead of +p ω_i", "rope", ("05", "08")),
    Mutant("rope-halves-backwards", "rope.py",
           "np.repeat([-1.0, 1.0], h)", "np.repeat([1.0, -1.0], h)",
           "RoPE's halves layout turns each pair by −p ω_m", "rope", ("11",)),
    # scaling.py: the frequencies for longer rows
    Mutant("ramp-reversed", "scaling.py",
           "(1.0 - gamma) * omega / s + gamma * omega", "gamma * omega / s + (1.0 - gamma) * omega",
           "YaRN's ramp keeps the slow pairs and interpolates the fast ones", "frequencies",
           ("11",)),
    # transformer.py: MHA, LayerNorm, the residual sums
    Mutant("layernorm-column-mean", "transformer.py",
           "mu = X.mean(axis=-1, keepdims=True)", "mu = X.mean(axis=0, keepdims=True)",
           "LayerNorm subtracts each column's mean, not each row's", "layer norm", ("06",)),
    Mutant("layernorm-eps-outside-root", "transformer.py",
           "/ np.sqrt(var + eps) + beta", "/ (np.sqrt(var) + eps) + beta",
           "LN divides by √var + ε instead of √(var + ε)", "layer norm", ("06",)),
    Mutant("multi-head-without-W_O", "transformer.py",
           ".reshape(n, -1) @ W_O, A", ".reshape(n, -1), A",
           "MHA(X) = [head 0 | … ] W_O loses W_O", "multi-head", ("06",)),
    Mutant("multi-head-heads-mixed", "transformer.py",
           "Y.swapaxes(0, 1).reshape(n, -1)", "Y.reshape(n, -1)",
           "the heads are concatenated across tokens instead of row by row", "multi-head",
           ("06",)),
    Mutant("residual-dropped", "transformer.py",
           "H = _layer_norm(X + Z, ", "H = _layer_norm(Z, ",
           "H = LayerNorm(X + MHA(X)) loses its residual X", "residual", ("06",)),
    # permutations.py: the symmetry measures
    Mutant("equivariance-inverse-order", "permutations.py",
           "return _check_gap(before[perm], after)",
           "return _check_gap(before[_inverse(perm)], after)",
           "equivariance_error compares f(PX) with f(X) in the inverse order", "symmetry measures",
           ("01", "04", "06", "07", "08")),
    Mutant("invariance-never-reorders", "permutations.py",
           "return _check_gap(before, after)", "return _check_gap(before, before)",
           "invariance_error compares f(X) with itself, not with f(PX)", "symmetry measures",
           ("01", "04", "06")),
    Mutant("worst-without-abs", "permutations.py",
           "return float(np.max(np.abs(difference)))", "return float(np.max(difference))",
           "max |f(PX) − P f(X)| loses its absolute value", "symmetry measures",
           ("01", "04", "06", "07", "08")),
    Mutant("permutation-matrix-transposed", "permutations.py",
           "return np.eye(len(perm))[perm]", "return np.eye(len(perm))[:, perm]",
           "P[i, perm[i]] = 1 becomes P[perm[i], i] = 1: Pᵀ, not P", "symmetry measures",
           ("01", "04")),
    # baselines.py: the chain and the window
    Mutant("rnn-without-chain", "baselines.py",
           "h = np.tanh(x_t @ W_x + h @ W_h)", "h = np.tanh(x_t @ W_x)",
           "h_t = tanh(x_t W_x + h_{t−1} W_h) loses h_{t−1}", "rnn", ("07",)),
    Mutant("conv-wraps-around", "baselines.py",
           "np.vstack([np.zeros((r, d)), X, np.zeros((r, d))])", "np.vstack([X[n - r:], X, X[:r]])",
           "the convolution wraps around instead of padding with zeros", "convolution", ("07",)),
)


class MutantError(Exception):
    """A mutant that cannot be applied, or a run that says nothing about it."""


class Result(NamedTuple):
    mutant: Mutant
    survivors: tuple[str, ...]  # the named notebooks that passed under the mutant
    seconds: float


# ---- applying a mutant (to a copy of src/ only) --------------------------------------------


def notebook(number: str) -> Path:
    """notebooks/NN_*.ipynb for a number NN."""
    found = sorted(NOTEBOOKS.glob(f"{number}_*.ipynb"))
    if len(found) != 1:
        raise MutantError(f"notebook {number!r} must be one file notebooks/{number}_*.ipynb; "
                          f"found {len(found)}.")
    return found[0]


def mutated(mutant: Mutant, text: str) -> str:
    """The file's text with the mutant's line changed: its original must occur exactly once."""
    count = text.count(mutant.original)
    if count != 1:
        raise MutantError(f"mutant {mutant.name!r}: src/posattn/{mutant.file} must hold "
                          f"{mutant.original!r} exactly once; found it {count} times. Update "
                          "the mutant in tools/run/mutants.py to the refactored line.")
    return text.replace(mutant.original, mutant.replacement)


def module_name(mutant: Mutant) -> str:
    """The module the kernel must import from the copy, e.g. posattn.positions."""
    return "posattn." + mutant.file.removesuffix(".py").replace("/", ".")


def copy_with(mutant: Mutant, work: Path) -> Path:
    """src/ copied into work/src with the mutant applied there; returns the mutated file."""
    copy = work / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    target = copy / "posattn" / mutant.file
    target.write_text(mutated(mutant, target.read_text("utf-8")), "utf-8")
    return target


def probe(path: Path, module: str, expected: str) -> Path:
    """A one-cell notebook whose stored output is the mutated file's path: it passes nbval only
    if the kernel imports the module from the copy."""
    cell = {"cell_type": "code", "execution_count": 1, "id": "probe", "metadata": {},
            "source": f"import importlib\nprint(importlib.import_module({module!r}).__file__)",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": expected + "\n"}]}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), "utf-8")
    return path


# ---- running one mutant ---------------------------------------------------------------------


class Runner:
    """Runs mutants in a temporary directory of its own, and stops them all on interrupt."""

    def __init__(self, root: Path):
        self.root, self.stopping = root, False
        self.running: set[subprocess.Popen] = set()
        self.lock = threading.Lock()

    def run(self, mutant: Mutant) -> Result:
        started = time.monotonic()
        work = self.root / mutant.name
        work.mkdir()
        try:
            target = copy_with(mutant, work)
            check = probe(work / "probe.ipynb", module_name(mutant), str(target))
            report = work / "report.json"
            names = [notebook(n) for n in mutant.notebooks]
            out, code = self.pytest([str(check), *map(str, names)], {
                "PYTHONPATH": os.pathsep.join([str(work / "src"), *filter(None, [
                    os.environ.get("PYTHONPATH")])]),
                REPORT: str(report)})
            failed = json.loads(report.read_text("utf-8")) if report.exists() else None
            if code not in (0, 1) or failed is None:
                raise MutantError(f"mutant {mutant.name!r}: nbval ended with status {code}:\n"
                                  f"{tail(out)}")
            if failed.get(str(check)) or str(check) not in failed:
                raise MutantError(f"mutant {mutant.name!r}: the kernel did not import the mutated "
                                  f"copy ({target}):\n{tail(out)}")
            missing = [n for n in names if str(n) not in failed]
            if missing:
                raise MutantError(f"mutant {mutant.name!r}: nbval ran no cell of "
                                  f"{', '.join(n.name for n in missing)}:\n{tail(out)}")
            survivors = tuple(n for n, path in zip(mutant.notebooks, names, strict=True)
                              if not failed[str(path)])
            return Result(mutant, survivors, time.monotonic() - started)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def pytest(self, paths: list[str], extra: dict) -> tuple[str, int]:
        """nbval on paths with this module as a plugin, the repository only read."""
        env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # Agg drops figures
        env.update(extra, PYTHONDONTWRITEBYTECODE="1")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                   "tools.run.mutants", "--nbval", "--nbval-current-env", *paths]
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       text=True)
            self.running.add(process)
        try:
            out, _ = process.communicate()
        finally:
            with self.lock:
                self.running.discard(process)
        return out, process.returncode

    def stop(self) -> None:
        """Interrupt: no new run starts; the running ones end (each stops its kernel)."""
        with self.lock:
            self.stopping = True
            running = list(self.running)
        for process in running:
            process.terminate()
        for process in running:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


def tail(out: str, lines: int = 30) -> str:
    return "\n".join(out.rstrip().splitlines()[-lines:])


# ---- nbval's plugin (`pytest -p tools.run.mutants`): a notebook stops at its first failing cell

_FAILED: dict[str, str | None] = {}  # notebook -> its first failing cell, None while all pass


def pytest_runtest_setup(item) -> None:
    import pytest

    if _FAILED.get(str(item.path)):
        pytest.skip(f"an earlier cell failed: {_FAILED[str(item.path)]}")


def _record(item, report) -> None:
    """A notebook's first failing cell (in set-up or run), or None once a cell has run."""
    if report.failed and not _FAILED.get(str(item.path)):
        _FAILED[str(item.path)] = report.nodeid
    elif report.when == "call":
        _FAILED.setdefault(str(item.path), None)


@HookimplMarker("pytest")(wrapper=True)  # pytest.hookimpl, without importing pytest here
def pytest_runtest_makereport(item, call):
    report = yield  # pytest's own report of the cell
    _record(item, report)
    return report


def pytest_sessionfinish(session) -> None:
    if os.environ.get(REPORT):
        Path(os.environ[REPORT]).write_text(json.dumps(_FAILED), "utf-8")


# ---- the command -----------------------------------------------------------------------------


def selected(names: list[str]) -> list[Mutant]:
    by_name = {m.name: m for m in MUTANTS}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"mutants must be among: {', '.join(by_name)}; got "
                         f"{', '.join(map(repr, unknown))}.")
    chosen = [by_name[n] for n in names] or list(MUTANTS)
    for mutant in chosen:  # before anything runs: a refactored line is said at once
        mutated(mutant, (SRC / "posattn" / mutant.file).read_text("utf-8"))
        for number in mutant.notebooks:
            notebook(number)
    return chosen


def line(result: Result) -> str:
    m = result.mutant
    verdict = ("caught" if not result.survivors else
               f"SURVIVED ({', '.join(result.survivors)} passed)")
    return f"{m.name:30} {' '.join(m.notebooks):16} {verdict:24} {result.seconds:5.1f} s"


def listing() -> str:
    return "\n".join(f"{m.name:30} {' '.join(m.notebooks):16} {m.file}: {m.reason}"
                     for m in MUTANTS)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.run.mutants", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME", help="mutants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants, run none")
    parser.add_argument("--jobs", type=int, default=JOBS, help=f"at a time (default {JOBS})")
    options = parser.parse_args(argv)
    if options.list:
        print(listing())
        return 0
    chosen = selected(options.names)
    if options.jobs < 1:
        raise SystemExit(f"--jobs must be at least 1; got {options.jobs}.")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a killed make cleans up too
    started, results = time.monotonic(), []
    runner = Runner(Path(tempfile.mkdtemp(prefix="posattn-mutants-")).resolve())
    pool = ThreadPoolExecutor(options.jobs)
    try:
        futures = [pool.submit(runner.run, m) for m in chosen]
        for future in as_completed(futures):
            results.append(future.result())
            print(line(results[-1]), flush=True)
    except BaseException:
        runner.stop()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        shutil.rmtree(runner.root, ignore_errors=True)
    survived = [r.mutant.name for r in results if r.survivors]
    print(f"\n{len(results)} mutants in {time.monotonic() - started:.0f} s: "
          f"{len(results) - len(survived)} caught, {len(survived)} survived"
          + (f" ({', '.join(survived)})" if survived else ""), flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except MutantError as error:
        sys.exit(f"error: {error}")
    except KeyboardInterrupt:
        sys.exit(130)
