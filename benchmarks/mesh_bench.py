#!/usr/bin/env python3
"""Mesh benchmarks: our agents on our embedded registry beside the real MCP Mesh, in one run (DESIGN §6).

Phases (each starts its own processes on 127.0.0.1 and stops them by PID, also on failure):

  calc      client -> consumer -> provider: sequential latency over one keep-alive connection, then
            throughput under autocannon (benchmarks/mesh_load.js); RSS of every process before and after.
            Sides: ours, MCP Mesh as shipped, MCP Mesh with TCP_NODELAY on its agents' listening sockets
            (benchmarks/mesh_agents/nodelay/sitecustomize.py on PYTHONPATH; mcp-mesh itself unchanged).
  topology  consumer first (dependency missing: its first answer), then provider start -> consumer's first
            successful call (polled every 20 ms), median of N; then two providers, SIGKILL the one in use
            (calls across the kill), then SIGKILL the other (no alternate left).
  registry  the registry alone under a simulated fleet of heartbeats (distinct agent ids, half providers,
            half consumers, payloads like MCP Mesh 3.7's): full POSTs/s, then HEADs/s, CPU per request.

Ours: `python -m mesh_framework.cli registry` (the embedded registry, standalone) and
`python -m mesh_framework.cli run bench_adder|bench_calc` (benchmarks/mesh_agents/). MCP Mesh: the registry
binary and the fixture agents tests/interop/mesh_agents/adder.py, calc_consumer.py (installed by
scripts/install-mcp-mesh.sh). Both as shipped: registry timeouts and heartbeat intervals at their defaults
unless a row says otherwise.

Results: benchmarks/results/mesh_bench.json; `benchmarks/mesh_report.py` turns it into
docs/benchmarks-mesh.md.

    .venv/bin/python benchmarks/mesh_bench.py                  # everything, ~8.5 min on 2 cores
    .venv/bin/python benchmarks/mesh_bench.py --quick          # smoke run
    .venv/bin/python benchmarks/mesh_bench.py --phases calc    # one phase
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import (  # noqa: E402
    AUTOCANNON,
    HOST,
    PYTHON,
    RESULTS_DIR,
    ROOT,
    cpu_seconds,
    free_port,
    invocation,
    machine_info,
    rss_mib,
    write_json,
)

from tests.interop import mcp_mesh as mm  # noqa: E402

AGENTS_DIR = BENCH_DIR / "mesh_agents"
NODELAY_DIR = AGENTS_DIR / "nodelay"
PAYLOADS_DIR = AGENTS_DIR / "payloads"
LOAD_JS = BENCH_DIR / "mesh_load.js"
RESULT_FILE = RESULTS_DIR / "mesh_bench.json"

OUR_REGISTRY_TIMEOUT = (
    20.0  # `mesh registry` default; MCP Mesh's DEFAULT_TIMEOUT_THRESHOLD default is 20 s too
)
MESH_REGISTRY_DEFAULTS = {"HEALTH_CHECK_INTERVAL": "10", "DEFAULT_TIMEOUT_THRESHOLD": "20"}  # its defaults
ACCEPT = "application/json, text/event-stream"

SIDES = {
    "ours": "mesh_framework (our registry, bench_adder + bench_calc)",
    "mcp": "MCP Mesh as shipped (registry binary, adder.py + calc_consumer.py)",
    "mcp-nodelay": "MCP Mesh, agents' listening sockets given TCP_NODELAY (sitecustomize)",
}
TOOL = {"ours": "calc", "mcp": "mesh_calc", "mcp-nodelay": "mesh_calc"}


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- processes -------------------------------------------------------------------------------------


class Proc:
    """A process this benchmark started. Output goes to a log file; stopped by its PID."""

    started: ClassVar[list[Proc]] = []

    def __init__(self, label: str, argv: list[str], env: dict[str, str], cwd: Path, log_dir: Path) -> None:
        self.label = label
        self.argv = argv
        self.log_path = log_dir / f"{label}-{len(Proc.started)}.log"
        self._log = self.log_path.open("wb")
        self.t_exec = time.perf_counter()
        self.t_exec_wall = time.time()
        self.popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C at the terminal reaches only us; we stop it by PID
        )
        self.pid = self.popen.pid
        self.port: int | None = None
        self.agent_id: str | None = None
        self.endpoint: str | None = None
        Proc.started.append(self)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def check(self) -> None:
        if not self.alive():
            raise RuntimeError(
                f"{self.label} (pid {self.pid}) exited with {self.popen.returncode}:\n{self.tail()}"
            )

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM by PID, SIGKILL after `grace` seconds."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.popen.wait(timeout=5)
        self._log.close()

    def kill(self) -> None:
        """SIGKILL by PID (a crash: no unregistration)."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.popen.wait(timeout=5)
        self._log.close()


