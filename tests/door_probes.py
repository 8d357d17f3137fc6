"""Run door probes in a child process under a memory ceiling and a time limit (issue 30).

    python -m tests.door_probes            # prints one JSON verdict per probe

Each probe is one Python expression, evaluated with ``np``, ``pa``, ``ex`` and ``plotting`` in
scope, under RLIMIT_AS = 2 GB and a 10 s alarm. Its verdict is "ok" (it returned), or the
exception it raised with its message, or "timeout"; a probe that kills the process (the kernel's
OOM killer, a segfault) is reported by the parent as "died". tests/test_door_probes.py holds the
probes and judges the verdicts.
"""

import json
import os
import resource
import signal
import subprocess
import sys

MEMORY = 2 * 2**30  # bytes of address space the child may map
SECONDS = 10  # per probe


def _child(probes: list[str], start: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    import matplotlib
    matplotlib.use("Agg")
    import numpy as np

    import posattn as pa
    from posattn import experiments as ex
    from posattn import plotting
    scope = {"np": np, "pa": pa, "ex": ex, "plotting": plotting}

    def timeout(signum, frame):
        raise TimeoutError

    signal.signal(signal.SIGALRM, timeout)
    for i in range(start, len(probes)):
        verdict = {"probe": i}
        settings = np.geterr()
        signal.alarm(SECONDS)
        try:
            eval(probes[i], dict(scope))  # noqa: S307 - the probes are this project's own
            verdict["result"] = "ok"
        except TimeoutError:
            verdict["result"] = "timeout"
        except BaseException as exc:  # noqa: BLE001 - every failure is a verdict
            verdict.update(result=type(exc).__name__, message=str(exc)[:400])
        finally:
            signal.alarm(0)
            np.seterr(**settings)
            import matplotlib.pyplot as plt
            plt.close("all")
        print(json.dumps(verdict), flush=True)


def run(probes: list[str]) -> list[dict]:
    """Every probe's verdict, in order; a child that dies is restarted after its probe."""
    verdicts, start = [], 0
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    while start < len(probes):
        child = subprocess.run([sys.executable, "-m", "tests.door_probes", str(start)],
                               input=json.dumps(probes), capture_output=True, text=True, env=env,
                               timeout=SECONDS * (len(probes) - start) + 60)
        done = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("{")]
        verdicts += done
        start += len(done)
        if start < len(probes):  # the child died on probe `start`
            verdicts.append({"probe": start, "result": "died",
                             "message": f"exit {child.returncode}: {child.stderr[-300:]}"})
            start += 1
    return verdicts


if __name__ == "__main__":
    _child(json.loads(sys.stdin.read()), int(sys.argv[1]) if len(sys.argv) > 1 else 0)
