"""Test support: an mcp-mesh FastAPI app with ``@mesh.route`` handlers, run by uvicorn from the mcp-mesh
venv as MCP Mesh's users run it (no tests in here)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .mcp_mesh import (
    AGENTS_DIR,
    LOOPBACK,
    MESH_PYTHON,
    MeshRegistry,
    OutputDrain,
    _agents_or_empty,
    _spawn,
    _stop,
    free_port,
    wait_until,
)

__all__ = ["MeshRouteApp", "run_mesh_route_app"]


@dataclass
class MeshRouteApp:
    base_url: str
    agent: dict[str, Any]  # as the registry's GET /agents shows it
    drain: OutputDrain

    def output(self) -> str:
        return self.drain.text()


@contextlib.contextmanager
def run_mesh_route_app(
    module: str, registry: MeshRegistry, *, name: str, timeout: float = 30.0
) -> Iterator[MeshRouteApp]:
    """``python -m uvicorn MODULE:app`` in the fixture folder; yields once its api agent is healthy."""
    port = free_port()
    env = {
        "MCP_MESH_REGISTRY_URL": registry.url,
        "MCP_MESH_API_NAME": name,
        "MCP_MESH_HTTP_HOST": LOOPBACK,
        "MCP_MESH_HTTP_PORT": str(port),
        "MCP_MESH_HEALTH_INTERVAL": "1",
        "MCP_MESH_SETTLE_TIMEOUT": "2",
        "PYTHONUNBUFFERED": "1",
        "PATH": str(Path(MESH_PYTHON).parent) + ":/usr/bin:/bin",
    }
    argv = [str(MESH_PYTHON), "-m", "uvicorn", f"{module}:app", "--host", LOOPBACK, "--port", str(port)]
    proc, drain = _spawn(argv, env, AGENTS_DIR, module)
    try:

        def registered() -> dict[str, Any] | None:
            if proc.poll() is not None:
                raise RuntimeError(f"{module} exited with {proc.returncode}:\n{drain.text()[-3000:]}")
            return next(
                (
                    a
                    for a in _agents_or_empty(registry.url)
                    if a.get("agent_type") == "api" and str(a.get("id", "")).startswith(name)
                ),
                None,
            )

        agent = wait_until(registered, timeout, message=f"{module} registered")

        def listening() -> bool:  # it registers from its import, before uvicorn listens
            with contextlib.closing(socket.create_connection((LOOPBACK, port), timeout=1)):
                return True

        wait_until(listening, timeout, message=f"{module} listening on {port}")
        yield MeshRouteApp(f"http://{LOOPBACK}:{port}", agent, drain)
    finally:
        _stop(proc, drain, 10.0)
