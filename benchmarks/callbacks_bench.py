"""Tool callbacks over catalog MCP servers, beside the bare `mcp` SDK client, in one run.

1. Per call: `await callback.call(args)` (McpToolCallbackProvider over a catalog) against the bare SDK
   `Client(...).call_tool(...)` on the same kind of server: server-everything `echo` over stdio (one node
   process each), server-everything `streamableHttp` and our benchmark agent's `add` over HTTP (one
   server, both clients). Sequential calls after a warm-up, in rounds that interleave the targets (the
   order rotates every round); p50/p99 of every call, the benchmark process's CPU per call and the
   server processes' (/proc). Then the callback's own CPU per call in process, over a stub session, and
   what the SDK's per-request deadline costs (the callback's connection sets `call_timeout`).
2. Discovery, cold: `get_tool_callbacks()` over 5 server-everything stdio processes at once, against each
   server alone (slowest, and the sum of the five) and against the bare SDK doing the same (enter the
   client + `tools/list`, alone and five at once); medians of the repeats.
3. The gateway hop: `echo` through an agent with `mcp.gateway: [everything]` (callbacks_servers/
   gateway_agent, which starts server-everything over stdio itself) against calling server-everything's
   stdio directly (and beside our agent serving its own tool over HTTP); skipped with a message when this
   checkout has no gateway.

Every server is a subprocess on 127.0.0.1 (ephemeral ports for HTTP), stopped by PID at the end, also on
failure. Results: benchmarks/results/callbacks.json (benchmarks/report.py writes the page from it).

Usage: .venv/bin/python benchmarks/callbacks_bench.py [--quick] [--calls 2000] [--rounds 10]
              [--http-calls 1000] [--discovery-runs 5] [--servers 5] [--skip-gateway] [--time-limit 900]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import os
import shutil
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import (
    BENCH_DIR,
    HOST,
    PYTHON,
    ROOT,
    Run,
    Server,
    cpu_seconds,
    free_port,
    median,
    save_results,
    wait_until_answers,
)
from processes import Proc, child_pids

from mesh_framework.callbacks import McpToolCallbackProvider, ToolCallback
from mesh_framework.catalog import HttpDefinition, McpServerCatalog, StdioDefinition

SERVERS_DIR = BENCH_DIR / "callbacks_servers"
EVERYTHING = ROOT / ".tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = shutil.which("node") or "node"
EVERYTHING_SHOWN = os.path.relpath(EVERYTHING, ROOT)
GATEWAY_ARGS = ("--config", "gateway_agent/config", "--host", HOST, "--port")

Call = Callable[[], Awaitable[Any]]


# -- processes ------------------------------------------------------------------------------------


async def wait_for_tool(proc: Proc, url: str, tool: str, timeout: float = 30.0) -> None:
    """Poll with a bare client until `tool` is listed (the server answers and its tools are there)."""
    from mcp.client.client import Client

    deadline = time.perf_counter() + timeout
    last = ""
    while time.perf_counter() < deadline:
        proc.check()
        try:
            async with Client(url, cache=None) as client:
                if tool in [t.name for t in (await client.list_tools()).tools]:
                    return
        except Exception as exc:
            last = f"{type(exc).__name__}: {exc}"
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{proc.label} did not list {tool!r} within {timeout}s ({last}):\n{proc.tail()}")


def everything_stdio() -> StdioDefinition:
    return StdioDefinition(NODE, [str(EVERYTHING), "stdio"])


# -- clients --------------------------------------------------------------------------------------


@dataclass
class Target:
    """One way to call a tool: `call()` once, `check` its answer; `pids`: the server processes whose CPU
    is counted per call (empty when unknown)."""

    call: Call
    check: Callable[[Any], bool]
    pids: tuple[int, ...] = ()


def spawned(before: set[int]) -> tuple[int, ...]:
    """Child processes of this benchmark that appeared since `before` (a stdio server just started)."""
    return tuple(sorted(set(child_pids(os.getpid())) - before))


class Clients:
    """Bare SDK clients and callback providers, each entered once and closed at the end; a stdio server
    each one starts is noted in `pids`."""

    def __init__(self, stack: contextlib.AsyncExitStack) -> None:
        self.stack = stack
        self.devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - closed by the stack
        self.pids: dict[Any, tuple[int, ...]] = {}

    async def bare_stdio(self) -> Any:
        from mcp.client.client import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        definition = everything_stdio()
        params = StdioServerParameters(command=definition.command, args=list(definition.args))
        before = set(child_pids(os.getpid()))
        client = await self.stack.enter_async_context(
            Client(stdio_client(params, errlog=self.devnull), cache=None)
        )
        self.pids[id(client)] = spawned(before)
        return client

    async def bare_http(self, url: str) -> Any:
        from mcp.client.client import Client

        return await self.stack.enter_async_context(Client(url, cache=None))

    async def callback(self, server: str, definition: Any, tool: str) -> ToolCallback:
        catalog = McpServerCatalog.builder().add(server, definition).build()
        provider = McpToolCallbackProvider.from_catalog(catalog)
        self.stack.push_async_callback(provider.aclose)
        before = set(child_pids(os.getpid()))
        callback = await provider.find(tool)
        self.pids[id(callback)] = spawned(before)
        return callback

    def bare(self, client: Any, tool: str, arguments: dict[str, Any], check: Any, pids: Any = ()) -> Target:
        async def call() -> Any:
            return await client.call_tool(tool, arguments)

        return Target(call, check, tuple(pids) or self.pids.get(id(client), ()))

    def of(self, callback: ToolCallback, arguments: dict[str, Any], check: Any, pids: Any = ()) -> Target:
        async def call() -> Any:
            return await callback.call(arguments)

        return Target(call, check, tuple(pids) or self.pids.get(id(callback), ()))


def echo_ok(result: Any) -> bool:
    if isinstance(result, str):
        return result == "Echo: bench"
    return not result.is_error and result.content[0].text == "Echo: bench"


def add_ok(result: Any) -> bool:
    if isinstance(result, int):
        return result == 3
    return not result.is_error and result.structured_content in ({"result": 3}, None)


# -- per-call measurement --------------------------------------------------------------------------


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def _server_cpu(pids: tuple[int, ...]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


async def measure_calls(targets: dict[str, Target], calls: int, rounds: int, warmup: int) -> dict[str, Any]:
    """Every target `calls` sequential calls, split in `rounds` blocks; the order rotates every round."""
    names = list(targets)
    for name, target in targets.items():
        for _ in range(warmup):
            result = await target.call()
        if not target.check(result):
            raise RuntimeError(f"{name}: unexpected answer {result!r}")
    per_round = max(1, calls // rounds)
    samples: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, float] = dict.fromkeys(names, 0.0)
    server: dict[str, float] = dict.fromkeys(names, 0.0)
    wall: dict[str, float] = dict.fromkeys(names, 0.0)
    round_p50: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            call, pids = targets[name].call, targets[name].pids
            gc.collect()
            block: list[float] = []
            s0, c0, w0 = _server_cpu(pids), time.process_time(), time.perf_counter()
            for _ in range(per_round):
                t0 = time.perf_counter_ns()
                await call()
                block.append((time.perf_counter_ns() - t0) / 1000)
            cpu[name] += time.process_time() - c0
            wall[name] += time.perf_counter() - w0
            server[name] += _server_cpu(pids) - s0
            samples[name] += block
            round_p50[name].append(median(block))
    out: dict[str, Any] = {}
    for name in names:
        values = sorted(samples[name])
        out[name] = {
            "calls": len(values),
            "p50_us": percentile(values, 0.50),
            "p99_us": percentile(values, 0.99),
            "mean_us": sum(values) / len(values),
            "client_cpu_us": cpu[name] / len(values) * 1e6,
            "server_cpu_us": server[name] / len(values) * 1e6 if targets[name].pids else None,
            "calls_per_s": len(values) / wall[name],
            "round_p50_us": round_p50[name],
        }
    return out


def ratios(results: dict[str, Any], ours: str, anchor: str) -> dict[str, Any]:
    a, b = results[ours], results[anchor]
    per_round = [x / y for x, y in zip(a["round_p50_us"], b["round_p50_us"], strict=True)]
    return {
        "ours": ours,
        "anchor": anchor,
        "p50": a["p50_us"] / b["p50_us"],
        "p99": a["p99_us"] / b["p99_us"],
        "mean": a["mean_us"] / b["mean_us"],
        "client_cpu": a["client_cpu_us"] / b["client_cpu_us"],
        "per_round_p50": per_round,
        "median_round_p50": median(per_round),
    }


async def callback_own_cost(calls: int) -> dict[str, Any] | None:
    """The callback's own CPU per call, in process: its SDK session replaced by a stub that answers at once
    (best of 5 blocks of `calls`). None when McpConnection's internals changed (`_client`, `loop`)."""
    import mcp_types as types

    from mesh_framework.callbacks import McpConnection, McpToolCallback, ToolDefinition

    answer = types.CallToolResult(
        content=[types.TextContent(type="text", text="Echo: bench")], is_error=False
    )

    class StubSession:
        async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> Any:
            return answer

    connection = McpConnection("stub", everything_stdio())
    if not hasattr(connection, "_client") or not hasattr(connection, "loop"):
        return None
    stub = StubSession()
    connection._client = stub  # type: ignore[assignment]
    connection.loop = asyncio.get_running_loop()
    callback = McpToolCallback(connection, ToolDefinition(name="echo", connection="stub", source_name="echo"))
    ways: dict[str, Call] = {
        "stub_session": lambda: stub.call_tool("echo", ECHO),
        "callback_call_result": lambda: callback.call_result(ECHO),
        "callback_call": lambda: callback.call(ECHO),
    }
    if await callback.call(ECHO) != "Echo: bench":
        return None
    best: dict[str, float] = {}
    for name, way in ways.items():
        times = []
        for _ in range(5):
            c0 = time.process_time()
            for _ in range(calls):
                await way()
            times.append((time.process_time() - c0) / calls * 1e6)
        best[name] = min(times)
    return {
        "calls": calls,
        "best_us": best,
        "own_us": best["callback_call"] - best["stub_session"],
        "own_call_result_us": best["callback_call_result"] - best["stub_session"],
        "deadline_us": await deadline_cost(calls),
    }


