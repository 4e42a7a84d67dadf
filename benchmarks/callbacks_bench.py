"""Tool callbacks over catalog MCP servers, beside the bare `mcp` SDK client, in one run (DESIGN.md §6).

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
failure. Results: benchmarks/results/callbacks.json and the section "Tool callbacks and the catalog" at the
end of docs/benchmarks.md (replaced if present, appended otherwise; run_all.sh runs this script after
report.py, which rewrites the rest of that file).

Usage: .venv/bin/python benchmarks/callbacks_bench.py [--quick] [--calls 2000] [--rounds 10]
              [--http-calls 1000] [--discovery-runs 5] [--servers 5] [--skip-gateway] [--no-doc]
              [--time-limit 900]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import (
    BENCH_DIR,
    HOST,
    PYTHON,
    RESULTS_DIR,
    ROOT,
    Server,
    cpu_seconds,
    free_port,
    invocation,
    machine_info,
    median,
    wait_until_answers,
    write_json,
)

from mesh_framework.callbacks import McpToolCallbackProvider, ToolCallback
from mesh_framework.catalog import HttpDefinition, McpServerCatalog, StdioDefinition

SERVERS_DIR = BENCH_DIR / "callbacks_servers"
EVERYTHING = ROOT / ".tools/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
NODE = shutil.which("node") or "node"
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Tool callbacks and the catalog"
RESULT_FILE = RESULTS_DIR / "callbacks.json"
EVERYTHING_SHOWN = os.path.relpath(EVERYTHING, ROOT)
X = "\u00d7"  # the multiplication sign of the report
GATEWAY_ARGS = ("--config", "gateway_agent/config", "--host", HOST, "--port")

Call = Callable[[], Awaitable[Any]]


# -- processes ------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


class Proc:
    """A server subprocess (127.0.0.1, a free port), stopped by its PID; children it leaves are stopped
    by theirs (the gateway agent's stdio server)."""

    def __init__(self, label: str, argv: list[str], port: int, env: dict[str, str], cwd: Path) -> None:
        self.label, self.argv, self.port = label, argv, port
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
            "w+b", prefix=f"bench-{label}-", suffix=".log", delete=False
        )
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.pid = self.proc.pid

    def log_text(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        children = {child: _cmdline(child) for child in _children(self.pid)}
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=8)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        for child, cmdline in children.items():  # normally gone: the agent closes its connections
            if cmdline and _cmdline(child) == cmdline:  # still that process (not a reused PID)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGTERM)
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)


async def wait_for_tool(proc: Proc, url: str, tool: str, timeout: float = 30.0) -> None:
    """Poll with a bare client until `tool` is listed (the server answers and its tools are there)."""
    from mcp.client.client import Client

    deadline = time.perf_counter() + timeout
    last = ""
    while time.perf_counter() < deadline:
        if proc.proc.poll() is not None:
            raise RuntimeError(f"{proc.label} exited with {proc.proc.returncode}:\n{proc.log_text()}")
        try:
            async with Client(url, cache=None) as client:
                if tool in [t.name for t in (await client.list_tools()).tools]:
                    return
        except Exception as exc:
            last = f"{type(exc).__name__}: {exc}"
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{proc.label} did not list {tool!r} within {timeout}s ({last}):\n{proc.log_text()}")


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
    return tuple(sorted(set(_children(os.getpid())) - before))


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
        before = set(_children(os.getpid()))
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
        before = set(_children(os.getpid()))
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
    if importlib.util.find_spec("mesh_framework.gateway") is None:
        return "mesh_framework.gateway does not exist in this checkout"
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
            http_port,
            {"PORT": str(http_port)},
            ROOT,
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
                gw_port,
                {"NODE": NODE, "EVERYTHING": str(EVERYTHING), "MESH_REGISTRY__ENABLED": "false"},
                SERVERS_DIR,
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
                gateway_pids = (gateway.pid, *_children(gateway.pid))  # the agent and its stdio server
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


# -- the report ------------------------------------------------------------------------------------