def stop_all() -> None:
    for proc in reversed(Proc.started):
        with contextlib.suppress(Exception):
            proc.stop(grace=5)


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MESH_", "MCP_MESH_"))
        and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env.update(extra)
    return env


def http_status(url: str, method: str = "GET", timeout: float = 1.0) -> int | None:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=timeout) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except OSError:
        return None


def wait_for(
    predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.02, proc: Proc | None = None
) -> Any:
    deadline = time.perf_counter() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if proc is not None:
            proc.check()
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{what} not within {timeout} s" + (f":\n{proc.tail()}" if proc else ""))
        time.sleep(interval)


def list_agents(registry_url: str) -> list[dict[str, Any]]:
    try:
        return mm.registry_agents(registry_url, timeout=5)
    except (OSError, RuntimeError, ValueError):
        return []


# ours


def start_our_registry(log_dir: Path, timeout: float = OUR_REGISTRY_TIMEOUT) -> tuple[Proc, str]:
    port = free_port()
    argv = [PYTHON, "-m", "mesh_framework.cli", "registry", "--port", str(port), "--timeout", str(timeout)]
    proc = Proc("our-registry", argv, clean_env({}), ROOT, log_dir)
    url = f"http://{HOST}:{port}"
    wait_for(lambda: http_status(url + "/health") == 200, 20, "our registry /health", proc=proc)
    proc.port = port
    return proc, url


def spawn_our_agent(module: str, registry_url: str, log_dir: Path, *, interval: float | None = None) -> Proc:
    port = free_port()
    env = {"MCP_MESH_REGISTRY_URL": registry_url, "MESH_LOGGING__LEVEL": "WARNING"}
    if interval is not None:
        env["MCP_MESH_HEALTH_INTERVAL"] = str(interval)
    argv = [PYTHON, "-m", "mesh_framework.cli", "run", module, "--host", HOST, "--port", str(port)]
    proc = Proc(f"our-{module}", argv, clean_env(env), AGENTS_DIR, log_dir)
    proc.port = port
    proc.endpoint = f"http://{HOST}:{port}"
    return proc


def wait_our_agent(proc: Proc, registry_url: str, timeout: float = 30) -> Proc:
    """Until the agent answers tools/list and the registry lists it healthy."""
    assert proc.port is not None
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    def answers() -> bool:
        conn = http.client.HTTPConnection(HOST, proc.port, timeout=2)
        try:
            conn.request(
                "POST", "/mcp", body=body, headers={"Content-Type": "application/json", "Accept": ACCEPT}
            )
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    wait_for(answers, timeout, f"{proc.label} tools/list", proc=proc, interval=0.005)

    def listed() -> bool:
        for agent in list_agents(registry_url):
            if agent.get("endpoint") == proc.endpoint and agent.get("status") == "healthy":
                proc.agent_id = str(agent["id"])
                return True
        return False

    wait_for(listed, timeout, f"{proc.label} registered", proc=proc)
    return proc


# MCP Mesh


def spawn_mesh_agent(script: str, registry_url: str, log_dir: Path, *, nodelay: bool) -> Proc:
    """An mcp-mesh fixture agent as shipped (default debounce and heartbeat interval), on loopback."""
    env = {
        "HOST": HOST,  # bind address
        "MCP_MESH_HTTP_HOST": HOST,  # advertised address
        "MCP_MESH_HTTP_PORT": "0",
        "MCP_MESH_REGISTRY_URL": registry_url,
        "PYTHONUNBUFFERED": "1",
    }
    if nodelay:
        env["PYTHONPATH"] = str(NODELAY_DIR)
    path = mm.AGENTS_DIR / script
    return Proc(
        f"mcp-{path.stem}{'-nodelay' if nodelay else ''}",
        [str(mm.MESH_PYTHON), str(path)],
        clean_env(env),
        mm.AGENTS_DIR,
        log_dir,
    )


def wait_mesh_agent(proc: Proc, registry_url: str, name: str, known: set[str], timeout: float = 60) -> Proc:
    def registered() -> bool:
        for agent in list_agents(registry_url):
            if (
                agent.get("name") == name
                and agent.get("id") not in known
                and agent.get("status") == "healthy"
            ):
                proc.agent_id = str(agent["id"])
                proc.endpoint = str(agent["endpoint"])
                proc.port = int(proc.endpoint.rsplit(":", 1)[1])
                return True
        return False

    wait_for(registered, timeout, f"{proc.label} registered", proc=proc, interval=0.05)
    return proc


def known_ids(registry_url: str) -> set[str]:
    return {str(a.get("id")) for a in list_agents(registry_url)}


def parse_ts(text: str) -> float | None:
    """An RFC 3339 UTC timestamp (micro- or nanoseconds) as epoch seconds."""
    import datetime as dt

    try:
        head, _, frac = text.rstrip("Z").partition(".")
        base = dt.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.UTC).timestamp()
        return base + (float("0." + frac) if frac else 0.0)
    except ValueError:
        return None


