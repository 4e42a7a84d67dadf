#!/usr/bin/env python3
"""LLM benchmark: framework time per tool-loop iteration, ours beside MCP Mesh, in one run.

One scripted fake OpenAI server (tests/llm_fakes, in this process, timed) is the model of every side. A call
of the consumer's tool makes the model ask for `add` K times (one tool call per turn), then answer text: K
iterations, K + 1 model requests, K `add` calls over the mesh. Framework time per iteration = (end-to-end
time of the call - time spent inside the fake server) / K.

Sides (every process on 127.0.0.1 and a free port, stopped by its PID at the end, also on failure):

  direct         our `@mesh_llm(provider="openai/gpt-fake")` consumer (llm_agents/bench_llm_direct.py): its
                 model is the fake server, through the official `openai` SDK; `add` is our agent
                 llm_agents/bench_llm_adder.py, found through our registry (`mesh registry`).
  direct-no-transform  the same consumer with llm_agents/sdk_no_transform on its PYTHONPATH: the `openai`
                 SDK's request transform skipped (a what-if of the fix the findings propose), same adder.
  mesh-provider  our `@mesh_llm(provider={"capability": "llm", ...})` consumer (bench_llm_consumer.py) and our
                 `@mesh_llm_provider("openai/gpt-fake")` agent (bench_llm_provider.py), same adder.
  mcp-mesh       mcp-mesh 3.8's `@mesh.llm` consumer (llm_agents/mcp_mesh_asker.py) and `@mesh.llm_provider`
                 (tests/interop/llm_provider.py; openai/* models go through its native OpenAI adapter, the
                 `openai` SDK) with `add` from tests/interop/mesh_agents/adder.py, on the real MCP Mesh
                 registry binary (scripts/install-mcp-mesh.sh).
  mcp-mesh-nodelay  the same with TCP_NODELAY on the mcp-mesh agents' listening sockets
                 (benchmarks/mesh_agents/nodelay on PYTHONPATH; mcp-mesh itself unchanged), on a second
                 registry.

The fake server's time is measured by wrapping it (no edit of tests/llm_fakes): the wall time of its HTTP
parser's `data_received` plus its ASGI app (request read, scripted turn, JSON answer written to the socket).
It serves with TCP_NODELAY: as shipped it writes head and body separately on a socket without it, and every
answer waits ~40 ms for the client's delayed ACK, which would be charged to the framework.

In each round the sides take turns call by call (the order rotates): `--calls` calls of K = `--iterations`,
then as many of K = 1 (the slope between them is the marginal cost of one more iteration, without the call's
fixed costs). CPU per iteration: utime+stime of the side's agents (consumer, provider, adder) around its
K-iteration calls, divided by their iterations (fixed costs included).

    .venv/bin/python benchmarks/llm_bench.py            # ~2-3 min on 2 cores
    .venv/bin/python benchmarks/llm_bench.py --quick    # smoke run
    .venv/bin/python benchmarks/llm_bench.py --breakdown        # CPU per step of one iteration, in process
    .venv/bin/python benchmarks/llm_bench.py --profile direct   # cProfile of our direct consumer + adder
    .venv/bin/python benchmarks/llm_bench.py --skip-sdk-transform   # what-if for all our agents

Results: benchmarks/results/llm.json (llm_breakdown.json, llm_no_transform.json); benchmarks/report.py
writes the page from them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import pstats
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import (  # noqa: E402
    CLOCK_TICKS,
    HOST,
    PYTHON,
    ROOT,
    Run,
    cpu_seconds,
    free_port,
    median,
    save_results,
)
from processes import Proc, clean_env, stop_all  # noqa: E402
from processes import wait_for as _wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402
from tests.llm_fakes import OPENAI, FakeLlmServer, Received, Turn, text, tool_call  # noqa: E402

AGENTS_DIR = BENCH_DIR / "llm_agents"
NODELAY_DIR = BENCH_DIR / "mesh_agents" / "nodelay"
NO_TRANSFORM_DIR = AGENTS_DIR / "sdk_no_transform"
MESH_ASKER = AGENTS_DIR / "mcp_mesh_asker.py"
MESH_PROVIDER = ROOT / "tests" / "interop" / "llm_provider.py"
MESH_ADDER = mm.AGENTS_DIR / "adder.py"
MESH_NAMES = {"mcp_mesh_asker": "llm-bench-mesh-asker", "llm_provider": "mesh-fakellm", "adder": "mesh-adder"}
ACCEPT = "application/json, text/event-stream"
QUESTION = "Add 1000 to 0, then to 1, then to 2, and so on, one tool call at a time."
ADDEND = 1000
MESH_REGISTRY_DEFAULTS = {"HEALTH_CHECK_INTERVAL": "10", "DEFAULT_TIMEOUT_THRESHOLD": "20"}  # its defaults

SIDES = ("direct", "direct-no-transform", "mesh-provider", "mcp-mesh", "mcp-mesh-nodelay")
LABELS = {
    "direct": '(a) ours, direct: `@mesh_llm(provider="openai/gpt-fake")`, `add` over the mesh',
    "direct-no-transform": "(a') the same, the `openai` SDK's request transform skipped (what-if of the fix)",
    "mesh-provider": "(b) ours, mesh provider: `@mesh_llm` → `@mesh_llm_provider`, `add` over the mesh",
    "mcp-mesh": "(c) MCP Mesh 3.8: `@mesh.llm` → `@mesh.llm_provider`, `add` over the mesh",
    "mcp-mesh-nodelay": "(c') MCP Mesh 3.8, TCP_NODELAY on its agents' sockets",
}
SHORT = {
    "direct": "(a)",
    "direct-no-transform": "(a')",
    "mesh-provider": "(b)",
    "mcp-mesh": "(c)",
    "mcp-mesh-nodelay": "(c')",
}
OPTIONS: dict[str, Any] = {"skip_sdk_transform": False}


# -- the fake model, timed ---------------------------------------------------------------------------


class TimedFakeOpenAI(FakeLlmServer):
    """tests/llm_fakes' OpenAI server that counts the wall time it spends per request, and a script that
    asks for `add` until the request carries `k` tool results, then answers text."""

    def __init__(self) -> None:
        super().__init__(OPENAI)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets
        self.k = 0
        self.seconds = 0.0  # parser + app wall time, all requests
        self.handled = 0
        self.wrong_results: list[str] = []
        config = self._server.config
        inner_app = config.app
        timer = self

        async def timed_app(scope: Any, receive: Any, send: Any) -> None:
            started = time.perf_counter()
            try:
                await inner_app(scope, receive, send)
            finally:
                if scope["type"] == "http":
                    timer.seconds += time.perf_counter() - started
                    timer.handled += 1

        config.app = timed_app
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        class TimedProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
            def data_received(self, data: bytes) -> None:
                started = time.perf_counter()
                try:
                    super().data_received(data)
                finally:
                    timer.seconds += time.perf_counter() - started

        config.http = TimedProtocol

    def turn(self, received: Received) -> Turn:
        results = [m.get("content") for m in received.body.get("messages", []) if m.get("role") == "tool"]
        expected = [str(i + ADDEND) for i in range(len(results))]
        if results != expected and len(self.wrong_results) < 5:
            self.wrong_results.append(f"tool results {results!r}, expected {expected!r}")
        if len(results) < self.k:
            return tool_call("add", {"a": len(results), "b": ADDEND})
        return text(f"done after {len(results)} tool results")

    def play(self, k: int) -> None:
        """Script one consumer call of `k` iterations (drops what an earlier failed call left)."""
        with self._lock:
            self._script.clear()
        self.k = k
        self.add(*[self.turn] * (k + 1))

    def thread_cpu(self) -> float:
        """utime+stime of the server's thread (/proc/self/task/TID/stat)."""
        tid = self._thread.native_id
        stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


