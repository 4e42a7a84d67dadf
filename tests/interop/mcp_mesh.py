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
    "ours",
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
DEFAULT_DEBOUNCE_DELAY = "1.0"

# Logged by the SDK when that race happened.
_SECOND_SERVER_LOG = "No immediate uvicorn server found"

# Logged by the SDK once its start-up pipeline is done, just before it registers (~3 s after exec: imports,
# then the debounce). Until then the registry is asked only every _EARLY_POLL seconds, not every 0.05 s
# (each GET /agents costs the registry and this process ~1.5 ms of CPU); should a release log something
# else, the agent is still found, a little later.
_PIPELINE_DONE_LOG = "Pipeline 'mcp-mesh' completed"
_EARLY_POLL = 0.5

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_AGENT_NAME_RE = re.compile(r"@mesh\.agent\(\s*(?:[^)]*?\bname\s*=\s*)?[\"']([^\"']+)[\"']", re.S)


# --- small helpers ---------------------------------------------------------------------------


def ours(registry: MeshRegistry, **extra: str) -> dict[str, str]:
    """The environment of one of our agents in `registry`'s mesh (heartbeats every second), plus `extra`."""
    return {"MCP_MESH_REGISTRY_URL": registry.url, "MCP_MESH_HEALTH_INTERVAL": "1", **extra}


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
    for attempt in (1, 2):
        proc, drain, row = _start_registered(
            script, url, full_env, agent_name, known_ids, timeout, stop_grace
        )
        if _SECOND_SERVER_LOG not in drain.text():
            break
        # The SDK's debounce raced its own immediate uvicorn start (a loaded machine can delay either
        # past the other): that process serves empty answers. Once, start it again with twice the delay.
        _stop(proc, drain, stop_grace)
        known_ids.add(row.get("id"))
        delay = full_env["MCP_MESH_DEBOUNCE_DELAY"]
        if attempt == 2:
            raise RuntimeError(
                f"mcp-mesh agent {script.name} started a second HTTP server on 0.0.0.0 twice (its debounce "
                f"raced the immediate uvicorn start; MCP_MESH_DEBOUNCE_DELAY={delay} is too small): its "
                "tools/call answers are empty"
            )
        full_env = {**full_env, "MCP_MESH_DEBOUNCE_DELAY": str(2 * float(delay))}
    try:
        yield MeshAgent(
            name=agent_name,
            agent_id=str(row["id"]),
            endpoint=str(row["endpoint"]),
            process=proc,
            registered_after=time.monotonic() - started,
            _drain=drain,
        )
    finally:
        _stop(proc, drain, stop_grace)


def _start_registered(
    script: Path,
    url: str,
    env: Mapping[str, str],
    agent_name: str,
    known_ids: set[Any],
    timeout: float,
    stop_grace: float,
) -> tuple[subprocess.Popen[bytes], OutputDrain, dict[str, Any]]:
    """Start the agent; return it with its registry row once it is a new healthy agent of its name."""
    proc, drain = _spawn([str(MESH_PYTHON), str(script)], dict(env), script.parent, agent_name)
    asked = [time.monotonic()]

    def registered() -> dict[str, Any] | None:
        if proc.poll() is not None:
            raise _Exited(proc.returncode)
        now = time.monotonic()
        if now - asked[0] < _EARLY_POLL and _PIPELINE_DONE_LOG not in drain.text():
            return None
        asked[0] = now
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
    except BaseException:
        _stop(proc, drain, stop_grace)
        raise
    assert row is not None
    return proc, drain, row


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


# --- recording the wire (appended for the LLM interop tests) --------------------------------

import http.client  # noqa: E402
import http.server  # noqa: E402
import urllib.parse  # noqa: E402

__all__ += ["Exchange", "MeshTap", "RecordingProxy", "sse_messages"]

# Not forwarded: hop-by-hop headers, and Accept-Encoding (so every body is recorded as plain text).
_HOP_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "accept-encoding",
        "host",
        "content-length",
    }
)


def sse_messages(text: str) -> list[Any]:
    """The JSON values of the ``data:`` lines of an SSE body (one per event)."""
    out: list[Any] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
        if data:
            with contextlib.suppress(ValueError):
                out.append(json.loads(data))
    return out


