"""Run door probes in a child process under a memory ceiling and a time limit (issues 30, 37).

    python -m tests.door_probes            # prints one JSON verdict per probe

A probe is one Python expression, evaluated with ``np``, ``pa``, ``ex`` and ``plotting`` in
scope, or a pair (input, call): the input is built first, outside the limit, and the call sees
it as ``given`` (a probe of the door times the door, not the building of a huge argument).

Each call runs under RLIMIT_AS = 2 GB and a limit of 10 s of the child's own CPU time
(ITIMER_PROF), so that the verdict does not depend on what else the machine runs: `make test`
keeps both cores busy with its three pytest processes, and a wall-clock limit of 10 s failed
there (issue 37). A call that waits instead of working is stopped by a wall-clock backstop of
120 s. The verdict is "ok" (it returned), or the exception it raised with its message, or
"timeout"; each carries the CPU and wall seconds the call took. A probe that kills the process
(the kernel's OOM killer, a segfault) is reported by the parent as "died".
tests/test_door_probes.py holds the probes and judges the verdicts.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

MEMORY = 2 * 2**30  # bytes of address space the child may map
SECONDS = 10  # of CPU time, per call
BACKSTOP = 120  # of wall-clock time, per call: a call that sleeps or waits


class _Stopped(BaseException):
    """Raised in the call when a limit runs out (a BaseException: no `except Exception` in the
    package can swallow it)."""


def _child(probes: list, start: int, seconds: float, backstop: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    import matplotlib
    matplotlib.use("Agg")
    import numpy as np

    import posattn as pa
    from posattn import experiments as ex
    from posattn import plotting
    scope = {"np": np, "pa": pa, "ex": ex, "plotting": plotting}

    def stop(signum, frame):
        raise _Stopped

    signal.signal(signal.SIGPROF, stop)
    signal.signal(signal.SIGALRM, stop)
    for i in range(start, len(probes)):
        verdict = {"probe": i}
        settings = np.geterr()
        setup, call = probes[i] if isinstance(probes[i], list) else (None, probes[i])
        names, cpu, wall = dict(scope), None, None
        try:
            if setup is not None:
                names["given"] = eval(setup, dict(scope))  # noqa: S307 - the project's own probes
            cpu, wall = time.process_time(), time.perf_counter()
            signal.setitimer(signal.ITIMER_PROF, seconds)
            signal.setitimer(signal.ITIMER_REAL, backstop)
            eval(call, names)  # noqa: S307 - the probes are this project's own
            verdict["result"] = "ok"
        except _Stopped:
            verdict["result"] = "timeout"
        except BaseException as exc:  # noqa: BLE001 - every failure is a verdict
            verdict.update(result=type(exc).__name__, message=str(exc)[:400])
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if cpu is None:
                verdict["in"] = "the input"  # building the input failed: the call never ran
            else:
                verdict.update(cpu=round(time.process_time() - cpu, 3),
                               wall=round(time.perf_counter() - wall, 3))
            del names
            np.seterr(**settings)
            import matplotlib.pyplot as plt
            plt.close("all")
        print(json.dumps(verdict), flush=True)


def run(probes: list, seconds: float = SECONDS, backstop: float = BACKSTOP) -> list[dict]:
    """Every probe's verdict, in order; a child that dies is restarted after its probe.

    ``seconds`` of CPU time and ``backstop`` seconds of wall-clock time per call."""
    verdicts, start = [], 0
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    while start < len(probes):
        child = subprocess.run([sys.executable, "-m", "tests.door_probes", str(start),
                                str(seconds), str(backstop)],
                               input=json.dumps(probes), capture_output=True, text=True, env=env,
                               timeout=backstop * (len(probes) - start) + 60)
        done = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
        verdicts += done
        start += len(done)
        if start < len(probes):  # the child died on probe `start`
            verdicts.append({"probe": start, "result": "died",
                             "message": f"exit {child.returncode}: {child.stderr[-300:]}"})
            start += 1
    return verdicts


if __name__ == "__main__":
    given = sys.argv[1:]  # [start [seconds [backstop]]]
    _child(json.loads(sys.stdin.read()), int(given[0]) if given else 0,
           float(given[1]) if len(given) > 1 else SECONDS,
           float(given[2]) if len(given) > 2 else BACKSTOP)
