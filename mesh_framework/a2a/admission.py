"""An A2A JSON-RPC request admitted once, before anything runs: its JSON body, the one skill it runs
(authorized for its caller by the guard) and the caller, both left in the ASGI scope for the call context
(`call_context.py`); or the JSON-RPC error answer refusing it."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..security.verifiers import AccessToken
from .call_context import CALL_SCOPE
from .guard import A2aGuard
from .requests import BadRequest, decide_skill, is_json_body, read_json, request_id
from .skills import A2aSkill

__all__ = ["admit", "rpc_error"]


def rpc_error(request_id: Any, code: int, message: str, status: int = 200) -> JSONResponse:
    """A JSON-RPC error answer (HTTP 200 unless `status` says otherwise)."""
    return JSONResponse(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}, status_code=status
    )


async def admit(
    request: Request, skills: dict[str, A2aSkill], guard: A2aGuard | None
) -> Response | tuple[dict[str, Any], str | None]:
    """A request read once: its JSON-RPC body and the skill it runs (authorized for its caller, both left
    in the scope for `SkillContextBuilder`), or the answer refusing it."""
    path_skill = request.path_params.get("skill")
    if path_skill is not None and path_skill not in skills:
        return rpc_error(
            None, -32602, f"no A2A skill '{path_skill}'; this agent serves: {', '.join(skills)}", 404
        )
    if not is_json_body(request.headers.get("content-type")):  # never a form or text/plain
        message = "Invalid Request: send the JSON-RPC request as Content-Type: application/json"
        return rpc_error(None, -32600, message, 415)
    try:
        body = read_json(await request.body())
    except BadRequest as exc:
        return rpc_error(None, exc.code, str(exc), 400)
    if not isinstance(body, dict):
        return rpc_error(None, -32600, "Invalid Request: the body must be one JSON-RPC request object", 400)
    if not isinstance(body.get("params", {}), dict):
        return rpc_error(request_id(body), -32602, "Invalid params: 'params' must be an object")
    try:
        named = decide_skill(path_skill, body, skills)
    except BadRequest as exc:
        return rpc_error(request_id(body), exc.code, str(exc), 400)
    caller: AccessToken | None = None
    if guard is not None:
        checked = await guard.check(request, skills.get(named) if named is not None else None)
        if isinstance(checked, Response):
            return checked
        caller = checked
    request.scope[CALL_SCOPE] = (named, caller)
    return body, named
