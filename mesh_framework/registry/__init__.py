"""The embedded registry: MCP Mesh's registry protocol (heartbeat, resolution, health), zero install."""

from .app import build_registry_app, default_check_interval
from .payload import PayloadError, Registration, ToolRecord, parse_registration
from .resolution import resolve, unresolved_slot
from .server import RegistryServer, serve_registry, start_registry
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