# -- processes -----------------------------------------------------------------------------------------


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, procs: tuple[Proc, ...] = ()) -> Any:
    """processes.wait_for, a registry or agent that does not answer yet counting as "not yet"."""
    return _wait_for(
        predicate, timeout, what, procs=procs, interval=0.05, tolerate=(OSError, RuntimeError, ValueError)
    )


def healthy_agent(registry_url: str, name: str) -> dict[str, Any] | None:
    for agent in mm.registry_agents(registry_url, timeout=5):
        if agent.get("name") == name and agent.get("status") == "healthy":
            return agent
    return None


# ours


def start_our_registry(log_dir: Path) -> tuple[Proc, str]:
    port = free_port()
    argv = [PYTHON, "-m", "mesh_framework.cli", "registry", "--host", HOST, "--port", str(port)]
    proc = Proc("our-registry", argv, env=clean_env({"MESH_LOGGING__LEVEL": "WARNING"}), log_dir=log_dir)
    url = f"http://{HOST}:{port}"
    wait_for(lambda: mm.registry_agents(url, timeout=1) is not None, 30, "our registry", (proc,))
    return proc, url


def spawn_ours(
    module: str,
    registry_url: str,
    log_dir: Path,
    model_url: str | None = None,
    no_transform: bool = False,
    *,
    profile: Path | None = None,
) -> Proc:
    """One of our agents (llm_agents/MODULE.py); `model_url` is the fake's, for the SDK; `no_transform`
    puts llm_agents/sdk_no_transform on its PYTHONPATH."""
    port = free_port()
    env = {"MCP_MESH_REGISTRY_URL": registry_url, "MESH_LOGGING__LEVEL": "WARNING"}
    if model_url is not None:
        env["MESH_LLM__VENDORS__OPENAI__BASE_URL"] = model_url
        env["MESH_LLM__VENDORS__OPENAI__API_KEY"] = "sk-bench"
    if no_transform:
        env["PYTHONPATH"] = str(NO_TRANSFORM_DIR)
    run = ["-m", "mesh_framework.cli", "run", module, "--host", HOST, "--port", str(port)]
    prefix = ["-m", "cProfile", "-o", str(profile)] if profile is not None else []
    label = f"our-{module}{'-no-transform' if no_transform else ''}"
    proc = Proc(label, [PYTHON, *prefix, *run], env=clean_env(env), cwd=AGENTS_DIR, log_dir=log_dir)
    proc.endpoint = f"http://{HOST}:{port}"
    return proc


