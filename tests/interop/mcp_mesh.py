"""Test support for interop with the real MCP Mesh system (no tests in here).

Runs the real registry binary, real mcp-mesh Python agents (in their own venv) and ``meshctl``,
all on 127.0.0.1, with bounded waits, and stops every process it starts by PID.
Install the tools first with ``scripts/install-mcp-mesh.sh`` (see ``missing_tools()``).

    with run_mesh_registry(tmp_path) as registry:
        with run_mesh_python_agent(AGENTS_DIR / "adder.py", registry) as adder:
            ...  # adder.agent_id, adder.endpoint, adder.output()
        registry.restart()                      # same port, same database

Only the standard library is used, so this module imports under any interpreter.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

__all__ = [
    "AGENTS_DIR",
    "INSTALL_SCRIPT",
    "MESHCTL_BIN",
    "MESH_PYTHON",
    "REGISTRY_BIN",
    "MeshAgent",
    "MeshRegistry",
    "OutputDrain",
    "WaitAborted",
    "call_mesh_tool",
    "free_port",
    "meshctl",
    "missing_tools",
    "registry_agents",
    "run_mesh_python_agent",
    "run_mesh_registry",
    "strip_ansi",
    "wait_until",
]

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = REPO_ROOT / ".tools"
MESH_BIN_DIR = TOOLS_DIR / "mcpmesh" / "node_modules" / "@mcpmesh" / "cli-linux-x64" / "bin"
REGISTRY_BIN = MESH_BIN_DIR / "mcp-mesh-registry"
MESHCTL_BIN = MESH_BIN_DIR / "meshctl"
MESH_PYTHON = TOOLS_DIR / "mcp-mesh-venv" / "bin" / "python"
AGENTS_DIR = Path(__file__).resolve().parent / "mesh_agents"
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-mcp-mesh.sh"

LOOPBACK = "127.0.0.1"

# Seconds. A debounce below ~0.5 s races the SDK's own "immediate uvicorn" start: the pipeline
# then starts a second server bound to 0.0.0.0 whose /mcp answers every tools/call with an
# empty SSE body. 0.5 s was measured safe (see README.md).
DEFAULT_DEBOUNCE_DELAY = "0.5"

# Logged by the SDK when that race happened.
_SECOND_SERVER_LOG = "No immediate uvicorn server found"

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_AGENT_NAME_RE = re.compile(r"@mesh\.agent\(\s*(?:[^)]*?\bname\s*=\s*)?[\"']([^\"']+)[\"']", re.S)


# --- small helpers ---------------------------------------------------------------------------


def missing_tools() -> list[str]:
    """Paths of the MCP Mesh tools that are not installed (empty when all are there)."""
    return [str(p) for p in (REGISTRY_BIN, MESHCTL_BIN, MESH_PYTHON) if not os.access(p, os.X_OK)]


class WaitAborted(Exception):
    """Raised by a ``wait_until`` predicate to stop waiting at once (e.g. the process died)."""


def wait_until(
    predicate: Callable[[], T],
    timeout: float,
    *,
    interval: float = 0.05,
    message: str = "condition",
) -> T:
    """Call ``predicate`` until it returns a truthy value and return that value.

    Raises ``TimeoutError`` after ``timeout`` seconds. Exceptions from the predicate count as
    "not yet" (the last one is chained to the ``TimeoutError``), except ``WaitAborted``, which
    ends the wait at once.
    """
    deadline = time.monotonic() + timeout
    last_exc: BaseException | None = None
    while True:
        try:
            value = predicate()
        except WaitAborted:
            raise
        except Exception as exc:  # "not yet"
            last_exc = exc
        else:
            if value:
                return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{message} not met within {timeout:.1f}s") from last_exc
        time.sleep(interval)


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port that was free on ``host`` a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes (``meshctl list`` prints them even into a pipe)."""
    return _ANSI_RE.sub("", text)