LABELS = {
    "bare-stdio": "bare SDK `Client`, server-everything stdio `echo`",
    "callback-stdio": "callback, server-everything stdio `echo`",
    "bare-everything-http": "bare SDK `Client`, server-everything streamableHttp `echo`",
    "callback-everything-http": "callback, server-everything streamableHttp `echo`",
    "bare-agent-http": "bare SDK `Client`, our agent (bench_agent) `add`",
    "callback-agent-http": "callback, our agent (bench_agent) `add`",
    "direct-bare-stdio": "direct: bare SDK `Client` → server-everything stdio",
    "direct-callback-stdio": "direct: callback → server-everything stdio",
    "direct-bare-everything-http": "direct: bare SDK `Client` → server-everything streamableHttp",
    "plain-agent-bare-http": "no gateway: bare SDK `Client` → our agent's own `add` (HTTP)",
    "gateway-bare-http": "gateway: bare SDK `Client` → gateway agent (HTTP) → server-everything stdio",
    "gateway-callback-http": "gateway: callback → gateway agent (HTTP) → server-everything stdio",
}
SHORT = {
    "callback-stdio": "server-everything, stdio",
    "callback-everything-http": "server-everything, streamableHttp",
    "callback-agent-http": "our agent (bench_agent `add`), HTTP",
}


def verdict(value: float, target: float) -> str:
    if value <= target:
        return f"**met** ({(1 - value / target) * 100:.0f} % under)"
    return f"**missed** ({(value / target - 1) * 100:.0f} % over)"


