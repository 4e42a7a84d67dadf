"""`mesh` on a terminal: rich tables and colour (none with NO_COLOR), highlighted JSON, the spinner of
`mesh run`. The commands run on a pseudo-terminal, as a person at a terminal would run them: `mesh run` as
a process (`Terminal`), the commands that print and end by the CLI's `main` in the test's process with
their stdout and stderr on the terminal (`on_terminal`)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType

import pytest

from tests.agents import loopback

from ..agents import ROOT, agent_env, run_agent, run_registry, wait_until
from ..cli_in_process import CliRun

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal_env(env: Mapping[str, str] | None) -> dict[str, str]:
    """A terminal's environment (xterm, 200 x 50, colour unless `env` says NO_COLOR) as `agent_env` makes
    a process's."""
    environment = agent_env({"TERM": "xterm-256color", "COLUMNS": "200", "LINES": "50", **(env or {})})
    if "NO_COLOR" not in (env or {}):
        environment.pop("NO_COLOR", None)
    return environment


def open_terminal() -> tuple[int, int]:
    """A pseudo-terminal 200 columns wide: (master, slave)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    return master, slave


def read_some(master: int, wait: float) -> bytes:
    """What the terminal shows next (b"" when nothing came within `wait`, or every writer closed)."""
    ready, _, _ = select.select([master], [], [], wait)
    if not ready:
        return b""
    try:
        return os.read(master, 65536)
    except OSError:  # EIO: every writer closed
        return b""


class Terminal:
    """`mesh ARGS` as a process with stdin, stdout and stderr on one pseudo-terminal 200 columns wide."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        environment = terminal_env(env)
        master, slave = open_terminal()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mesh_framework.cli", *args],
            cwd=ROOT,
            env=environment,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""

    @property
    def text(self) -> str:
        return self.raw.decode(errors="replace")

    def plain(self) -> str:
        """The output without escape sequences or carriage returns."""
        return ANSI.sub("", self.text).replace("\r", "")

    def read_until(self, pattern: str, timeout: float = 30.0) -> str:
        """Read until the plain output matches `pattern` (or EOF); AssertionError past `timeout`."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.plain()):
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} within {timeout}s:\n{self.plain()[-3000:]}")
            if not self._read(0.2) and self.process.poll() is not None:
                raise AssertionError(
                    f"exited ({self.process.returncode}) before {pattern!r}:\n{self.plain()}"
                )
        return self.plain()

    def finish(self, timeout: float = 30.0) -> int:
        """Read to EOF; the exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._read(0.2) and self.process.poll() is not None:
                self._read(0.1)
                return self.process.wait()
        self.process.kill()
        raise AssertionError(f"still running after {timeout}s:\n{self.plain()[-3000:]}")

    def interrupt(self, timeout: float = 20.0) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.finish(timeout)

    def _read(self, wait: float) -> bool:
        data = read_some(self.master, wait)
        self.raw += data
        return bool(data)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.master)


def on_terminal(
    args: Sequence[str], monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str] | None = None
) -> tuple[int, str]:
    """Run `mesh ARGS` to completion by the CLI's `main` in a thread of this process, its stdout and
    stderr on a pseudo-terminal and the terminal's environment set: exit code and raw output (escapes
    kept). The command's process would cost more CPU to start than the command does."""
    for name in [n for n in os.environ if n.startswith(("MESH_", "MCP_MESH_")) or n == "NO_COLOR"]:
        monkeypatch.delenv(name)
    for name, value in terminal_env(env).items():
        monkeypatch.setenv(name, value)
    master, slave = open_terminal()
    tty = open(slave, "w", encoding="utf-8")  # noqa: SIM115  (closed below, once the command ended)
    command = CliRun(args, terminal=tty)
    raw = b""
    try:
        deadline = time.monotonic() + 30
        while not command.ended and time.monotonic() < deadline:
            raw += read_some(master, 0.05)  # read while it writes: a full terminal would block it
        assert command.ended, f"`mesh {' '.join(args)}` still running after 30 s:\n{raw!r}"
    finally:
        command.close()
        tty.close()
        while data := read_some(master, 0):
            raw += data
        os.close(master)
    assert command.code is not None
    return command.code, raw.decode(errors="replace")


FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}