# MCP Mesh


def spawn_mcp_mesh(
    script: Path, registry_url: str, log_dir: Path, *, nodelay: bool, extra: dict[str, str]
) -> Proc:
    """An mcp-mesh agent as shipped (default debounce and heartbeat), logging at WARNING like ours."""
    env = {
        "HOST": HOST,  # bind address
        "MCP_MESH_HTTP_HOST": HOST,  # advertised address
        "MCP_MESH_HTTP_PORT": "0",
        "MCP_MESH_REGISTRY_URL": registry_url,
        "MCP_MESH_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    if nodelay:
        env["PYTHONPATH"] = str(NODELAY_DIR)
    label = f"mcp-{script.stem}{'-nodelay' if nodelay else ''}"
    proc = Proc(
        label, [str(mm.MESH_PYTHON), str(script)], env=clean_env(env), cwd=script.parent, log_dir=log_dir
    )
    proc.agent_name = MESH_NAMES[script.stem]
    return proc


def registered(proc: Proc, registry_url: str, timeout: float = 60) -> Proc:
    """Until the registry lists the agent healthy: ours by the endpoint we gave it, mcp-mesh's by name
    (each mcp-mesh registry holds one agent of each name), whose row gives its endpoint."""

    def row() -> dict[str, Any] | None:
        for agent in mm.registry_agents(registry_url, timeout=5):
            if agent.get("status") != "healthy":
                continue
            if proc.endpoint and agent.get("endpoint") == proc.endpoint:
                return agent
            if not proc.endpoint and agent.get("name") == proc.agent_name:
                return agent
        return None

    found = wait_for(row, timeout, f"{proc.label} registered", (proc,))
    proc.endpoint = str(found["endpoint"])
    if "No immediate uvicorn server found" in proc.tail(100_000):
        raise RuntimeError(f"{proc.label} started a second HTTP server (mcp-mesh debounce race); rerun")
    return proc


# -- calling a consumer ------------------------------------------------------------------------------------


class Caller:
    """tools/call of one tool over one keep-alive HTTP/1.1 connection; JSON or SSE answers."""

    def __init__(self, endpoint: str, tool: str, timeout: float = 60.0) -> None:
        host, port = endpoint.removeprefix("http://").rstrip("/").rsplit(":", 1)
        self.host, self.port, self.tool, self.timeout = host, int(port), tool, timeout
        self.conn: http.client.HTTPConnection | None = None
        self.next_id = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, question: str) -> tuple[bool, str]:
        self.next_id += 1
        params = {"name": self.tool, "arguments": {"question": question}}
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params})
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        for attempt in (1, 2):
            reused = self.conn is not None
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                self.conn.request("POST", "/mcp", body=body.encode(), headers=headers)
                response = self.conn.getresponse()
                payload = response.read().decode(errors="replace")
                ctype = response.getheader("Content-Type", "")
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected) as exc:
                self.close()  # the server closed an idle keep-alive connection: once more on a new one
                if attempt == 2 or not reused:
                    return False, f"{type(exc).__name__}: {exc}"
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                return False, f"{type(exc).__name__}: {exc}"
        if response.status != 200:
            return False, f"HTTP {response.status}: {payload[:300]}"
        message = _message(ctype, payload)
        result = (message or {}).get("result")
        if not isinstance(result, dict) or result.get("isError"):
            return False, payload[:500]
        texts = [c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text"]
        return True, "\n".join(texts)


def _message(ctype: str, payload: str) -> dict[str, Any] | None:
    if "text/event-stream" not in ctype:
        return dict(json.loads(payload))
    for block in payload.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            message = json.loads(data)
            if "result" in message or "error" in message:
                return dict(message)
    return None


# -- the meshes -------------------------------------------------------------------------------------------


@dataclass
class Side:
    key: str
    caller: Caller
    procs: list[Proc]  # the agents on the call path: consumer, [provider,] adder; their CPU is summed

    @property
    def roles(self) -> list[str]:
        return ["consumer", "provider", "adder"] if len(self.procs) == 3 else ["consumer", "adder"]


@dataclass
class Meshes:
    """Every process started, by role, and the sides once their consumers answer."""

    model: TimedFakeOpenAI
    log_dir: Path
    stack: contextlib.ExitStack
    sides: dict[str, Side] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)  # role -> command line as typed


