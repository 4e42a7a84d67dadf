"""Shared helpers of the benchmark scripts: paths, request bodies, server subprocesses, /proc readings.

Every server is a subprocess of the benchmark on 127.0.0.1 and an ephemeral port, and is stopped by its
PID when the benchmark ends, also on failure (`Servers` is a context manager).
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
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

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


def call_body(a: int = 1, b: int = 2, *, modern: bool) -> str:
    params: dict[str, Any] = {"name": "add", "arguments": {"a": a, "b": b}}
    if modern:
        params["_meta"] = _META
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, separators=(",", ":")
    )


def call_headers(*, modern: bool) -> dict[str, str]:
    if not modern:
        return dict(BASE_HEADERS)
    return {**BASE_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "add"}


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

SERVER_KINDS = ("plain", "mesh", "sdk")  # server_cpu.py; startup.py adds "mesh-registry"
SERVER_LABELS = {
    "plain": "plain Starlette JSON route (benchmarks/plain_app.py)",
    "mesh": "mesh_framework agent (benchmarks/bench_agent), `mesh run` as shipped",
    "sdk": "mcp SDK low-level Server (benchmarks/sdk_lowlevel_app.py)",
    "mesh-registry": "mesh_framework agent joining the mesh (starts an embedded registry on a free port)",
}


def server_command(kind: str, port: int) -> list[str]:
    """The argv that serves `kind` on 127.0.0.1:port, one process, one uvicorn worker; cwd is BENCH_DIR."""
    if kind in ("mesh", "mesh-registry"):
        return [
            PYTHON,
            "-m",
            "mesh_framework.cli",
            "run",
            "bench_agent",
            "--host",
            HOST,
            "--port",
            str(port),
            "--config",
            str(AGENT_CONFIG),
        ]
    module = {"plain": "plain_app", "sdk": "sdk_lowlevel_app"}[kind]
    return [
        PYTHON,
        "-m",
        "uvicorn",
        f"{module}:app",
        "--app-dir",
        str(BENCH_DIR),
        "--host",
        HOST,
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--lifespan",
        "on",
    ]


def display_command(argv: Sequence[str]) -> str:
    """argv as typed in the `benchmarks/` folder (the servers' working directory), no machine paths."""
    out = []
    for index, arg in enumerate(argv):
        shown = arg
        if index == 0 and arg != PYTHON and os.path.isabs(arg):
            shown = os.path.basename(arg)
        elif arg == PYTHON:
            shown = os.path.relpath(VENV_PYTHON, BENCH_DIR) if str(VENV_PYTHON) == PYTHON else "python"
        elif arg == str(BENCH_DIR):
            shown = "."
        elif arg.startswith(str(ROOT) + os.sep):
            shown = os.path.relpath(arg, BENCH_DIR)
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


class Server:
    """One server subprocess; `stop()` ends it by PID (SIGTERM, then SIGKILL)."""

    def __init__(
        self,
        kind: str,
        port: int | None = None,
        log_dir: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self.port = port or free_port()
        self.argv = server_command(kind, self.port)
        env = dict(os.environ if env is None else env)
        if kind == "mesh-registry":
            env["MESH_REGISTRY__ENABLED"] = "true"
            env["MESH_REGISTRY__EMBEDDED_PORT"] = str(free_port())
        log_dir = log_dir or Path(tempfile.gettempdir())
        self._log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
            "w+b", prefix=f"bench-{kind}-", suffix=".log", dir=log_dir, delete=False
        )
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=BENCH_DIR,
            stdin=subprocess.DEVNULL,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.pid = self.proc.pid

    def log_text(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-4000:]

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.kind} server exited with {self.proc.returncode}:\n{self.log_text()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=8)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)


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
            server.stop()


# -- HTTP -----------------------------------------------------------------------------------------


def post(conn: http.client.HTTPConnection, body: str, headers: dict[str, str]) -> tuple[int, bytes]:
    conn.request("POST", MCP_PATH, body=body.encode(), headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


def wait_until_answers(server: Server, *, timeout: float = 30.0, modern: bool = True) -> float:
    """Tight loop of `tools/list` POSTs until one is answered 200; returns the perf_counter time of "
    "that answer."""
    body, headers = list_body(modern=modern), list_headers(modern=modern)
    deadline = time.perf_counter() + timeout
    while True:
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
                f"{server.kind} server did not answer tools/list within {timeout} s:\n{server.log_text()}"
            )
        server.check_alive()
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
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "loadavg_at_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
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