def registered_after_exec(registry_url: str, proc: Proc, name: str) -> float | None:
    """Seconds from the provider's exec to its `created_at` in the registry (the newest row named `name`,
    or the row at its endpoint)."""
    rows = [
        a
        for a in list_agents(registry_url)
        if (proc.endpoint and a.get("endpoint") == proc.endpoint) or a.get("name") == name
    ]
    stamps = [t for t in (parse_ts(str(a.get("created_at", ""))) for a in rows) if t is not None]
    return round(max(stamps) - proc.t_exec_wall, 3) if stamps else None


def provider_in_use(client: McpClient, providers: list[Proc], calls: int) -> tuple[Proc, dict[str, float]]:
    """The provider whose CPU time grows while the consumer answers `calls` calls (the registry's view of a
    consumer's resolution can lag behind what the consumer uses)."""
    for _attempt in range(3):
        before = {p.pid: cpu_seconds(p.pid) for p in providers}
        for i in range(calls):
            client.call(i, 1)
        deltas = {p.pid: cpu_seconds(p.pid) - before[p.pid] for p in providers}
        ranked = sorted(providers, key=lambda p: deltas[p.pid], reverse=True)
        if deltas[ranked[0].pid] > 0 and deltas[ranked[0].pid] >= 3 * deltas[ranked[1].pid]:
            return ranked[0], {str(p.agent_id): round(deltas[p.pid], 3) for p in providers}
        calls *= 2
    raise RuntimeError(f"cannot tell which provider the consumer uses (CPU deltas {deltas})")


# -- MCP client (sequential, one keep-alive connection) ----------------------------------------------


class Outcome:
    __slots__ = ("kind", "latency", "t", "text")

    def __init__(self, kind: str, text: str, latency: float, t: float) -> None:
        self.kind = kind  # ok | unavailable | error | wrong | transport | timeout
        self.text = text
        self.latency = latency
        self.t = t


