"""Which environment variables set settings, known without the settings models (no pydantic imported).

`mesh list`, `mesh status` and `mesh call` read the registry with a few settings (its URL, token and TLS
options); when the environment sets none of them, they are the defaults and nothing needs loading.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "EMBEDDED_PORT",
    "ENV_CONTROL",
    "ENV_PREFIX",
    "ENV_PROFILES",
    "MCP_MESH_ENV_NAMES",
    "embedded_registry_url",
    "sets_settings",
]

ENV_PREFIX = "MESH_"
ENV_PROFILES = "MESH_PROFILES_ACTIVE"
# Variables of the MESH_ prefix that select how to load rather than what to load.
ENV_CONTROL = {ENV_PROFILES, "MESH_CONFIG", "MESH_LLM_MODEL", "MESH_LLM_MAX_ITERATIONS"}
# The MCP Mesh environment names, which keep working beside the nested MESH_... names.
MCP_MESH_ENV_NAMES: dict[str, str] = {
    "MCP_MESH_HTTP_HOST": "agent.host",
    "MCP_MESH_HTTP_PORT": "server.port",
    "MCP_MESH_REGISTRY_URL": "registry.url",
    "MCP_MESH_NAMESPACE": "agent.namespace",
    "MCP_MESH_AGENT_NAME": "agent.name",
    "MCP_MESH_AGENT_ID": "agent.id",
    "MCP_MESH_HEALTH_INTERVAL": "registry.heartbeat_interval",
    "MCP_MESH_HEALTH_CHECK_TTL": "health.cache_ttl",
    "MCP_MESH_PROPAGATE_HEADERS": "mesh.propagate_headers",
    "MCP_MESH_MEDIA_STORAGE": "media.storage",
    "MCP_MESH_MEDIA_STORAGE_PATH": "media.path",
    "MCP_MESH_MEDIA_STORAGE_PREFIX": "media.prefix",
    "MCP_MESH_MEDIA_STORAGE_BUCKET": "media.bucket",
    "MCP_MESH_MEDIA_STORAGE_ENDPOINT": "media.endpoint",
    "MCP_MESH_SCHEMA_STRICT": "tools.schema_strict",
    "MESH_LLM_MODEL": "llm.defaults.model",
    "MESH_LLM_MAX_ITERATIONS": "llm.defaults.max_iterations",
}
# The default of `registry.embedded_port` (the settings model's default is this constant).
EMBEDDED_PORT = 8000


def embedded_registry_url(port: int) -> str:
    """Where an agent looks for the embedded registry: 127.0.0.1 at `registry.embedded_port`."""
    return f"http://127.0.0.1:{port}"


def sets_settings(environ: Mapping[str, str]) -> bool:
    """True when a variable of `environ` sets a setting (what the environment layer of the settings reads:
    a non-empty MCP Mesh name, or a non-empty `MESH_...` variable other than the control ones)."""
    return any(
        value != ""
        and (name in MCP_MESH_ENV_NAMES or (name.startswith(ENV_PREFIX) and name not in ENV_CONTROL))
        for name, value in environ.items()
    )