def our_command(module: str, *, vendor: bool = False, no_transform: bool = False) -> str:
    env = "MCP_MESH_REGISTRY_URL=<our registry> MESH_LOGGING__LEVEL=WARNING"
    if vendor:
        env += " MESH_LLM__VENDORS__OPENAI__BASE_URL=<fake>/v1 MESH_LLM__VENDORS__OPENAI__API_KEY=sk-bench"
    if no_transform:
        env += " PYTHONPATH=sdk_no_transform"
    return (
        f"cd benchmarks/llm_agents && {env} ../../.venv/bin/python -m mesh_framework.cli run {module} "
        f"--host 127.0.0.1 --port <port>"
    )


def mesh_command(script: Path, extra: str = "") -> str:
    env = (
        "HOST=127.0.0.1 MCP_MESH_HTTP_HOST=127.0.0.1 MCP_MESH_HTTP_PORT=0 "
        "MCP_MESH_REGISTRY_URL=<its registry> MCP_MESH_LOG_LEVEL=WARNING"
    )
    return (
        f"cd {os.path.relpath(script.parent, ROOT)} && {env}{extra} "
        f"{os.path.relpath(mm.MESH_PYTHON, script.parent)} {script.name}"
    )


def start_meshes(m: Meshes, sides: tuple[str, ...], profile: Path | None = None) -> None:
    """Registries first, then tool agents and providers of every side at once, consumers last (so their
    first heartbeat answer names their dependencies), then one successful call through each side."""
    model, log_dir, fake = m.model, m.log_dir, m.model.base_url
    ours = [s for s in sides if not s.startswith("mcp-mesh")]
    theirs = [s for s in sides if s.startswith("mcp-mesh")]
    skip_all = OPTIONS["skip_sdk_transform"]

    def profiled(role: str) -> Path | None:
        return None if profile is None else profile.with_name(f"{profile.stem}-{role}.prof")

    registry_url = ""
    if ours:
        _, registry_url = start_our_registry(log_dir)
        m.commands["our registry"] = (
            ".venv/bin/python -m mesh_framework.cli registry --host 127.0.0.1 --port <port>"
        )
    mesh_urls = {
        key: m.stack.enter_context(
            mm.run_mesh_registry(log_dir / key, env=MESH_REGISTRY_DEFAULTS, startup_timeout=30)
        ).url
        for key in theirs
    }
    if theirs:
        m.commands["MCP Mesh registry"] = (
            "HOST=127.0.0.1 PORT=<port> DATABASE_URL=<tmp>/registry.db HEALTH_CHECK_INTERVAL=10 "
            f"DEFAULT_TIMEOUT_THRESHOLD=20 {os.path.relpath(mm.REGISTRY_BIN, ROOT)}"
        )

    # tool agents and providers
    tools: dict[str, list[Proc]] = {}  # side -> [provider,] adder
    if ours:
        adder = spawn_ours("bench_llm_adder", registry_url, log_dir, profile=profiled("adder"))
        m.commands["our adder"] = our_command("bench_llm_adder")
        for key in ours:
            tools[key] = [adder]
        if "mesh-provider" in ours:
            provider = spawn_ours(
                "bench_llm_provider", registry_url, log_dir, fake, skip_all, profile=profiled("provider")
            )
            m.commands["our provider"] = our_command("bench_llm_provider", vendor=True)
            tools["mesh-provider"] = [provider, adder]
    for key in theirs:
        nodelay = key.endswith("nodelay")
        fake_env = {"FAKE_OPENAI_BASE_URL": fake, "FAKE_OPENAI_API_KEY": "sk-bench"}
        tools[key] = [
            spawn_mcp_mesh(MESH_PROVIDER, mesh_urls[key], log_dir, nodelay=nodelay, extra=fake_env),
            spawn_mcp_mesh(MESH_ADDER, mesh_urls[key], log_dir, nodelay=nodelay, extra={}),
        ]
        m.commands["MCP Mesh provider"] = mesh_command(MESH_PROVIDER, " FAKE_OPENAI_BASE_URL=<fake>/v1")
        m.commands["MCP Mesh adder"] = mesh_command(MESH_ADDER)
    for key, procs in tools.items():
        for proc in procs:
            registered(proc, mesh_urls.get(key, registry_url))

    # consumers
    consumers: dict[str, tuple[Proc, str]] = {}  # side -> (consumer, its tool)
    for key in ours:
        if key == "mesh-provider":
            module, tool, vendor, skip = "bench_llm_consumer", "ask_mesh", False, False
        else:
            module, tool, vendor, skip = "bench_llm_direct", "ask_direct", True, skip_all or key != "direct"
        proc = spawn_ours(
            module, registry_url, log_dir, fake if vendor else None, skip, profile=profiled(key)
        )
        m.commands[f"our consumer {SHORT[key]}"] = our_command(module, vendor=vendor, no_transform=skip)
        consumers[key] = (proc, tool)
    for key in theirs:
        proc = spawn_mcp_mesh(MESH_ASKER, mesh_urls[key], log_dir, nodelay=key.endswith("nodelay"), extra={})
        m.commands["MCP Mesh consumer"] = mesh_command(MESH_ASKER)
        consumers[key] = (proc, "mesh_ask")
    if "mcp-mesh-nodelay" in theirs:
        m.commands["MCP Mesh (c')"] = (
            f"the same three with PYTHONPATH={os.path.relpath(NODELAY_DIR, ROOT)}, on a registry of their own"
        )
    for key in sides:
        consumer, tool = consumers[key]
        registered(consumer, mesh_urls.get(key, registry_url))
        side = Side(key, Caller(consumer.endpoint, tool), [consumer, *tools[key]])
        wait_for(
            lambda s=side: _warm(s, model), 90, f"a first successful call through {key}", tuple(side.procs)
        )
        m.sides[key] = side