def call_table(rows: dict[str, Any], pairs: dict[str, str]) -> list[str]:
    lines = [
        f"| target | p50 µs | p99 µs | mean µs | client CPU µs/call | server CPU µs/call | calls/s "
        f"| p50 {X} anchor | client CPU {X} anchor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        anchor = pairs.get(name)
        if anchor:
            p50 = f"**{row['p50_us'] / rows[anchor]['p50_us']:.2f}**"
            cpu = f"{row['client_cpu_us'] / rows[anchor]['client_cpu_us']:.2f}"
        else:
            p50 = cpu = "1 (anchor)" if name in pairs.values() else "-"
        server = "-" if row["server_cpu_us"] is None else f"{row['server_cpu_us']:.0f}"
        lines.append(
            f"| {LABELS[name]} | {row['p50_us']:.0f} | {row['p99_us']:.0f} | {row['mean_us']:.0f} | "
            f"{row['client_cpu_us']:.0f} | {server} | {row['calls_per_s']:.0f} | {p50} | {cpu} |"
        )
    return lines


def render(res: dict[str, Any]) -> str:
    m, a = res["machine"], res["args"]
    rat, per_call = res["ratios"], res["per_call"]
    d = res["discovery"]
    s = d["median_s"]
    lines = [
        SECTION,
        "",
        "Written by `benchmarks/callbacks_bench.py` (`run_all.sh` runs it after `report.py`); method in its "
        f"docstring. Target (DESIGN.md §6): a tool callback over a catalog server ≤ 1.1 {X} a bare SDK "
        "session per call; discovery of N servers ≈ the slowest one.",
        "",
        f"Command: `{res['command']}` ({res['elapsed_s']:.0f} s)",
        "",
        f"Machine: {m['date']}, nproc {m['nproc']} ({m['cpu_model']}), Python {m['python']}, "
        f"{m['packages']}, node {m['node']}; load average {m['loadavg_at_end']} at the end. A shared "
        "machine: absolute times are noisy, the ratios measured in this one run are what count.",
        "",
        "| measure | target | measured (same run) | verdict |",
        "|---|---|---|---|",
    ]
    for r in rat:
        lines.append(
            f"| callback / bare SDK per call, p50: {SHORT[r['ours']]} | ≤ 1.1 {X} "
            f"| **{r['p50']:.2f} {X}** (median of the rounds' ratios {r['median_round_p50']:.2f}; "
            f"client CPU {r['client_cpu']:.2f} {X}) | {verdict(r['p50'], 1.1)} |"
        )
    lines.append(
        f"| discovery, {d['servers']} stdio servers in one provider / slowest alone | ≈ 1 {X} (sum: "
        f"{s['ours_sum_singles'] / s['ours_slowest_single']:.1f} {X}) "
        f"| **{d['parallel_over_slowest']:.2f} {X}** ({d['parallel_over_sum']:.2f} {X} the sum; "
        f"{d['parallel_over_bare_parallel']:.2f} {X} the bare SDK starting {d['servers']} at once) "
        f"| {discovery_verdict(d)} |"
    )
    own = res.get("own_cost")
    lines += [
        "",
        f"### Per call ({a['calls']} stdio / {a['http_calls']} HTTP sequential calls per target, "
        f"{a['rounds']} interleaved rounds, {a['warmup']} warm-up calls)",
        "",
        "`callback` is `await callback.call(args)` from `McpToolCallbackProvider.from_catalog(...)` "
        "(its answer unwrapped to a Python value); `bare SDK` is `await client.call_tool(name, args)` on "
        "`mcp.client.client.Client(..., cache=None)` entered once. Stdio: each client has its own "
        "server-everything process; HTTP: both clients talk to the same server. Latency as the caller sees "
        "it; client CPU = the benchmark process's CPU time over the calls; server CPU = utime+stime of the "
        "server process(es) over the calls (/proc, 10 ms ticks).",
        "",
        *call_table(per_call, {r["ours"]: r["anchor"] for r in rat}),
        "",
        "Per-round p50 ratios (callback / bare): "
        + "; ".join(
            f"{r['ours'].removeprefix('callback-')}: " + ", ".join(f"{x:.2f}" for x in r["per_round_p50"])
            for r in rat
        ),
        "",
    ]
    if own is not None:
        bare_cpu = per_call["bare-stdio"]["client_cpu_us"]
        lines += [
            f"The callback's own cost, in process (`callback.call` over a stub session that answers at once, "
            f"best of 5 {X} {own['calls']} calls): **{own['own_us']:.1f} µs CPU per call** "
            f"({own['own_call_result_us']:.1f} µs for `call_result`), against {bare_cpu:.0f} µs of client "
            f"CPU per bare SDK stdio call above. The SDK adds {own['deadline_us']:.1f} µs per request for "
            "the deadline the callback's connection sets (`call_timeout`, 30 s; `anyio.move_on_after(30)` "
            f"against `move_on_after(None)`, measured here). Expected client CPU ratio: "
            f"{(bare_cpu + own['own_us'] + own['deadline_us']) / bare_cpu:.3f} {X}; a ratio further from 1 "
            "in the table is this machine's noise (see the per-round ratios), not the callback.",
            "",
        ]
    lines += [
        f"### Discovery, cold ({d['servers']} server-everything stdio processes, median of {d['runs']} runs)",
        "",
        "Time of `await provider.get_tool_callbacks()` on a new provider (start the processes, initialize, "
        "`tools/list`), closed after each run. The bare SDK rows do the same with `Client(...)`, one task "
        "per server.",
        "",
        "| discovery | median s | samples s |",
        "|---|---|---|",
    ]
    discovery_labels = {
        "ours_parallel": f"callbacks, {d['servers']} servers in one provider (parallel)",
        "ours_slowest_single": "callbacks, slowest of the servers discovered alone",
        "ours_sum_singles": f"callbacks, sum of the {d['servers']} discovered one after the other",
        "bare_parallel": f"bare SDK, {d['servers']} clients at once (anchor)",
        "bare_single": "bare SDK, one client",
    }
    for key, label in discovery_labels.items():
        samples = ", ".join(f"{x:.3f}" for x in d["samples_s"][key])
        lines.append(f"| {label} | **{s[key]:.3f}** | {samples} |")
    lines += [
        "",
        f"Parallel / slowest single = {d['parallel_over_slowest']:.2f}; parallel / sum = "
        f"{d['parallel_over_sum']:.2f}; ours parallel / bare SDK parallel = "
        f"{d['parallel_over_bare_parallel']:.2f}; one server, ours / bare SDK = "
        f"{d['single_over_bare_single']:.2f}. {cpu_floor_text(d, m['nproc'])}",
        "",
    ]
    gw = res["gateway"]
    lines += ["### Gateway hop", ""]
    if "skipped" in gw:
        lines += [f"Skipped: {gw['skipped']}.", ""]
    else:
        rows = gw["per_call"]
        g = {f"{r['ours']}/{r['anchor']}": r for r in gw["ratios"]}
        hop = rows["gateway-bare-http"]["p50_us"] - rows["direct-callback-stdio"]["p50_us"]
        lines += [
            "`echo` through `callbacks_servers/gateway_agent` (our agent with `mcp.gateway: [everything]`; "
            "it starts server-everything over stdio and calls it through a callback) beside calling "
            f"server-everything directly; {a['http_calls']} calls per target, {a['rounds']} interleaved "
            "rounds. The gateway's server CPU counts the agent and its server-everything process.",
            "",
            *call_table(rows, {}),
            "",
            f"* gateway (bare SDK over HTTP) / direct callback over stdio: p50 "
            f"**{g['gateway-bare-http/direct-callback-stdio']['p50']:.2f} {X}**; the hop adds {hop:.0f} µs "
            "at p50",
            f"* gateway (bare SDK over HTTP) / direct bare SDK over stdio: p50 "
            f"{g['gateway-bare-http/direct-bare-stdio']['p50']:.2f} {X}",
            f"* gateway (bare SDK over HTTP) / our agent's own tool over HTTP (no gateway): p50 "
            f"{g['gateway-bare-http/plain-agent-bare-http']['p50']:.2f} {X}",
            f"* gateway (bare SDK over HTTP) / server-everything's own streamableHttp: p50 "
            f"{g['gateway-bare-http/direct-bare-everything-http']['p50']:.2f} {X}",
            f"* gateway through a callback / direct callback over stdio: p50 "
            f"{g['gateway-callback-http/direct-callback-stdio']['p50']:.2f} {X}",
            "",
            *gateway_cpu_text(rows),
        ]
    lines += ["Servers (commands from the repository root unless they say otherwise):", ""]
    lines += [f"* {k}: `{v}`" for k, v in res["commands"].items()]
    return "\n".join(lines).rstrip() + "\n"


def gateway_cpu_text(rows: dict[str, Any]) -> list[str]:
    """Where the hop's CPU goes, from the server and client CPU columns of the same run."""
    gateway, direct = rows["gateway-bare-http"], rows["direct-callback-stdio"]
    plain = rows["plain-agent-bare-http"]
    if gateway["server_cpu_us"] is None or direct["server_cpu_us"] is None or plain["server_cpu_us"] is None:
        return []
    agent = gateway["server_cpu_us"] - direct["server_cpu_us"]
    parts = plain["server_cpu_us"] + direct["client_cpu_us"]
    return [
        f"Where the hop's CPU goes: the gateway agent itself uses about {agent:.0f} µs per call (its server "
        f"CPU minus server-everything's own, {direct['server_cpu_us']:.0f} µs in the direct stdio row), "
        f"against {plain['server_cpu_us']:.0f} µs for an agent serving its own tool plus "
        f"{direct['client_cpu_us']:.0f} µs for a callback call over stdio ({parts:.0f} µs together); the "
        f"caller's SDK client spends {gateway['client_cpu_us']:.0f} µs per HTTP call.",
        "",
    ]


def cpu_floor_text(d: dict[str, Any], nproc: int) -> str:
    start = d.get("server_start_cpu_s")
    if not start:
        return ""
    return (
        f"A server-everything process uses {start:.2f} s of CPU from start to exit (median, reaped "
        f"children's times), most of it node starting up: {d['servers']} of them on {nproc} cores need at "
        f"least {d['cpu_floor_s']:.2f} s however they are started, so on this machine the floor is that "
        f"(and the bare SDK starting {d['servers']} at once), not the slowest single server."
    )


def discovery_verdict(d: dict[str, Any]) -> str:
    """≈ the slowest one, judged against what the machine allows: the bare SDK starting them all at once."""
    if d["parallel_over_slowest"] <= 1.25:
        return "**met**"
    if d["parallel_over_bare_parallel"] <= 1.1 and d["parallel_over_sum"] < 0.75:
        return (
            f"**met as far as this machine allows** (parallel, {d['parallel_over_bare_parallel']:.2f} {X} "
            "the bare SDK's floor)"
        )
    return "**missed**"


def write_doc(text: str) -> None:
    """Replace this section of docs/benchmarks.md (up to the next `## ` heading), or append it."""
    doc = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    start = doc.find(SECTION + "\n")
    if start < 0:
        doc = doc.rstrip("\n") + "\n\n" + text
    else:
        end = doc.find("\n## ", start + len(SECTION))
        doc = doc[:start] + text + ("\n" + doc[end + 1 :] if end >= 0 else "")
    DOC.write_text(doc)


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
    parser.add_argument("--no-doc", action="store_true", help="do not touch docs/benchmarks.md")
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
    began = time.perf_counter()
    try:
        result = asyncio.run(asyncio.wait_for(run(args), args.time_limit))
    except TimeoutError:
        print(f"callbacks_bench: stopped after --time-limit {args.time_limit:g} s (servers stopped)")
        return 1
    result.update(
        command=invocation(),
        elapsed_s=time.perf_counter() - began,
        args={k: v for k, v in vars(args).items() if k != "no_doc"},
        machine=machine_info(),
    )
    write_json(RESULT_FILE, result)
    print(f"results: {os.path.relpath(RESULT_FILE, ROOT)}")
    if not args.no_doc:
        write_doc(render(result))
        print(f"section '{SECTION[3:]}' written to {os.path.relpath(DOC, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
