"""How many students can one server hold? N kernels on one JupyterLab server, each a student.

    python -m benchmarks.bench_classroom [--students 1 10 30] [--seconds 40] [--think 2.0]
                                                                   (from the repository's root)

One private JupyterLab server (as the browser tests start it: 127.0.0.1, a random token, a
temporary copy of notebooks/). For each N, N kernels are started through the server's REST API
and driven over its websockets as JupyterLab drives them: every student runs notebook 05's code
cells in order (all at once, as a class does at "Run All"), then clicks the explorer's Shuffle
in a loop for --seconds, thinking 0.5 to 1.5 × --think seconds between clicks. A click is the
message the browser sends for a Button (a comm message, {"event": "click"}); its latency is the
time until the new picture arrives (the Image widget's update), and until the kernel is idle.

Printed per N: the kernels' memory (RSS, median and largest), the server's, the time to run the
notebook, and the click latency (median and 95th percentile), with ratios to N = 1. Latency on a
shared machine moves with its load: read the ratios, and the CPU time said at the end.
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

from benchmarks.bench_explorer_browser import Folders
from tools.run.lab_driver import EXPLORER, descendants, serving

SESSION = uuid.uuid4().hex


def message(msg_type: str, content: dict, channel: str = "shell") -> dict:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": SESSION,
              "username": "student", "version": "5.3", "date": ""}
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content,
            "channel": channel, "buffers": []}


def decode(frame) -> dict:
    """A message from the server: JSON text, or (with binary buffers) a binary frame whose first
    part is the JSON (jupyter_server's default websocket protocol)."""
    if isinstance(frame, str):
        return json.loads(frame)
    count = int.from_bytes(frame[:4], "big")
    offsets = [int.from_bytes(frame[4 + 4 * i:8 + 4 * i], "big") for i in range(count)]
    return json.loads(frame[offsets[0]:offsets[1] if count > 1 else None])


class Student:
    """One kernel, its websocket, and the replies awaited by message id."""

    def __init__(self, lab: dict, kernel_id: str):
        self.lab, self.kernel_id, self.waiting, self.widgets = lab, kernel_id, {}, {}

    async def connect(self) -> None:
        url = self.lab["url"].replace("http://", "ws://")
        self.socket = await websocket_connect(HTTPRequest(
            f"{url}/api/kernels/{self.kernel_id}/channels?session_id={SESSION}",
            headers={"Authorization": f"token {self.lab['token']}"},
            connect_timeout=300, request_timeout=300))  # thirty kernels starting on two cores
        self.reader = asyncio.ensure_future(self.read())

    async def read(self) -> None:
        while (frame := await self.socket.read_message()) is not None:
            msg = decode(frame)
            content, parent = msg["content"], msg["parent_header"].get("msg_id")
            if msg["msg_type"] == "comm_open" and content.get("target_name") == "jupyter.widget":
                state = content["data"]["state"]
                for css in state.get("_dom_classes", []):
                    self.widgets.setdefault(css, content["comm_id"])  # the first explorer's
            waiting = self.waiting.get(parent)
            if waiting is None:
                continue
            if msg["msg_type"] == "comm_msg" and content["comm_id"] == self.widgets.get(
                    "pp-figure") and "picture" not in waiting:
                waiting["picture"] = time.perf_counter()
            if msg["msg_type"] == "execute_reply" and content["status"] != "ok":
                waiting["error"] = f"{content.get('ename')}: {content.get('evalue')}"
            if msg["msg_type"] == "status" and content["execution_state"] == "idle":
                waiting["done"].set_result(time.perf_counter())

    async def send(self, msg: dict) -> dict:
        """Send msg; return once the kernel is idle again: {"done": time, "picture": time}."""
        waiting = {"done": asyncio.get_running_loop().create_future()}
        self.waiting[msg["header"]["msg_id"]] = waiting
        await self.socket.write_message(json.dumps(msg))
        waiting["done"] = await asyncio.wait_for(waiting["done"], timeout=600)
        del self.waiting[msg["header"]["msg_id"]]
        if "error" in waiting:
            raise RuntimeError(f"kernel {self.kernel_id}: {waiting['error']}")
        return waiting

    async def run_notebook(self, cells: list[str]) -> float:
        start = time.perf_counter()
        for code in cells:
            await self.send(message("execute_request", {
                "code": code, "silent": False, "store_history": True, "user_expressions": {},
                "allow_stdin": False, "stop_on_error": True}))
        return time.perf_counter() - start

    async def click_for(self, seconds: float, think: float, rng: random.Random) -> list[float]:
        """Click Shuffle until seconds have passed; the latency of each click to the picture."""
        latencies, end = [], time.perf_counter() + seconds
        await asyncio.sleep(rng.uniform(0, think))  # students do not click in step
        while time.perf_counter() < end:
            click = message("comm_msg", {"comm_id": self.widgets["pp-shuffle"], "data": {
                "method": "custom", "content": {"event": "click"}}})
            sent = time.perf_counter()
            said = await self.send(click)
            latencies.append(said["picture"] - sent)  # KeyError: no picture came
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        return latencies


def cpu_seconds(pids) -> float:
    """User and system CPU time of pids so far (from /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def resident_mib(pid: int) -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    return int(next(line for line in lines if line.startswith("VmRSS")).split()[1]) / 1024


async def api(lab: dict, method: str, path: str) -> dict:
    response = await AsyncHTTPClient().fetch(
        f"{lab['url']}{path}", method=method, body="{}" if method == "POST" else None,
        headers={"Authorization": f"token {lab['token']}"}, request_timeout=300)
    return json.loads(response.body) if response.body else {}


async def classroom(lab: dict, pid: int, n: int, seconds: float, think: float) -> dict:
    cells = [c.source for c in nbformat.read(EXPLORER, as_version=4).cells if c.cell_type == "code"]
    kernels = [await api(lab, "POST", "/api/kernels") for _ in range(n)]
    students = [Student(lab, kernel["id"]) for kernel in kernels]
    try:
        for student in students:
            await student.connect()
        runs = await asyncio.gather(*(s.run_notebook(cells) for s in students))
        rngs = [random.Random(i) for i in range(n)]
        every = descendants(pid)  # the server and its kernels
        cpu, wall = cpu_seconds(every), time.perf_counter()
        clicks = await asyncio.gather(*(s.click_for(seconds, think, r)
                                        for s, r in zip(students, rngs, strict=True)))
        cores = (cpu_seconds(every) - cpu) / (time.perf_counter() - wall)
        rss = [resident_mib(p) for p in every if p != pid]  # the kernels
        latencies = sorted(t for each in clicks for t in each)
        return {"n": n, "rss": statistics.median(rss), "rss_max": max(rss),
                "server": resident_mib(pid), "run": statistics.median(runs),
                "median": statistics.median(latencies),
                "p95": latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))],
                "clicks": len(latencies), "cores": cores}
    finally:
        for student in students:
            if hasattr(student, "socket"):
                student.socket.close()
        for kernel in kernels:
            await api(lab, "DELETE", f"/api/kernels/{kernel['id']}")


def report(rows: list[dict]) -> None:
    one = rows[0]
    print("students  kernel RSS (median, max)  server RSS  run 05  click to picture: median  "
          "p95   (÷ N=1)      clicks  CPU while clicking")
    for r in rows:
        print(f"{r['n']:8d}  {r['rss']:7.0f} MiB {r['rss_max']:5.0f} MiB  {r['server']:6.0f} MiB "
              f"{r['run']:6.1f} s  {r['median'] * 1e3:20.0f} ms {r['p95'] * 1e3:5.0f} ms "
              f"({r['median'] / one['median']:4.1f}×, {r['p95'] / one['p95']:4.1f}×) "
              f"{r['clicks']:7d}  {r['cores']:.2f} cores")


async def main(counts: list[int], seconds: float, think: float) -> None:
    with tempfile.TemporaryDirectory() as home, serving("lab", Folders(Path(home))) as lab:
        pid = server_pid(lab)
        rows = []
        for n in counts:
            rows.append(await classroom(lab, pid, n, seconds, think))
            print(f"  N = {n}: done", flush=True)
    report(rows)
    print(f"(one click every {think:.1f} s on average per student, for {seconds:.0f} s; CPU: the "
          "server and its kernels, in cores busy while the students clicked)")


def server_pid(lab: dict) -> int:
    """The server's process: the one listening at lab's port (its runtime file, in the launcher's
    own runtime folder, says so)."""
    for info in (lab["home"] / "runtime").glob("*/jpserver-*.json"):
        said = json.loads(info.read_text())
        if said["port"] == int(lab["url"].rsplit(":", 1)[1]):
            return said["pid"]
    raise RuntimeError("no runtime file for the server")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--think", type=float, default=2.0)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.students, arguments.seconds, arguments.think))
