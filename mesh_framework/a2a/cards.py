"""The Agent Cards: the agent's (every skill, the current dialect) and one skill's, in either dialect.

They advertise `a2a.public_url`, else the agent's own host and the port the request came in on: never the
request's Host header. A bearer scheme is named when a token verifier is configured.
"""

from __future__ import annotations

from typing import Any

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from starlette.requests import Request

from ..config.settings import MeshSettings
from .skills import A2aSkill

__all__ = ["advertised_base", "agent_card", "legacy_card", "verifier_configured"]


def _skill_proto(skill: A2aSkill) -> AgentSkill:
    return AgentSkill(
        id=skill.id,
        name=skill.name,
        description=skill.description,
        tags=list(skill.tags),
        examples=list(skill.spec.examples),
        input_modes=list(skill.spec.input_modes),
        output_modes=list(skill.spec.output_modes),
    )


def verifier_configured(settings: MeshSettings) -> bool:
    """Whether the agent checks bearer tokens (`auth.tokens` or `auth.jwks_url`): the cards then say so."""
    return bool(settings.auth.tokens or settings.auth.jwks_url)


def agent_card(
    settings: MeshSettings, skills: list[A2aSkill], url: str, *, secured: bool | None = None
) -> AgentCard:
    """The current dialect's card of `skills`, served at `url`; `secured`: the skills need a bearer token
    (default: a verifier is configured; the app's own TokenVerifier is not in the settings)."""
    agent = settings.agent
    secured = verifier_configured(settings) if secured is None else secured
    return AgentCard(
        security_schemes={
            "bearer": SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer"))
        }
        if secured
        else None,
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList()})] if secured else None,
        name=agent.name,
        description=agent.description or agent.name,
        version=agent.version,
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[_skill_proto(skill) for skill in skills],
    )


def legacy_card(
    settings: MeshSettings, skill: A2aSkill, url: str, *, secured: bool | None = None
) -> dict[str, Any]:
    """MCP Mesh's `agent.json` card of one skill, served at `url` (`secured`: as `agent_card`'s)."""
    agent = settings.agent
    secured = verifier_configured(settings) if secured is None else secured
    return {
        "name": agent.name,
        "description": agent.description or agent.name,
        "version": agent.version,
        "capabilities": {"streaming": True, "pushNotifications": False, "stateTransitionHistory": False},
        "defaultInputModes": list(skill.spec.input_modes),
        "defaultOutputModes": list(skill.spec.output_modes),
        "skills": [
            {
                "id": skill.id,
                "name": skill.name,
                "description": skill.description,
                "tags": list(skill.tags),
                "inputModes": list(skill.spec.input_modes),
                "outputModes": list(skill.spec.output_modes),
            }
        ],
        "url": url,
        "authentication": {"schemes": ["bearer"] if secured else []},
    }


def advertised_base(settings: MeshSettings, request: Request) -> str:
    """The base URL the cards name: `a2a.public_url`, else http(s)://{agent.host}:{port}, the port the
    request came in on (the socket's, so port 0 works): never the request's Host header."""
    if settings.a2a.public_url:
        return settings.a2a.public_url
    server = request.scope.get("server")
    port = server[1] if server and server[1] else settings.server.port
    host = settings.agent.host or settings.server.host or "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    scheme = "https" if settings.tls.cert_file else "http"
    return f"{scheme}://{host}:{port}"
