"""Tool callbacks over real MCP servers: server-everything (stdio, SSE, streamable HTTP), server-filesystem,
a stateful SDK server, our own agent, and fixture servers that misbehave on purpose."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import ConfigError, ToolContext, ToolExecutionError
from mesh_framework.callbacks import (
    McpConnection,
    McpConnectionError,
    McpToolCallbackProvider,
    ToolContextMetaConverter,
    ToolNameClashError,
    ToolNameGenerator,
    ToolsChanged,
)
from mesh_framework.catalog import HttpDefinition, McpServerCatalog, StdioDefinition
from mesh_framework.events import ApplicationEventPublisher

from ..agents import run_agent, wait_until
from ..mcp_servers import (
    everything_http,
    everything_sse,
    everything_stdio,
    filesystem_stdio,
    fixture_stdio,
    stateful_http,
)


def provider(servers: dict[str, Any], **options: Any) -> McpToolCallbackProvider:
    return McpToolCallbackProvider.from_catalog(McpServerCatalog.of(servers), connect_timeout=15, **options)


async def test_stdio_server_everything_tools_are_callbacks() -> None:
    tools = provider({"everything": everything_stdio()})
    try:
        callbacks = {c.definition.name: c for c in await tools.get_tool_callbacks()}
        assert {"echo", "get-sum", "get-env"} <= callbacks.keys()
        echo = callbacks["echo"]
        assert echo.definition.connection == "everything"
        assert echo.definition.input_schema["properties"]["message"]["type"] == "string"
        assert await echo.call({"message": "hi"}) == "Echo: hi"
        assert "3" in await callbacks["get-sum"].call({"a": 1, "b": 2})
        result = await echo.call_result({"message": "raw"})
        assert result["content"][0]["text"] == "Echo: raw" and not result.get("isError")
        info = tools.connection("everything").info
        assert info is not None and info.server_info["name"].endswith("everything")
        assert info.capabilities["tools"]["listChanged"] is True and info.protocol_version
    finally:
        await tools.aclose()


async def test_an_error_result_raises_with_the_definition_and_the_server_text() -> None:
    tools = provider({"everything": everything_stdio(), "odd": fixture_stdio("odd")})
    try:
        echo = await tools.find("echo")
        with pytest.raises(ToolExecutionError) as caught:
            await echo.call({"nope": 1})
        assert caught.value.definition is echo.definition
        assert "message" in caught.value.message and caught.value.result["isError"] is True
        fails = await tools.find("fails")
        with pytest.raises(ToolExecutionError, match="disk quota exceeded") as failed:
            await fails.call({})
        assert (
            failed.value.agent == "odd" and failed.value.result["content"][0]["text"] == "disk quota exceeded"
        )
    finally:
        await tools.aclose()


async def test_filesystem_server_reads_and_lists(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk")
    tools = provider({"fs": filesystem_stdio(tmp_path)})
    try:
        read = await tools.find("read_text_file")
        assert "remember the milk" in str(await read.call({"path": str(tmp_path / "notes.txt")}))
        listing = await (await tools.find("list_directory")).call({"path": str(tmp_path)})
        assert "notes.txt" in str(listing)
    finally:
        await tools.aclose()


async def test_sse_and_streamable_http_servers() -> None:
    with everything_sse() as sse, everything_http() as http:
        tools = provider({"sse": sse, "http": http})
        try:
            names = [c.definition.name for c in await tools.get_tool_callbacks()]
            # Same tools on both servers: the first keeps the names, the second is prefixed alt_1_.
            assert "echo" in names and "alt_1_echo" in names
            assert await (await tools.find("echo")).call({"message": "over sse"}) == "Echo: over sse"
            assert await (await tools.find("alt_1_echo")).call({"message": "over http"}) == "Echo: over http"
            assert (await tools.find("alt_1_echo")).definition.connection == "http"
        finally:
            await tools.aclose()


async def test_our_own_agent_over_http_is_a_catalog_server() -> None:
    with run_agent("starter_app") as agent:
        tools = provider({"starter": HttpDefinition(agent.mcp_url)})
        try:
            add = await tools.find("add")
            assert await add.call({"a": 2, "b": 40}) == 42
            assert tools.connection("starter").info.protocol_version == "2026-07-28"  # type: ignore[union-attr]
        finally:
            await tools.aclose()


@pytest.fixture(scope="module")
def stateful() -> Iterator[HttpDefinition]:
    """The stateful SDK server, one for the module: each test grows it by tools of its own names."""
    with stateful_http() as definition:
        yield definition


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_changed_invalidates_and_publishes_tools_changed(
    mode: str, stateful: HttpDefinition
) -> None:
    publisher = ApplicationEventPublisher()
    seen: list[ToolsChanged] = []
    publisher.subscribe(ToolsChanged, seen.append)
    grown = f"grown_{mode}"
    connection = McpConnection("stateful", stateful, mode=mode, connect_timeout=15)
    tools = McpToolCallbackProvider([connection], publisher=publisher)
    try:
        before = [c.definition.name for c in await tools.get_tool_callbacks()]
        assert grown not in before
        await (await tools.find("grow")).call({"name": grown})
        await asyncio.wait_for(_until(lambda: seen), 10)
        assert seen[0].connection == "stateful" and grown in [t.name for t in seen[0].tools]
        assert grown in [c.definition.name for c in await tools.get_tool_callbacks()]
        assert await (await tools.find(grown)).call({"text": "yes"}) == f"{grown}: yes"
    finally:
        await tools.aclose()


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.05)


async def test_headers_static_from_settings_and_per_call(stateful: HttpDefinition) -> None:
    calls = iter(range(1, 100))
    static = HttpDefinition(stateful.url, {"Authorization": "Bearer static"})
    tools = McpToolCallbackProvider(
        [
            McpConnection("static", static, headers={"X-Tenant": "acme"}),
            McpConnection("dynamic", stateful, headers=lambda: {"X-Call": str(next(calls))}),
        ]
    )
    try:
        seen = await (await tools.find("headers")).call({})
        assert seen["authorization"] == "Bearer static" and seen["x-tenant"] == "acme"
        first = await (await tools.find("alt_1_headers")).call({})
        second = await (await tools.find("alt_1_headers")).call({})
        assert int(second["x-call"]) > int(first["x-call"])
    finally:
        await tools.aclose()


async def test_name_generators() -> None:
    servers = {"one": fixture_stdio("odd"), "two": fixture_stdio("odd"), "three": fixture_stdio("odd")}
    tools = provider(servers)
    try:
        names = [c.definition.name for c in await tools.get_tool_callbacks()]
        assert names[:4] == ["good", "fails", "meta", "die"]
        assert "alt_1_good" in names and "alt_2_good" in names
        assert (await tools.find("alt_2_good")).definition.connection == "three"
    finally:
        await tools.aclose()
    strict = provider(servers, name_generator=ToolNameGenerator.no_prefix())
    try:
        with pytest.raises(ToolNameClashError, match="'good' is offered by both MCP server 'one' and 'two'"):
            await strict.get_tool_callbacks()
    finally:
        await strict.aclose()
    seen: list[tuple[str, str]] = []

    def custom(info: Any, tool: Any) -> str:
        seen.append((info.server_name, info.server_info["name"]))
        return f"{info.server_name}.{tool.original_name}!" + "x" * 80

    named = provider({"one": fixture_stdio("odd")}, name_generator=ToolNameGenerator.of(custom))
    try:
        callbacks = await named.get_tool_callbacks()
        assert ("one", "odd-fixture") in seen
        name = callbacks[0].definition.name
        assert (
            name.startswith("one_good_x")
            and len(name) == 64
            and callbacks[0].definition.source_name == "good"
        )
        assert await callbacks[0].call({"text": "t"}) == "good: t"
    finally:
        await named.aclose()


async def test_filter_sees_connection_info_and_tool() -> None:
    tools = provider(
        {"everything": everything_stdio(), "odd": fixture_stdio("odd")},
        tool_filter=lambda info, tool: info.server_info.get("name") == "odd-fixture" or tool.name == "echo",
    )
    try:
        names = sorted(c.definition.name for c in await tools.get_tool_callbacks())
        assert names == ["die", "echo", "fails", "good", "meta"]
    finally:
        await tools.aclose()


async def test_tool_context_travels_as_meta() -> None:
    context = ToolContext.of(
        {"user": "ada", "trace": {"id": 7}, "exchange": "live", "lock": threading.Lock()}
    )
    tools = provider({"odd": fixture_stdio("odd")})
    quiet = provider({"odd": fixture_stdio("odd")}, meta_converter=ToolContextMetaConverter.no_op())
    try:
        meta = (await (await tools.find("meta")).call({}, context))["meta"]
        assert meta == {"user": "ada", "trace": {"id": 7}}
        assert (await (await quiet.find("meta")).call({}, context))["meta"] == {}
        assert (await (await tools.find("meta")).call({}))["meta"] == {}
    finally:
        await tools.aclose()
        await quiet.aclose()


async def test_concurrent_callers_share_one_discovery() -> None:
    tools = provider({"odd": fixture_stdio("odd")})
    connection = tools.connection("odd")
    listings = 0
    original = connection.list_tools

    async def counted() -> Any:
        nonlocal listings
        listings += 1
        return await original()

    connection.list_tools = counted  # type: ignore[method-assign]
    try:
        results = await asyncio.gather(*(tools.get_tool_callbacks() for _ in range(8)))
        assert listings == 1 and all(len(r) == 4 for r in results)
        await tools.get_tool_callbacks()
        assert listings == 1  # cached
        tools.invalidate()
        await tools.get_tool_callbacks()
        assert listings == 2
    finally:
        await tools.aclose()


async def test_servers_that_fail_are_named_left_out_and_retried() -> None:
    servers = {
        "everything": everything_stdio(),
        "crashes": fixture_stdio("crash"),
        "hangs": fixture_stdio("hang"),
        "missing": StdioDefinition("no-such-mcp-server-command"),
        "badschema": fixture_stdio("badschema"),
    }
    tools = McpToolCallbackProvider.from_catalog(McpServerCatalog.of(servers), connect_timeout=2)
    try:
        names = [c.definition.name for c in await tools.get_tool_callbacks()]
        assert "echo" in names and "good" not in names
        assert set(tools.errors) == {"crashes", "hangs", "missing", "badschema"}
        assert "did not start and initialize within 2" in tools.errors["hangs"]
        assert "no-such-mcp-server-command" in tools.errors["missing"]
        assert "crashing on purpose" in tools.errors["crashes"]  # its last words on stderr
        assert "tools.1.inputSchema.type" in tools.errors["badschema"]
        with pytest.raises(ConfigError) as caught:
            await tools.start(fail_fast=True)
        listed = str(caught.value)
        assert all(f"MCP server '{name}'" in listed for name in ("crashes", "hangs", "missing", "badschema"))
        # The good server stays usable; the broken ones are tried again on the next use.
        tools.connection("crashes").definition = fixture_stdio("odd")
        assert "good" in [c.definition.name for c in await tools.get_tool_callbacks()]
        assert "crashes" not in tools.errors
    finally:
        await tools.aclose()


async def test_a_crashed_server_is_started_again_on_the_next_call() -> None:
    tools = provider({"odd": fixture_stdio("odd")})
    try:
        good, die = await tools.find("good"), await tools.find("die")
        with pytest.raises(ToolExecutionError) as caught:
            await die.call({})
        assert caught.value.agent == "odd"
        assert await good.call({"text": "again"}) == "good: again"
    finally:
        await tools.aclose()


async def test_connection_errors_name_the_server() -> None:
    connection = McpConnection("nowhere", HttpDefinition("http://127.0.0.1:9/mcp"), connect_timeout=5)
    with pytest.raises(McpConnectionError, match="MCP server 'nowhere'"):
        await connection.connect()
    await connection.close()


async def test_call_sync_from_a_worker_thread() -> None:
    tools = provider({"odd": fixture_stdio("odd")})
    try:
        good = await tools.find("good")
        assert await asyncio.to_thread(good.call_sync, {"text": "sync"}) == "good: sync"
        with pytest.raises(RuntimeError, match="use `await"):
            good.call_sync({"text": "on the loop"})
    finally:
        await tools.aclose()


def test_wait_helper_is_bounded() -> None:
    assert wait_until(lambda: True, timeout=0.1)
