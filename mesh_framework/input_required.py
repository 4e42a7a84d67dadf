"""Multi-round-trip tool calls (2026-07-28 `InputRequiredResult`): ask the client, get the answer next call.

A stateless server cannot send requests to its client mid-call. Instead a tool returns `InputRequired`
with the questions (elicitation, sampling, roots) and optional state; the client answers by calling the
tool again with `inputResponses` and the signed `requestState`, which the tool reads from its ToolContext.

Usage::

    @mesh_tool()
    async def book(ctx: ToolContext) -> str:
        answer = ctx.input_responses.get("name")
        if answer is None or answer.get("action") != "accept":
            form = elicit("Who is travelling?", {"name": {"type": "string"}}, ["name"])
            return InputRequired({"name": form})
        return f"Booked for {answer['content']['name']}"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from ._frozen import frozen
from .errors import MeshError

__all__ = ["InputNotPossible", "InputRequired", "elicit", "input_required_result", "list_roots", "sample"]

# The client capability each kind of input request needs.
REQUEST_CAPABILITIES = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


@frozen
class InputRequired:
    """A tool's answer that asks the client for input before it can finish.

    `requests` maps keys of the tool's choosing to input requests (see `elicit`, `sample`, `list_roots`);
    `state` is any JSON value handed back, signed and verified, as `ToolContext.request_state`.
    """

    requests: Mapping[str, Mapping[str, Any]]
    state: Any = field(default=None)

    def __post_init__(self) -> None:
        if not self.requests:
            raise ValueError("InputRequired needs at least one input request")
        for key, request in self.requests.items():
            if request.get("method") not in REQUEST_CAPABILITIES:
                raise ValueError(
                    f"input request {key!r} has method {request.get('method')!r}; use elicit(), "
                    "sample() or list_roots()"
                )


def elicit(message: str, properties: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """Ask the user for structured input (`properties` is a flat JSON schema of primitive fields)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}


def sample(
    prompt: str | Sequence[Mapping[str, Any]], *, max_tokens: int = 256, **params: Any
) -> dict[str, Any]:
    """Ask the client's LLM for a completion (a prompt text or MCP sampling messages)."""
    messages = (
        [{"role": "user", "content": {"type": "text", "text": prompt}}]
        if isinstance(prompt, str)
        else [dict(m) for m in prompt]
    )
    return {
        "method": "sampling/createMessage",
        "params": {"messages": messages, "maxTokens": max_tokens, **params},
    }


def list_roots() -> dict[str, Any]:
    """Ask the client for its roots (the folders or URIs it exposes)."""
    return {"method": "roots/list", "params": {}}


class InputNotPossible(MeshError):
    """A call asked the client for input the client cannot give: its protocol or capabilities lack it."""


def input_required_result(what: str, value: InputRequired, context: Any) -> dict[str, Any]:
    """The `InputRequiredResult` answering `value` for `what` (e.g. "Tool 'book'") on the call of
    `context` (a ToolContext); raises InputNotPossible saying why when the client cannot answer."""
    if context is None or not context.modern:
        raise InputNotPossible(
            f"{what} needs input from the client (elicitation, sampling or roots), which needs "
            "protocol 2026-07-28; this client speaks an older one"
        )
    needed = {REQUEST_CAPABILITIES[str(r["method"])] for r in value.requests.values()}
    missing = sorted(needed - set(context.client_capabilities))
    if missing:
        raise InputNotPossible(
            f"{what} asked the client for input it did not declare it can give "
            f"(missing capabilities: {', '.join(missing)})"
        )
    result: dict[str, Any] = {
        "resultType": "input_required",
        "inputRequests": {key: dict(r) for key, r in value.requests.items()},
    }
    if value.state is not None:
        result["requestState"] = context.encode_state(value.state)
    return result