@dataclass
class Exchange:
    """One HTTP request forwarded by a ``RecordingProxy`` and the answer it got."""

    target: str  # the upstream, http://host:port
    method: str
    path: str
    request_headers: dict[str, str]
    request_text: str
    status: int
    response_headers: dict[str, str]
    response_text: str  # as the upstream sent it (before any rewrite)

    @property
    def request_json(self) -> Any:
        return json.loads(self.request_text) if self.request_text else None

    @property
    def response_json(self) -> Any:
        """The JSON answer; for an SSE answer, the first ``data:`` message."""
        if "text/event-stream" in self.response_headers.get("content-type", ""):
            messages = sse_messages(self.response_text)
            return messages[0] if messages else None
        return json.loads(self.response_text) if self.response_text else None

    @property
    def rpc_method(self) -> str | None:
        """The JSON-RPC method of an MCP POST, else None."""
        try:
            body = self.request_json
        except ValueError:
            return None
        return body.get("method") if isinstance(body, dict) else None

    def to_json(self) -> dict[str, Any]:
        """A capture in the style of tests/interop/mcp_mesh_captures/*.json."""

        def decoded(text: str) -> Any:
            try:
                return json.loads(text) if text else None
            except ValueError:
                return text

        response: Any = decoded(self.response_text)
        if "text/event-stream" in self.response_headers.get("content-type", ""):
            response = {"sse_raw": self.response_text, "messages": sse_messages(self.response_text)}
        return {
            "request": {
                "method": self.method,
                "url": f"{self.target}{self.path}",
                "headers": self.request_headers,
                "body": decoded(self.request_text),
            },
            "response": {"status": self.status, "headers": self.response_headers, "body": response},
        }


class RecordingProxy:
    """A reverse proxy on 127.0.0.1 that forwards every request to ``target`` and records it.

    An answer is read whole, recorded, then passed on (so whoever got an answer finds it, and the
    exchanges it caused, in the log); only a GET event stream is passed on as it comes and recorded
    when it ends. The connection is closed after each answer. ``rewrite(exchange) -> bytes | None``
    may replace an answer's body. ``log`` is the list the exchanges go to (a ``MeshTap`` shares one).
    """

    def __init__(
        self,
        target: str,
        *,
        log: list[Exchange] | None = None,
        rewrite: Callable[[Exchange], bytes | None] | None = None,
        timeout: float = 60.0,
    ) -> None:
        parsed = urllib.parse.urlsplit(target)
        self.target = f"{parsed.scheme}://{parsed.netloc}"
        self._host, self._port = parsed.hostname or LOOPBACK, parsed.port or 80
        self.exchanges: list[Exchange] = [] if log is None else log
        self._lock = threading.Lock()
        self._rewrite = rewrite
        self._timeout = timeout
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one exchange per connection: close delimits the answer

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _forward(self) -> None:
                proxy._forward(self)

            do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = _forward

        self._server = http.server.ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://{LOOPBACK}:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> RecordingProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _read_body(self, handler: http.server.BaseHTTPRequestHandler) -> bytes:
        if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(handler.rfile.read(size))
                handler.rfile.readline()
            return b"".join(chunks)
        length = int(handler.headers.get("Content-Length") or 0)
        return handler.rfile.read(length) if length else b""

    def _forward(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        body = self._read_body(handler)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_HEADERS}
        upstream = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            try:
                upstream.request(handler.command, handler.path, body=body or None, headers=headers)
                response = upstream.getresponse()
            except OSError as exc:
                handler.send_error(502, f"upstream {self.target}: {exc}")
                return
            answer_headers = {k.lower(): v for k, v in response.getheaders()}
            exchange = Exchange(
                target=self.target,
                method=handler.command,
                path=handler.path,
                request_headers=dict(headers),
                request_text=body.decode(errors="replace"),
                status=response.status,
                response_headers={k: v for k, v in answer_headers.items() if k not in _HOP_HEADERS},
                response_text="",
            )
            if handler.command == "GET" and "text/event-stream" in answer_headers.get("content-type", ""):
                # A long-lived stream: passed on as it comes, recorded when it ends.
                self._send_head(handler, response.status, exchange.response_headers, None)
                received = bytearray()
                while chunk := response.read1(65536):
                    received += chunk
                    try:
                        handler.wfile.write(chunk)
                        handler.wfile.flush()
                    except OSError:
                        break
                exchange.response_text = received.decode(errors="replace")
                self._record(exchange)
                return
            # Anything else is read whole and recorded before it is passed on, so a caller that has
            # its answer finds the exchange (and the ones it caused) in the log.
            received_all = response.read()
            exchange.response_text = received_all.decode(errors="replace")
            self._record(exchange)
            replaced = self._rewrite(exchange) if self._rewrite is not None else None
            out = received_all if replaced is None else replaced
            self._send_head(handler, response.status, exchange.response_headers, len(out))
            if handler.command != "HEAD":
                with contextlib.suppress(OSError):
                    handler.wfile.write(out)
        finally:
            upstream.close()

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    @staticmethod
    def _send_head(
        handler: http.server.BaseHTTPRequestHandler,
        status: int,
        headers: Mapping[str, str],
        length: int | str | None,
    ) -> None:
        handler.send_response_only(status)
        for key, value in headers.items():
            handler.send_header(key, value)
        if length is not None:
            handler.send_header("Content-Length", str(length))
        handler.send_header("Connection", "close")
        handler.end_headers()


