"""Test support: one registry URL served by MCP Mesh's registry or by ours, one after the other (no tests in
here).

Agents started once can so be tested on both registries: when the registry at their URL is replaced, the new
one does not know them (their next heartbeat is refused) and they register with it again, as after a
registry restart that forgot them. Starting agents costs far more than starting a registry.

    seat = RegistrySeat(tmp_path)
    seat.serve("mcp-mesh")     # MCP Mesh's registry binary at seat.url
    ...                        # start agents on seat.url, test
    seat.serve("embedded")     # ours (`mesh registry`) at the same URL; wait for the agents to come back
    seat.close()
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from tests.agents import run_registry

from .mcp_mesh import LOOPBACK, free_port, run_mesh_registry

__all__ = ["KINDS", "RegistrySeat"]

KINDS = ("mcp-mesh", "embedded")  # MCP Mesh's registry 3.7.1; ours, a `mesh registry` process


class RegistrySeat:
    """A registry URL on a fixed loopback port; `serve(kind)` puts that kind of registry behind it."""

    def __init__(self, folder: Path, *ours_args: str) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.kind: str | None = None
        self._ours_args = ours_args  # for `mesh registry`, e.g. ("--timeout", "10")
        self._running = ExitStack()

    def serve(self, kind: str) -> None:
        """Serve the URL with `kind`'s registry (stopping the other one first); returns once it answers."""
        if kind not in KINDS:
            raise ValueError(f"unknown registry kind {kind!r}: one of {', '.join(KINDS)}")
        if self.kind == kind:
            return
        self.close()
        if kind == "mcp-mesh":
            self._running.enter_context(run_mesh_registry(self.folder / kind, port=self.port))
        else:
            self._running.enter_context(run_registry(self.port, *self._ours_args))
        self.kind = kind

    def close(self) -> None:
        """Stop the registry (the seat can serve again)."""
        self.kind = None
        self._running.close()
