#!/usr/bin/env python3
"""Streaming benchmark: a chat answer streamed client → route → chat agent → fake model, ours beside
MCP Mesh 3.8's chatbot shape, in one run.

The model is a fake OpenAI server in this process (tests/llm_fakes, streaming wire), which notes the
`perf_counter` time at which it writes each delta; the client (also in this process, one keep-alive
HTTP/1.1 connection per side) notes when each `data:` event of the route arrives. One call: the model
writes its first delta and waits until the client has it (time to first chunk = client's time - model's
time, no queue in between), then writes `--burst` deltas back to back; per chunk = (time between the
client holding the burst's first chunk and its last) / (burst - 1): the cost of one more chunk through
every process once the pipe is full.

Sides (every process on 127.0.0.1 and a free port, stopped by its PID at the end, also on failure):

  ours           two hops: our route agent (stream_agents/bench_stream_route.py, `@mesh_route` re-yielding
                 `dep.stream()`) → our chat agent (stream_agents/bench_stream_chat.py, `@mesh_llm(provider=
                 "openai/gpt-fake")` returning `Stream[str]`) → the fake model, through the `openai` SDK.
  ours-provider  MCP Mesh's chatbot shape with our agents: route → chat agent (`@mesh_llm(provider=
                 {"capability": "llm"})`) → our `@mesh_llm_provider` agent (llm_agents/bench_llm_provider.py)
                 → the fake model.
  mcp-mesh       MCP Mesh 3.8: a FastAPI `@mesh.route` app (stream_agents/mcp_mesh_route.py, uvicorn) → an
                 `@mesh.llm` tool returning `mesh.Stream[str]` (stream_agents/mcp_mesh_chat.py) → its
                 `@mesh.llm_provider` (tests/interop/llm_provider.py, its native OpenAI adapter) → the fake
                 model, on the real MCP Mesh registry binary.

Ours run on our registry (`mesh registry`). Rounds interleave the sides (the order rotates), `--calls` calls
per side and round. Memory per open stream: `--open` streams are opened at once on each side and held by the
model after their first delta; (RSS of the side's agents with them open - RSS before) / streams.

    .venv/bin/python benchmarks/stream_bench.py            # about a minute
    .venv/bin/python benchmarks/stream_bench.py --quick    # smoke run

Results: benchmarks/results/stream.json; benchmarks/report.py writes the page section from it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import socket
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import HOST, PYTHON, ROOT, Run, cpu_seconds, free_port, median, rss_mib, save_results  # noqa: E402
from processes import Proc, clean_env, log, stop_all  # noqa: E402
from processes import wait_for as _wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402
from tests.llm_fakes import OPENAI, FakeLlmServer, Turn, streamed  # noqa: E402
from tests.llm_fakes.streaming import sse_events  # noqa: E402

AGENTS_DIR = BENCH_DIR / "stream_agents"
LLM_AGENTS_DIR = BENCH_DIR / "llm_agents"
MESH_PROVIDER = ROOT / "tests" / "interop" / "llm_provider.py"
SIDES = ("ours", "ours-provider", "mcp-mesh")
LABELS = {
    "ours": "(a) ours, two hops: `@mesh_route` → `@mesh_llm` chat tool (`Stream[str]`) → model",
    "ours-provider": "(b) ours, MCP Mesh's shape: route → `@mesh_llm` chat tool → `@mesh_llm_provider` → "
    "model",
    "mcp-mesh": "(c) MCP Mesh 3.8: `@mesh.route` → `@mesh.llm` tool (`mesh.Stream[str]`) → "
    "`@mesh.llm_provider` → model",
}
SHORT = {"ours": "(a)", "ours-provider": "(b)", "mcp-mesh": "(c)"}
TARGETS = {"first_chunk_ms": 5.0, "per_chunk_ms": 0.2}  # side (a): the two hops
DELTA = "tok "


# -- the fake model, timed ------------------------------------------------------------------------------


class TimedModel(FakeLlmServer):
    """The fake OpenAI server, every turn streamed: one delta, a pause until `release()`, then the burst.
    `writes` holds the perf_counter time of each content delta, as it is written."""

    def __init__(self) -> None:
        super().__init__(OPENAI)
        self.writes: list[float] = []
        self.paused = 0  # streams that wrote their first delta and wait for a release
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gate: asyncio.Event | None = None

    def script(self, burst: int, count: int = 1) -> None:
        """The next `count` requests get one delta, then (after a release) `burst` more."""
        turn = streamed(*([DELTA] * (burst + 1)), pause_after=1, resume=threading.Event())
        self.add(*[turn] * count)

    def forget(self) -> None:
        """Drops scripted turns no request took (after a call that failed before reaching the model)."""
        with self._lock:
            self._script.clear()

    def release(self) -> None:
        """Lets every paused stream go on (called from the client's thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._open)

    def _open(self) -> None:
        if self._gate is not None:
            self._gate.set()
        self._gate = asyncio.Event()
        self.paused = 0

    async def _stream(self, turn: Turn, body: dict[str, Any], number: int) -> AsyncIterator[str]:
        self._loop = asyncio.get_running_loop()
        for frame in sse_events(self.wire.name, turn, body, number):
            if frame == "pause":
                if self._gate is None:
                    self._gate = asyncio.Event()
                gate = self._gate
                self.paused += 1
                await gate.wait()
                continue
            assert frame is not None
            if f'"content": "{DELTA}"' in frame:
                self.writes.append(time.perf_counter())
            yield frame


# -- the client ------------------------------------------------------------------------------------------


class RouteClient:
    """GET /chat?question=... on one keep-alive connection; reads the event stream line by line."""

    def __init__(self, endpoint: str) -> None:
        host, port = endpoint.removeprefix("http://").rstrip("/").rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.conn: http.client.HTTPConnection | None = None

    def open(self, question: str) -> http.client.HTTPResponse:
        path = "/chat?" + urllib.parse.urlencode({"question": question})
        try:
            response = self._get(path)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.close()  # the server closed the idle keep-alive connection (other sides ran meanwhile)
            response = self._get(path)
        if response.status != 200:
            raise RuntimeError(f"GET {path} on {self.port}: {response.status} {response.read()[:300]!r}")
        return response

    def _get(self, path: str) -> http.client.HTTPResponse:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.conn.connect()
            assert self.conn.sock is not None
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        return self.conn.getresponse()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def next_chunk(response: http.client.HTTPResponse) -> str | None:
    """The next event's data (None at `[DONE]`); an `event: error` raises."""
    event = ""
    while True:
        line = response.readline()
        if not line:
            raise RuntimeError("the stream ended without [DONE]")
        text = line.decode().rstrip("\r\n")
        if text.startswith("event:"):
            event = text[6:].strip()
        elif text.startswith("data:"):
            data = text[6:] if text.startswith("data: ") else text[5:]
            if event == "error":
                raise RuntimeError(f"the stream failed: {data}")
            return None if data == "[DONE]" else data


@dataclass
class Sample:
    first_ms: float
    per_chunk_ms: float


def one_call(client: RouteClient, model: TimedModel, burst: int) -> Sample:
    model.writes = []
    model.script(burst)
    response = client.open("Tell me a long story.")
    assert next_chunk(response) == DELTA
    got_first = time.perf_counter()
    first = got_first - model.writes[0]
    model.release()
    assert next_chunk(response) == DELTA
    burst_first = time.perf_counter()
    for _ in range(burst - 1):
        assert next_chunk(response) == DELTA
    burst_last = time.perf_counter()
    assert next_chunk(response) is None
    response.read()
    return Sample(first * 1000, (burst_last - burst_first) / (burst - 1) * 1000)


# -- processes -----------------------------------------------------------------------------------------


def wait_for(predicate: Any, timeout: float, what: str, procs: tuple[Proc, ...] = ()) -> Any:
    return _wait_for(
        predicate, timeout, what, procs=procs, interval=0.05, tolerate=(OSError, RuntimeError, ValueError)
    )


def ours(
    module: str, registry: str, logs: Path, env: dict[str, str], *, pythonpath: Path | None = None
) -> Proc:
    port = free_port()
    environ = {"MCP_MESH_REGISTRY_URL": registry, "MESH_LOGGING__LEVEL": "WARNING", **env}
    if pythonpath is not None:
        environ["PYTHONPATH"] = str(pythonpath)
    argv = [PYTHON, "-m", "mesh_framework.cli", "run", module, "--host", HOST, "--port", str(port)]
    proc = Proc(
        f"our-{module}-{env.get('BENCH_CHAT', '')}",
        argv,
        env=clean_env(environ),
        cwd=AGENTS_DIR,
        log_dir=logs,
    )
    proc.endpoint = f"http://{HOST}:{port}"
    return proc


def theirs(script: Path, registry: str, logs: Path, env: dict[str, str]) -> Proc:
    environ = {
        "HOST": HOST,
        "MCP_MESH_HTTP_HOST": HOST,
        "MCP_MESH_HTTP_PORT": "0",
        "MCP_MESH_REGISTRY_URL": registry,
        "MCP_MESH_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    return Proc(
        f"mcp-{script.stem}",
        [str(mm.MESH_PYTHON), str(script)],
        env=clean_env(environ),
        cwd=script.parent,
        log_dir=logs,
    )


def their_route(registry: str, logs: Path) -> Proc:
    port = free_port()
    environ = {
        "MCP_MESH_REGISTRY_URL": registry,
        "MCP_MESH_API_NAME": "stream-bench-mesh-route",
        "MCP_MESH_HTTP_HOST": HOST,
        "MCP_MESH_HTTP_PORT": str(port),
        "MCP_MESH_LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    argv = [str(mm.MESH_PYTHON), "-m", "uvicorn", "mcp_mesh_route:app", "--host", HOST, "--port", str(port)]
    argv += ["--log-level", "warning", "--no-access-log"]
    proc = Proc("mcp-route", argv, env=clean_env(environ), cwd=AGENTS_DIR, log_dir=logs)
    proc.endpoint = f"http://{HOST}:{port}"
    return proc


def healthy(registry: str, name_prefix: str) -> bool:
    return any(
        str(a.get("name", "")).startswith(name_prefix) or str(a.get("id", "")).startswith(name_prefix)
        for a in mm.registry_agents(registry, timeout=2)
        if a.get("status") == "healthy"
    )


@dataclass
class Side:
    key: str
    route: Proc
    agents: list[Proc] = field(default_factory=list)  # every process of the side, the route's included
    client: RouteClient | None = None


@contextlib.contextmanager
def started(model: TimedModel, sides: tuple[str, ...], logs: Path) -> Iterator[dict[str, Side]]:
    stack = contextlib.ExitStack()
    result: dict[str, Side] = {}
    try:
        vendor = {
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-bench",
        }
        if any(s.startswith("ours") for s in sides):
            port = free_port()
            argv = [PYTHON, "-m", "mesh_framework.cli", "registry", "--host", HOST, "--port", str(port)]
            registry_proc = Proc(
                "our-registry", argv, env=clean_env({"MESH_LOGGING__LEVEL": "WARNING"}), log_dir=logs
            )
            registry = f"http://{HOST}:{port}"
            wait_for(
                lambda: mm.registry_agents(registry, timeout=1) is not None,
                30,
                "our registry",
                (registry_proc,),
            )
            if "ours" in sides:
                chat = ours("bench_stream_chat", registry, logs, vendor)
                route = ours("bench_stream_route", registry, logs, {"BENCH_CHAT": "bench_chat"})
                result["ours"] = Side("ours", route, [route, chat])
            if "ours-provider" in sides:
                provider = ours("bench_llm_provider", registry, logs, vendor, pythonpath=LLM_AGENTS_DIR)
                chat = ours("bench_stream_chat", registry, logs, {"BENCH_CHAT_VIA_PROVIDER": "1"})
                route = ours("bench_stream_route", registry, logs, {"BENCH_CHAT": "bench_chat_mesh"})
                result["ours-provider"] = Side("ours-provider", route, [route, chat, provider])
        if "mcp-mesh" in sides:
            if missing := mm.missing_tools():
                missing_text = ", ".join(missing)
                raise SystemExit(
                    f"stream_bench: MCP Mesh is missing ({missing_text}): scripts/install-mcp-mesh.sh"
                )
            registry = stack.enter_context(mm.run_mesh_registry(logs / "mcp-mesh", startup_timeout=30)).url
            fake = {"FAKE_OPENAI_BASE_URL": model.base_url, "FAKE_OPENAI_API_KEY": "sk-bench"}
            provider = theirs(MESH_PROVIDER, registry, logs, fake)
            wait_for(lambda: healthy(registry, "mesh-fakellm"), 60, "MCP Mesh provider", (provider,))
            chat = theirs(AGENTS_DIR / "mcp_mesh_chat.py", registry, logs, {})
            wait_for(lambda: healthy(registry, "stream-bench-mesh-chat"), 60, "MCP Mesh chat", (chat,))
            route = their_route(registry, logs)
            result["mcp-mesh"] = Side("mcp-mesh", route, [route, chat, provider])
        for side in result.values():  # until a whole call goes through (dependencies resolved)
            client = side.client = RouteClient(side.route.endpoint)

            def through(client: RouteClient = client) -> bool:
                try:
                    one_call(client, model, 2)
                except (RuntimeError, OSError, http.client.HTTPException, AssertionError):
                    client.close()
                    model.forget()
                    model.release()
                    raise RuntimeError("not yet") from None
                return True

            wait_for(through, 90, f"a first call through {side.key}", tuple(side.agents))
        yield result
    finally:
        for side in result.values():
            if side.client is not None:
                side.client.close()
        stack.close()
        stop_all()


# -- measuring -----------------------------------------------------------------------------------------


def measure(
    sides: dict[str, Side], model: TimedModel, *, rounds: int, calls: int, burst: int
) -> dict[str, Any]:
    """Interleaved rounds; per side the samples and the CPU of its agents per chunk."""
    samples: dict[str, list[Sample]] = {key: [] for key in sides}
    cpu: dict[str, float] = dict.fromkeys(sides, 0.0)
    order = list(sides)
    for number in range(rounds):
        for key in order[number % len(order) :] + order[: number % len(order)]:
            side = sides[key]
            assert side.client is not None
            before = sum(cpu_seconds(p.pid) for p in side.agents)
            for _ in range(calls):
                samples[key].append(one_call(side.client, model, burst))
            cpu[key] += sum(cpu_seconds(p.pid) for p in side.agents) - before
        so_far = [
            f"{SHORT[k]} first {median([s.first_ms for s in v]):.2f} ms, "
            f"chunk {median([s.per_chunk_ms for s in v]):.3f} ms"
            for k, v in samples.items()
        ]
        log(f"round {number + 1}/{rounds}: " + "; ".join(so_far))
    chunks_per_side = rounds * calls * (burst + 1)
    return {
        key: {
            "first_chunk_ms": summary([s.first_ms for s in values]),
            "per_chunk_ms": summary([s.per_chunk_ms for s in values]),
            "cpu_per_chunk_ms": round(cpu[key] / chunks_per_side * 1000, 4),
            "calls": len(values),
        }
        for key, values in samples.items()
    }


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(median(ordered), 4),
        "p90": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))], 4),
        "min": round(ordered[0], 4),
    }


