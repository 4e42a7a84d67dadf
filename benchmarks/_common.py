"""Shared helpers of the benchmark scripts: paths, request bodies, the servers measured, /proc readings,
and the results files (`Run`, `save_results`).

Every server is a subprocess of the benchmark on 127.0.0.1 and an ephemeral port (a `processes.Proc`), and
is stopped by its PID when the benchmark ends, also on failure (`servers` is a context manager).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import http.client
import json
import os
import platform
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from processes import Proc

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
# The servers' interpreter: the dev venv, or another one named by MESH_BENCH_PYTHON (runtime_venv.sh makes
# one with the runtime dependencies only, as a user's install has them).
VENV_PYTHON = Path(os.environ.get("MESH_BENCH_PYTHON") or ROOT / ".venv" / "bin" / "python").absolute()
PYTHON = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
AUTOCANNON = ROOT / ".tools" / "autocannon" / "node_modules" / "autocannon" / "autocannon.js"
AGENT_CONFIG = BENCH_DIR / "bench_agent" / "config"
HOST = "127.0.0.1"
MCP_PATH = "/mcp"
MODERN = "2026-07-28"

BASE_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
_META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def call_body(a: int = 1, b: int = 2, *, modern: bool, tool: str = "add") -> str:
    params: dict[str, Any] = {"name": tool, "arguments": {"a": a, "b": b}}
    if modern:
        params["_meta"] = _META
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, separators=(",", ":")
    )


def call_headers(*, modern: bool, tool: str = "add") -> dict[str, str]:
    if not modern:
        return dict(BASE_HEADERS)
    return {**BASE_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool}


def list_body(*, modern: bool) -> str:
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    if modern:
        request["params"] = {"_meta": _META}
    return json.dumps(request, separators=(",", ":"))


def list_headers(*, modern: bool) -> dict[str, str]:
    if not modern:
        return dict(BASE_HEADERS)
    return {**BASE_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}


# -- servers ---------------------------------------------------------------------------------------

SERVER_KINDS = ("plain", "plain-ours", "mesh", "sdk")  # server_cpu.py; startup.py adds its own
SERVER_LABELS = {
    "plain": "plain Starlette route (benchmarks/plain_app.py) on stock uvicorn",
    "plain-ours": "the same route on the agents' HTTP stack (benchmarks/plain_on_our_stack.py)",
    "mesh": "mesh_framework agent (benchmarks/bench_agent), `mesh run` as shipped",
    "sdk": "mcp SDK low-level Server (benchmarks/sdk_lowlevel_app.py)",
    "mesh-registry": "mesh_framework agent joining the mesh (starts an embedded registry on a free port)",
    "starter": "the starter app (`mesh run starter_app`, its embedded registry on a free port)",
    "floor": "the floor: the starter app's third-party modules imported, its `tools/list` answer replayed "
    "by a plain ASGI app on stock uvicorn (benchmarks/floor_app.py)",
}
# What floor_app.py's `modules` role wrote in this run (startup.py): the modules and the answer it serves.
FLOOR_DIR = Path(tempfile.gettempdir()) / "mesh-bench-floor"
FLOOR_MODULES = FLOOR_DIR / "modules.json"
FLOOR_ANSWER = FLOOR_DIR / "tools_list.json"


def server_command(kind: str, port: int) -> list[str]:
    """The argv that serves `kind` on 127.0.0.1:port, one process, one uvicorn worker; cwd is BENCH_DIR
    (ROOT for "starter")."""
    address = ["--host", HOST, "--port", str(port)]
    run = [PYTHON, "-m", "mesh_framework.cli", "run"]
    if kind in ("mesh", "mesh-registry"):
        return [*run, "bench_agent", *address, "--config", str(AGENT_CONFIG)]
    if kind == "starter":
        return [*run, "starter_app", *address]
    if kind == "floor":
        floor_app = str(BENCH_DIR / "floor_app.py")
        return [PYTHON, floor_app, "serve", str(FLOOR_MODULES), str(FLOOR_ANSWER), *address]
    if kind == "plain-ours":
        return [PYTHON, str(BENCH_DIR / "plain_on_our_stack.py"), *address]
    module = {"plain": "plain_app", "sdk": "sdk_lowlevel_app"}[kind]
    return [
        PYTHON,
        "-m",
        "uvicorn",
        f"{module}:app",
        "--app-dir",
        str(BENCH_DIR),
        *address,
        "--log-level",
        "warning",
        "--no-access-log",
        "--lifespan",
        "on",
    ]


def display_command(argv: Sequence[str], cwd: Path = BENCH_DIR) -> str:
    """argv as typed in `cwd` (the servers' working directory, `benchmarks/` by default), no machine
    paths."""
    out = []
    for index, arg in enumerate(argv):
        shown = arg
        if index == 0 and arg != PYTHON and os.path.isabs(arg):
            shown = os.path.basename(arg)
        elif arg == PYTHON:
            shown = os.path.relpath(VENV_PYTHON, cwd) if str(VENV_PYTHON) == PYTHON else "python"
        elif arg == str(cwd):
            shown = "."
        elif arg.startswith(str(ROOT) + os.sep):
            shown = os.path.relpath(arg, cwd)
        out.append(shown)
    return shlex.join(out)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


PYCACHE_DIR = Path(tempfile.gettempdir()) / "mesh-bench-pycache"
ENV_MODES = {
    "env": "the inherited environment as is",
    "pyc": "bytecode cache on: PYTHONDONTWRITEBYTECODE unset, PYTHONPYCACHEPREFIX=<tmp>/mesh-bench-pycache",
}


def server_env(mode: str = "env") -> dict[str, str]:
    """Environment of a server subprocess. "pyc" lets Python write and read .pyc files in a private
    cache folder (outside the repository and the venv), as a normal install would have them."""
    env = dict(os.environ)
    if mode == "pyc":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE_DIR)
    return env


class Server(Proc):
    """One server of `kind` (see `server_command`) on 127.0.0.1 and a free port, working directory
    `benchmarks/`; a `Proc`, so stopped by its PID."""

    def __init__(
        self,
        kind: str,
        port: int | None = None,
        log_dir: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        port = port or free_port()
        env = dict(os.environ if env is None else env)
        if kind == "mesh-registry":
            env["MESH_REGISTRY__ENABLED"] = "true"
            env["MESH_REGISTRY__EMBEDDED_PORT"] = str(free_port())
        if kind == "starter":
            env["MESH_REGISTRY__EMBEDDED_PORT"] = str(free_port())
        self.cwd = ROOT if kind == "starter" else BENCH_DIR
        super().__init__(kind, server_command(kind, port), env=env, cwd=self.cwd, log_dir=log_dir, port=port)

    def shown(self) -> str:
        """Its command line as typed in its working directory, `<port>` for the port."""
        return display_command(self.argv, self.cwd).replace(f"--port {self.port}", "--port <port>")


@contextlib.contextmanager
def servers(kinds: Sequence[str]) -> Iterator[dict[str, Server]]:
    """Start one server per kind and stop every one of them at the end, whatever happens."""
    started: dict[str, Server] = {}
    try:
        for kind in kinds:
            started[kind] = Server(kind)
        yield started
    finally:
        for server in started.values():
            server.stop(grace=8)


# -- HTTP -----------------------------------------------------------------------------------------


def post(conn: http.client.HTTPConnection, body: str, headers: dict[str, str]) -> tuple[int, bytes]:
    conn.request("POST", MCP_PATH, body=body.encode(), headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


def wait_until_answers(server: Server, *, timeout: float = 30.0, modern: bool = True) -> float:
    """Tight loop of `tools/list` POSTs until one is answered 200; returns the perf_counter time of that
    answer."""
    body, headers = list_body(modern=modern), list_headers(modern=modern)
    deadline = time.perf_counter() + timeout
    while True:
        assert server.port is not None
        conn = http.client.HTTPConnection(HOST, server.port, timeout=timeout)
        try:
            status, payload = post(conn, body, headers)
            if status == 200 and b'"add"' in payload:
                return time.perf_counter()
        except (ConnectionError, OSError, http.client.HTTPException):
            pass
        finally:
            conn.close()
        if time.perf_counter() > deadline:
            raise TimeoutError(
                f"{server.kind} server did not answer tools/list within {timeout} s:\n{server.tail()}"
            )
        server.check()
        time.sleep(0.001)


# -- /proc ----------------------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc/PID/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


# -- reporting -------------------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _first_line(argv: Sequence[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return "unavailable"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else "?"


def machine_info() -> dict[str, Any]:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    versions = _first_line(
        [
            PYTHON,
            "-c",
            "import importlib.metadata as m; print(' '.join(p + ' ' + m.version(p) for p in "
            "('mcp', 'starlette', 'uvicorn', 'pydantic', 'h11')))",
        ]
    )
    node = shutil.which("node")
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_model": model,
        "kernel": platform.release(),
        "python": _first_line([PYTHON, "-c", "import sys; print(sys.version.split()[0])"]),
        "packages": versions,
        "node": _first_line([node, "--version"]) if node else "missing",
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", "(unset)"),
        "venv_pyc_files": sum(1 for _ in (ROOT / ".venv").rglob("*.pyc")) if (ROOT / ".venv").is_dir() else 0,
    }


def invocation() -> str:
    """The command line that is running, as typed from the repository root."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return shlex.join([".venv/bin/python", script, *sys.argv[1:]])


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Run:
    """When a benchmark ran, how (its command line; a short configuration or not) and how busy the machine
    was: the 1/5/15-minute load averages at the start and at the end, and the highest 1-minute figure seen
    in between (read every 2 s). Every results file carries one, and the pages print it."""

    def __init__(self, *, short: bool = False) -> None:
        self.short = short
        self.date = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        self.load_start = _loadavg()
        self.load_peak = self.load_start[0]
        self._started = time.perf_counter()
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, name="loadavg", daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._stop.wait(2.0):
            self.load_peak = max(self.load_peak, _loadavg()[0])

    def record(self) -> dict[str, Any]:
        self._stop.set()
        self._sampler.join(timeout=5)
        load_end = _loadavg()
        return {
            "date": self.date,
            "command": invocation(),
            "short": self.short,
            "elapsed_s": round(time.perf_counter() - self._started, 1),
            "loadavg_start": self.load_start,
            "loadavg_end": load_end,
            "loadavg_peak_1min": max(self.load_peak, load_end[0]),
            "machine": machine_info(),
        }


def save_results(name: str, run: Run, data: dict[str, Any]) -> Path:
    """benchmarks/results/NAME.json: the run's record and `data`; the pages are written from these files
    (benchmarks/report.py)."""
    path = RESULTS_DIR / f"{name}.json"
    write_json(path, {"run": run.record(), **data})
    print(f"results: {os.path.relpath(path, ROOT)}", file=sys.stderr)
    return path
