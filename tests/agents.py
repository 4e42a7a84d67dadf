"""Start agents as real processes on loopback ephemeral ports, and stop them by PID."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"serving (http://[\d.]+:(\d+))(/\S*)")


@dataclass
class AgentProcess:
    process: subprocess.Popen[str]
    base_url: str
    port: int
    mcp_url: str
    output: list[str] = field(default_factory=list)


def agent_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


@contextmanager
def run_agent(
    app: str, *args: str, env: Mapping[str, str] | None = None, timeout: float = 20.0, cwd: Path = ROOT
) -> Iterator[AgentProcess]:
    """`mesh run APP --port 0 ARGS...`; yields once the agent logs that it is serving."""
    command = [sys.executable, "-m", "mesh_framework.cli", "run", app, "--port", "0", *args]
    process = subprocess.Popen(
        command, cwd=cwd, env=agent_env(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    lines: queue.Queue[str | None] = queue.Queue()
    # Drain the pipe for the whole life of the process, so a chatty agent never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process, output, lines), daemon=True).start()
    try:
        match = _wait_for(process, output, lines, SERVING, timeout)
        yield AgentProcess(
            process, match.group(1), int(match.group(2)), match.group(1) + match.group(3), output
        )
    finally:
        stop(process)


def _drain(process: subprocess.Popen[str], output: list[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)
        lines.put(line)
    lines.put(None)


def _wait_for(
    process: subprocess.Popen[str],
    output: list[str],
    lines: queue.Queue[str | None],
    pattern: re.Pattern[str],
    timeout: float,
) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            break
        if line is None:
            break
        match = pattern.search(line)
        if match:
            return match
    raise AssertionError(f"agent did not start (exit {process.poll()}):\n{''.join(output)}")


def stop(process: subprocess.Popen[str], timeout: float = 10.0) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)
    return process.returncode


def run_cli(
    args: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 30.0, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run `mesh ARGS` to completion (bounded by `timeout`)."""
    return subprocess.run(
        [sys.executable, "-m", "mesh_framework.cli", *args],
        cwd=cwd,
        env=agent_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
