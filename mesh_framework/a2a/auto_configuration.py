"""A2A as an auto-configuration: an app whose tools are A2A skills serves their cards and JSON-RPC routes
(a2a/beans.py, loading `a2a-sdk`); one whose tools take an `A2aClient` gets the peers' clients; either
adds A2A's fields to its registration. An app with no skill answers card requests with a clear 404, and
loads no other A2A module."""

from __future__ import annotations

import sys
import typing
from typing import Annotated, Any, get_args, get_origin

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from ..config.settings import MeshSettings
from ..di.conditions import ConditionContext, conditional
from ..di.configuration import bean, configuration, imports
from ..extension import HeartbeatFields, HttpSurface
from ..tools.wrapper_registry import MeshToolWrapperRegistry

__all__ = ["A2A_ORDER", "A2aAutoConfiguration", "no_skill_routes", "serves_skills", "takes_a2a_client"]

# The A2A routes' place among the features' (extension.HttpSurface): after those ordered below zero
# (`/status`), before the others and the web routes.
A2A_ORDER = 0


def serves_skills(context: ConditionContext) -> tuple[bool, str]:
    """A scanned tool is served as an A2A skill (`@mesh_a2a`, `@mesh_tool(a2a=True)`)."""
    marks = sys.modules.get("mesh_framework.a2a.a2a_marks")  # loaded by a @mesh_a2a; else no tool carries one
    for tool in context.scan.tools if context.scan is not None else ():
        if tool.spec.options.get("a2a") or (marks is not None and marks.skill_mark(tool.spec) is not None):
            return True, f"tool {tool.key} is an A2A skill"
    return False, "no tool is an A2A skill"


def serves_no_skill(context: ConditionContext) -> tuple[bool, str]:
    matched, reason = serves_skills(context)
    return not matched, reason


def takes_a2a_client(context: ConditionContext) -> tuple[bool, str]:
    """A scanned tool takes an `A2aClient` parameter (its peer's client is injected)."""
    client = sys.modules.get("mesh_framework.a2a.client")
    if client is None:  # a tool annotated with A2aClient has imported it
        return False, "no tool takes an A2aClient"
    for tool in context.scan.tools if context.scan is not None else ():
        try:
            hints = typing.get_type_hints(tool.spec.function, include_extras=True)
        except Exception:  # the tool's planning reports what cannot be resolved
            continue
        for name, hint in hints.items():
            annotated = get_args(hint)[0] if get_origin(hint) is Annotated else hint
            if name != "return" and annotated is client.A2aClient:
                return True, f"tool {tool.key} takes an A2aClient"
    return False, "no tool takes an A2aClient"


def uses_a2a(context: ConditionContext) -> tuple[bool, str]:
    skills = serves_skills(context)
    return skills if skills[0] else takes_a2a_client(context)


def no_skill_routes(settings: MeshSettings) -> list[BaseRoute]:
    """The card requests of an agent that serves no skill, answered with a 404 saying how to serve one."""

    async def none(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "error": f"agent '{settings.agent.name}' serves no A2A skills; mark a tool with @mesh_a2a "
                "(or @mesh_tool(a2a=True)) to serve it over A2A"
            },
            status_code=404,
        )

    path = settings.a2a.path
    return [
        Route("/.well-known/agent-card.json", none, methods=["GET"]),
        Route("/.well-known/agent.json", none, methods=["GET"]),
        Route(path + "/{skill}/.well-known/{card}", none, methods=["GET"]),
    ]


class _A2aFields(HeartbeatFields):
    """A2A in MCP Mesh's heartbeat: a surface per skill, the producer and consumer flags."""

    def fields(self, settings: MeshSettings, tools: MeshToolWrapperRegistry) -> dict[str, Any]:
        from .skills import a2a_heartbeat_fields

        return a2a_heartbeat_fields(settings, tools)


@configuration
@conditional(serves_skills, "a tool is an A2A skill")
@imports("mesh_framework.a2a.beans:A2aSkillBeans")
class A2aSkills:
    """The skills' cards and JSON-RPC routes (a2a/beans.py)."""


@configuration
@conditional(takes_a2a_client, "a tool takes an A2aClient")
@imports("mesh_framework.a2a.beans:A2aClientBeans")
class A2aConsumers:
    """The peers' clients (a2a/beans.py)."""


@configuration
@conditional(serves_no_skill, "no tool is an A2A skill")
class A2aAbsent:
    @bean(order=A2A_ORDER)
    def a2a_no_skill_surface(self, settings: MeshSettings) -> HttpSurface:
        return HttpSurface(no_skill_routes(settings), order=A2A_ORDER)


@configuration
@imports(A2aSkills, A2aConsumers, A2aAbsent)
class A2aAutoConfiguration:
    @bean
    @conditional(uses_a2a, "a tool is an A2A skill or takes an A2aClient")
    def a2a_heartbeat_fields(self) -> HeartbeatFields:
        return _A2aFields()
