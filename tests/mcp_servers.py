"""Real MCP servers for the tool-callback tests: server-everything (stdio, SSE, streamable HTTP) and
server-filesystem from npm (installed by scripts/install-node-tools.sh), plus our own fixture servers.
HTTP servers listen on loopback ephemeral ports and are stopped by PID."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mesh_framework.catalog import HttpDefinition, SseDefinition, StdioDefinition

from .agents import ROOT, stop

SERVERS = ROOT / ".tools" / "mcp-servers" / "node_modules" / "@modelcontextprotocol"
EVERYTHING = SERVERS / "server-everything" / "dist" / "index.js"
FILESYSTEM = SERVERS / "server-filesystem" / "dist" / "index.js"
NODE = shutil.which("node") or "node"


def everything_stdio() -> StdioDefinition:
    return StdioDefinition(NODE, [str(EVERYTHING), "stdio"])


def filesystem_stdio(folder: Path) -> StdioDefinition:
    return StdioDefinition(NODE, [str(FILESYSTEM), str(folder)])


def fixture_stdio(mode: str) -> StdioDefinition:
    return StdioDefinition(sys.executable, [str(ROOT / "tests" / "servers" / "misbehaving_stdio.py"), mode])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(process: subprocess.Popen[bytes], port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


@contextmanager
def serve(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[int]:
    process = subprocess.Popen(
        command,
        env={**os.environ, "PORT": str(port), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        _wait_listening(process, port)
        yield port
    finally:
        stop(process)  # type: ignore[arg-type]


@contextmanager
def everything_http() -> Iterator[HttpDefinition]:
    port = free_port()
    with serve([NODE, str(EVERYTHING), "streamableHttp"], port):
        yield HttpDefinition(f"http://127.0.0.1:{port}/mcp")


@contextmanager
def everything_sse() -> Iterator[SseDefinition]:
    port = free_port()
    with serve([NODE, str(EVERYTHING), "sse"], port):
        yield SseDefinition(f"http://127.0.0.1:{port}/sse")


@contextmanager
def stateful_http() -> Iterator[HttpDefinition]:
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.stateful_http", str(port)], port):
        yield HttpDefinition(f"http://127.0.0.1:{port}/mcp")