class MeshTap:
    """Records the wire of a mesh: heartbeats, and the calls agents make to each other.

    Give agents ``tap.url`` as their registry URL. Heartbeats go through a proxy of the registry whose
    answers get every agent ``endpoint`` (in ``dependencies_resolved``, ``llm_tools``,
    ``llm_providers``) replaced by a recording proxy of that endpoint, so agent-to-agent calls (and
    ``_mesh_endpoint`` URLs a consumer hands to an LLM provider) go through the tap too. Everything
    lands in ``tap.exchanges``, in order; the registry's ``GET /agents`` still shows real endpoints.
    """

    def __init__(self, registry_url: str | MeshRegistry) -> None:
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._forwarders: dict[str, RecordingProxy] = {}
        self._registry = RecordingProxy(str(registry_url), log=self.exchanges, rewrite=self._rewrite)
        self.url = self._registry.url
        self.registry_url = self._registry.target

    def __enter__(self) -> MeshTap:
        self._registry.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._registry.stop()
        with self._lock:
            forwarders = list(self._forwarders.values())
        for forwarder in forwarders:
            forwarder.stop()

    def proxy_url(self, endpoint: str) -> str:
        """The recording proxy for an agent endpoint (made on first use)."""
        key = endpoint.rstrip("/")
        with self._lock:
            forwarder = self._forwarders.get(key)
            if forwarder is None:
                forwarder = self._forwarders[key] = RecordingProxy(key, log=self.exchanges)
                forwarder.start()
        return forwarder.url

    def unproxied(self, text: str) -> str:
        """``text`` with every proxy URL of this tap replaced by the agent endpoint behind it."""
        with self._lock:
            pairs = [(forwarder.url, endpoint) for endpoint, forwarder in self._forwarders.items()]
        for url, endpoint in pairs:
            text = text.replace(url, endpoint)
        return text

    def real_endpoint(self, url: str) -> str:
        """The agent endpoint behind a proxy URL (the URL itself when it is no proxy of this tap)."""
        with self._lock:
            for endpoint, forwarder in self._forwarders.items():
                if url.rstrip("/") == forwarder.url:
                    return endpoint
        return url

    def _rewrite(self, exchange: Exchange) -> bytes | None:
        if exchange.method != "POST" or not exchange.path.startswith("/heartbeat"):
            return None
        try:
            answer = json.loads(exchange.response_text)
        except ValueError:
            return None
        if not isinstance(answer, dict):
            return None

        def swap(entry: Any) -> None:
            if isinstance(entry, dict) and isinstance(entry.get("endpoint"), str) and entry["endpoint"]:
                entry["endpoint"] = self.proxy_url(entry["endpoint"])

        for slots in (answer.get("dependencies_resolved") or {}).values():
            for entry in slots or []:
                swap(entry)
        for tools in (answer.get("llm_tools") or {}).values():
            for entry in tools or []:
                swap(entry)
        for entry in (answer.get("llm_providers") or {}).values():
            swap(entry)
        return json.dumps(answer).encode()

    def heartbeats(self, agent_name: str | None = None) -> list[Exchange]:
        """The full heartbeats (POST /heartbeat), of one agent (by ``name`` in the body) or all."""
        found = []
        for exchange in list(self.exchanges):
            if exchange.method != "POST" or exchange.path != "/heartbeat":
                continue
            try:
                body = exchange.request_json
            except ValueError:
                continue
            if agent_name is None or (isinstance(body, dict) and body.get("name") == agent_name):
                found.append(exchange)
        return found

    def tool_calls(self, tool: str | None = None) -> list[Exchange]:
        """The MCP ``tools/call`` POSTs agents sent each other (of one tool, or all)."""
        found = []
        for exchange in list(self.exchanges):
            if exchange.target == self.registry_url or exchange.rpc_method != "tools/call":
                continue
            name = (exchange.request_json.get("params") or {}).get("name")
            if tool is None or name == tool:
                found.append(exchange)
        return found


__all__ += ["enter_concurrently"]


def enter_concurrently(
    stack: contextlib.ExitStack, *managers: contextlib.AbstractContextManager[Any]
) -> list[Any]:
    """Enter several context managers at once (one thread each) and put their exits on ``stack``.

    Starting agents this way takes as long as the slowest one. The managers that did enter stay on
    the stack even when another one failed; the first failure is then raised.
    """
    values: list[Any] = [None] * len(managers)
    errors: list[BaseException | None] = [None] * len(managers)

    def enter(index: int, manager: contextlib.AbstractContextManager[Any]) -> None:
        try:
            values[index] = manager.__enter__()
        except BaseException as exc:  # reported below, in the caller's thread
            errors[index] = exc

    threads = [
        threading.Thread(target=enter, args=(index, manager), daemon=True, name=f"enter-{index}")
        for index, manager in enumerate(managers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for manager, error in zip(managers, errors, strict=True):
        if error is None:
            stack.push(manager)
    for error in errors:
        if error is not None:
            raise error
    return values