async def deadline_cost(calls: int) -> float:
    """What a request deadline costs in the SDK (McpConnection passes `call_timeout`, 30 s by default, as
    the session's read timeout; the bare session has none): `anyio.move_on_after(30)` against
    `move_on_after(None)` around one checkpoint, best of 6 blocks of `calls` each."""
    import anyio
    import anyio.lowlevel

    best: dict[Any, float] = {}
    for timeout in (None, 30.0, None, 30.0):
        for _ in range(3):
            c0 = time.process_time()
            for _ in range(calls):
                with anyio.move_on_after(timeout):
                    await anyio.lowlevel.checkpoint()
            spent = (time.process_time() - c0) / calls * 1e6
            best[timeout] = min(best.get(timeout, spent), spent)
    return best[30.0] - best[None]


# -- discovery ------------------------------------------------------------------------------------


async def discover_ours(catalog: McpServerCatalog, names: list[str]) -> tuple[float, int]:
    provider = McpToolCallbackProvider.from_catalog(catalog, names)
    try:
        t0 = time.perf_counter()
        callbacks = await provider.get_tool_callbacks()
        elapsed = time.perf_counter() - t0
        if provider.errors:
            raise RuntimeError(f"discovery failed: {provider.errors}")
        return elapsed, len(callbacks)
    finally:
        await provider.aclose()


