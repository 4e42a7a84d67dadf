"""`McpConnection` against real processes and sockets: why a server is down reaches the caller, `python`
is the agent's own interpreter, and a caller's own cancellation is never swallowed."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from mesh_framework import MeshError
from mesh_framework.callbacks import McpConnection, McpConnectionError, McpToolCallbackProvider
from mesh_framework.catalog import HttpDefinition, McpServerCatalog, SseDefinition, StdioDefinition

from ..agents import ROOT, wait_until
from ..mcp_servers import fixture_stdio, free_port

FIXTURE = str(ROOT / "tests" / "servers" / "misbehaving_stdio.py")
EXITS = "import sys; print('starting', file=sys.stderr); sys.exit(\"No module named 'dependency_injector'\")"

pytestmark = pytest.mark.timeout(60)


async def find_error(definition: StdioDefinition | HttpDefinition | SseDefinition) -> str:
    tools = McpToolCallbackProvider.from_catalog(
        McpServerCatalog.of({"notes": definition}), connect_timeout=10
    )
    try:
        with pytest.raises(MeshError) as caught:
            await tools.find("shout")
        return str(caught.value)
    finally:
        await tools.aclose()


async def test_a_missing_command_is_named_to_the_caller() -> None:
    message = await find_error(StdioDefinition("no-such-binary"))
    assert message.startswith("no tool named 'shout' (tools offered: none)")
    assert "MCP server 'notes' is down: cannot start the command 'no-such-binary' (No such file" in message


async def test_a_command_that_exits_is_named_with_its_last_stderr_line() -> None:
    message = await find_error(StdioDefinition(sys.executable, ["-c", EXITS]))
    assert "MCP server 'notes' is down:" in message and "exited during start-up" in message
    assert "its last stderr line: \"No module named 'dependency_injector'\"" in message


@pytest.mark.parametrize("kind", [HttpDefinition, SseDefinition])
async def test_a_refused_connection_is_named_with_the_url(kind: type[HttpDefinition | SseDefinition]) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    message = await find_error(kind(url))
    assert f"MCP server 'notes' is down: refused the connection at {url}; is the server running?" in message


async def test_the_caller_gets_the_reason_of_each_server_that_is_down() -> None:
    tools = McpToolCallbackProvider.from_catalog(
        McpServerCatalog.of({"odd": fixture_stdio("odd"), "gone": StdioDefinition("no-such-binary")})
    )
    try:
        assert (await tools.find("good")).definition.name == "good"  # a tool that is there is found
        with pytest.raises(MeshError) as caught:
            await tools.find("shout")
        assert "tools offered: die, fails, good, meta" in str(caught.value)
        assert "MCP server 'gone' is down: cannot start the command 'no-such-binary'" in str(caught.value)
        assert "'odd' is down" not in str(caught.value)
    finally:
        await tools.aclose()


@pytest.mark.parametrize("name", ["python", "python3"])
async def test_python_is_the_interpreter_the_agent_runs_on(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A `python` first on PATH that is not this interpreter (a system Python without the venv's packages).
    called = tmp_path / "shim-called"
    shim = tmp_path / "bin" / name
    shim.parent.mkdir()
    shim.write_text(f"#!/bin/sh\necho called > '{called}'\necho 'shim: not the agent python' >&2\nexit 1\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    connection = McpConnection("odd", StdioDefinition(name, [FIXTURE, "odd"]), connect_timeout=15)
    try:
        result = await connection.call_tool("interpreter", {})
    finally:
        await connection.close()
    assert result.content[0].text == sys.executable  # type: ignore[union-attr]
    assert not called.exists()


async def test_another_command_is_looked_up_on_path_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shim = tmp_path / "python3.11"
    shim.write_text("#!/bin/sh\necho 'shim: started as written' >&2\nexit 1\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    connection = McpConnection("odd", StdioDefinition("python3.11", [FIXTURE, "odd"]), connect_timeout=15)
    with pytest.raises(McpConnectionError, match="shim: started as written"):
        await connection.connect()
    await connection.close()


async def test_cancelling_the_task_that_waits_for_the_owner_cancels_it(tmp_path: Path) -> None:
    # `linger` never answers initialize and outlives its closed stdin: after the connect timeout the
    # waiting task cancels the owner and waits seconds for the SDK to stop the process. Cancelling the
    # waiting task then must cancel it, not be swallowed while it waits.
    marker = tmp_path / "stdin-closed"
    definition = StdioDefinition(sys.executable, [FIXTURE, "linger", str(marker)])
    connection = McpConnection("linger", definition, connect_timeout=1)
    waiting = asyncio.create_task(connection.connect())
    await asyncio.to_thread(wait_until, marker.exists, 20)  # the owner is shutting the process down
    assert not waiting.done()
    waiting.cancel()
    done, _ = await asyncio.wait({waiting}, timeout=10)
    assert done and waiting.cancelled()
    # The owner still stops the process on its own.
    owners = {t for t in asyncio.all_tasks() if t.get_name() == "mcp:linger"}
    if owners:
        await asyncio.wait(owners, timeout=15)
    pid = int(marker.read_text())
    await asyncio.to_thread(wait_until, lambda: not Path(f"/proc/{pid}").exists(), 15)
