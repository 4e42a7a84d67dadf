"""What a remote caller is told when a tool raises: `Type: message` by default (models use the message),
never a traceback; with `tools.mask_error_details`, that the tool failed and an error id, which the
agent's log ties to the exception. In process, through the MCP endpoint."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import MeshTestClient, mesh_client

ENVIRON = {"MESH_REGISTRY__ENABLED": "false"}
MASKED = re.compile(r"Tool '(\w+)' failed \(error id ([0-9a-f]{12})\)")


def load(**environ: str) -> MeshApplication:
    return MeshApplication.load("tests.apps.error_app", environ={**ENVIRON, **environ})


def text(result: dict[str, Any]) -> str:
    assert result["isError"] is True, result
    return str(result["content"][0]["text"])


async def job_error(client: MeshTestClient) -> str:
    started = await client.call_tool("background_tool")
    job_id = started["structuredContent"]["job_id"]
    for _ in range(2000):  # bounded: the job fails at its first step
        outcome: dict[str, Any] = await client.call_ok("__mesh_job_result", {"job_id": job_id})
        if outcome["status"] == "failed":
            return str(outcome["error"])
        await asyncio.sleep(0.005)
    raise AssertionError("the job did not fail")


async def test_by_default_the_caller_gets_type_and_message_but_never_a_traceback() -> None:
    async with mesh_client(load()) as client:
        assert (
            text(await client.call_tool("divide", {"a": 1, "b": 0})) == "ZeroDivisionError: division by zero"
        )
        assert text(await client.call_tool("noisy")) == "RuntimeError: the helper failed"
        assert text(await client.call_tool("remote")) == (
            "http://10.1.2.3:8080/mcp did not answer tools/call within 30s"
        )
        assert text(await client.call_tool("task_tool")) == "ValueError: no row 42 in /var/lib/app/data.db"
        assert await job_error(client) == "ValueError: no row 7 in /var/lib/app/data.db"


async def test_masked_errors_say_only_which_tool_failed_and_an_id_the_log_explains(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="mesh_framework")
    async with mesh_client(load(MESH_TOOLS__MASK_ERROR_DETAILS="true")) as client:
        told = {
            "divide": text(await client.call_tool("divide", {"a": 1, "b": 0})),
            "noisy": text(await client.call_tool("noisy")),
            "remote": text(await client.call_tool("remote")),
            "task_tool": text(await client.call_tool("task_tool")),
            "background_tool": await job_error(client),
        }
        # what the caller got wrong is still said: arguments are the caller's own input
        invalid = text(await client.call_tool("divide", {"a": "x", "b": 1}))
    assert "a: Input should be a valid integer" in invalid
    logged = "\n".join(record.getMessage() for record in caplog.records)
    ids = set()
    for tool, message in told.items():
        found = MASKED.fullmatch(message)
        assert found is not None and found[1] == tool, message
        ids.add(found[2])
        assert f"tool '{tool}' failed, error id {found[2]}: " in logged  # the id leads to the details
    assert len(ids) == len(told)  # one id per failure
    for detail in ("division by zero", "db_password", "10.1.2.3", "row 42", "row 7"):
        assert detail in caplog.text  # the log keeps the details (tracebacks included) ...
        assert not any(detail in message for message in told.values())  # ... the callers get none
