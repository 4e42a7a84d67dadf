#!/usr/bin/env python3
"""Where our calc path spends its CPU: py-spy samples of our consumer and provider under load.

Starts our registry, `bench_adder` and `bench_calc` (benchmarks/mesh_agents/) like mesh_bench.py, loads the
consumer with autocannon (benchmarks/mesh_load.js, bounded by duration and request cap) and meanwhile runs
`py-spy record --format raw` on both agents. Prints, per agent, CPU time per call and the share of samples
by package (self time) and the top functions (self and inclusive); writes benchmarks/results/mesh_profile.json
(mesh_report.py adds it to docs/benchmarks-mesh.md).

py-spy is not a dependency of the project: install it anywhere, e.g. `pip install --target <tmp>/py-spy
py-spy`, and pass `--py-spy <tmp>/py-spy/bin/py-spy` (or put it on PATH, or set PY_SPY).

    .venv/bin/python benchmarks/mesh_profile.py --py-spy "$PY_SPY" -c 16 -d 8
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mesh_bench as mb
from _common import RESULTS_DIR, ROOT, Run, cpu_seconds, save_results

FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]+)(?::(?P<line>\d+))?\)$")


def package_of(path: str) -> str:
    """A coarse owner of a source file: project sub-package, third-party package, or stdlib module."""
    norm = path.replace(os.sep, "/")
    if "/mesh_framework/" in norm or norm.startswith("mesh_framework/"):
        parts = norm.split("mesh_framework/", 1)[1].split("/")
        return "mesh_framework." + parts[0].removesuffix(".py")
    if "site-packages/" in norm:
        return norm.split("site-packages/", 1)[1].split("/")[0].removesuffix(".py")
    match = re.search(r"/lib/python3\.\d+/(.+)$", norm)
    if match:
        return "stdlib:" + match.group(1).split("/")[0].removesuffix(".py")
    if "mesh_agents/" in norm:
        return "benchmark agent"
    return norm.rsplit("/", 1)[-1]


# Leaf frames of a thread that waits (py-spy counts a thread blocked in these as active on this VM).
IDLE_LEAVES = {
    "EpollSelector.select (stdlib:selectors)",
    "select (stdlib:selectors)",
    "_worker (stdlib:concurrent)",
    "Condition.wait (stdlib:threading)",
    "Event.wait (stdlib:threading)",
    "Thread.join (stdlib:threading)",
    "_wait_for_tstate_lock (stdlib:threading)",
}
# Frames every sample of the event-loop thread goes through: not informative as "inclusive" entries.
ROOT_PACKAGES = {"<frozen runpy>", "mesh_framework.cli", "mesh_framework.app", "stdlib:threading"}


def analyse(raw: str, top: int, cpu_ms_per_call: float) -> dict[str, Any]:
    """Shares of the busy samples (idle leaves dropped), self and inclusive, by package and function; the
    inclusive shares are also turned into CPU ms per call (share x measured CPU per call)."""
    self_by_func: collections.Counter[str] = collections.Counter()
    incl_by_func: collections.Counter[str] = collections.Counter()
    self_by_pkg: collections.Counter[str] = collections.Counter()
    incl_by_pkg: collections.Counter[str] = collections.Counter()
    busy = idle = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = []
        for frame in stack.split(";"):
            match = FRAME.match(frame.strip())
            if match:
                pkg = package_of(match.group("file"))
                frames.append((f"{match.group('func')} ({pkg})", pkg))
        if not frames:
            continue
        leaf_func, leaf_pkg = frames[-1]
        if leaf_func in IDLE_LEAVES:
            idle += count
            continue
        busy += count
        self_by_func[leaf_func] += count
        self_by_pkg[leaf_pkg] += count
        for func in {f for f, _ in frames}:
            incl_by_func[func] += count
        for pkg in {p for _, p in frames}:
            incl_by_pkg[pkg] += count

    def share(counter: collections.Counter[str], n: int, *, inclusive: bool) -> list[dict[str, Any]]:
        rows = []
        for name, count in counter.most_common():
            if inclusive and (
                count >= 0.9 * busy
                or name.split(" (")[-1].rstrip(")") in ROOT_PACKAGES
                or name in ROOT_PACKAGES
            ):
                continue
            pct = 100 * count / busy
            rows.append(
                {"name": name, "pct": round(pct, 1), "ms_per_call": round(pct / 100 * cpu_ms_per_call, 3)}
            )
            if len(rows) == n:
                break
        return rows

    if not busy:
        return {"busy_samples": 0, "idle_samples": idle}
    return {
        "busy_samples": busy,
        "idle_samples": idle,
        "self_by_package": share(self_by_pkg, top, inclusive=False),
        "inclusive_by_package": share(incl_by_pkg, top, inclusive=True),
        "self_by_function": share(self_by_func, top, inclusive=False),
        "inclusive_by_function": share(incl_by_func, top, inclusive=True),
    }


def print_summary(result: dict[str, Any]) -> None:
    print(f"load: {result['load']}")
    for role in ("consumer", "provider"):
        r = result[role]
        print(
            f"\n{role}: {r['cpu_ms_per_call']} ms CPU per call, {r['busy_samples']} busy samples "
            f"({r['idle_samples']} idle dropped)"
        )
        for key in ("self_by_package", "inclusive_by_package", "self_by_function", "inclusive_by_function"):
            print(f"  {key}:")
            for row in r.get(key, []):
                print(f"    {row['pct']:5.1f} %  {row['ms_per_call']:.3f} ms/call  {row['name']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--py-spy", default=os.environ.get("PY_SPY") or shutil.which("py-spy"))
    parser.add_argument("-c", "--connections", type=int, default=16)
    parser.add_argument("-d", "--duration", type=float, default=8.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    if not args.py_spy or not Path(args.py_spy).exists():
        print("mesh_profile: py-spy not found; pass --py-spy PATH (see the docstring)", file=sys.stderr)
        return 2
    run = Run()
    result: dict[str, Any] = {}
    spies: list[subprocess.Popen[bytes]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="mesh-profile-") as tmp_name:
            tmp = Path(tmp_name)
            _registry, url = mb.start_our_registry(tmp)
            provider = mb.wait_our_agent(mb.spawn_our_agent("bench_adder", url, tmp), url)
            consumer = mb.wait_our_agent(mb.spawn_our_agent("bench_calc", url, tmp), url)
            assert consumer.port is not None
            probe = mb.McpClient(consumer.port, "calc")
            mb.wait_for(lambda: probe.call(2, 3).kind == "ok", 30, "calc answers")
            probe.close()
            pids = {"consumer": consumer.pid, "provider": provider.pid}
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "calc", "arguments": {"a": 20, "b": 22}},
                },
                separators=(",", ":"),
            )
            load = {
                "url": f"http://{mb.HOST}:{consumer.port}",
                "kind": "call",
                "path": "/mcp",
                "body": body,
                "headers": {"content-type": "application/json", "accept": mb.ACCEPT},
                "expect": '"structuredContent":{"result":42}',
                "connections": args.connections,
                "timeout": 10,
            }
            mb.autocannon(
                {**load, "duration": 1, "max_requests": args.max_requests}, tmp, budget=60
            )  # warm-up
            outputs = {role: tmp / f"{role}.txt" for role in pids}
            for role, pid in pids.items():
                spies.append(
                    subprocess.Popen(
                        [
                            args.py_spy,
                            "record",
                            "--pid",
                            str(pid),
                            "--duration",
                            str(int(args.duration)),
                            "--rate",
                            str(args.rate),
                            "--format",
                            "raw",
                            "--nonblocking",
                            "--full-filenames",
                            "--output",
                            str(outputs[role]),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            time.sleep(0.3)
            cpu0 = {role: cpu_seconds(pid) for role, pid in pids.items()}
            res = mb.autocannon(
                {**load, "duration": args.duration, "max_requests": args.max_requests},
                tmp,
                budget=args.duration + 60,
            )
            cpu1 = {role: cpu_seconds(pid) for role, pid in pids.items()}
            for spy in spies:
                spy.wait(timeout=args.duration + 30)
            good = int(res["good"])
            result["load"] = {
                "connections": args.connections,
                "duration_s": res["duration_s"],
                "good": good,
                "calls_per_s": round(good / float(res["duration_s"]), 1),
                "p50_ms": res["latency_ms"]["p50"],
                "p99_ms": res["latency_ms"]["p99"],
                "loadgen_cpu_util": round(float(res["loadgen_cpu_s"]) / float(res["duration_s"]), 2),
            }
            for role in pids:
                cpu = cpu1[role] - cpu0[role]
                per_call = cpu / max(good, 1) * 1000
                raw = outputs[role].read_text() if outputs[role].exists() else ""
                raw_copy = RESULTS_DIR / "raw" / f"mesh_profile_{role}.txt"  # git-ignored
                raw_copy.parent.mkdir(parents=True, exist_ok=True)
                raw_copy.write_text(raw)
                result[role] = {
                    "cpu_ms_per_call": round(per_call, 3),
                    "cpu_util": round(cpu / float(res["duration_s"]), 2),
                    "raw_stacks": os.path.relpath(raw_copy, ROOT)
                    if raw_copy.is_relative_to(ROOT)
                    else raw_copy.name,
                    **analyse(raw, args.top, per_call),
                }
    finally:
        for spy in spies:
            if spy.poll() is None:
                spy.terminate()
                spy.wait(timeout=10)
        mb.stop_all()
    print_summary(result)
    path = save_results("mesh_profile", run, result)
    text = path.read_text().replace(str(args.py_spy), "$PY_SPY")  # its location is this machine's business
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
