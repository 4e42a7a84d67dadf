"""A `tools/call` request read and checked once, before its tool runs: which tool, its arguments, and how
it runs (inline, as a 2025-11-25 experimental task, as a 2026-07-28 task). What is wrong with the request
(no such tool, arguments that are no object, an undeclared client capability, a `Mcp-Param-*` header that
disagrees, a malformed task) is an `McpError` naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._frozen import frozen
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .mcp_error import McpError
from .param_headers import ParamHeaderError, check_param_headers
from .versions import HEADER_MISMATCH, INVALID_PARAMS, META_CLIENT_CAPABILITIES, MISSING_CLIENT_CAPABILITY

__all__ = ["TASKS_HANDSHAKE_VERSION", "ToolCall", "read_tool_call"]

TASKS_HANDSHAKE_VERSION = "2025-11-25"  # the handshake-era version with (experimental) tasks


@frozen
class ToolCall:
    """One checked `tools/call`: `name` as asked, its `wrapper` and `arguments`; `as_task`: a 2025-11-25
    task-augmented call; `as_modern_task`: served as a task of 2026-07-28's tasks extension."""

    name: str
    wrapper: MeshToolWrapper
    arguments: dict[str, Any] | None
    as_task: bool = False
    as_modern_task: bool = False


def read_tool_call(
    params: dict[str, Any],
    registry: MeshToolWrapperRegistry,
    *,
    modern: bool,
    version: str | None,
    header_params: Mapping[str, Any],
    header_values: Mapping[str, str],
    tasks: Any,
    experimental_tasks: Any,
) -> ToolCall:
    """The call `params` ask for (`modern`: the 2026-07-28 path; `version`: the request's protocol
    version); `header_params`: each tool's mirrored parameters, `header_values` the request's `Mcp-Param-*`
    headers; `tasks`, `experimental_tasks`: the endpoint's task handlers, None where not served."""
    name = params.get("name")
    arguments = params.get("arguments")
    if not isinstance(name, str):
        raise McpError(INVALID_PARAMS, "tools/call needs params.name, the name of the tool to call")
    if arguments is not None and not isinstance(arguments, dict):
        raise McpError(INVALID_PARAMS, f"tools/call params.arguments must be an object, not {arguments!r}")
    wrapper = registry.get(name)
    if wrapper is None:
        available = ", ".join(sorted(registry.names())) or "none"
        raise McpError(INVALID_PARAMS, f"Unknown tool '{name}'. Available tools: {available}")
    if modern and wrapper.spec.client_capabilities:
        declared = params["_meta"][META_CLIENT_CAPABILITIES]
        missing = [c for c in wrapper.spec.client_capabilities if c not in declared]
        if missing:
            raise McpError(
                MISSING_CLIENT_CAPABILITY,
                f"Tool '{name}' needs the client capabilities "
                f"{', '.join(missing)}, which the request does not declare",
                data={"requiredCapabilities": {c: {} for c in missing}},
            )
    mirrored = header_params.get(name)
    if modern and mirrored:
        try:
            check_param_headers(mirrored, arguments or {}, header_values)
        except ParamHeaderError as exc:
            raise McpError(HEADER_MISMATCH, str(exc)) from None
    # 2025-11-25's task-augmented call (ignored, as the specification says, where tasks are not served)
    as_task = not modern and experimental_tasks is not None and params.get("task") is not None
    if as_task and not isinstance(params["task"], dict):
        raise McpError(INVALID_PARAMS, f"tools/call params.task must be an object, not {params['task']!r}")
    if version == TASKS_HANDSHAKE_VERSION and experimental_tasks is not None and not as_task:
        experimental_tasks.check_plain_call(wrapper)  # taskSupport "required": -32601
    # 2026-07-28's tasks extension: the server decides (a background tool, the extension declared)
    as_modern_task = modern and tasks is not None and tasks.wants(wrapper, params)
    return ToolCall(name, wrapper, arguments, as_task, as_modern_task)