class McpClient:
    """tools/call over one keep-alive HTTP/1.1 connection (reconnects after a transport error)."""

    def __init__(self, port: int, tool: str, timeout: float = 30.0) -> None:
        self.port = port
        self.tool = tool
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.next_id = 0
        self.headers = {"Content-Type": "application/json", "Accept": ACCEPT}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, a: int, b: int, timeout: float | None = None) -> Outcome:
        self.next_id += 1
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": self.tool, "arguments": {"a": a, "b": b}},
            }
        ).encode()
        started = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout or self.timeout)
            elif timeout is not None and self.conn.sock is not None:
                self.conn.sock.settimeout(timeout)
            self.conn.request("POST", "/mcp", body=body, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
            ctype = response.getheader("Content-Type", "")
            status = response.status
        except TimeoutError:
            self.close()
            return Outcome(
                "timeout", "no answer within the client timeout", time.perf_counter() - started, started
            )
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return Outcome(
                "transport", f"{type(exc).__name__}: {exc}", time.perf_counter() - started, started
            )
        latency = time.perf_counter() - started
        kind, text = classify(status, ctype, payload, a + b)
        return Outcome(kind, text, latency, started)


def parse_message(ctype: str, payload: bytes) -> dict[str, Any] | None:
    text = payload.decode(errors="replace")
    if "text/event-stream" in ctype:
        for block in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
            if data:
                return dict(json.loads(data))
        return None
    return dict(json.loads(text)) if text.strip() else None


def classify(status: int, ctype: str, payload: bytes, expected: int) -> tuple[str, str]:
    try:
        message = parse_message(ctype, payload)
    except ValueError:
        message = None
    if status != 200 or message is None:
        return "error", f"HTTP {status}: {payload[:200].decode(errors='replace')}"
    if "error" in message:
        return "error", f"JSON-RPC error: {json.dumps(message['error'])[:300]}"
    result = message.get("result") or {}
    texts = " ".join(c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text")
    if result.get("isError"):
        kind = "unavailable" if "not resolved" in texts else "error"
        return kind, texts[:300]
    structured = result.get("structuredContent")
    value = structured.get("result") if isinstance(structured, dict) and "result" in structured else texts
    if value == expected or str(value) == str(expected):
        return "ok", str(value)
    if value == "add unavailable":
        return "unavailable", str(value)
    return "wrong", str(value)[:300]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


# -- measurements --------------------------------------------------------------------------------


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


# -- phase: calc -------------------------------------------------------------------------------------


def start_calc_stack(side: str, tmp: Path, stack: dict[str, Any]) -> None:
    """Registry, provider and consumer of one side; fills `stack` as it goes (a failure still stops all)."""
    stack["procs"] = procs = []
    if side == "ours":
        registry, url = start_our_registry(tmp)
        procs.append(registry)
        stack["registry_pid"] = registry.pid
        provider = spawn_our_agent("bench_adder", url, tmp)
        consumer = spawn_our_agent("bench_calc", url, tmp)
        procs += [provider, consumer]
        wait_our_agent(provider, url)
        wait_our_agent(consumer, url)
    else:
        stack["registry_cm"] = cm = mm.run_mesh_registry(tmp / f"registry-{side}", env=MESH_REGISTRY_DEFAULTS)
        mesh_registry = cm.__enter__()
        url = mesh_registry.url
        stack["registry_pid"] = mesh_registry.pid
        nodelay = side == "mcp-nodelay"
        provider = spawn_mesh_agent("adder.py", url, tmp, nodelay=nodelay)
        consumer = spawn_mesh_agent("calc_consumer.py", url, tmp, nodelay=nodelay)
        procs += [provider, consumer]
        wait_mesh_agent(provider, url, "mesh-adder", set())
        wait_mesh_agent(consumer, url, "mesh-calc", set())
    stack.update(provider=provider, consumer=consumer, url=url)


def stop_calc_stack(stack: dict[str, Any]) -> None:
    for proc in reversed(stack.get("procs", [])):
        proc.stop()
    if stack.get("registry_cm") is not None:
        stack["registry_cm"].__exit__(None, None, None)


def phase_calc(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """All sides run at once (idle ones only heartbeat); measurements alternate between them."""
    sides = [side for side in SIDES if side in args.sides.split(",")]
    stacks: dict[str, dict[str, Any]] = {side: {} for side in sides}
    clients: dict[str, McpClient] = {}
    results: dict[str, dict[str, Any]] = {}
    try:
        for side in sides:
            log(f"calc: starting {side}")
            start_calc_stack(side, tmp, stacks[side])
        for side in sides:
            st = stacks[side]
            consumer = st["consumer"]
            probe = McpClient(consumer.port, TOOL[side], timeout=30)
            first = wait_for(
                lambda probe=probe: (o := probe.call(2, 3)).kind == "ok" and o,
                60,
                f"{side} calc answers 5",
                interval=0.05,
                proc=consumer,
            )
            probe.close()
            st["pids"] = {"consumer": consumer.pid, "provider": st["provider"].pid}
            results[side] = {
                "side": side,
                "label": SIDES[side],
                "first_ok_call_ms": round(first.latency * 1000, 2),
                "rss_mib": {
                    "serving": memory(
                        {"registry": st["registry_pid"], "provider": st["provider"], "consumer": consumer}
                    )
                },
                "commands": {p.label: display(p.argv) for p in st["procs"]},
            }
            clients[side] = McpClient(consumer.port, TOOL[side], timeout=10)
            for i in range(args.warmup_calls):
                out = clients[side].call(i, 1)
                if out.kind != "ok":
                    raise RuntimeError(f"{side}: warm-up call failed: {out.kind} {out.text}")
        # Sequential latency, in chunks alternating between the sides.
        chunk = max(1, args.calls // args.latency_chunks)
        chunks: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        deadline = {side: time.perf_counter() + args.latency_max_s for side in sides}
        done = dict.fromkeys(sides, 0)
        while any(done[s] < args.calls and time.perf_counter() < deadline[s] for s in sides):
            for side in sides:
                if done[side] >= args.calls or time.perf_counter() >= deadline[side]:
                    continue
                n = min(chunk, args.calls - done[side])
                c = latency_chunk(clients[side], n, stacks[side]["pids"], deadline[side])
                chunks[side].append(c)
                done[side] += len(c["lat"]) + sum(c["failures"].values())
        for side in sides:
            clients[side].close()
            results[side]["latency"] = latency_summary(chunks[side], args.calls)
            log(
                f"  {side}: latency p50 {results[side]['latency']['p50_ms']} ms, "
                f"{results[side]['latency']['calls_per_s']} calls/s"
            )
        # Throughput rounds, alternating.
        rounds: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
        for rnd in range(args.rounds):
            for side in sides:
                st = stacks[side]
                rounds[side].append(
                    throughput_run(
                        st["consumer"].port,
                        TOOL[side],
                        {**st["pids"], "registry": st["registry_pid"]},
                        tmp,
                        connections=args.connections,
                        duration=args.duration,
                        warmup=args.load_warmup,
                        cap=args.max_requests,
                    )
                )
                log(
                    f"  {side}: round {rnd}: {rounds[side][-1]['calls_per_s']} calls/s "
                    f"(bad {rounds[side][-1]['bad']})"
                )
        for side in sides:
            st = stacks[side]
            results[side]["throughput"] = throughput_summary(rounds[side])
            results[side]["rss_mib"]["after_load"] = memory(
                {"registry": st["registry_pid"], "provider": st["provider"], "consumer": st["consumer"]}
            )
        return results
    finally:
        for client in clients.values():
            client.close()
        for side in reversed(sides):
            stop_calc_stack(stacks[side])


def display(argv: list[str]) -> str:
    out = []
    for arg in argv:
        if arg == PYTHON:
            out.append(".venv/bin/python")
        elif arg.startswith(str(ROOT) + os.sep):
            out.append(os.path.relpath(arg, ROOT))
        else:
            out.append(arg)
    return " ".join(out)


# -- phase: topology ----------------------------------------------------------------------------------


def poll_until(
    client: McpClient, kinds: set[str], timeout: float, interval: float = 0.02, proc: Proc | None = None
) -> tuple[float, Outcome, int]:
    """Call every `interval` s until an answer of one of `kinds`; returns (time of that answer, it, calls)."""
    deadline = time.perf_counter() + timeout
    calls = 0
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError(
                f"no answer of kind {kinds} within {timeout} s" + (f"\n{proc.tail()}" if proc else "")
            )
        out = client.call(3, 4, timeout=max(0.5, remaining))
        calls += 1
        if out.kind in kinds:
            return time.perf_counter(), out, calls
        time.sleep(interval)


def calls_across(
    client: McpClient,
    *,
    stop: Callable[[float, list[Outcome]], bool],
    max_s: float,
    max_calls: int,
    pause: float,
    t0: float,
) -> list[Outcome]:
    """Sequential calls (pause between them) until `stop(t_since_t0, outcomes)`, bounded in time and count."""
    outcomes: list[Outcome] = []
    while len(outcomes) < max_calls:
        now = time.perf_counter() - t0
        if now > max_s or stop(now, outcomes):
            break
        out = client.call(3, 4, timeout=max(1.0, max_s - now + 1))
        out.t -= t0
        outcomes.append(out)
        time.sleep(pause)
    return outcomes


def summarize_calls(outcomes: list[Outcome]) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    firsts: dict[str, str] = {}
    for o in outcomes:
        kinds[o.kind] = kinds.get(o.kind, 0) + 1
        firsts.setdefault(o.kind, o.text)
    failed = [o for o in outcomes if o.kind != "ok"]
    last_fail = max((o.t for o in failed), default=None)
    recovered = next(
        (o.t + o.latency for o in outcomes if o.kind == "ok" and (last_fail is None or o.t > last_fail)), None
    )
    return {
        "calls": len(outcomes),
        "span_s": round(outcomes[-1].t + outcomes[-1].latency, 3) if outcomes else 0,
        "by_kind": kinds,
        "first_text_by_kind": firsts,
        "failed": len(failed),
        "failed_after_first": max(0, len(failed) - 1) if failed and outcomes[0].kind != "ok" else len(failed),
        "first_failure_s": round(min((o.t for o in failed), default=0), 3) if failed else None,
        "last_failure_s": round(last_fail, 3) if last_fail is not None else None,
        "success_again_s": round(recovered, 3)
        if failed and recovered is not None
        else (0.0 if not failed else None),
        "max_latency_ms": round(max((o.latency for o in outcomes), default=0) * 1000, 1),
        "first_answer": {
            "kind": outcomes[0].kind,
            "latency_ms": round(outcomes[0].latency * 1000, 1),
            "text": outcomes[0].text,
        }
        if outcomes
        else None,
    }


def phase_topology(
    side: str, args: argparse.Namespace, tmp: Path, *, interval: float | None, crash: bool
) -> dict[str, Any]:
    label = f"{side}" + (f" interval {interval:g}s" if interval is not None else "")
    log(f"topology: {label}")
    procs: list[Proc] = []
    registry_cm: Any = None
    ours = side == "ours"
    result: dict[str, Any] = {"side": side, "heartbeat_interval_s": interval if interval is not None else 5.0}
    try:
        if ours:
            registry, url = start_our_registry(tmp)
            procs.append(registry)
            consumer = spawn_our_agent("bench_calc", url, tmp, interval=interval)
            procs.append(consumer)
            wait_our_agent(consumer, url)
        else:
            registry_cm = mm.run_mesh_registry(tmp / f"registry-topology-{side}", env=MESH_REGISTRY_DEFAULTS)
            url = registry_cm.__enter__().url
            consumer = spawn_mesh_agent("calc_consumer.py", url, tmp, nodelay=False)
            procs.append(consumer)
            wait_mesh_agent(consumer, url, "mesh-calc", set())
        result["registry_url_kind"] = "ours" if ours else "mcp-mesh-registry"
        assert consumer.port is not None
        client = McpClient(consumer.port, TOOL[side], timeout=60)

        def start_provider() -> Proc:
            if ours:
                return spawn_our_agent("bench_adder", url, tmp, interval=interval)
            return spawn_mesh_agent("adder.py", url, tmp, nodelay=False)

        # Dependency missing: the consumer's first answers.
        first = client.call(1, 1, timeout=60)
        second = client.call(1, 1, timeout=60)
        result["missing_dependency"] = {
            "first_call": {
                "kind": first.kind,
                "latency_ms": round(first.latency * 1000, 1),
                "text": first.text,
            },
            "second_call": {
                "kind": second.kind,
                "latency_ms": round(second.latency * 1000, 1),
                "text": second.text,
            },
        }
        log(f"  missing dependency: first call {first.kind} in {first.latency * 1000:.0f} ms")
        poll_until(client, {"unavailable"}, 60, interval=0.05, proc=consumer)

        # Provider start -> consumer's first successful call.
        runs = []
        for run in range(args.runs):
            provider = start_provider()
            procs.append(provider)
            t_done, _, calls = poll_until(client, {"ok"}, 60, interval=0.02, proc=provider)
            start_to_ok = t_done - provider.t_exec
            registered = registered_after_exec(url, provider, "bench-adder" if ours else "mesh-adder")
            t_stop = time.perf_counter()
            provider.stop()
            t_degraded, _, _ = poll_until(client, {"unavailable"}, 60, interval=0.02)
            runs.append(
                {
                    "start_to_ok_s": round(start_to_ok, 3),
                    "polls": calls,
                    "exec_to_registered_s": registered,
                    "graceful_stop_to_unavailable_s": round(t_degraded - t_stop, 3),
                }
            )
            log(f"  run {run}: provider start -> ok {start_to_ok:.3f} s")
        result["provider_start"] = {
            "runs": runs,
            "median_s": round(statistics.median(r["start_to_ok_s"] for r in runs), 3),
            "graceful_stop_median_s": round(
                statistics.median(r["graceful_stop_to_unavailable_s"] for r in runs), 3
            ),
            "exec_to_registered_median_s": round(
                statistics.median(
                    r["exec_to_registered_s"] for r in runs if r["exec_to_registered_s"] is not None
                ),
                3,
            )
            if any(r["exec_to_registered_s"] is not None for r in runs)
            else None,
        }
        if crash:
            result["crash"] = crash_tests(side, client, url, start_provider, procs, args)
        client.close()
        result["commands"] = {p.label: display(p.argv) for p in procs[:3]}
        return result
    finally:
        for proc in reversed(procs):
            proc.stop()
        if registry_cm is not None:
            registry_cm.__exit__(None, None, None)


def crash_tests(
    side: str,
    client: McpClient,
    url: str,
    start_provider: Callable[[], Proc],
    procs: list[Proc],
    args: argparse.Namespace,
) -> dict[str, Any]:
    ours = side == "ours"
    first = start_provider()
    procs.append(first)
    second = start_provider()
    procs.append(second)
    for provider in (first, second):
        if ours:
            wait_our_agent(provider, url)
        else:
            wait_mesh_agent(
                provider, url, "mesh-adder", {p.agent_id for p in procs if p.agent_id and p is not provider}
            )
    poll_until(client, {"ok"}, 60)

    # The provider the consumer uses, as the registry reports it (informative) ...
    def in_use() -> str | None:
        for agent in list_agents(url):
            for res in agent.get("dependency_resolutions") or []:
                if res.get("capability") == "add" and res.get("status") == "available":
                    return str(res.get("provider_agent_id") or res.get("endpoint"))
        return None

    # Let both providers be known to the consumer (it re-POSTs on the next heartbeat after the second joined).
    time.sleep(args.settle)
    poll_until(client, {"ok"}, 60)
    registry_view = in_use()
    # ... and as its CPU shows: that one is killed.
    victim, deltas = provider_in_use(client, [first, second], 100 if ours else 40)
    alternate = second if victim is first else first
    out: dict[str, Any] = {
        "victim": victim.agent_id,
        "alternate": alternate.agent_id,
        "provider_cpu_s_during_probe": deltas,
        "registry_view_of_resolution": registry_view,
    }

    # (a) an alternate exists
    t0 = time.perf_counter()
    victim.kill()

    def stop_a(t: float, outcomes: list[Outcome]) -> bool:
        failed = [o for o in outcomes if o.kind != "ok"]
        if t < args.crash_min_s:
            return False
        if not failed:
            return True
        return t - failed[-1].t >= 2.0  # 2 s of successes after the last failure

    outcomes = calls_across(
        client, stop=stop_a, max_s=args.crash_max_s, max_calls=20000, pause=args.crash_pause, t0=t0
    )
    out["with_alternate"] = summarize_calls(outcomes)
    log(
        f"  crash with alternate: {out['with_alternate']['failed']} failed, "
        f"success again at {out['with_alternate']['success_again_s']} s"
    )

    # (b) no alternate left
    t0 = time.perf_counter()
    alternate.kill()

    def stop_b(t: float, outcomes: list[Outcome]) -> bool:
        if t < args.crash_min_s:
            return False
        unavailable = [o for o in outcomes if o.kind == "unavailable"]
        return bool(unavailable) and t - unavailable[0].t >= 1.0

    outcomes = calls_across(
        client, stop=stop_b, max_s=args.crash_max_s, max_calls=20000, pause=args.crash_pause, t0=t0
    )
    summary = summarize_calls(outcomes)
    unavailable = [o for o in outcomes if o.kind == "unavailable"]
    summary["unavailable_from_s"] = round(unavailable[0].t, 3) if unavailable else None
    clear = [o for o in outcomes if o.kind in ("unavailable", "error")]
    summary["first_clear_answer_s"] = round(clear[0].t + clear[0].latency, 3) if clear else None
    summary["hung_calls_over_1s"] = sum(1 for o in outcomes if o.latency > 1.0)
    out["without_alternate"] = summary
    log(
        f"  crash without alternate: first answer {summary['first_answer']}, unavailable from "
        f"{summary['unavailable_from_s']} s"
    )
    return out


# -- phase: registry ---------------------------------------------------------------------------------


def fleet(n: int, port_base: int = 20000) -> tuple[list[str], list[str]]:
    """Heartbeat bodies of n agents (distinct ids, half providers, half consumers) and their ids."""
    provider = json.loads((PAYLOADS_DIR / "provider_heartbeat.json").read_text())
    consumer = json.loads((PAYLOADS_DIR / "consumer_heartbeat.json").read_text())
    bodies, ids = [], []
    for i in range(n):
        template = provider if i % 2 == 0 else consumer
        body = copy.deepcopy(template)
        kind = "prov" if i % 2 == 0 else "cons"
        body["agent_id"] = f"fleet-{kind}-{i:05d}"
        body["name"] = f"fleet-{kind}"
        body["http_port"] = port_base + i  # nothing listens there: the registry never probes agents
        bodies.append(json.dumps(body, separators=(",", ":")))
        ids.append(body["agent_id"])
    return bodies, ids


def phase_registry(side: str, args: argparse.Namespace, tmp: Path, size: int) -> dict[str, Any]:
    log(f"registry: {side}, fleet {size}")
    procs: list[Proc] = []
    registry_cm: Any = None
    try:
        if side == "ours":
            registry, url = start_our_registry(tmp)
            procs.append(registry)
            pid = registry.pid
            command = display(registry.argv)
        else:
            registry_cm = mm.run_mesh_registry(tmp / f"registry-load-{size}", env=MESH_REGISTRY_DEFAULTS)
            mesh_registry = registry_cm.__enter__()
            url, pid = mesh_registry.url, mesh_registry.pid
            command = (
                "HOST=127.0.0.1 PORT=<free> DATABASE_URL=<tmp>/registry.db HEALTH_CHECK_INTERVAL=10 "
                "DEFAULT_TIMEOUT_THRESHOLD=20 .tools/mcpmesh/.../bin/mcp-mesh-registry"
            )
        assert pid is not None
        bodies, ids = fleet(size)
        common = {
            "url": url,
            "connections": args.registry_connections,
            "timeout": 10,
            "headers": {"content-type": "application/json"},
        }
        # Register the whole fleet once (every body once, cycled by a shared counter).
        t0 = time.perf_counter()
        reg = autocannon(
            {
                **common,
                "connections": min(len(bodies), args.registry_connections),
                "kind": "post",
                "bodies": bodies,
                "duration": 60,
                "max_requests": len(bodies),
            },
            tmp,
            budget=120,
        )
        register_s = time.perf_counter() - t0
        listed = list_agents(url)
        result: dict[str, Any] = {
            "side": side,
            "command": command,
            "fleet": size,
            "registered": sum(1 for a in listed if str(a.get("id", "")).startswith("fleet-")),
            "register_pass_s": round(register_s, 2),
            "register_pass_status": reg["statusCodeStats"],
        }
        rss_registered = rss_mib(pid)
        loads = {
            "post": ("post", {"bodies": bodies}),  # the whole fleet, half providers, half consumers
            "post_providers": ("post", {"bodies": bodies[0::2]}),  # the providers' bodies only
            "head": ("head", {"ids": ids}),
        }
        for name, (kind, payload) in loads.items():
            cpu0 = cpu_seconds(pid)
            other = OtherLoad([pid])
            t0 = time.perf_counter()
            res = autocannon(
                {
                    **common,
                    **payload,
                    "kind": kind,
                    "duration": args.registry_duration,
                    "max_requests": args.registry_cap,
                },
                tmp,
                budget=args.registry_duration + 60,
            )
            elapsed = time.perf_counter() - t0
            cpu = cpu_seconds(pid) - cpu0
            total = int(res["requests_total"])
            result[name] = {
                "load_generator": "autocannon (mesh_load.js)"
                if kind == "post"
                else "node http, keep-alive loops (mesh_load.js)",
                "requests": total,
                "per_s": round(total / float(res["duration_s"]), 1),
                "p50_ms": res["latency_ms"]["p50"],
                "p99_ms": res["latency_ms"]["p99"],
                "status": {code: stat["count"] for code, stat in res["statusCodeStats"].items()},
                "errors": res["errors"],
                "timeouts": res["timeouts"],
                "registry_cpu_util": round(cpu / elapsed, 2),
                "registry_cpu_us_per_req": round(cpu / max(total, 1) * 1e6, 1),
                "loadgen_cpu_util": round(float(res["loadgen_cpu_s"]) / elapsed, 2),
                "other_cores": other.cores(float(res["loadgen_cpu_s"])),
            }
            log(
                f"  {name}: {result[name]['per_s']} /s, registry CPU {result[name]['registry_cpu_util']}, "
                f"loadgen CPU {result[name]['loadgen_cpu_util']}, status {result[name]['status']}"
            )
        result["rss_mib"] = {
            "idle_after_register": round(rss_registered, 1),
            "after_load": round(rss_mib(pid), 1),
        }
        return result
    finally:
        for proc in reversed(procs):
            proc.stop()
        if registry_cm is not None:
            registry_cm.__exit__(None, None, None)


# -- main ----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phases", default="calc,topology,registry")
    parser.add_argument(
        "--sides", default=",".join(SIDES), help="sides of the calc phase (ours,mcp,mcp-nodelay)"
    )
    parser.add_argument("--quick", action="store_true", help="small counts: a smoke run")
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls measured per side")
    parser.add_argument("--warmup-calls", type=int, default=200)
    parser.add_argument(
        "--latency-max-s", type=float, default=180.0, help="time bound of one side's latency run"
    )
    parser.add_argument(
        "--latency-chunks", type=int, default=4, help="latency calls alternate between sides in chunks"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="throughput rounds per side (alternating; median)"
    )
    parser.add_argument("-c", "--connections", type=int, default=16)
    parser.add_argument("-d", "--duration", type=float, default=5.0)
    parser.add_argument("--load-warmup", type=float, default=1.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5, help="provider-start runs per configuration")
    parser.add_argument(
        "--settle", type=float, default=6.0, help="s to wait after the second provider joined"
    )
    parser.add_argument("--crash-min-s", type=float, default=3.0)
    parser.add_argument("--crash-max-s", type=float, default=60.0)
    parser.add_argument("--crash-pause", type=float, default=0.01, help="pause between calls across a crash")
    parser.add_argument("--fleet", type=int, default=1000)
    parser.add_argument(
        "--small-fleet", type=int, default=10, help="also load each registry with this few agents (0: no)"
    )
    parser.add_argument("--registry-connections", type=int, default=16)
    parser.add_argument("--registry-duration", type=float, default=5.0)
    parser.add_argument("--registry-cap", type=int, default=200_000)
    parser.add_argument("--output", type=Path, default=RESULT_FILE)
    args = parser.parse_args()
    if args.quick:
        args.calls, args.warmup_calls, args.duration, args.runs, args.rounds = 200, 20, 2.0, 2, 1
        args.fleet, args.registry_duration = 200, 2.0
    missing = mm.missing_tools()
    if missing:
        print(
            f"mesh_bench: MCP Mesh tools missing ({missing}); run scripts/install-mcp-mesh.sh",
            file=sys.stderr,
        )
        return 2
    if not AUTOCANNON.exists():
        print("mesh_bench: autocannon missing; run scripts/install-node-tools.sh", file=sys.stderr)
        return 2
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]

    def on_term(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    results: dict[str, Any] = {
        "command": invocation(),
        "phases": phases,
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    }
    results["loadavg_at_start"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="mesh-bench-") as tmp_name:
            tmp = Path(tmp_name)
            if "calc" in phases:
                results["calc"] = phase_calc(args, tmp)
            if "topology" in phases:
                results["topology"] = {
                    "ours-5s": phase_topology("ours", args, tmp, interval=None, crash=True),
                    "ours-1s": phase_topology("ours", args, tmp, interval=1.0, crash=False),
                    "mcp": phase_topology("mcp", args, tmp, interval=None, crash=True),
                }
            if "registry" in phases:
                results["registry"] = {
                    side: phase_registry(side, args, tmp, args.fleet) for side in ("ours", "mcp")
                }
                if args.small_fleet:
                    results["registry_small"] = {
                        side: phase_registry(side, args, tmp, args.small_fleet) for side in ("ours", "mcp")
                    }
    finally:
        stop_all()
    results["elapsed_s"] = round(time.perf_counter() - started, 1)
    results["machine"] = machine_info()
    results["machine"]["mcp_mesh"] = (
        "registry @mcpmesh/cli-linux-x64 3.7.1, agents mcp-mesh 3.8.0 (tests/interop)"
    )
    write_json(args.output, results)
    log(f"wrote {os.path.relpath(args.output, ROOT)} in {results['elapsed_s']} s")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