async def discover_bare(count: int, devnull: Any) -> tuple[float, int]:
    """`count` bare clients at once: each enters (start + initialize) and lists its tools; the time until
    the last list arrived. Each client lives in its own task (it must be left in the task that entered it)."""
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    definition = everything_stdio()
    done = asyncio.Event()
    listed: list[int] = []

    async def one() -> None:
        params = StdioServerParameters(command=definition.command, args=list(definition.args))
        async with Client(stdio_client(params, errlog=devnull), cache=None) as client:
            listed.append(len((await client.list_tools()).tools))
            if len(listed) == count:
                finished.append(time.perf_counter())
                done.set()
            await done.wait()

    finished: list[float] = []
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(one()) for _ in range(count)]
    try:
        await asyncio.wait_for(done.wait(), 60)
    finally:
        done.set()
        await asyncio.gather(*tasks)
    return finished[0] - t0, sum(listed)


async def measure_discovery(servers: int, runs: int) -> dict[str, Any]:
    nproc = len(os.sched_getaffinity(0))
    names = [f"everything{i + 1}" for i in range(servers)]
    builder = McpServerCatalog.builder()
    for name in names:
        builder.add(name, everything_stdio())
    catalog = builder.build()
    rows: dict[str, list[float]] = {
        "ours_parallel": [],
        "ours_slowest_single": [],
        "ours_sum_singles": [],
        "bare_parallel": [],
        "bare_single": [],
    }
    tools_found = 0
    start_cpu: list[float] = []  # CPU of one server process, start to exit (reaped children's times)
    with open(os.devnull, "w") as devnull:
        await discover_ours(catalog, names[:1])  # untimed: warms the page cache for node and the server
        for run in range(runs):
            steps = ["ours_parallel", "singles", "bare_parallel", "bare_single"]
            steps = steps[run % len(steps) :] + steps[: run % len(steps)]
            for step in steps:
                await asyncio.sleep(0.3)  # let the last processes' exit settle
                if step == "ours_parallel":
                    elapsed, tools_found = await discover_ours(catalog, names)
                    rows["ours_parallel"].append(elapsed)
                elif step == "singles":
                    singles = []
                    for name in names:
                        before = _children_cpu()
                        singles.append((await discover_ours(catalog, [name]))[0])
                        await asyncio.sleep(0.1)
                        start_cpu.append(_children_cpu() - before)
                    rows["ours_slowest_single"].append(max(singles))
                    rows["ours_sum_singles"].append(sum(singles))
                elif step == "bare_parallel":
                    rows["bare_parallel"].append((await discover_bare(servers, devnull))[0])
                else:
                    rows["bare_single"].append((await discover_bare(1, devnull))[0])
    summary = {key: median(values) for key, values in rows.items()}
    return {
        "servers": servers,
        "runs": runs,
        "tools_found_parallel": tools_found,
        "samples_s": rows,
        "median_s": summary,
        "parallel_over_slowest": summary["ours_parallel"] / summary["ours_slowest_single"],
        "parallel_over_sum": summary["ours_parallel"] / summary["ours_sum_singles"],
        "parallel_over_bare_parallel": summary["ours_parallel"] / summary["bare_parallel"],
        "single_over_bare_single": median(rows["ours_sum_singles"]) / servers / summary["bare_single"],
        "server_start_cpu_s": median(start_cpu) if start_cpu else None,
        "cpu_floor_s": median(start_cpu) * servers / nproc if start_cpu else None,
    }


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