def _warm(side: Side, model: TimedFakeOpenAI) -> bool:
    """One call of one iteration; False until the consumer's dependencies are resolved."""
    model.play(1)
    ok, answer = side.caller.call(QUESTION)
    return ok and "done after 1 tool results" in answer and model.remaining == 0


# -- measuring -----------------------------------------------------------------------------------------


def new_record(side: Side, k: int, round_: int) -> dict[str, Any]:
    """What the calls of one side with `k` iterations in one round add up to."""
    return {
        "side": side.key,
        "k": k,
        "round": round_,
        "e2e_s": [],
        "fake_s": [],
        "agents_cpu_s": dict.fromkeys(side.roles, 0.0),
        "fake_thread_cpu_s": 0.0,
        "fake_requests": 0,
    }


def one_call(side: Side, model: TimedFakeOpenAI, k: int, record: dict[str, Any]) -> None:
    """One call of `k` iterations: end-to-end and fake-server seconds, the agents' CPU around it."""
    cpu_before = [cpu_seconds(p.pid) for p in side.procs]
    fake_cpu_before = model.thread_cpu()
    model.play(k)
    expected = model.handled + k + 1
    fake_before = model.seconds
    started = time.perf_counter()
    ok, answer = side.caller.call(QUESTION)
    elapsed = time.perf_counter() - started
    deadline = time.perf_counter() + 1.0
    while model.handled < expected and time.perf_counter() < deadline:  # its timer's last update
        time.sleep(0.0002)
    if not ok or f"done after {k} tool results" not in answer or model.handled != expected:
        raise RuntimeError(
            f"{side.key}: a call of {k} iterations went wrong (answer {answer[:300]!r}, model requests "
            f"{model.handled - expected + k + 1} of {k + 1})"
        )
    if model.wrong_results:
        raise RuntimeError(f"{side.key}: {model.wrong_results}")
    record["e2e_s"].append(elapsed)
    record["fake_s"].append(model.seconds - fake_before)
    for role, proc, before in zip(side.roles, side.procs, cpu_before, strict=True):
        record["agents_cpu_s"][role] += cpu_seconds(proc.pid) - before
    record["fake_thread_cpu_s"] += model.thread_cpu() - fake_cpu_before
    record["fake_requests"] += k + 1


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summarize(records: list[dict[str, Any]], key: str, k: int) -> dict[str, Any]:
    mine = [b for b in records if b["side"] == key]
    at_k = [b for b in mine if b["k"] == k]
    at_1 = [b for b in mine if b["k"] == 1]
    outside_k = [e - f for b in at_k for e, f in zip(b["e2e_s"], b["fake_s"], strict=True)]
    outside_1 = [e - f for b in at_1 for e, f in zip(b["e2e_s"], b["fake_s"], strict=True)]
    per_iteration = [x / k * 1000 for x in outside_k]
    calls_k = len(outside_k)
    fake_requests = sum(b["fake_requests"] for b in at_k)
    summary: dict[str, Any] = {
        "calls": calls_k,
        "e2e_ms": median([e * 1000 for b in at_k for e in b["e2e_s"]]),
        "fake_ms_per_call": median([f * 1000 for b in at_k for f in b["fake_s"]]),
        "fake_us_per_request": sum(f for b in at_k for f in b["fake_s"]) / fake_requests * 1e6,
        "fake_thread_cpu_us_per_request": sum(b["fake_thread_cpu_s"] for b in at_k) / fake_requests * 1e6,
        "per_iteration_ms": median(per_iteration),
        "per_iteration_p10_ms": quantile(per_iteration, 0.1),
        "per_iteration_p90_ms": quantile(per_iteration, 0.9),
        "per_round_ms": [per_iteration_ms(b, k) for b in at_k],
        "agents_cpu_ms_per_iteration": sum(sum(b["agents_cpu_s"].values()) for b in at_k)
        / (calls_k * k)
        * 1000,
        "cpu_ms_per_iteration_by_agent": {
            role: sum(b["agents_cpu_s"][role] for b in at_k) / (calls_k * k) * 1000
            for role in at_k[0]["agents_cpu_s"]
        },
    }
    if at_1:  # a call of one iteration: two model turns and one mesh tool call, end to end
        summary["e2e_one_iteration_ms"] = median([e * 1000 for b in at_1 for e in b["e2e_s"]])
    if outside_1 and k > 1:
        summary["one_iteration_ms"] = median([x * 1000 for x in outside_1])
        summary["marginal_ms"] = (median(outside_k) - median(outside_1)) / (k - 1) * 1000
    return summary


