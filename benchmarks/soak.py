"""Bounded soak: calls at a fixed rate through a consumer while a second provider comes and goes.

    .venv/bin/python benchmarks/soak.py --minutes 30 --rate 20 --churn 10

A registry, a consumer and provider A run for the whole soak (real processes on loopback, the default
5 s heartbeat); provider B is started and stopped every `--churn` seconds (every third stop a SIGKILL).
A pacer sends `--rate` calls per second to the consumer's `relay` tool. Every `--window` seconds it prints
calls, errors, p50/p99 latency, and the RSS and open file descriptors of the registry, the consumer and
provider A; at the end the `heartbeat failed` warnings in every log. Results: benchmarks/results/soak.json
(benchmarks/report.py writes the page from it). Flat RSS/fds and a stable p99 are what to look for.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import Run, save_results  # noqa: E402

from tests.agents import AgentProcess, run_agent, run_registry, stop  # noqa: E402

CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "relay", "arguments": {"text": "s"}},
}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Pacer(threading.Thread):
    """Sends calls at a fixed rate from a few worker threads; records (time, ok, seconds)."""

    def __init__(self, url: str, rate: float) -> None:
        super().__init__(daemon=True)
        self.url, self.rate = url, rate
        self.samples: list[tuple[float, bool, float]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> None:
        interval = 1.0 / self.rate
        with httpx2.Client(timeout=10, trust_env=False) as http:
            next_at = time.monotonic()
            while not self.stopping.is_set():
                started = time.monotonic()
                ok = False
                with contextlib.suppress(httpx2.HTTPError, ValueError, KeyError):
                    answer = http.post(self.url, json=CALL, headers={"Accept": "application/json"})
                    ok = answer.status_code == 200 and not answer.json()["result"]["isError"]
                with self._lock:
                    self.samples.append((started, ok, time.monotonic() - started))
                next_at += interval
                self.stopping.wait(max(0.0, next_at - time.monotonic()))

    def window(self, since: float) -> list[tuple[float, bool, float]]:
        with self._lock:
            return [s for s in self.samples if s[0] >= since]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=20.0, help="calls per second")
    parser.add_argument("--churn", type=float, default=10.0, help="seconds between provider B changes")
    parser.add_argument("--window", type=float, default=30.0, help="seconds per reported window")
    args = parser.parse_args()
    run = Run(short=args.minutes < 30)
    windows: list[dict[str, Any]] = []
    logs: list[AgentProcess] = []
    with run_registry(0, timeout=60) as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        consumer_env = {**env, "FAULT_CAPABILITY": "unused_echo"}
        with (
            run_agent("tests.apps.fault_app", "--name", "consumer", env=consumer_env, timeout=60) as consumer,
            run_agent(
                "tests.apps.fault_app", "--name", "provider-a", env={**env, "FAULT_LABEL": "a"}, timeout=60
            ) as a,
        ):
            logs += [registry, consumer, a]
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # until the consumer has resolved `echo`
                with contextlib.suppress(httpx2.HTTPError, KeyError, ValueError):
                    body = httpx2.post(
                        consumer.mcp_url, json=CALL, headers={"Accept": "application/json"}
                    ).json()
                    if not body["result"]["isError"]:
                        break
                time.sleep(0.2)
            pacer = Pacer(consumer.mcp_url, args.rate)
            pacer.start()
            started = time.monotonic()
            end = started + args.minutes * 60
            b: contextlib.ExitStack | None = None
            b_process: AgentProcess | None = None
            changes = 0
            next_change = started + args.churn
            window_start = started
            try:
                while time.monotonic() < end:
                    now = time.monotonic()
                    if now >= next_change:
                        changes += 1
                        if b is None:
                            b = contextlib.ExitStack()
                            b_process = b.enter_context(
                                run_agent(
                                    "tests.apps.fault_app",
                                    "--name",
                                    "provider-b",
                                    env={**env, "FAULT_LABEL": "b"},
                                    timeout=60,
                                )
                            )
                            logs.append(b_process)
                        else:
                            assert b_process is not None
                            if changes % 3 == 0:
                                stop(b_process.process, sig=signal.SIGKILL)
                            b.close()
                            b, b_process = None, None
                        next_change = time.monotonic() + args.churn
                    if now - window_start >= args.window:
                        samples = pacer.window(window_start)
                        latencies = [s[2] * 1000 for s in samples if s[1]]
                        row = {
                            "t_s": round(now - started),
                            "calls": len(samples),
                            "errors": sum(1 for s in samples if not s[1]),
                            "p50_ms": round(percentile(latencies, 0.5), 2),
                            "p99_ms": round(percentile(latencies, 0.99), 2),
                            "rss_kib": {
                                n: rss_kib(p.process.pid)
                                for n, p in (
                                    ("registry", registry),
                                    ("consumer", consumer),
                                    ("provider_a", a),
                                )
                            },
                            "fds": {
                                n: fds(p.process.pid)
                                for n, p in (
                                    ("registry", registry),
                                    ("consumer", consumer),
                                    ("provider_a", a),
                                )
                            },
                            "topology_changes": changes,
                        }
                        windows.append(row)
                        print(json.dumps(row), flush=True)
                        window_start = now
                    time.sleep(0.2)
            finally:
                pacer.stopping.set()
                pacer.join(timeout=15)
                if b is not None:
                    b.close()
    warnings = sum(line.count("heartbeat failed") for process in logs for line in process.output)
    total = len(pacer.samples)
    errors = sum(1 for s in pacer.samples if not s[1])
    latencies = [s[2] * 1000 for s in pacer.samples if s[1]]
    summary = {
        "window_s": args.window,
        "minutes": args.minutes,
        "rate": args.rate,
        "churn_s": args.churn,
        "calls": total,
        "errors": errors,
        "p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "heartbeat_failed_warnings": warnings,
        "windows": windows,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "windows"}), flush=True)
    save_results("soak", run, summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