# -- the run ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def started(procs: list[Any]) -> Iterator[list[Any]]:
    try:
        yield procs
    finally:
        for proc in reversed(procs):
            proc.stop()


def gateway_available() -> str | None:
    """None when this checkout re-serves catalog servers (`mcp.gateway`), else why not."""
    homes = (
        "mesh_framework.callbacks.catalog_gateway",
        "mesh_framework.gateway",
    )  # its module, now and before
    if all(importlib.util.find_spec(home) is None for home in homes):
        return (
            "the catalog gateway (mesh_framework.callbacks.catalog_gateway) does not exist in this checkout"
        )
    from mesh_framework.config import settings

    source = Path(settings.__file__).read_text()
    if "gateway" not in source:
        return "the settings have no `mcp.gateway`"
    return None


ECHO = {"message": "bench"}
ADD = {"a": 1, "b": 2}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"commands": {}}
    procs: list[Any] = []
    with started(procs):
        # HTTP servers first (they start while nothing is measured).
        http_port = free_port()
        everything_http = Proc(
            "everything-http",
            [NODE, str(EVERYTHING), "streamableHttp"],
            env={**os.environ, "PORT": str(http_port)},
            port=http_port,
        )
        procs.append(everything_http)
        agent = Server("mesh")
        procs.append(agent)
        gateway_reason = None if not args.skip_gateway else "--skip-gateway"
        gateway_reason = gateway_reason or gateway_available()
        gateway = None
        if gateway_reason is None:
            gw_port = free_port()
            gateway = Proc(
                "gateway",
                [PYTHON, "-m", "mesh_framework.cli", "run", "gateway_agent", *GATEWAY_ARGS, str(gw_port)],
                env={
                    **os.environ,
                    "NODE": NODE,
                    "EVERYTHING": str(EVERYTHING),
                    "MESH_REGISTRY__ENABLED": "false",
                },
                cwd=SERVERS_DIR,
                port=gw_port,
            )
            procs.append(gateway)
        everything_url = f"http://{HOST}:{http_port}/mcp"
        agent_url = f"http://{HOST}:{agent.port}/mcp"
        await asyncio.to_thread(wait_until_answers, agent)
        await wait_for_tool(everything_http, everything_url, "echo")
        out["commands"] = {
            "everything-stdio": f"node {EVERYTHING_SHOWN} stdio",
            "everything-http": f"PORT=<port> node {EVERYTHING_SHOWN} streamableHttp",
            "agent": "cd benchmarks && ../.venv/bin/python -m mesh_framework.cli run bench_agent "
            "--host 127.0.0.1 --port <port> --config bench_agent/config",
            "gateway": "cd benchmarks/callbacks_servers && NODE=node EVERYTHING=<server-everything "
            "dist/index.js> ../../.venv/bin/python -m mesh_framework.cli run gateway_agent "
            "--host 127.0.0.1 --port <port> --config gateway_agent/config",
        }

        async with contextlib.AsyncExitStack() as stack:
            clients = Clients(stack)
            bare_stdio = await clients.bare_stdio()
            cb_stdio = await clients.callback("everything", everything_stdio(), "echo")
            bare_ehttp = await clients.bare_http(everything_url)
            cb_ehttp = await clients.callback("everything", HttpDefinition(everything_url), "echo")
            bare_agent = await clients.bare_http(agent_url)
            cb_agent = await clients.callback("bench", HttpDefinition(agent_url), "add")
            ehttp_pids, agent_pids = (everything_http.pid,), (agent.pid,)

            print(f"per call, stdio: {args.calls} calls each, {args.rounds} rounds ...", flush=True)
            stdio = await measure_calls(
                {
                    "bare-stdio": clients.bare(bare_stdio, "echo", ECHO, echo_ok),
                    "callback-stdio": clients.of(cb_stdio, ECHO, echo_ok),
                },
                args.calls,
                args.rounds,
                args.warmup,
            )
            print(f"per call, HTTP: {args.http_calls} calls each, {args.rounds} rounds ...", flush=True)
            http = await measure_calls(
                {
                    "bare-everything-http": clients.bare(bare_ehttp, "echo", ECHO, echo_ok, ehttp_pids),
                    "callback-everything-http": clients.of(cb_ehttp, ECHO, echo_ok, ehttp_pids),
                    "bare-agent-http": clients.bare(bare_agent, "add", ADD, add_ok, agent_pids),
                    "callback-agent-http": clients.of(cb_agent, ADD, add_ok, agent_pids),
                },
                args.http_calls,
                args.rounds,
                args.warmup,
            )
            out["per_call"] = {**stdio, **http}
            out["ratios"] = [
                ratios(out["per_call"], "callback-stdio", "bare-stdio"),
                ratios(out["per_call"], "callback-everything-http", "bare-everything-http"),
                ratios(out["per_call"], "callback-agent-http", "bare-agent-http"),
            ]
            for r in out["ratios"]:
                print(f"   {r['ours']} / {r['anchor']}: p50 {r['p50']:.2f}, client CPU {r['client_cpu']:.2f}")
            out["own_cost"] = await callback_own_cost(args.own_calls)

            if gateway is not None:
                gateway_url = f"http://{HOST}:{gateway.port}/mcp"
                await wait_for_tool(gateway, gateway_url, "echo")
                gateway_pids = (gateway.pid, *child_pids(gateway.pid))  # the agent and its stdio server
                bare_gw = await clients.bare_http(gateway_url)
                cb_gw = await clients.callback("gateway", HttpDefinition(gateway_url), "echo")
                print(f"gateway: {args.http_calls} calls each, {args.rounds} rounds ...", flush=True)
                gw = await measure_calls(
                    {
                        "direct-bare-stdio": clients.bare(bare_stdio, "echo", ECHO, echo_ok),
                        "direct-callback-stdio": clients.of(cb_stdio, ECHO, echo_ok),
                        "direct-bare-everything-http": clients.bare(
                            bare_ehttp, "echo", ECHO, echo_ok, ehttp_pids
                        ),
                        "plain-agent-bare-http": clients.bare(bare_agent, "add", ADD, add_ok, agent_pids),
                        "gateway-bare-http": clients.bare(bare_gw, "echo", ECHO, echo_ok, gateway_pids),
                        "gateway-callback-http": clients.of(cb_gw, ECHO, echo_ok, gateway_pids),
                    },
                    args.http_calls,
                    args.rounds,
                    args.warmup,
                )
                out["gateway"] = {"per_call": gw}
                out["gateway"]["ratios"] = [
                    ratios(gw, "gateway-bare-http", "direct-callback-stdio"),
                    ratios(gw, "gateway-bare-http", "direct-bare-stdio"),
                    ratios(gw, "gateway-bare-http", "direct-bare-everything-http"),
                    ratios(gw, "gateway-bare-http", "plain-agent-bare-http"),
                    ratios(gw, "gateway-callback-http", "direct-callback-stdio"),
                ]
                for r in out["gateway"]["ratios"]:
                    print(f"   {r['ours']} / {r['anchor']}: p50 {r['p50']:.2f}")
            else:
                out["gateway"] = {"skipped": gateway_reason}
                print(f"gateway: skipped ({gateway_reason})", flush=True)

        # The HTTP servers are not needed for discovery: stop them so that they take no CPU.
        for proc in reversed(procs):
            proc.stop()
        procs.clear()
    print(f"discovery: {args.servers} stdio servers, {args.discovery_runs} runs ...", flush=True)
    out["discovery"] = await measure_discovery(args.servers, args.discovery_runs)
    d = out["discovery"]
    print(
        f"   parallel {d['median_s']['ours_parallel']:.3f} s, slowest single "
        f"{d['median_s']['ours_slowest_single']:.3f} s, sum {d['median_s']['ours_sum_singles']:.3f} s"
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few calls and runs (figures noisy)")
    parser.add_argument("--calls", type=int, default=None, help="stdio calls per target (default 2000)")
    parser.add_argument("--http-calls", type=int, default=None, help="HTTP calls per target (default 1000)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 10)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up calls per target (default 200)")
    parser.add_argument("--discovery-runs", type=int, default=None, help="discovery repeats (default 5)")
    parser.add_argument("--own-calls", type=int, default=None, help="in-process stub calls (default 20000)")
    parser.add_argument("--servers", type=int, default=5, help="stdio servers discovered at once")
    parser.add_argument("--skip-gateway", action="store_true")
    parser.add_argument("--time-limit", type=float, default=900.0, help="stop everything after this (s)")
    args = parser.parse_args()
    quick = args.quick
    args.calls = args.calls or (200 if quick else 2000)
    args.http_calls = args.http_calls or (100 if quick else 1000)
    args.rounds = args.rounds or (2 if quick else 10)
    args.warmup = args.warmup or (20 if quick else 200)
    args.discovery_runs = args.discovery_runs or (1 if quick else 5)
    args.own_calls = args.own_calls or (2000 if quick else 20000)
    if not EVERYTHING.exists() or not shutil.which("node"):
        print("callbacks_bench: needs node and server-everything (run scripts/install-node-tools.sh)")
        return 1
    run_record = Run(short=quick or args.calls < 2000 or args.rounds < 10)
    try:
        result = asyncio.run(asyncio.wait_for(run(args), args.time_limit))
    except TimeoutError:
        print(f"callbacks_bench: stopped after --time-limit {args.time_limit:g} s (servers stopped)")
        return 1
    result["args"] = vars(args)
    save_results("callbacks", run_record, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
