"""`McpConnectionInfo`: what is known of a connection once it is up (filters and name generators see it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._frozen import frozen

__all__ = ["McpConnectionInfo"]


@frozen
class McpConnectionInfo:
    """The server's name (its catalog name, or the mesh agent), its initialize (or discover) result and
    the client info this side sent."""

    server_name: str
    server_info: Mapping[str, Any] = field(default_factory=dict)
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    protocol_version: str | None = None
    client_info: Mapping[str, Any] = field(default_factory=dict)
    instructions: str | None = None