def per_iteration_ms(batch: dict[str, Any], k: int) -> float:
    return median([(e - f) / k * 1000 for e, f in zip(batch["e2e_s"], batch["fake_s"], strict=True)])


def measure(
    m: Meshes, sides: tuple[str, ...], k: int, calls: int, rounds: int, warmup: int
) -> list[dict[str, Any]]:
    """Warm-up, then rounds; in a round, the sides take turns call by call (the order rotates), first
    `calls` calls of `k` iterations each, then `calls` of 1, so a burst of other work on the machine hits
    every side alike."""
    for key in sides:
        scratch = new_record(m.sides[key], k, -1)
        for _ in range(warmup):
            one_call(m.sides[key], m.model, k, scratch)
    records: list[dict[str, Any]] = []
    for r in range(rounds):
        for depth in (k, 1) if k > 1 else (k,):
            current = {key: new_record(m.sides[key], depth, r) for key in sides}
            for key in sides:  # a new connection: servers close idle keep-alive connections after ~5 s
                m.sides[key].caller.close()
                if not _warm(m.sides[key], m.model):
                    raise RuntimeError(f"{key}: the call that opens the round's connection failed")
            time.sleep(0.01)  # the fake's timer records a call's last request after answering it
            for i in range(calls):
                shift = (i + r) % len(sides)
                for key in sides[shift:] + sides[:shift]:
                    one_call(m.sides[key], m.model, depth, current[key])
            records.extend(current.values())
        figures = ", ".join(
            f"{rec['side']} {per_iteration_ms(rec, k):.2f}"
            for rec in records
            if rec["round"] == r and rec["k"] == k
        )
        print(f"round {r + 1}/{rounds}, framework ms per iteration: {figures}", flush=True)
    return records


# -- profile -------------------------------------------------------------------------------------------


def print_profiles(paths: list[Path], top: int) -> None:
    for path in paths:
        if not path.exists():
            print(f"(no profile written at {path})")
            continue
        print(f"\n===== {path.name}: top {top} by own time")
        stats = pstats.Stats(str(path))
        stats.sort_stats("tottime").print_stats(top)
        print(f"===== {path.name}: top {top} by cumulative time")
        stats.sort_stats("cumulative").print_stats(top)


