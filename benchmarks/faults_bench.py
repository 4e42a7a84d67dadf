"""Faults with figures: calls lost, time to recover and the log lines a user sees, per fault.

    .venv/bin/python benchmarks/faults_bench.py [--rate 20]

A registry, a consumer (tools.timeout 2 s, heartbeat 1 s) and providers A and B (real processes on
loopback); a pacer calls the consumer's `relay` at `--rate` per second throughout. Faults, in order:
the registry down while the agents start (it comes up later), provider B SIGKILLed, a partition (via a
TCP proxy) between the consumer and a provider for 5 s, the registry SIGKILLed and restarted empty (data
loss). For each: failed calls, seconds from the fault to the
first failed call and from the repair (or the fault, when nothing fails) to steady success, and the
WARNING lines the consumer logged meanwhile. Results: benchmarks/results/faults.json (benchmarks/report.py
writes the page from it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import Run, save_results  # noqa: E402
from soak import Pacer  # noqa: E402

from tests.agents import AgentProcess, run_agent, run_registry, stop  # noqa: E402
from tests.mesh.test_faults import free_port  # noqa: E402
from tests.registry.test_registry import agent as registration  # noqa: E402
from tests.registry.test_registry import tool  # noqa: E402
from tests.tcp_proxy import TcpProxy  # noqa: E402

SETTLE = 3.0


def measure(
    pacer: Pacer, consumer: AgentProcess, name: str, fault: Any, repair: Any = None
) -> dict[str, Any]:
    log_mark = len(consumer.output)
    time.sleep(SETTLE)
    t0 = time.monotonic()
    fault()
    repaired = time.monotonic()
    if repair is not None:
        time.sleep(5.0)
        repaired = time.monotonic()
        repair()
    time.sleep(SETTLE * 2)
    samples = pacer.window(t0 - 0.5)
    failed = [s for s in samples if not s[1]]
    last_failure_end = max((s[0] + s[2] for s in failed), default=None)
    recovered = [s for s in samples if s[1] and s[0] >= (last_failure_end or t0)]
    result = {
        "fault": name,
        "calls": len(samples),
        "failed": len(failed),
        "first_failure_after_s": round(min(s[0] for s in failed) - t0, 2) if failed else None,
        "recovered_after_repair_s": round(recovered[0][0] - repaired, 2) if recovered and failed else 0.0,
        "warnings": [line.strip() for line in consumer.output[log_mark:] if "WARNING" in line][:6],
    }
    print(json.dumps(result), flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args()
    run = Run()
    results: list[dict[str, Any]] = []
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"MCP_MESH_REGISTRY_URL": url, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with contextlib.ExitStack() as stack:
        consumer = stack.enter_context(
            run_agent(
                "tests.apps.fault_app",
                "--name",
                "consumer",
                env={**env, "FAULT_CAPABILITY": "unused_echo", "MESH_TOOLS__TIMEOUT": "2"},
                timeout=60,
            )
        )
        a = stack.enter_context(
            run_agent(
                "tests.apps.fault_app", "--name", "provider-a", env={**env, "FAULT_LABEL": "a"}, timeout=60
            )
        )
        b = stack.enter_context(
            run_agent(
                "tests.apps.fault_app", "--name", "provider-b", env={**env, "FAULT_LABEL": "b"}, timeout=60
            )
        )
        pacer = Pacer(consumer.mcp_url, args.rate)
        pacer.start()
        try:
            # registry down at start: the agents run, the registry comes later
            time.sleep(SETTLE)
            log_mark = len(consumer.output)
            registry = stack.enter_context(run_registry(port, "--timeout", "60", timeout=60))
            up = time.monotonic()
            deadline = up + 60
            while time.monotonic() < deadline and not any(ok for t, ok, _ in pacer.window(up)):
                time.sleep(0.05)
            first_ok = min((t for t, ok, _ in pacer.window(up) if ok), default=None)
            before = pacer.window(0)
            result = {
                "fault": "registry down at start, then started",
                "calls": len(before),
                "failed": sum(1 for s in before if not s[1]),
                "first_failure_after_s": None,
                "recovered_after_repair_s": round(first_ok - up, 2) if first_ok else None,
                "warnings": [line.strip() for line in consumer.output[log_mark:] if "WARNING" in line][:6],
            }
            print(json.dumps(result), flush=True)
            results.append(result)
            results.append(
                measure(
                    pacer,
                    consumer,
                    "provider SIGKILLed (an alternate exists)",
                    lambda: stop(b.process, sig=signal.SIGKILL),
                )
            )
            proxy = TcpProxy(a.port)
            # A is reached only through the proxy from now on: B is dead, a far copy of A is preferred
            payload = registration("far-a", proxy.port, tool("echo", "echo", version="9.0.0"))
            httpx2.post(url + "/heartbeat", json=payload, timeout=5)
            time.sleep(3)

            def cut() -> None:
                proxy.mode = "drop"

            def heal() -> None:
                proxy.mode = "pass"

            results.append(
                measure(pacer, consumer, "partition consumer / provider, 5 s (no alternate used)", cut, heal)
            )
            httpx2.delete(url + "/agents/far-a", timeout=5)
            proxy.close()
            time.sleep(3)
            holder: dict[str, Any] = {}

            def lose_registry() -> None:
                stop(registry.process, sig=signal.SIGKILL)
                holder["registry"] = stack.enter_context(run_registry(port, "--timeout", "60", timeout=60))

            results.append(
                measure(pacer, consumer, "registry SIGKILLed, restarted empty (data loss)", lose_registry)
            )
        finally:
            pacer.stopping.set()
            pacer.join(timeout=15)
    save_results("faults", run, {"rate": args.rate, "settle_s": SETTLE, "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
