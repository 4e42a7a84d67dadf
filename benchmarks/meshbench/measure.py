"""Measurements of the mesh benchmark: CPU and RSS of processes (from /proc), the CPU other people's work
used meanwhile, sequential latency in chunks and its statistics."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _common import cpu_seconds, rss_mib
from processes import Proc

from .client import McpClient


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def memory(procs: dict[str, Proc | int]) -> dict[str, float]:
    out = {}
    for role, proc in procs.items():
        pid = proc if isinstance(proc, int) else proc.pid
        out[role] = round(rss_mib(pid), 1)
        children = descendants(pid)
        if children:
            out[role + "+children"] = round(out[role] + sum(rss_mib(c) for c in children), 1)
    return out


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found.append(int(child))
                found.extend(descendants(int(child)))
    return found


def cpu_of(procs: dict[str, int]) -> dict[str, float]:
    return {role: cpu_seconds(pid) for role, pid in procs.items()}


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """user + nice + system CPU seconds of the whole machine (all cores), from /proc/stat."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    return (int(fields[0]) + int(fields[1]) + int(fields[2])) / CLOCK_TICKS


class OtherLoad:
    """CPU used by processes that are not part of the measurement (other people's work on a shared machine):
    the machine's busy time minus the measured processes, this process and the load generator."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.t0 = time.perf_counter()
        self.busy0 = machine_busy_s()
        self.self0 = time.process_time()
        self.ours0 = sum(cpu_seconds(pid) for pid in pids)

    def cores(self, loadgen_cpu_s: float = 0.0) -> float:
        elapsed = time.perf_counter() - self.t0
        ours = sum(cpu_seconds(pid) for pid in self.pids) - self.ours0
        mine = time.process_time() - self.self0
        other = machine_busy_s() - self.busy0 - ours - mine - loadgen_cpu_s
        return round(max(0.0, other) / elapsed, 2)


def latency_chunk(client: McpClient, n: int, pids: dict[str, int], deadline: float) -> dict[str, Any]:
    """n sequential calls on the client's keep-alive connection (stops at `deadline`).

    The connection is opened afresh with one untimed call first: while the other sides ran, the server may
    have closed the idle keep-alive connection (uvicorn does after 5 s)."""
    client.close()
    first = client.call(0, 1)
    if first.kind != "ok":
        raise RuntimeError(f"untimed call before a latency chunk failed: {first.kind} {first.text}")
    cpu0 = cpu_of(pids)
    other = OtherLoad(list(pids.values()))
    lat: list[float] = []
    failures: dict[str, int] = {}
    started = time.perf_counter()
    for i in range(n):
        out = client.call(i, 2)
        if out.kind == "ok":
            lat.append(out.latency)
        else:
            failures[out.kind] = failures.get(out.kind, 0) + 1
        if time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - started
    cpu1 = cpu_of(pids)
    return {
        "lat": lat,
        "failures": failures,
        "elapsed": elapsed,
        "other_cores": other.cores(),
        "cpu": {role: cpu1[role] - cpu0[role] for role in pids},
    }


def latency_summary(chunks: list[dict[str, Any]], n: int) -> dict[str, Any]:
    lat = [x for c in chunks for x in c["lat"]]
    failures: dict[str, int] = {}
    for c in chunks:
        for kind, count in c["failures"].items():
            failures[kind] = failures.get(kind, 0) + count
    calls = len(lat) + sum(failures.values())
    elapsed = sum(c["elapsed"] for c in chunks)
    ms = [x * 1000 for x in lat] or [float("nan")]
    roles = chunks[0]["cpu"].keys()
    return {
        "calls": calls,
        "ok": len(lat),
        "failures": failures,
        "stopped_by_time": calls < n,
        "chunks": len(chunks),
        "p50_ms": round(statistics.median(ms), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "max_ms": round(max(ms), 3),
        "calls_per_s": round(calls / elapsed, 1),
        "chunk_p50_ms": [
            round(statistics.median([x * 1000 for x in c["lat"]]), 3) for c in chunks if c["lat"]
        ],
        "chunk_other_cores": [c["other_cores"] for c in chunks],
        "cpu_ms_per_call": {
            r: round(sum(c["cpu"][r] for c in chunks) / max(calls, 1) * 1000, 3) for r in roles
        },
    }
