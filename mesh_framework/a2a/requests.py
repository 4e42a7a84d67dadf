"""What one A2A JSON-RPC request is, decided once before anything runs: its body (JSON only, read
strictly), the skill it runs and who sends it (the owner of the tasks it makes).

The guard authorizes the skill `decide_skill` names and the executor runs that same skill: no other field
of the request is read for it. A request naming two different skills is refused.
"""

from __future__ import annotations

import json
from typing import Any

from ..security.verifiers import AccessToken
from .skills import A2aSkill

__all__ = [
    "MAX_JSON_DEPTH",
    "BadRequest",
    "as_dict",
    "decide_skill",
    "is_json_body",
    "owner_of",
    "read_json",
    "request_id",
]

MAX_JSON_DEPTH = 64  # nesting a request may have (protobuf's Struct and the tools walk it recursively)


class BadRequest(ValueError):
    """A request refused before it runs: its JSON-RPC error `code` and what to fix."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def is_json_body(content_type: str | None) -> bool:
    """Whether a Content-Type names JSON: `application/json` (any parameters) or `application/*+json`.
    Anything else (text/plain, forms) is never parsed, so a browser's simple request cannot post JSON-RPC."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is too large for a 64-bit float")
    return value


def read_json(raw: bytes | str) -> Any:
    """A body or text as JSON, strictly: no NaN/Infinity, no lone surrogates (they cannot be encoded back),
    at most MAX_JSON_DEPTH levels. Raises BadRequest (-32700) saying what is wrong."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_float=_float)
    except RecursionError:
        raise BadRequest(-32700, f"Parse error: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # UnicodeDecodeError included
        raise BadRequest(-32700, f"Parse error: the body is not JSON ({exc})") from None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if level > MAX_JSON_DEPTH:
            raise BadRequest(-32700, f"Parse error: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, dict):
            stack.extend((key, level) for key in node)
            stack.extend((child, level + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, level + 1) for child in node)
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                message = "Parse error: a string holds a lone surrogate (\\ud800-\\udfff); send UTF-16 pairs"
                raise BadRequest(-32700, message) from None
    return value


def request_id(body: Any) -> str | int | None:
    """The request's id as JSON-RPC allows it in an answer (a string or an integer), else None."""
    value = body.get("id") if isinstance(body, dict) else None
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def as_dict(value: Any) -> dict[str, Any]:
    """A JSON value where an object is expected: itself when it is one, else an empty object."""
    return value if isinstance(value, dict) else {}


def decide_skill(path_skill: str | None, body: dict[str, Any], skills: dict[str, A2aSkill]) -> str | None:
    """The one skill a request runs: named by the path (`{a2a.path}/{skill}`), the message's metadata
    (`params.message.metadata.skill`, the current dialect) or the params' metadata (`params.metadata.skill`,
    MCP Mesh's), or the agent's only skill; None when it names none and the agent serves several.
    Raises BadRequest (-32602) when two places name different skills."""
    params = as_dict(body.get("params"))
    named: dict[str, str] = {}
    if path_skill is not None:
        named["the path"] = path_skill
    for where, metadata in (
        ("params.message.metadata.skill", as_dict(as_dict(params.get("message")).get("metadata"))),
        ("params.metadata.skill", as_dict(params.get("metadata"))),
    ):
        value = metadata.get("skill")
        if value is not None and value != "":
            named[where] = value if isinstance(value, str) else json.dumps(value)
    if len(set(named.values())) > 1:
        shown = ", ".join(f"{where} names {value!r}" for where, value in named.items())
        raise BadRequest(-32602, f"Invalid params: the request names two different skills: {shown}; name one")
    if named:
        return next(iter(named.values()))
    return next(iter(skills)) if len(skills) == 1 else None


def owner_of(caller: AccessToken | None) -> str:
    """Whose tasks a request reads and makes: the verified token's client id and subject; "" (anonymous)
    only where no token verifier is configured."""
    if caller is None:
        return ""
    return json.dumps([caller.client_id, caller.subject])
