"""Signature analysis: injected parameters found by type and hidden from the schema; schemas from types."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import pytest
from pydantic import BaseModel, Field

from mesh_framework import McpMeshTool, MeshLlmAgent, ToolContext, ToolResult
from mesh_framework.tools.signature import SignatureError, analyze_signature


def analyze(function: Any, deps: int = 0, **kwargs: Any) -> Any:
    return analyze_signature(function, model_name="m", dependency_count=deps, **kwargs)


def test_every_injection_form_is_found_by_type_and_excluded_from_the_schema() -> None:
    async def tool(
        a: int,
        first: McpMeshTool,
        second: McpMeshTool | None,
        third: Optional[McpMeshTool],  # noqa: UP045 - the Optional spelling is what is tested
        fourth: Annotated[McpMeshTool, "doc"],
        llm: MeshLlmAgent,
        ctx: ToolContext,
        b: str = "x",
    ) -> int:
        return a

    signature = analyze(tool, deps=4)
    injected = {p.name: (p.kind, p.slot, p.optional) for p in signature.injected}
    assert injected == {
        "first": ("tool", 0, False),
        "second": ("tool", 1, True),
        "third": ("tool", 2, True),
        "fourth": ("tool", 3, False),
        "llm": ("llm", -1, False),
        "ctx": ("context", -1, False),
    }
    assert set(signature.input_schema["properties"]) == {"a", "b"}
    assert signature.input_schema["required"] == ["a"]
    assert signature.is_async and signature.wants_context


def test_descriptions_come_from_annotated_fields() -> None:
    def tool(
        city: Annotated[str, Field(description="City name")], days: Annotated[int, Field(ge=1)] = 1
    ) -> str:
        return city

    schema = analyze(tool).input_schema
    assert schema["properties"]["city"] == {"type": "string", "description": "City name"}
    assert schema["properties"]["days"]["minimum"] == 1
    assert "title" not in schema


def test_more_tool_parameters_than_dependencies_is_an_error() -> None:
    def tool(a: McpMeshTool, b: McpMeshTool) -> None: ...

    with pytest.raises(
        SignatureError, match="parameter 'b' is typed McpMeshTool but the tool declares only 1"
    ):
        analyze(tool, deps=1)


def test_unresolvable_annotation_is_reported() -> None:
    def tool(a: NotDefinedAnywhere) -> None: ...  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(SignatureError, match="TYPE_CHECKING"):
        analyze(tool)


def test_var_args_are_refused() -> None:
    def tool(*names: str) -> None: ...

    with pytest.raises(SignatureError, match="parameter 'names'"):
        analyze(tool)


class Weather(BaseModel):
    city: str
    celsius: float


def test_output_schemas() -> None:
    def model_tool() -> Weather: ...
    def int_tool() -> int: ...
    def dict_tool() -> dict[str, int]: ...
    def plain_tool(): ...  # type: ignore[no-untyped-def]
    def result_tool() -> ToolResult: ...

    model = analyze(model_tool)
    assert model.output_schema["properties"]["celsius"] == {"type": "number"} and not model.wraps_result
    wrapped = analyze(int_tool)
    assert wrapped.output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert wrapped.wraps_result
    assert analyze(dict_tool).output_schema["type"] == "object"
    assert analyze(plain_tool).output_schema is None
    assert analyze(result_tool).output_schema is None


def test_explicit_input_schema_is_served_as_given() -> None:
    def tool(**_: Any) -> None: ...

    def ok(x: int = 0) -> None: ...

    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"x": {"type": "integer"}},
    }
    assert analyze(ok, input_schema=schema).input_schema == schema


def test_methods_skip_self() -> None:
    class Owner:
        def tool(self, a: int) -> int:
            return a

    signature = analyze_signature(Owner.tool, model_name="m", dependency_count=0, skip_self=True)
    assert list(signature.input_schema["properties"]) == ["a"]
