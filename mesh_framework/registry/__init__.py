"""The embedded registry: MCP Mesh's registry protocol (heartbeat, resolution, health), zero install.

The names below are loaded on first use (PEP 562): an agent loads the registry's modules only when it runs
the registry (registry/auto_configuration.py, registry/in_process.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .payload import PayloadError, Registration, ToolRecord, parse_registration
    from .registry_app import build_registry_app, default_check_interval
    from .registry_server import RegistryServer, serve_registry, start_registry
    from .resolution import resolve, unresolved_slot
    from .store import DEFAULT_TIMEOUT, AgentState, HeartbeatResult, RegistryStore

__all__ = [
    "DEFAULT_TIMEOUT",
    "AgentState",
    "HeartbeatResult",
    "PayloadError",
    "Registration",
    "RegistryServer",
    "RegistryStore",
    "ToolRecord",
    "build_registry_app",
    "default_check_interval",
    "parse_registration",
    "resolve",
    "serve_registry",
    "start_registry",
    "unresolved_slot",
]

_LOCATIONS = {
    "DEFAULT_TIMEOUT": ".store",
    "AgentState": ".store",
    "HeartbeatResult": ".store",
    "PayloadError": ".payload",
    "Registration": ".payload",
    "RegistryServer": ".registry_server",
    "RegistryStore": ".store",
    "ToolRecord": ".payload",
    "build_registry_app": ".registry_app",
    "default_check_interval": ".registry_app",
    "parse_registration": ".payload",
    "resolve": ".resolution",
    "serve_registry": ".registry_server",
    "start_registry": ".registry_server",
    "unresolved_slot": ".resolution",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
