"""Tool arguments are validated as the advertised JSON Schema says: a boolean is never an integer or a
number, a numeric string is no integer, and what JSON writes as a string or an array (dates, UUIDs, enums,
tuples, sets, nested objects) is still taken. Over MCP with the SDK's client, with `mesh call`, and in
process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from mesh_framework import MeshToolWrapperRegistry, mesh_tool
from mesh_framework.app import MeshApplication
from mesh_framework.decorators import TOOL_ATTR
from mesh_framework.testing import SyncMeshClient
from mesh_framework.tools.builder import build_wrappers, plan_tool
from tests.agents import AgentProcess, run_agent, run_cli, run_registry, wait_until

GOOD = {
    "day": "2026-07-28",
    "ident": "12345678-1234-5678-1234-567812345678",
    "colour": "blue",
    "pair": [1, 2],
    "tags": ["b", "a"],
    "box": {"width": 3, "ratio": 0.5},
    "ratio": 2,
    "enabled": False,
}


@pytest.fixture(scope="module")
def client() -> Iterator[SyncMeshClient]:
    running = SyncMeshClient(MeshApplication.load("tests.apps.json_args_app", environ={}))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("starter_app") as running:
        yield running


def test_json_s_strings_and_arrays_still_become_their_types(client: SyncMeshClient) -> None:
    assert (
        client.call_ok("describe", GOOD) == "2026-07-28 12345678 BLUE (1, 2) ['a', 'b'] 3x0.5 2.0 False None"
    )


@pytest.mark.parametrize(
    ("argument", "value", "expected"),
    [
        ("count", True, "count: Input should be a valid integer (got True)"),
        ("count", "1", "count: Input should be a valid integer (got '1')"),
        ("ratio", True, "ratio: Input should be a valid number (got True)"),
        ("ratio", "0.5", "ratio: Input should be a valid number (got '0.5')"),
        ("enabled", "true", "enabled: Input should be a valid boolean (got 'true')"),
        ("enabled", 1, "enabled: Input should be a valid boolean (got 1)"),
        ("box", {"width": True, "ratio": 1}, "box.width: Input should be a valid integer (got True)"),
    ],
)
def test_a_value_of_another_json_type_is_refused(
    client: SyncMeshClient, argument: str, value: Any, expected: str
) -> None:
    result = client.call_tool("describe", {**GOOD, argument: value})
    assert result["isError"] is True
    assert result["content"][0]["text"] == f"Invalid arguments for tool 'describe': {expected}"


async def test_the_sdk_client_gets_a_boolean_or_a_string_refused_as_an_integer(agent: AgentProcess) -> None:
    async with Client(agent.mcp_url) as mcp:
        assert (await mcp.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
        for bad in (True, "1", 1.5):
            result = await mcp.call_tool("add", {"a": bad, "b": 2})
            assert result.is_error is True, bad
            text = result.content[0].text  # type: ignore[union-attr]
            assert (
                text == f"Invalid arguments for tool 'add': a: Input should be a valid integer (got {bad!r})"
            )


def test_mesh_call_converts_key_value_text_by_the_schema_and_the_agent_refuses_a_boolean() -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with run_agent("starter_app", env=env):
            assert wait_until(lambda: "starter" in run_cli(["list"], env=env).stdout, timeout=20)
            ok = run_cli(["call", "add", "a=1", "b=2"], env=env)
            assert ok.returncode == 0 and ok.stdout.strip() == "3", ok.stderr
            for given, shown in (("a=true", "True"), ('a="1"', "'1'")):
                refused = run_cli(["call", "add", given, "b=2"], env=env)
                assert refused.returncode == 1, refused.stdout
                assert refused.stdout == ""
                assert f"a: Input should be a valid integer (got {shown})" in refused.stderr
                assert "Traceback" not in refused.stderr
            # a string parameter keeps the text the schema asks for: `name=42` is "42", not 42
            greeted = run_cli(["call", "greet", "name=42"], env=env)
            assert greeted.returncode == 0, greeted.stderr
            assert '"Hello, 42!"' in greeted.stdout


@mesh_tool()
def count_of(items: list[int]) -> int:
    return len(items)


async def test_an_in_process_caller_s_python_values_are_read_as_json_and_others_refused() -> None:
    plan = plan_tool(
        "tests.count_of",
        getattr(count_of, TOOL_ATTR),
        default_timeout=5.0,
        is_method=False,
        can_inject=lambda _t: False,
        bean_for=str,
    )
    registry = build_wrappers(
        [plan], MeshToolWrapperRegistry(), provide=lambda _n: None, initial_proxy=lambda _d: None
    )
    wrapper = registry.get("count_of")
    assert (await wrapper.call({"items": (1, 2, 3)}))["structuredContent"] == {
        "result": 3
    }  # a tuple: an array
    refused = await wrapper.call({"items": [object()]})
    assert refused["isError"] is True
    assert refused["content"][0]["text"].startswith(
        "Invalid arguments for tool 'count_of': not JSON values ("
    )