# -- breakdown ------------------------------------------------------------------------------------------


def _body_messages(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for i in range(turns):
        call = {"id": f"call_{i}", "type": "function"}
        call["function"] = {"name": "add", "arguments": json.dumps({"a": i, "b": ADDEND})}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": str(i + ADDEND)})
    return messages


async def _cpu_us(step: Callable[[], Any], n: int) -> float:
    for _ in range(max(5, n // 10)):
        await step()
    started = time.process_time()
    for _ in range(n):
        await step()
    return (time.process_time() - started) / n * 1e6


async def _breakdown(k: int, n: int, log_dir: Path) -> dict[str, Any]:
    """CPU per step of one iteration in the consumer, in this process (time.process_time): the model
    request through our adapter, the SDK's `post` (no transform) and bare httpx2, all on an in-memory
    transport, averaged over the transcripts of a K-iteration call; then a mesh `tools/call add` to our
    adder agent over a real socket (client CPU here, the adder's from /proc)."""
    import httpx2
    import openai
    from openai.types.chat import ChatCompletion

    from mesh_framework.llm.types import tool_spec
    from mesh_framework.llm.vendors.openai import OpenAIChatModel
    from mesh_framework.mesh.http_pool import build_http_client
    from mesh_framework.mesh.transport import McpTransport

    call = {
        "id": "call_x",
        "type": "function",
        "function": {"name": "add", "arguments": '{"a": 1, "b": 1000}'},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "finish_reason": "tool_calls", "message": message}
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    answer = {"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-fake", "choices": [choice]}
    content = json.dumps({**answer, "usage": usage}).encode()

    def handler(request: Any) -> Any:
        return httpx2.Response(200, content=content, headers={"content-type": "application/json"})

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    tools = [tool_spec("add", "Add two integers.", {**schema, "required": ["a", "b"]})]
    sdk = openai.AsyncOpenAI(
        base_url="http://fake/v1",
        api_key="sk",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    model = OpenAIChatModel("gpt-fake", client=sdk)
    bare = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    steps: dict[str, list[float]] = {}
    for turns in range(k + 1):
        messages = _body_messages(turns)
        body = {"model": "gpt-fake", "messages": messages, "tools": tools}
        steps.setdefault("our adapter, `OpenAIChatModel.complete`", []).append(
            await _cpu_us(lambda m=messages: model.complete(m, tools=tools), n)
        )
        steps.setdefault("the `openai` SDK's `client.post`, the same body", []).append(
            await _cpu_us(lambda b=body: sdk.post("/chat/completions", body=b, cast_to=ChatCompletion), n)
        )
        steps.setdefault("bare httpx2 `post(json=...)`", []).append(
            await _cpu_us(lambda b=body: bare.post("http://fake/v1/chat/completions", json=b), n)
        )
    print(f"CPU per model request, no socket (transcripts of 0..{k} tool turns; mean):")
    for name, values in steps.items():
        print(
            f"  {name}: {', '.join(f'{v:.0f}' for v in values)} µs; mean {sum(values) / len(values):.0f} µs"
        )
    registry_off = {"MESH_REGISTRY__ENABLED": "false", "MESH_LOGGING__LEVEL": "WARNING"}
    port = free_port()
    argv = [PYTHON, "-m", "mesh_framework.cli", "run", "bench_llm_adder", "--host", HOST, "--port", str(port)]
    adder = Proc("breakdown-adder", argv, env=clean_env(registry_off), cwd=AGENTS_DIR, log_dir=log_dir)
    http = build_http_client()  # the agents' own pooled client (mesh/http_pool.py)
    transport = McpTransport(http, client_name="llm-bench", client_version="1")
    url = f"http://{HOST}:{port}/mcp"
    params = {"name": "add", "arguments": {"a": 1, "b": 2}}
    deadline = time.perf_counter() + 30
    while True:
        try:
            await transport.request(url, "tools/call", params)
            break
        except Exception:
            adder.check()
            if time.perf_counter() > deadline:
                raise
            await asyncio.sleep(0.05)
    server_before, wall = cpu_seconds(adder.pid), time.perf_counter()
    client = await _cpu_us(lambda: transport.request(url, "tools/call", params), n)
    calls = n + max(5, n // 10)
    server = (cpu_seconds(adder.pid) - server_before) / calls * 1e6
    wall_us = (time.perf_counter() - wall) / calls * 1e6
    print(
        "mesh `tools/call add` to our adder (McpTransport on the agents' pooled client, loopback): "
        f"client CPU {client:.0f} µs, adder CPU {server:.0f} µs, round trip {wall_us:.0f} µs"
    )
    await http.aclose()
    return {
        "iterations": k,
        "n": n,
        "model_request_cpu_us": steps,
        "mesh_call": {"client_cpu_us": client, "adder_cpu_us": server, "round_trip_us": wall_us},
    }


# -- main ----------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few calls (figures noisy)")
    parser.add_argument("--iterations", "-k", type=int, default=5, help="tool-loop iterations per call")
    parser.add_argument("--calls", type=int, default=None, help="calls per batch (default 20; quick 3)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 5; quick 1)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up calls per side (default 5)")
    parser.add_argument("--sides", default=",".join(SIDES), help=f"comma-separated, of {', '.join(SIDES)}")
    parser.add_argument(
        "--profile", choices=("direct", "mesh-provider"), help="cProfile our agents of a side (printed)"
    )
    parser.add_argument("--top", type=int, default=30, help="functions shown per profile")
    parser.add_argument(
        "--skip-sdk-transform",
        action="store_true",
        help="what-if: our agents skip the openai SDK's request transform (llm_agents/sdk_no_transform); "
        "results go to results/llm_no_transform.json",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="CPU per step of one iteration, in process (results/llm_breakdown.json)",
    )
    parser.add_argument("--time-limit", type=float, default=600.0, help="stop everything after this (s)")
    args = parser.parse_args()
    k = args.iterations
    calls = args.calls or (3 if args.quick else 20)
    rounds = args.rounds or (1 if args.quick else 5)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 5)
    sides = tuple(s for s in args.sides.split(",") if s)
    unknown = set(sides) - set(SIDES)
    if unknown or k < 1:
        parser.error(f"unknown sides {sorted(unknown)}" if unknown else "--iterations must be ≥ 1")
    if args.profile:
        sides = (args.profile,)
    OPTIONS["skip_sdk_transform"] = args.skip_sdk_transform
    if any(s.startswith("mcp-mesh") for s in sides) and (missing := mm.missing_tools()):
        print(f"llm_bench: MCP Mesh is not installed ({', '.join(missing)}); run scripts/install-mcp-mesh.sh")
        return 2

    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"llm_bench: time limit of {args.time_limit:g} s reached")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(args.time_limit))
    log_dir = Path(tempfile.mkdtemp(prefix="llm-bench-"))
    run = Run(short=args.quick or calls < 20 or rounds < 5)
    if args.breakdown:
        try:
            breakdown = asyncio.run(_breakdown(k, 300 if args.quick else 1000, log_dir))
        finally:
            stop_all()
        shutil.rmtree(log_dir, ignore_errors=True)
        save_results("llm_breakdown", run, breakdown)
        return 0
    profile = log_dir / "profile.prof" if args.profile else None
    started = time.perf_counter()
    with TimedFakeOpenAI() as model, contextlib.ExitStack() as stack:
        m = Meshes(model, log_dir, stack)
        try:
            start_meshes(m, sides, profile)
            print(f"started in {time.perf_counter() - started:.1f} s; logs in {log_dir}", flush=True)
            records = measure(m, sides, k, calls, rounds, warmup)
        finally:
            for side in m.sides.values():
                side.caller.close()
            for proc in reversed(list(Proc.running)):  # SIGINT first: a profiled agent writes its profile
                if profile is not None and "-m" in proc.argv and "cProfile" in proc.argv:
                    proc.stop(grace=15, sig=signal.SIGINT)
            stop_all()
    signal.alarm(0)
    if profile is not None:
        print_profiles(sorted(log_dir.glob("profile-*.prof")), args.top)
        shutil.rmtree(log_dir, ignore_errors=True)
        return 0
    shutil.rmtree(log_dir, ignore_errors=True)  # kept when something failed: the agents' logs are there
    data = {
        "iterations": k,
        "calls": calls,
        "rounds": rounds,
        "warmup": warmup,
        "sides": list(sides),
        "labels": {key: {"label": LABELS[key], "short": SHORT[key]} for key in sides},
        "results": {key: summarize(records, key, k) for key in sides},
        "commands": m.commands,
        "records": records,
        "skip_sdk_transform": args.skip_sdk_transform,
    }
    save_results("llm_no_transform" if args.skip_sdk_transform else "llm", run, data)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        stop_all()