@pytest.fixture(scope="module")
def mesh() -> Iterator[dict[str, str]]:
    """A registry with the starter's two agents; yields the environment that points `mesh` at it."""
    with run_registry() as registry:
        env = {**FAST, "MCP_MESH_REGISTRY_URL": registry.base_url}

        def healthy() -> int:
            agents = loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]
            return sum(agent["status"] == "healthy" for agent in agents)

        with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env):
            wait_until(lambda: healthy() == 2, timeout=20)
            yield env


def test_list_is_a_coloured_table_on_a_terminal(
    mesh: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, raw = on_terminal(["list"], monkeypatch, mesh)
    assert code == 0
    assert "\x1b[32mhealthy" in raw  # green
    plain = ANSI.sub("", raw)
    assert "Agents at " + mesh["MCP_MESH_REGISTRY_URL"] in plain
    header = next(line for line in plain.splitlines() if "NAME" in line)
    assert header.split() == ["NAME", "ID", "STATUS", "ENDPOINT", "TOOLS"]
    assert "\u2500" in plain  # the table's rule


def test_no_color_keeps_the_table_without_escapes(
    mesh: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, raw = on_terminal(["list"], monkeypatch, {**mesh, "NO_COLOR": "1"})
    assert code == 0 and "\x1b[3" not in raw and "\x1b[1m" not in raw
    assert "starter" in raw and "calculator" in raw and "\u2500" in raw


def test_status_table_shows_health_heartbeat_and_resolved_dependencies(
    mesh: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, raw = on_terminal(["status"], monkeypatch, mesh)
    plain = ANSI.sub("", raw)
    assert code == 0, plain
    assert re.search(r"registry http://127\.0\.0\.1:\d+: healthy \(mcp-mesh-registry", plain)
    assert "LAST HEARTBEAT" in plain and re.search(r"\d+s ago", plain)
    assert "sum_of_squares -> add: starter" in plain
    assert "\x1b[32msum_of_squares -> add: starter" in raw


def test_call_highlights_structured_content_on_a_terminal(
    mesh: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, raw = on_terminal(["call", "greet", "name=Ada"], monkeypatch, mesh)
    assert code == 0
    assert "\x1b[" in raw and '"text"' in ANSI.sub("", raw) and "Hello, Ada!" in raw
    code, raw = on_terminal(["call", "add", "a=1", "b=2"], monkeypatch, mesh)
    assert (code, ANSI.sub("", raw).strip()) == (0, "3")


def test_config_and_catalog_tables_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    code, raw = on_terminal(["config", "starter_app"], monkeypatch)
    plain = ANSI.sub("", raw)
    assert code == 0
    assert next(line for line in plain.splitlines() if "KEY" in line).split() == ["KEY", "VALUE", "ORIGIN"]
    row = next(line for line in plain.splitlines() if line.strip().startswith("server.port"))
    assert row.split()[1:] == ["8080", "config/application.yaml:5"]
    code, raw = on_terminal(["catalog", "list", "starter_app"], monkeypatch)
    plain = ANSI.sub("", raw)
    assert code == 0 and "COMMAND OR URL" in plain
    notes = r"notes\s+stdio\s+python -m starter_app\.servers\.notes\s+config/mcp-servers\.json"
    assert re.search(notes, plain)


def test_explain_marks_the_winner_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    code, raw = on_terminal(["config", "starter_app", "--explain", "server.port"], monkeypatch)
    assert code == 0
    winner = next(line for line in ANSI.sub("", raw).splitlines() if "wins" in line)
    assert "config/application.yaml:5" in winner and "8080" in winner
    assert "\x1b[1;32m" in raw  # bold green


def test_mesh_run_shows_a_spinner_until_every_agent_is_ready() -> None:
    env = {"MESH_REGISTRY__EMBEDDED_PORT": "0", **FAST}
    args = ["run", "starter_app", "starter_app.calculator", "--port", "0", "--registry-port", "0"]
    with Terminal(args, env) as terminal:
        plain = terminal.read_until("every agent is ready", timeout=40)
        assert "starter_app is starting; starter_app.calculator is starting" in plain
        assert re.search(r"starter_app is ready at http://127\.0\.0\.1:\d+/mcp", plain)
        assert re.search(r"starter_app\.calculator is ready at http://127\.0\.0\.1:\d+/mcp", plain)
        assert "\x1b[?25l" in terminal.text  # the spinner hides the cursor while it runs
        assert terminal.interrupt() == 0
