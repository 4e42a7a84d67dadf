#!/usr/bin/env python3
"""Instant topology: how fast a consumer follows the mesh, push beside heartbeat-only and MCP Mesh, one run.

Sides (each with its own registry and processes on 127.0.0.1, stopped by PID, also on failure; all of them
run at once, and within each measure the sides take turns run by run, the order rotating):

  push       ours: `mesh registry` + agents following its push stream (registry.push, the default)
  heartbeat  ours, heartbeat only (MESH_REGISTRY__PUSH=false): today's path before the stream
  mcp        MCP Mesh as shipped: the registry binary 3.7.1 and mcp-mesh 3.8 agents (heartbeat 5 s)

Agents: benchmarks/topology_agents/ (`whoami` answers which provider it is; `ask` returns what the
provider of `whoami` answers), the same two on both stacks. Consumers keep their default heartbeat (5 s).

1. start -> first success: the consumer runs alone and has been called once (dependency missing); the
   provider process is started (t0 = just before exec) and the consumer is called every 20 ms until it
   answers with the provider's letter. Also: the provider's registration time (registry `created_at`), so
   "registered -> first success" is the consumer's share. Then the provider is stopped (SIGTERM) and the
   consumer polled until it answers 'unavailable' again.
2. registry lists the provider -> first success: the consumer is left alone (no call wakes its heartbeat)
   while the provider starts; the moment the registry lists it, one call, then calls every 10 ms.
3. DOWN -> switched: two providers (a, b) are up and the consumer uses one; the registry is told that one
   is gone (`DELETE /agents/ID`, what a graceful stop sends and what a DOWN health verdict does to the
   store) while its process keeps serving, at t0; the consumer is called every 10 ms until it answers
   with the other letter. Providers heartbeat every 30 s here, so the removed one does not re-register
   within the window (both stacks alike); the window is bounded (--window s).

    .venv/bin/python benchmarks/topology_bench.py                 # ~8 min on 2 cores
    .venv/bin/python benchmarks/topology_bench.py --runs 2 --sides push,heartbeat   # smoke run

Results: benchmarks/results/topology.json (benchmarks/report.py writes the page from it).
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import HOST, PYTHON, ROOT, Run, free_port, save_results  # noqa: E402
from meshbench.agents import list_agents, parse_ts  # noqa: E402
from meshbench.client import ACCEPT, parse_message  # noqa: E402
from processes import Proc, clean_env, display, http_status, log, stop_all, wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402

AGENTS = BENCH_DIR / "topology_agents"
SIDES = {
    "push": "ours, push stream (default)",
    "heartbeat": "ours, heartbeat only (registry.push false)",
    "mcp": "MCP Mesh 3.7.1 registry + mcp-mesh 3.8 agents, as shipped",
}
TOOL = {"push": "ask", "heartbeat": "ask", "mcp": "mesh_ask"}
PROVIDER_HEARTBEAT = "30"


class Client:
    """`tools/call` of the consumer's ask tool over one keep-alive connection: the letter, or a kind."""

    def __init__(self, port: int, tool: str) -> None:
        self.port, self.tool, self.conn, self.next_id = port, tool, None, 0

    def ask(self, timeout: float = 30.0) -> str:
        reused = self.conn is not None
        answer = self._ask(timeout)
        if answer == "transport" and reused:  # the agent closed the idle keep-alive connection: once more
            answer = self._ask(timeout)
        return answer

    def _ask(self, timeout: float) -> str:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": {"name": self.tool}}
        body["params"]["arguments"] = {}
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
            headers = {"Content-Type": "application/json", "Accept": ACCEPT}
            self.conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
            response = self.conn.getresponse()
            message = parse_message(response.getheader("Content-Type", ""), response.read())
        except (OSError, http.client.HTTPException, ValueError):
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return "transport"
        result = (message or {}).get("result") or {}
        text = " ".join(c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text")
        if result.get("isError") or "unavailable" in text:
            return "unavailable" if ("not resolved" in text or "unavailable" in text) else "error"
        structured = result.get("structuredContent")
        value = structured.get("result") if isinstance(structured, dict) and "result" in structured else text
        return str(value).strip().strip('"')

    def poll(self, want: set[str], timeout: float, interval: float) -> tuple[float, str, int]:
        deadline = time.perf_counter() + timeout
        calls = 0
        while True:
            answer = self.ask()
            calls += 1
            now = time.perf_counter()
            if answer in want:
                return now, answer, calls
            if now > deadline:
                raise TimeoutError(f"no answer in {want} within {timeout} s (last: {answer})")
            time.sleep(interval)


class Side:
    """One stack: its registry, and how its agents start."""

    def __init__(self, name: str, tmp: Path) -> None:
        self.name, self.tmp = name, tmp
        self.ours = name != "mcp"
        self.registry_cm: Any = None
        self.procs: list[Proc] = []

    def start_registry(self) -> str:
        if self.ours:
            port = free_port()
            argv = [PYTHON, "-m", "mesh_framework.cli", "registry", "--port", str(port), "--timeout", "20"]
            proc = Proc(f"{self.name}-registry", argv, env=clean_env({}), cwd=ROOT, log_dir=self.tmp)
            self.procs.append(proc)
            self.url = f"http://{HOST}:{port}"
            wait_for(lambda: http_status(self.url + "/health") == 200, 30, "registry /health", procs=[proc])
        else:
            env = {"HEALTH_CHECK_INTERVAL": "10", "DEFAULT_TIMEOUT_THRESHOLD": "20"}
            self.registry_cm = mm.run_mesh_registry(self.tmp / "mcp-registry", env=env)
            self.url = self.registry_cm.__enter__().url
        return self.url

    def spawn(self, role: str, letter: str = "", *, provider_interval: str | None = None) -> Proc:
        env = {"MCP_MESH_REGISTRY_URL": self.url}
        if provider_interval:
            env["MCP_MESH_HEALTH_INTERVAL"] = provider_interval
        if letter:
            env["BENCH_WHO"] = letter
        label = f"{self.name}-{role}{letter}"
        if self.ours:
            port = free_port()
            env["MESH_LOGGING__LEVEL"] = "WARNING"
            if self.name == "heartbeat":
                env["MESH_REGISTRY__PUSH"] = "false"
            module = "bench_who" if role == "who" else "bench_ask"
            argv = [PYTHON, "-m", "mesh_framework.cli", "run", module, "--host", HOST, "--port", str(port)]
            proc = Proc(label, argv, env=clean_env(env), cwd=AGENTS, log_dir=self.tmp)
            proc.port, proc.endpoint = port, f"http://{HOST}:{port}"
        else:
            env.update({"HOST": HOST, "MCP_MESH_HTTP_HOST": HOST, "MCP_MESH_HTTP_PORT": "0"})
            env["PYTHONUNBUFFERED"] = "1"
            script = AGENTS / ("mesh_who.py" if role == "who" else "mesh_ask.py")
            proc = Proc(
                label, [str(mm.MESH_PYTHON), str(script)], env=clean_env(env), cwd=AGENTS, log_dir=self.tmp
            )
        self.procs.append(proc)
        return proc

    def wait_registered(self, proc: Proc, name: str, known: set[str], timeout: float = 60) -> Proc:
        def registered() -> bool:
            for agent in list_agents(self.url):
                mine = agent.get("endpoint") == proc.endpoint if self.ours else agent.get("id") not in known
                if agent.get("name") == name and mine and agent.get("status") == "healthy":
                    proc.agent_id = str(agent["id"])
                    proc.endpoint = str(agent["endpoint"])
                    proc.port = int(proc.endpoint.rsplit(":", 1)[1])
                    return True
            return False

        wait_for(registered, timeout, f"{proc.label} registered", procs=[proc], interval=0.02)
        return proc

    def known(self) -> set[str]:
        return {str(a.get("id")) for a in list_agents(self.url)}

    def created_at(self, proc: Proc) -> float | None:
        for agent in list_agents(self.url):
            if agent.get("id") == proc.agent_id:
                return parse_ts(str(agent.get("created_at", "")))
        return None

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.stop(grace=5)
        if self.registry_cm is not None:
            self.registry_cm.__exit__(None, None, None)


def names(side: Side) -> tuple[str, str]:
    return ("bench-who", "bench-ask") if side.ours else ("mesh-who", "mesh-ask")


# -- the phases: set up per side, one run, the side's summary; sides take turns run by run -----------------


@dataclass
class Phase:
    setup: Callable[[Side], Any]
    one: Callable[[Side, Any, int], dict[str, Any]]
    finish: Callable[[Side, Any, list[dict[str, Any]]], dict[str, Any]]


def interleaved(phase: Phase, sides: list[Side], runs: int) -> dict[str, dict[str, Any]]:
    """Every side set up at once, then runs taking turns (the order rotates from run to run), so that a
    change in the machine's load during the phase reaches every side alike."""
    states = {side.name: phase.setup(side) for side in sides}
    rows: dict[str, list[dict[str, Any]]] = {side.name: [] for side in sides}
    for run in range(runs):
        shift = run % len(sides)
        for side in sides[shift:] + sides[:shift]:
            rows[side.name].append(phase.one(side, states[side.name], run))
    return {side.name: phase.finish(side, states[side.name], rows[side.name]) for side in sides}


def _consumer(side: Side) -> tuple[Proc, Client]:
    _, ask_name = names(side)
    consumer = side.wait_registered(side.spawn("ask"), ask_name, side.known())
    assert consumer.port is not None
    return consumer, Client(consumer.port, TOOL[side.name])


def _close(state: tuple[Proc, Client]) -> None:
    consumer, client = state
    if client.conn is not None:
        client.conn.close()
    consumer.stop()


def start_setup(side: Side) -> tuple[Proc, Client]:
    consumer, client = _consumer(side)
    client.ask()
    client.poll({"unavailable"}, 60, 0.05)
    return consumer, client


def start_one(side: Side, state: tuple[Proc, Client], run: int) -> dict[str, Any]:
    who_name, _ = names(side)
    _, client = state
    known = side.known()
    provider = side.spawn("who", "a")
    t_ok, _, calls = client.poll({"a"}, 60, 0.02)
    side.wait_registered(provider, who_name, known)
    created = side.created_at(provider)
    registered_s = created - provider.t_exec_wall if created is not None else None
    t_stop = time.perf_counter()
    provider.stop()
    t_gone, _, _ = client.poll({"unavailable"}, 60, 0.02)
    start_s = t_ok - provider.t_exec
    log(f"  {side.name} start run {run}: {start_s:.3f} s (registered after {registered_s})")
    return {
        "start_to_ok_s": round(start_s, 3),
        "exec_to_registered_s": round(registered_s, 3) if registered_s is not None else None,
        "registered_to_ok_ms": round((start_s - registered_s) * 1000, 1) if registered_s else None,
        "polls": calls,
        "stop_to_unavailable_s": round(t_gone - t_stop, 3),
    }


def start_finish(side: Side, state: tuple[Proc, Client], rows: list[dict[str, Any]]) -> dict[str, Any]:
    _close(state)
    return {"runs": rows, **medians(rows)}


def listed_setup(side: Side) -> tuple[Proc, Client]:
    """The consumer is left alone while the provider starts; the moment the registry lists it, one call."""
    consumer, client = _consumer(side)
    client.poll({"unavailable"}, 60, 0.05)
    return consumer, client


def listed_one(side: Side, state: tuple[Proc, Client], run: int) -> dict[str, Any]:
    who_name, _ = names(side)
    _, client = state
    time.sleep(1)  # past the rate limit of the wake an unresolved call gives the heartbeat
    known = side.known()
    provider = side.spawn("who", "a")
    side.wait_registered(provider, who_name, known, timeout=120)
    t_listed = time.perf_counter()
    first = client.ask()
    t_ok = time.perf_counter() if first == "a" else client.poll({"a"}, 60, 0.01)[0]
    row = {"first_call": first, "listed_to_ok_ms": round((t_ok - t_listed) * 1000, 1)}
    log(f"  {side.name} listed run {run}: first call {first}, ok after {row['listed_to_ok_ms']} ms")
    provider.stop()
    client.poll({"unavailable"}, 60, 0.05)
    return row


def listed_finish(side: Side, state: tuple[Proc, Client], rows: list[dict[str, Any]]) -> dict[str, Any]:
    _close(state)
    return {
        "runs": rows,
        "first_call_ok": sum(1 for r in rows if r["first_call"] == "a"),
        "listed_to_ok_median_ms": round(statistics.median(r["listed_to_ok_ms"] for r in rows), 1),
    }


def switch_one(side: Side, state: tuple[Proc, Client], run: int, window: float) -> dict[str, Any]:
    who_name, _ = names(side)
    _, client = state
    providers = {}
    for letter in ("a", "b"):
        known = side.known()
        proc = side.spawn("who", letter, provider_interval=PROVIDER_HEARTBEAT)
        providers[letter] = side.wait_registered(proc, who_name, known)
    # the consumer knows both (its answer lists the alternate): wait for a steady answer
    client.poll({"a", "b"}, 60, 0.05)
    time.sleep(6)  # past one consumer heartbeat, so every side starts from a settled topology
    current = client.ask()
    other = "b" if current == "a" else "a"
    down = providers[current]
    request = urllib.request.Request(f"{side.url}/agents/{down.agent_id}", method="DELETE")
    t0 = time.perf_counter()
    urllib.request.urlopen(request, timeout=5).close()
    try:
        t_switch, _, calls = client.poll({other}, window, 0.01)
        switched_ms: float | None = round((t_switch - t0) * 1000, 1)
    except TimeoutError:
        switched_ms, calls = None, 0
    log(f"  {side.name} switch run {run}: {switched_ms} ms")
    for proc in providers.values():
        proc.stop()
    client.poll({"unavailable"}, 60, 0.05)
    return {"down_to_switched_ms": switched_ms, "polls": calls, "down": current}


def switch_finish(
    side: Side, state: tuple[Proc, Client], rows: list[dict[str, Any]], window: float
) -> dict[str, Any]:
    _close(state)
    switched = [r["down_to_switched_ms"] for r in rows if r["down_to_switched_ms"] is not None]
    return {
        "runs": rows,
        "median_ms": round(statistics.median(switched), 1) if switched else None,
        "not_switched": sum(1 for r in rows if r["down_to_switched_ms"] is None),
        "window_s": window,
    }


def medians(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def median(key: str) -> float | None:
        values = [r[key] for r in rows if r[key] is not None]
        return round(statistics.median(values), 3) if values else None

    return {
        "start_to_ok_median_s": median("start_to_ok_s"),
        "exec_to_registered_median_s": median("exec_to_registered_s"),
        "registered_to_ok_median_ms": median("registered_to_ok_ms"),
        "stop_to_unavailable_median_s": median("stop_to_unavailable_s"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per measure and side (default 5)")
    parser.add_argument("--sides", default="push,heartbeat,mcp", help="comma list of push,heartbeat,mcp")
    parser.add_argument("--window", type=float, default=15.0, help="seconds to wait for a switch")
    parser.add_argument("--logs", type=Path, help="keep the processes' logs in this folder")
    args = parser.parse_args()
    chosen = [s.strip() for s in args.sides.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SIDES]
    if unknown:
        parser.error(f"unknown side(s) {', '.join(unknown)}; choose from {', '.join(SIDES)}")
    if "mcp" in chosen and mm.missing_tools():
        parser.error("MCP Mesh is not installed: run scripts/install-mcp-mesh.sh (or --sides push,heartbeat)")
    run = Run(short=args.runs < 5 or len(chosen) < len(SIDES))
    logs = args.logs or Path(tempfile.mkdtemp(prefix="topology-"))
    log(f"process logs in {logs}")
    sides = [Side(name, logs / name) for name in chosen]
    window = args.window
    try:
        for side in sides:
            side.tmp.mkdir(parents=True, exist_ok=True)
            side.start_registry()
        log("start -> first success")
        start = interleaved(Phase(start_setup, start_one, start_finish), sides, args.runs)
        log("registry lists the provider -> first success")
        listed = interleaved(Phase(listed_setup, listed_one, listed_finish), sides, args.runs)
        log("DOWN -> switched")
        switch = interleaved(
            Phase(
                _consumer,
                lambda side, state, n: switch_one(side, state, n, window),
                lambda side, state, rows: switch_finish(side, state, rows, window),
            ),
            sides,
            args.runs,
        )
        results = [
            {
                "side": side.name,
                "label": SIDES[side.name],
                "start": start[side.name],
                "listed": listed[side.name],
                "switch": switch[side.name],
                "commands": {
                    p.label: re.sub(r"--port \d+", "--port <port>", display(p.argv)) for p in side.procs[:4]
                },
            }
            for side in sides
        ]
    finally:
        for side in sides:
            side.close()
        stop_all()
    if args.logs is None:
        shutil.rmtree(logs, ignore_errors=True)
    save_results("topology", run, {"runs": args.runs, "window_s": args.window, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