def _http_json(
    method: str, url: str, body: Any = None, *, timeout: float = 5.0, headers: Mapping[str, str] | None = None
) -> tuple[int, str, str]:
    """Send one request; return (status, content type, body text). Never raises on HTTP status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read().decode(errors="replace")


def registry_agents(registry_url: str | MeshRegistry, *, timeout: float = 5.0) -> list[dict[str, Any]]:
    """``GET /agents`` of the registry as a list (the registry sends ``null`` when empty)."""
    status, _, text = _http_json("GET", f"{registry_url}/agents", timeout=timeout)
    if status != 200:
        raise RuntimeError(f"GET {registry_url}/agents answered {status}: {text[:200]}")
    return list(json.loads(text).get("agents") or [])


def call_mesh_tool(
    endpoint: str,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    timeout: float = 30.0,
    request_id: int = 1,
) -> dict[str, Any]:
    """POST one ``tools/call`` to ``{endpoint}/mcp`` as mcp-mesh agents do; return the JSON-RPC message.

    mcp-mesh agents need both Accept types and answer as SSE (one ``event: message`` frame);
    a plain JSON answer is accepted too.
    """
    payload = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": dict(arguments or {})},
    }
    status, ctype, text = _http_json(
        "POST",
        f"{endpoint.rstrip('/')}/mcp",
        payload,
        timeout=timeout,
        headers={"Accept": "application/json, text/event-stream"},
    )
    if status != 200:
        raise RuntimeError(f"tools/call {tool} at {endpoint} answered HTTP {status}: {text[:300]}")
    if "text/event-stream" not in ctype:
        return dict(json.loads(text))
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            message = json.loads(data)
            if message.get("id") == request_id:
                return dict(message)
    raise RuntimeError(f"tools/call {tool} at {endpoint}: no JSON-RPC answer in SSE body {text[:300]!r}")


# --- processes -------------------------------------------------------------------------------


class OutputDrain:
    """Reads a process's merged stdout/stderr on a daemon thread so the pipe never fills."""

    def __init__(self, stream: IO[bytes], label: str) -> None:
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, args=(stream,), name=f"drain-{label}", daemon=True)
        self._thread.start()

    def _run(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(ValueError, OSError):
            for raw in iter(stream.readline, b""):
                with self._lock:
                    self._lines.append(raw.decode(errors="replace"))
        with contextlib.suppress(OSError):
            stream.close()

    def text(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def join(self, timeout: float = 2.0) -> None:
        self._thread.join(timeout)


def _spawn(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path, label: str
) -> tuple[subprocess.Popen[bytes], OutputDrain]:
    proc = subprocess.Popen(
        list(argv),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a Ctrl-C at the terminal must not hit it before cleanup
    )
    assert proc.stdout is not None
    return proc, OutputDrain(proc.stdout, f"{label}-{proc.pid}")


def _stop(proc: subprocess.Popen[bytes], drain: OutputDrain | None, grace: float) -> int | None:
    """SIGTERM the process by PID, SIGKILL it after ``grace`` seconds; return its exit code."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait(timeout=5)
    if drain is not None:
        drain.join()
    return proc.returncode


def _ensure_tool(path: Path) -> None:
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"{path} is missing: run {INSTALL_SCRIPT.relative_to(REPO_ROOT)}")


# --- registry --------------------------------------------------------------------------------


@dataclass
class MeshRegistry:
    """A running ``mcp-mesh-registry`` on 127.0.0.1. ``str(registry)`` is its URL."""

    data_dir: Path
    port: int
    env: dict[str, str]
    startup_timeout: float = 10.0
    process: subprocess.Popen[bytes] | None = None
    _drain: OutputDrain | None = None
    _past_output: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "registry.db"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def __str__(self) -> str:
        return self.url

    def output(self) -> str:
        """Everything the registry printed, across restarts."""
        current = self._drain.text() if self._drain is not None else ""
        return "".join(self._past_output) + current

    def healthy(self) -> bool:
        try:
            status, _, text = _http_json("GET", f"{self.url}/health", timeout=1.0)
        except OSError:
            return False
        return status == 200 and '"healthy"' in text

    def start(self) -> None:
        """Start the binary (again) on the same port and database; wait for ``/health``."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError(f"registry already running (pid {self.process.pid})")
        _ensure_tool(REGISTRY_BIN)
        env = {
            **os.environ,
            "HOST": LOOPBACK,
            "PORT": str(self.port),
            "DATABASE_URL": str(self.db_path),
            "HEALTH_CHECK_INTERVAL": "2",
            "DEFAULT_TIMEOUT_THRESHOLD": "5",
            **self.env,
        }
        self.process, self._drain = _spawn([str(REGISTRY_BIN)], env, self.data_dir, "registry")
        proc = self.process

        def up() -> bool:
            if proc.poll() is not None:
                raise _Exited(proc.returncode)
            return self.healthy()

        try:
            wait_until(up, self.startup_timeout, interval=0.02, message=f"registry /health at {self.url}")
        except (TimeoutError, _Exited) as exc:
            self.stop()
            raise RuntimeError(f"mcp-mesh-registry did not come up: {exc}\n{self.output()[-3000:]}") from exc

    def stop(self, grace: float = 5.0) -> int | None:
        """SIGTERM (then SIGKILL) the registry by PID; return its exit code."""
        if self.process is None:
            return None
        code = _stop(self.process, self._drain, grace)
        if self._drain is not None:
            self._past_output.append(self._drain.text())
        self.process, self._drain = None, None
        return code

    def restart(self, downtime: float = 0.0, *, wipe_db: bool = False) -> None:
        """Stop, stay down ``downtime`` seconds, start again on the same port.

        Keeps the database unless ``wipe_db``: with it kept and a short downtime, agents simply
        carry on (their HEAD heartbeats get 200) and do not re-register; a wiped database
        answers their next HEAD with 410, and they re-register with a full POST.
        """
        self.stop()
        if wipe_db:
            for path in self.data_dir.glob(self.db_path.name + "*"):  # registry.db, -wal, -shm
                path.unlink()
        if downtime > 0:
            time.sleep(downtime)
        self.start()


class _Exited(WaitAborted):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"process exited early with code {code}")


@contextlib.contextmanager
def run_mesh_registry(
    tmp_dir: str | os.PathLike[str],
    *,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    startup_timeout: float = 10.0,
) -> Iterator[MeshRegistry]:
    """Run the real registry on 127.0.0.1 with its SQLite file in ``tmp_dir``; yield its handle.

    ``handle.url`` (also ``str(handle)``) is the registry URL; ``handle.restart()``,
    ``handle.stop()`` and ``handle.start()`` keep the port and the database. Stopped on exit.
    """
    data_dir = Path(tmp_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    registry = MeshRegistry(
        data_dir=data_dir, port=port or free_port(), env=dict(env or {}), startup_timeout=startup_timeout
    )
    registry.start()
    try:
        yield registry
    finally:
        registry.stop()


# --- agents ----------------------------------------------------------------------------------


@dataclass
class MeshAgent:
    """A running mcp-mesh Python agent, registered with the registry."""

    name: str
    agent_id: str
    endpoint: str
    process: subprocess.Popen[bytes]
    registered_after: float  # seconds from exec to first seen healthy in GET /agents
    _drain: OutputDrain

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        """Everything the agent printed so far (stdout and stderr merged)."""
        return self._drain.text()

    def call_tool(
        self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """``tools/call`` on this agent; returns the JSON-RPC message (see ``call_mesh_tool``)."""
        return call_mesh_tool(self.endpoint, tool, arguments, timeout=timeout)

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM (the agent then unregisters), SIGKILL after ``grace`` s; return the exit code."""
        return _stop(self.process, self._drain, grace)

    def kill(self) -> int | None:
        """SIGKILL at once (a crash: no unregister)."""
        if self.process.poll() is None:
            self.process.kill()
        return _stop(self.process, self._drain, 5.0)


def _agent_name_from_script(script: Path) -> str:
    match = _AGENT_NAME_RE.search(script.read_text())
    if not match:
        raise ValueError(f"cannot find @mesh.agent(name=...) in {script}; pass name=")
    return match.group(1)


@contextlib.contextmanager
def run_mesh_python_agent(
    script_path: str | os.PathLike[str],
    registry_url: str | MeshRegistry,
    env: Mapping[str, str] | None = None,
    *,
    name: str | None = None,
    timeout: float = 30.0,
    stop_grace: float = 10.0,
) -> Iterator[MeshAgent]:
    """Run an mcp-mesh agent file with the mcp-mesh venv's python; yield it once registered.

    Waits (at most ``timeout`` s) for a new healthy agent named ``name`` (default: the
    ``@mesh.agent(name=...)`` in the file, or ``MCP_MESH_AGENT_NAME`` from ``env``) in the
    registry's ``GET /agents``. ``env`` overrides the defaults below. Stopped by PID on exit.
    """
    _ensure_tool(MESH_PYTHON)
    script = Path(script_path).resolve()
    url = str(registry_url).rstrip("/")
    extra = dict(env or {})
    agent_name = name or extra.get("MCP_MESH_AGENT_NAME") or _agent_name_from_script(script)

    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
        and not k.startswith("MCP_MESH_")
    }
    full_env = {
        **base,
        "HOST": LOOPBACK,  # bind address
        "MCP_MESH_HTTP_HOST": LOOPBACK,  # advertised address (else the machine's outward IP)
        "MCP_MESH_HTTP_PORT": "0",
        "MCP_MESH_REGISTRY_URL": url,
        "MCP_MESH_DEBOUNCE_DELAY": DEFAULT_DEBOUNCE_DELAY,
        "MCP_MESH_HEALTH_INTERVAL": "1",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    known_ids = {a.get("id") for a in _agents_or_empty(url)}
    started = time.monotonic()
    proc, drain = _spawn([str(MESH_PYTHON), str(script)], full_env, script.parent, agent_name)
    try:

        def registered() -> dict[str, Any] | None:
            if proc.poll() is not None:
                raise _Exited(proc.returncode)
            for agent in _agents_or_empty(url):
                if (
                    agent.get("name") == agent_name
                    and agent.get("id") not in known_ids
                    and agent.get("status") == "healthy"
                ):
                    return agent
            return None

        try:
            row = wait_until(
                registered, timeout, interval=0.05, message=f"agent {agent_name!r} registered at {url}"
            )
        except (TimeoutError, _Exited) as exc:
            _stop(proc, drain, stop_grace)
            raise RuntimeError(
                f"mcp-mesh agent {script.name} did not register: {exc}\n{drain.text()[-4000:]}"
            ) from exc
        if _SECOND_SERVER_LOG in drain.text():
            _stop(proc, drain, stop_grace)
            raise RuntimeError(
                f"mcp-mesh agent {script.name} started a second HTTP server on 0.0.0.0 (its debounce "
                f"raced the immediate uvicorn start; MCP_MESH_DEBOUNCE_DELAY="
                f"{full_env['MCP_MESH_DEBOUNCE_DELAY']} is too small): its tools/call answers are empty"
            )
        assert row is not None
        agent = MeshAgent(
            name=agent_name,
            agent_id=str(row["id"]),
            endpoint=str(row["endpoint"]),
            process=proc,
            registered_after=time.monotonic() - started,
            _drain=drain,
        )
        yield agent
    finally:
        _stop(proc, drain, stop_grace)


def _agents_or_empty(url: str) -> list[dict[str, Any]]:
    try:
        return registry_agents(url, timeout=2.0)
    except (OSError, RuntimeError, ValueError):
        return []


# --- meshctl ---------------------------------------------------------------------------------


def meshctl(
    args: Sequence[str],
    registry_url: str | MeshRegistry,
    home_dir: str | os.PathLike[str],
    *,
    timeout: float = 60.0,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``meshctl ARGS --registry-url URL`` with ``HOME=home_dir`` (it writes $HOME/.mcp-mesh).

    Output is text; ``meshctl list`` colours it even into a pipe (see ``strip_ansi``).
    """
    _ensure_tool(MESHCTL_BIN)
    home = Path(home_dir)
    home.mkdir(parents=True, exist_ok=True)
    argv = [str(MESHCTL_BIN), *args]
    if not any(a == "--registry-url" or a.startswith("--registry-url=") for a in args):
        argv += ["--registry-url", str(registry_url).rstrip("/")]
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(
        argv,
        env=env,
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )
