"""The official MCP Python SDK 1.x (the mcp-mesh venv's) as a client of protocol 2025-11-25's tasks.

Run with the mcp-mesh venv's Python: `tasks_client.py URL`. Against `tests.apps.tasks_app`, it creates,
polls, reads, lists and cancels tasks with the SDK's `session.experimental` API, and prints what it saw
as one JSON object for tests/jobs/test_jobs_experimental_tasks_sdk.py to check.
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from typing import Any

from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError


async def settle(session: ClientSession, task_id: str) -> list[str]:
    statuses = []
    async for task in session.experimental.poll_task(task_id):
        statuses.append(task.status)
    return statuses


async def main(url: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with (
        streamablehttp_client(url) as (read, write, _session_id),
        ClientSession(read, write) as session,
    ):
        initialized = await session.initialize()
        seen["protocol_version"] = initialized.protocolVersion
        capabilities = session.get_server_capabilities()
        tasks = capabilities.tasks if capabilities else None
        seen["tools_call_as_task"] = bool(tasks and tasks.requests and tasks.requests.tools)
        listed = await session.list_tools()
        seen["task_support"] = {
            tool.name: tool.execution.taskSupport if tool.execution else None for tool in listed.tools
        }

        created = await session.experimental.call_tool_as_task(
            "slow_compute", {"seconds": 0.3, "label": "sdk"}, ttl=30_000
        )
        seen["created_status"] = created.task.status
        seen["statuses"] = await settle(session, created.task.taskId)
        result = await session.experimental.get_task_result(created.task.taskId, types.CallToolResult)
        seen["result"] = {"text": result.content[0].text, "structured": result.structuredContent}
        seen["related_task"] = (result.meta or {}).get("io.modelcontextprotocol/related-task")

        failing = await session.experimental.call_tool_as_task("failing_job", {})
        seen["failing_statuses"] = await settle(session, failing.task.taskId)
        failed = await session.experimental.get_task_result(failing.task.taskId, types.CallToolResult)
        seen["failing_result"] = {"is_error": failed.isError, "text": failed.content[0].text}

        long = await session.experimental.call_tool_as_task("slow_compute", {"seconds": 30})
        cancelled = await session.experimental.cancel_task(long.task.taskId)
        seen["cancelled_status"] = cancelled.status
        try:
            await session.experimental.cancel_task(long.task.taskId)
        except McpError as exc:
            seen["cancel_again"] = {"code": exc.error.code, "message": exc.error.message}

        listing = await session.experimental.list_tasks()
        seen["listed"] = [task.taskId for task in listing.tasks]
        seen["created_ids"] = [created.task.taskId, failing.task.taskId, long.task.taskId]
        try:
            await session.experimental.get_task("no-such-task")
        except McpError as exc:
            seen["unknown"] = {"code": exc.error.code, "message": exc.error.message}

        plain = await session.call_tool("slow_compute", {"seconds": 0.01})  # checked against outputSchema
        seen["plain_handle"] = plain.structuredContent
    return seen


if __name__ == "__main__":
    # mcp 1.x deprecates this API because 2026-07-28 replaced these tasks; 2025-11-25 clients still use it.
    warnings.simplefilter("ignore", DeprecationWarning)
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
