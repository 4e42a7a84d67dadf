"""The call path of MeshToolWrapper and the slot updates of MeshToolWrapperRegistry."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from typing import Any

import pytest

from mesh_framework import McpMeshTool, MeshToolWrapperRegistry, ToolContext, ToolExecutionError, mesh_tool
from mesh_framework.decorators import TOOL_ATTR
from mesh_framework.tools.builder import build_wrappers, plan_tool


class FakeProxy(McpMeshTool):
    def __init__(self, capability: str, answer: Any) -> None:
        self.capability = capability
        self.function_name = capability
        self.endpoint = "http://127.0.0.1:1"
        self.agent_id = "fake-00000000"
        self.answer = answer
        self.calls: list[tuple[str, Mapping[str, Any] | None]] = []

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        self.calls.append((name, arguments))
        return self.answer

    async def list_tools(self) -> list[dict[str, Any]]:
        return []


def wrap(*functions: Any, timeout: float | None = 5.0) -> MeshToolWrapperRegistry:
    plans = [
        plan_tool(
            f"tests.{f.__name__}",
            getattr(f, TOOL_ATTR),
            default_timeout=timeout,
            is_method=False,
            can_inject=lambda _t: False,
            bean_for=str,
        )
        for f in functions
    ]
    return build_wrappers(
        plans, MeshToolWrapperRegistry(), provide=lambda _n: None, initial_proxy=lambda _d: None
    )


@mesh_tool(dependencies=["add", "add"])
async def calc(a: int, b: int, first: McpMeshTool, second: McpMeshTool | None = None) -> int:
    total = await first(a=a, b=b)
    if second is not None:
        total += await second({"a": total, "b": 0})
    return int(total)


async def test_unresolved_required_dependency_answers_at_once_naming_it() -> None:
    registry = wrap(calc)
    result = await registry.get("calc").call({"a": 1, "b": 2})
    assert result["isError"] is True
    assert "dependency 'add' (dependency 0) is not resolved" in result["content"][0]["text"]


async def test_slots_are_swapped_in_place_by_composite_key_and_optional_gets_none() -> None:
    registry = wrap(calc)
    first = FakeProxy("add", 3)
    registry.update_dependency("tests.calc:dep_0", first)
    result = await registry.get("calc").call({"a": 1, "b": 2})
    assert result["structuredContent"] == {"result": 3}
    assert first.calls == [("add", {"a": 1, "b": 2})]
    registry.update_dependency("tests.calc:dep_1", FakeProxy("add", 10))
    assert (await registry.get("calc").call({"a": 1, "b": 2}))["structuredContent"] == {"result": 13}
    registry.update_dependency("tests.calc:dep_0", None)
    assert (await registry.get("calc").call({"a": 1, "b": 2}))["isError"] is True


def test_bad_composite_keys_are_refused() -> None:
    registry = wrap(calc)
    with pytest.raises(ValueError, match="not a dependency key"):
        registry.update_dependency("tests.calc", None)
    with pytest.raises(KeyError, match="no tool is registered for 'tests.nope'"):
        registry.update_dependency("tests.nope:dep_0", None)
    with pytest.raises(IndexError, match="has 2 dependency slot"):
        registry.update_dependency("tests.calc:dep_2", None)


async def test_unresolved_listener_is_told() -> None:
    registry = wrap(calc)
    told: list[str] = []
    registry.get("calc").unresolved_listener = lambda w, d: told.append(f"{w.name}:{d.selector.capability}")
    await registry.get("calc").call({"a": 1, "b": 2})
    assert told == ["calc:add"]


@mesh_tool()
def sync_tool(n: int) -> str:
    """Runs in a worker thread."""
    return threading.current_thread().name


async def test_sync_tools_run_in_a_worker_thread() -> None:
    result = await wrap(sync_tool).get("sync_tool").call({"n": 1})
    assert result["structuredContent"]["result"] != threading.current_thread().name
    assert result["content"][0]["text"] == result["structuredContent"]["result"]


async def test_argument_errors_are_field_level() -> None:
    result = await wrap(calc).get("calc").call({"a": "x", "c": 1})
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert "a: Input should be a valid integer" in text
    assert "b: required argument is missing" in text
    assert "c: unexpected argument" in text


@mesh_tool()
async def boom() -> None:
    raise RuntimeError("kaput")


@mesh_tool()
async def remote_failure() -> None:
    raise ToolExecutionError("provider said no", tool="add", agent="math-1")


async def test_exceptions_become_is_error_and_tracebacks_stay_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = wrap(boom, remote_failure)
    with caplog.at_level(logging.INFO):
        result = await registry.get("boom").call({})
    assert result == {"content": [{"type": "text", "text": "RuntimeError: kaput"}], "isError": True}
    assert "Traceback" not in str(result)
    assert any(r.exc_info for r in caplog.records)
    caplog.clear()
    result = await registry.get("remote_failure").call({})
    assert result["content"][0]["text"] == "add@math-1: provider said no"
    assert [r.exc_info for r in caplog.records] == [None]  # an expected failure: one line, no traceback


@mesh_tool(timeout=0.05)
async def sleepy() -> str:
    await asyncio.sleep(5)
    return "late"


async def test_timeout() -> None:
    result = await wrap(sleepy).get("sleepy").call({})
    assert result["isError"] and "timed out after 0.05s" in result["content"][0]["text"]


@mesh_tool()
def untyped(kind: str):  # type: ignore[no-untyped-def]
    return {"dict": {"a": 1}, "list": [1, 2], "none": None, "str": "plain"}[kind]


async def test_results_without_return_annotation() -> None:
    tool = wrap(untyped).get("untyped")
    assert (await tool.call({"kind": "dict"}))["structuredContent"] == {"a": 1}
    assert (await tool.call({"kind": "list"}))["content"] == [{"type": "text", "text": "[1,2]"}]
    assert (await tool.call({"kind": "none"}))["content"] == []
    assert (await tool.call({"kind": "str"}))["content"] == [{"type": "text", "text": "plain"}]


@mesh_tool()
def lies() -> int:
    return "not a number"  # type: ignore[return-value]


async def test_return_value_not_matching_its_type_is_an_error_result() -> None:
    result = await wrap(lies).get("lies").call({})
    assert result["isError"] is True
    assert "does not match its return type" in result["content"][0]["text"]


def test_duplicate_tool_names_are_refused() -> None:
    registry = wrap(calc)
    with pytest.raises(ValueError, match="tool name 'calc' is used by both"):
        build_wrappers(
            [
                plan_tool(
                    "other.calc",
                    getattr(calc, TOOL_ATTR),
                    default_timeout=None,
                    is_method=False,
                    can_inject=lambda _t: False,
                    bean_for=str,
                )
            ],
            registry,
            provide=lambda _n: None,
            initial_proxy=lambda _d: None,
        )


@mesh_tool(timeout=5)
async def own_timeout() -> None:
    raise TimeoutError("the upstream took too long")


async def test_a_timeout_error_raised_by_the_tool_is_not_the_tools_own_timeout() -> None:
    result = await wrap(own_timeout).get("own_timeout").call({})
    assert result["content"][0]["text"] == "TimeoutError: the upstream took too long"


async def test_an_outside_cancellation_is_not_mistaken_for_a_timeout() -> None:
    started = asyncio.Event()

    @mesh_tool()
    async def waits() -> str:
        started.set()
        await asyncio.sleep(5)
        return "late"

    task = asyncio.ensure_future(wrap(waits, timeout=10).get("waits").call({}))
    await asyncio.wait_for(started.wait(), 5)  # cancelled inside the tool, within its timeout
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_mcp_mesh_control_keys_in_arguments_are_stripped_before_validation() -> None:
    """mcp-mesh proxies put `_mesh_headers` and trace ids inside `arguments`; they are not tool arguments."""

    @mesh_tool()
    async def plus(a: int, b: int, ctx: ToolContext) -> int:
        assert ctx.entries["_mesh_headers"] == {"x-request-id": "r1"} and ctx.entries["_trace_id"] == "t1"
        return a + b

    wrapper = wrap(plus).get("plus")
    assert wrapper is not None
    arguments = {
        "a": 1,
        "b": 2,
        "_mesh_headers": {"x-request-id": "r1"},
        "_trace_id": "t1",
        "_parent_span": "s",
    }
    result = await wrapper.call(arguments, ToolContext("plus"))
    assert result["isError"] is False and result["structuredContent"] == {"result": 3}
    assert "_trace_id" in arguments  # the caller's dict is left alone
    bad = await wrapper.call({"a": 1, "b": 2, "_other": 1}, ToolContext("plus"))
    assert bad["isError"] and "_other: unexpected argument" in bad["content"][0]["text"]
