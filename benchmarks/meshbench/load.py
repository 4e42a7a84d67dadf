"""Load of the mesh benchmark: autocannon runs through benchmarks/mesh_load.js (bounded in time and count)
and the throughput of a consumer under them, with the CPU of every process."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from _common import AUTOCANNON, BENCH_DIR, HOST

from .client import ACCEPT
from .measure import OtherLoad, cpu_of

LOAD_JS = BENCH_DIR / "mesh_load.js"


def autocannon(config: dict[str, Any], tmp: Path, *, budget: float) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("`node` is not on PATH")
    cfg_path = tmp / f"load-{time.monotonic_ns()}.json"
    cfg_path.write_text(json.dumps({"autocannon": str(AUTOCANNON), **config}))
    done = subprocess.run(
        [node, str(LOAD_JS), str(cfg_path)], capture_output=True, text=True, timeout=budget, check=False
    )
    cfg_path.unlink()
    if done.returncode != 0:
        raise RuntimeError(f"mesh_load.js failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def throughput_run(
    port: int,
    tool: str,
    pids: dict[str, int],
    tmp: Path,
    *,
    connections: int,
    duration: float,
    warmup: float,
    cap: int,
) -> dict[str, Any]:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": {"a": 20, "b": 22}},
        },
        separators=(",", ":"),
    )
    base = {
        "url": f"http://{HOST}:{port}",
        "kind": "call",
        "path": "/mcp",
        "body": body,
        "headers": {"content-type": "application/json", "accept": ACCEPT},
        "expect": '"structuredContent":{"result":42}',
        "connections": connections,
        "timeout": 10,
    }
    if warmup > 0:
        autocannon({**base, "duration": warmup, "max_requests": cap}, tmp, budget=warmup + 60)
    cpu0 = cpu_of(pids)
    other = OtherLoad(list(pids.values()))
    t0 = time.perf_counter()
    res = autocannon({**base, "duration": duration, "max_requests": cap}, tmp, budget=duration + 60)
    elapsed = time.perf_counter() - t0
    other_cores = other.cores(float(res["loadgen_cpu_s"]))
    cpu1 = cpu_of(pids)
    good = int(res["good"])
    return {
        "connections": connections,
        "duration_s": res["duration_s"],
        "requests": res["requests_total"],
        "good": good,
        "bad": int(res["checked"]) - good,
        "bad_samples": res["bad_samples"],
        "non2xx": res["non2xx"],
        "errors": res["errors"],
        "timeouts": res["timeouts"],
        "calls_per_s": round(good / float(res["duration_s"]), 1),
        "p50_ms": res["latency_ms"]["p50"],
        "p99_ms": res["latency_ms"]["p99"],
        "mean_ms": round(float(res["latency_ms"]["mean"]), 2),
        "cpu_util": {role: round((cpu1[role] - cpu0[role]) / elapsed, 2) for role in pids},
        "cpu_ms_per_call": {role: round((cpu1[role] - cpu0[role]) / max(good, 1) * 1000, 3) for role in pids},
        "loadgen_cpu_util": round(float(res["loadgen_cpu_s"]) / elapsed, 2),
        "other_cores": other_cores,
    }


def throughput_summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median calls/s, plus every round's calls/s."""
    ordered = sorted(rounds, key=lambda r: r["calls_per_s"])
    median_round = dict(ordered[(len(ordered) - 1) // 2])
    median_round["rounds_calls_per_s"] = [r["calls_per_s"] for r in rounds]
    median_round["rounds_other_cores"] = [r["other_cores"] for r in rounds]
    median_round["bad_all_rounds"] = sum(r["bad"] + r["non2xx"] + r["errors"] + r["timeouts"] for r in rounds)
    return median_round
