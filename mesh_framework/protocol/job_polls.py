"""`polls_a_job(scope)`: whether an MCP request only reads or cancels a job, from its routing headers.

A stopping agent refuses new calls but still answers these while its jobs get their grace, so a client
waiting on a job reads how it ends instead of losing the agent at the first poll. Only 2026-07-28
requests qualify: their `Mcp-Method` and `Mcp-Name` headers are checked against the body by the endpoint,
so a request cannot claim to be a poll and be something else. Handshake-era requests carry no such
headers and are refused while the agent drains, as before.
"""

from __future__ import annotations

from typing import Any

from .versions import MODERN_VERSIONS

__all__ = ["JOB_POLL_TOOLS", "polls_a_job"]

# MCP Mesh's job tools (served by jobs/tools.py) and the task methods that read or cancel a task.
JOB_POLL_TOOLS = frozenset(
    {b"__mesh_job_status", b"__mesh_job_result", b"__mesh_job_cancel", b"get_server_status"}
)
_TASK_METHODS = frozenset({b"tasks/get", b"tasks/cancel"})
_MODERN = frozenset(version.encode() for version in MODERN_VERSIONS)


def polls_a_job(scope: dict[str, Any]) -> bool:
    """True for a 2026-07-28 `tools/call` of a job tool, or a `tasks/get` or `tasks/cancel`."""
    version = method = name = None
    for key, value in scope["headers"]:
        if key == b"mcp-protocol-version":
            version = value.strip()
        elif key == b"mcp-method":
            method = value.strip()
        elif key == b"mcp-name":
            name = value.strip()
    if version not in _MODERN:
        return False
    return method in _TASK_METHODS or (method == b"tools/call" and name in JOB_POLL_TOOLS)
