"""The agent's A2A side: an Agent Card and JSON-RPC endpoints over its `@mesh_a2a` tools.

The A2A specification's dialect is served by the official `a2a-sdk` (its request handler, task store and
JSON-RPC dispatcher, v0.3 `message/send` too); this module gives it an executor that runs the skill's
tool. MCP Mesh's dialect (`tasks/send|get|cancel|sendSubscribe`) is translated onto the same handler, so
both dialects share one task store.

    GET  /.well-known/agent-card.json          the card, every skill (current dialect)
    POST {a2a.path}                            JSON-RPC; the skill from message metadata `skill`
    GET  {a2a.path}/{skill}/.well-known/agent-card.json | agent.json   one skill's card, either dialect
    POST {a2a.path}/{skill}                    JSON-RPC of either dialect for that skill

Each request is read once (requests.py): a JSON body (application/json only, strict JSON), the one skill
it runs (authorized by the guard, then run by the executor: both read it from the call context) and its
caller, who owns the tasks it makes (the store keeps tasks per owner; another caller's id reads as
unknown). The cards advertise `a2a.public_url`, else the agent's own host and port: never the request's
Host header.

The pieces, one concept each: `admission.py` (a request read once), `call_context.py` (its skill and
caller in the SDK's call context), `executor.py` (a skill run as a task), `direct.py` (a plain skill's
fast path), `legacy.py` and `legacy_tasks.py` (MCP Mesh's dialect), `cards.py`, `store.py`, `sdk_logs.py`.
This module wires them into the routes and dispatches each JSON-RPC request to its dialect.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from google.protobuf.json_format import ParseError  # type: ignore[import-untyped]
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..config.settings import MeshSettings
from ..security.authorization import verifier_from_settings
from ..security.verifiers import TokenVerifier
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .admission import admit
from .call_context import SkillContextBuilder
from .cards import advertised_base, agent_card, legacy_card
from .direct import DirectSend
from .executor import SkillExecutor
from .guard import A2aGuard
from .legacy import LEGACY_METHODS, LegacyDialect
from .requests import as_dict
from .sdk_logs import one_line_sdk_logs
from .skills import skills_of
from .store import BoundedTaskStore

__all__ = ["BoundedTaskStore", "skill_routes"]

logger = logging.getLogger("mesh_framework.a2a")

one_line_sdk_logs()


def _guard(settings: MeshSettings, verifier: TokenVerifier | None) -> A2aGuard | None:
    verifier = verifier or verifier_from_settings(settings)
    return None if verifier is None else A2aGuard(verifier, settings.auth.required_scopes)


def skill_routes(
    settings: MeshSettings,
    tools: MeshToolWrapperRegistry,
    runner: Any = None,
    verifier: TokenVerifier | None = None,
) -> list[BaseRoute]:
    """The A2A routes of the agent's skills, guarded by `verifier` (the app's own), else by the one the
    settings configure (`auth.tokens`, `auth.jwks_url`), else open."""
    skills = skills_of(tools)
    by_id = {skill.id: skill for skill in skills}
    path = settings.a2a.path
    placeholder = agent_card(settings, skills, path)
    executor = SkillExecutor(by_id, runner, settings.a2a.max_task_bytes)
    guard = _guard(settings, verifier)
    secured = guard is not None  # the cards name the bearer scheme the guard asks for
    store = BoundedTaskStore(settings.a2a.max_tasks, settings.a2a.max_task_bytes)
    handler = DefaultRequestHandler(executor, store, placeholder)
    builder = SkillContextBuilder()
    dispatcher = JsonRpcDispatcher(request_handler=handler, context_builder=builder, enable_v0_3_compat=True)
    direct = DirectSend(executor, store)
    legacy = LegacyDialect(handler, by_id, direct)

    async def card(request: Request) -> JSONResponse:
        from a2a.server.request_handlers.response_helpers import agent_card_to_dict

        base = advertised_base(settings, request)
        return JSONResponse(agent_card_to_dict(agent_card(settings, skills, base + path, secured=secured)))

    async def skill_card(request: Request) -> Response:
        skill = by_id.get(request.path_params["skill"])
        name = request.path_params["card"]
        known = ", ".join(by_id)
        if skill is None:
            return JSONResponse(
                {"error": f"no A2A skill {request.path_params['skill']!r}; this agent serves: {known}"},
                status_code=404,
            )
        url = f"{advertised_base(settings, request)}{path}/{skill.id}"
        if name == "agent.json":
            return JSONResponse(legacy_card(settings, skill, url, secured=secured))
        if name == "agent-card.json":
            from a2a.server.request_handlers.response_helpers import agent_card_to_dict

            return JSONResponse(agent_card_to_dict(agent_card(settings, [skill], url, secured=secured)))
        return JSONResponse(
            {"error": f"no card {name!r}; use agent-card.json or agent.json"}, status_code=404
        )

    async def rpc(request: Request) -> Response:
        admitted = await admit(request, by_id, guard)
        if isinstance(admitted, Response):
            return admitted
        body, named = admitted
        if body.get("method") in LEGACY_METHODS:
            return await legacy(body, builder.build(request))
        if (
            body.get("method") == "SendMessage"
            and request.headers.get("a2a-version") == "1.0"
            and (target := direct.applies(as_dict(body.get("params")), named)) is not None
        ):
            wire = as_dict(as_dict(body["params"]).get("message"))
            try:
                result = await direct.answer(target, wire, builder.build(request))
            except ParseError as exc:  # not a valid message: the SDK's answer names the problem
                logger.debug("SendMessage with an unreadable message, left to the SDK: %r", exc)
            else:
                return JSONResponse({"result": result, "id": body.get("id"), "jsonrpc": "2.0"})
        # the dispatcher reads the body again: the JSON read here, so both see the same request
        request._body = json.dumps(body).encode()
        return await dispatcher.handle_requests(request)

    return [
        Route("/.well-known/agent-card.json", card, methods=["GET"]),
        Route(path, rpc, methods=["POST"]),
        Route(path + "/{skill}", rpc, methods=["POST"]),
        Route(path + "/{skill}/.well-known/{card}", skill_card, methods=["GET"]),
    ]
