"""What the gateway serves from a registry listing (names, clashes, filters) and how search ranks tools:
pure functions over `GET /agents` entries, no process."""

from __future__ import annotations

from typing import Any

from mesh_framework.mesh_gateway import Bm25Index, GatewayFilter, offers_of, plan_tools


def agent(name: str, agent_id: str, *tools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": agent_id,
        "name": name,
        "endpoint": f"http://127.0.0.1:{abs(hash(agent_id)) % 50000 + 1000}",
        "status": "healthy",
        "namespace": "default",
        "capabilities": list(tools),
        **extra,
    }


def tool(name: str, schema: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "function_name": name,
        "name": extra.pop("capability", name),
        "description": extra.pop("description", f"{name} tool"),
        "tags": extra.pop("tags", []),
        "input_schema": schema or {"type": "object", "properties": {"x": {"type": "string"}}},
        **extra,
    }


def test_one_name_from_several_agents_is_one_tool_with_every_agent_behind_it() -> None:
    listing = [agent("calc", "calc-1", tool("add")), agent("calc", "calc-2", tool("add"))]
    [served] = plan_tools(offers_of(listing))
    assert served.name == "add"
    assert [p.agent_id for p in served.providers] == ["calc-1", "calc-2"]


def test_different_tools_under_one_name_are_prefixed_by_their_agent() -> None:
    money = {"type": "object", "properties": {"amount": {"type": "number"}}}
    listing = [
        agent("units", "units-1", tool("convert")),
        agent("units", "units-2", tool("convert")),
        agent("bank", "bank-1", tool("convert", money, capability="currency")),
    ]
    served = {t.name: t for t in plan_tools(offers_of(listing))}
    assert set(served) == {"bank_convert", "units_convert"}
    assert len(served["units_convert"].providers) == 2  # still one tool with failover
    assert served["bank_convert"].function_name == "convert"  # what is called on the agent


def test_a_schema_changed_under_one_agent_name_is_told_apart_by_agent_id() -> None:
    new = {"type": "object", "properties": {"y": {"type": "string"}}}
    listing = [agent("calc", "calc-old", tool("add")), agent("calc", "calc-new", tool("add", new))]
    assert [t.name for t in plan_tools(offers_of(listing))] == ["calc-new_add", "calc-old_add"]


def test_unhealthy_agents_and_framework_tools_are_not_served() -> None:
    listing = [
        agent("a", "a-1", tool("ok"), tool("get_server_status"), tool("__mesh_job_status")),
        agent("b", "b-1", tool("down"), status="unhealthy"),
    ]
    assert [t.name for t in plan_tools(offers_of(listing))] == ["ok"]


def test_filters_by_tags_namespace_and_agent() -> None:
    listing = [
        agent("a", "a-1", tool("fast", tags=["text"]), tool("slow", tags=["text", "slow"])),
        agent("b", "b-1", tool("other", tags=["text"]), namespace="prod"),
    ]
    offers = offers_of(listing)

    def names(only: GatewayFilter) -> list[str]:
        return [t.name for t in plan_tools(offers, only)]

    assert names(GatewayFilter(tags=frozenset({"text"}))) == ["fast", "other", "slow"]
    assert names(GatewayFilter(tags=frozenset({"text"}), exclude_tags=frozenset({"slow"}))) == [
        "fast",
        "other",
    ]
    assert names(GatewayFilter(namespaces=frozenset({"prod"}))) == ["other"]
    assert names(GatewayFilter(agents=frozenset({"a"}))) == ["fast", "slow"]
    assert names(GatewayFilter(agents=frozenset({"b-1"}))) == ["other"]


def test_a_listing_without_schemas_serves_tools_taking_any_object() -> None:
    # MCP Mesh's registry lists no input schema
    listing = [{"id": "x-1", "name": "x", "endpoint": "http://h:1", "capabilities": [{"function_name": "f"}]}]
    [served] = plan_tools(offers_of(listing))
    assert served.descriptor == {"name": "f", "description": "", "inputSchema": {"type": "object"}}


def test_bm25_ranks_by_name_description_and_parameters() -> None:
    index = Bm25Index(
        [
            ("get_weather", "get_weather get_weather Current weather for a city city"),
            ("convert_currency", "convert_currency convert_currency Convert money between currencies amount"),
            ("send_email", "send_email send_email Send an email message to a recipient"),
        ]
    )
    assert index.search("what's the weather in Paris", 3) == ["get_weather"]
    assert index.search("exchange money into another currency", 3)[0] == "convert_currency"
    assert index.search("emails", 3) == ["send_email"]  # plural folded
    assert index.search("sendEmail", 3) == ["send_email"]  # camelCase split
    assert index.search("weather", 3, admit=lambda name: name != "get_weather") == []
