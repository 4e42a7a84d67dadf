"""Why a catalog server is down, in one line a caller can act on: the command cannot start, the process
exited (with its last stderr line), the URL refused the connection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2

from ..catalog.definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition

__all__ = ["describe", "start_failure"]


def describe(exc: BaseException) -> str:
    """`Type: message` of an error (the first leaf of a group); an MCP error as `message (code N)`."""
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, BaseExceptionGroup):
        leaves = _leaves(exc)
        exc = leaves[0] if leaves else exc
    if isinstance(exc, MCPError):
        return f"{exc.message} (code {exc.code})"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def start_failure(definition: McpServerDefinition, command: str, exc: BaseException, stderr: str) -> str:
    """Why `definition` (started as `command`, for stdio) did not start; `stderr` is its last line there."""
    import mcp_types as types
    from mcp.shared.exceptions import MCPError

    found = list(_causes(exc))
    if isinstance(definition, StdioDefinition):
        said = f"its last stderr line: {stderr!r}" if stderr else "nothing on stderr"
        for cause in found:
            if isinstance(cause, OSError) and not isinstance(cause, ConnectionError):
                reason = cause.strerror or type(cause).__name__
                if cause.filename not in (None, command):  # the working folder, say
                    return f"cannot start the command {command!r} ({reason}: {cause.filename})"
                return f"cannot start the command {command!r} ({reason}); install it or fix 'command'"
            if isinstance(cause, MCPError) and cause.code == types.CONNECTION_CLOSED:
                return f"the command {command!r} exited during start-up; {said}"
        text = describe(exc)
        return f"{text}; {said}" if stderr else text
    assert isinstance(definition, (HttpDefinition, SseDefinition))
    for cause in found:
        if isinstance(cause, ConnectionRefusedError):
            return f"refused the connection at {definition.url}; is the server running?"
    for cause in found:
        if isinstance(cause, httpx2.ConnectError):
            return f"cannot connect to {definition.url} ({describe(cause)})"
    return describe(exc)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The error, the leaves of its groups and their causes and contexts (each once)."""
    seen: set[int] = set()
    pending = [exc]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)


def _leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        found.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return found