def memory(side: Side, model: TimedModel, streams: int) -> dict[str, float]:
    """RSS of the side's agents with `streams` streams open (each held after its first delta) minus before."""
    before = sum(rss_mib(p.pid) for p in side.agents)
    model.script(1, count=streams)
    clients = [RouteClient(side.route.endpoint) for _ in range(streams)]
    try:
        responses = [client.open("Hold on.") for client in clients]
        for response in responses:
            assert next_chunk(response) == DELTA
        held = sum(rss_mib(p.pid) for p in side.agents)
        model.release()
        for response in responses:
            while next_chunk(response) is not None:
                pass
    finally:
        for client in clients:
            client.close()
    return {
        "streams": streams,
        "rss_before_mib": round(before, 1),
        "rss_open_mib": round(held, 1),
        "per_stream_kib": round((held - before) * 1024 / streams, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20, help="calls per side and round")
    parser.add_argument("--burst", type=int, default=50, help="deltas written back to back after the first")
    parser.add_argument("--open", type=int, default=50, help="streams held open at once (memory)")
    parser.add_argument("--warmup", type=int, default=10, help="calls per side before measuring")
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--quick", action="store_true", help="short configuration (the page says so)")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.calls, args.burst, args.open, args.warmup = 2, 3, 10, 5, 2
    sides = tuple(s for s in args.sides.split(",") if s)
    if unknown := set(sides) - set(SIDES):
        parser.error(f"unknown side(s) {sorted(unknown)}; known: {', '.join(SIDES)}")
    run = Run(short=args.quick)
    with (
        TimedModel() as model,
        tempfile.TemporaryDirectory(prefix="stream-bench-") as tmp,
        started(model, sides, Path(tmp)) as running,
    ):
        log("every side answered; warming up")
        for side in running.values():
            assert side.client is not None
            for _ in range(args.warmup):
                one_call(side.client, model, args.burst)
        figures = measure(running, model, rounds=args.rounds, calls=args.calls, burst=args.burst)
        mem = {key: memory(side, model, args.open) for key, side in running.items()}
    for key in figures:
        figures[key]["memory"] = mem[key]
    result = {
        "rounds": args.rounds,
        "calls": args.calls,
        "burst": args.burst,
        "warmup": args.warmup,
        "sides": list(figures),
        "labels": {key: {"label": LABELS[key], "short": SHORT[key]} for key in figures},
        "targets": TARGETS,
        "results": figures,
    }
    for key, f in figures.items():
        print(
            f"{LABELS[key]}\n    first chunk {f['first_chunk_ms']['median']:.2f} ms, per chunk "
            f"{f['per_chunk_ms']['median']:.3f} ms, CPU/chunk {f['cpu_per_chunk_ms']:.3f} ms, "
            f"{f['memory']['per_stream_kib']:.0f} KiB per open stream"
        )
    save_results("stream", run, result)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        stop_all()
