"""The input-required round, as a call brings its answers back: a client that was asked for input calls
the tool again with `inputResponses` (its answer object per input request key) and the `requestState` the
tool left (signed by this agent: `request_state.py`). Both are checked before the tool runs; the tool reads
them from its `ToolContext`. A call answered in one piece gets a context of its own only when its tool
has dependencies, whose questions it may have to relay (`call_context`)."""

from __future__ import annotations

from typing import Any

from ..tools.context import ToolContext
from .mcp_error import McpError
from .request_state import RequestStateSigner, TamperedStateError
from .versions import INVALID_PARAMS, META_CLIENT_CAPABILITIES

__all__ = ["call_context", "read_input_round"]


def read_input_round(
    params: dict[str, Any], tool: str, signer: RequestStateSigner
) -> tuple[dict[str, Any] | None, Any]:
    """The call's input responses (None without) and the state `tool` left (decoded, None without);
    McpError for responses that are not answer objects by key, or a state altered since it was signed."""
    responses = params.get("inputResponses")
    if responses is not None and not (
        isinstance(responses, dict) and all(isinstance(v, dict) for v in responses.values())
    ):
        raise McpError(
            INVALID_PARAMS,
            "params.inputResponses must map each input request key to the client's answer object",
        )
    state = None
    if params.get("requestState") is not None:
        try:
            state = signer.decode(tool, params["requestState"])
        except TamperedStateError as exc:
            raise McpError(INVALID_PARAMS, str(exc)) from None
    return responses, state


def call_context(
    tool: str, params: dict[str, Any], request_id: Any, *, modern: bool, signer: RequestStateSigner
) -> ToolContext:
    """The context of a call answered in one piece (no event stream): its round and, on 2026-07-28, the
    client capabilities it declared (McpError as `read_input_round`)."""
    responses, state = read_input_round(params, tool, signer)
    meta = params.get("_meta")
    return ToolContext(
        tool,
        request_id=request_id,
        modern=modern,
        client_capabilities=meta.get(META_CLIENT_CAPABILITIES) if modern and isinstance(meta, dict) else None,
        input_responses=responses,
        request_state=state,
        encode_state=signer.encode,
    )
