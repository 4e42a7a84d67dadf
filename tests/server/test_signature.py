"""Signature analysis: injected parameters found by type and hidden from the schema; schemas from types."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import pytest
from pydantic import BaseModel, Field

from mesh_framework import A2aClient, A2aPeer, McpMeshTool, MeshJob, MeshLlmAgent, ToolContext, ToolResult
from mesh_framework.services import mesh_service, selector
from mesh_framework.tools.injection import ConstantInjection, Injection, InjectionError
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


@mesh_service
class Captions:
    @selector("caption", required=True)
    async def caption(self, text: str) -> str: ...

    @selector("translate")
    async def translate(self, text: str) -> str: ...


class Clock:
    pass


class Now:  # a third party's type: filled with the Clock bean
    __mesh_injection__ = ConstantInjection(Injection("bean", bean_type=Clock))


class _NeedsAName:
    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection | None:
        raise InjectionError("needs a name: annotate it Annotated[Refused, 'name']")

    def constructor_refusal(self, cls: type) -> str | None:
        return None


class Refused:
    __mesh_injection__ = _NeedsAName()


class NotMine(Captions):  # a subclass of a service is no service
    pass


def test_a_feature_type_is_injected_by_the_rule_it_carries() -> None:
    """The framework's own feature types (JobContext, A2aClient, @mesh_service classes) and any other type
    say how they are injected through `__mesh_injection__`; analysis asks the type, not a list of them."""

    async def tool(
        a: int,
        job: MeshJob,
        weather: A2aClient,
        other: Annotated[A2aClient, A2aPeer("forecast")],
        captions: Captions,
        now: Now,
        first: McpMeshTool,
    ) -> int:
        return a

    signature = analyze(tool, deps=1)
    injected = {p.name: (p.kind, p.slot, p.bean_type, p.bean, p.key) for p in signature.injected}
    assert injected == {
        "job": ("job", -1, None, None, None),
        "weather": ("bean", -1, A2aClient, "a2a_clients", "weather"),
        "other": ("bean", -1, A2aClient, "a2a_clients", "forecast"),
        "captions": ("service", 1, None, None, None),  # its methods' slots follow the declared dependency
        "now": ("bean", -1, Clock, None, None),
        "first": ("tool", 0, None, None, None),
    }
    service = next(p.service for p in signature.injected if p.name == "captions")
    assert service is not None and service.name == "Captions"
    assert [d.selector.capability for d in service.dependencies(1)] == ["caption", "translate"]
    assert service.missing([object(), None, None], 1) == [1]  # only the required method counts
    assert set(signature.input_schema["properties"]) == {"a"}

    def refused(value: Refused) -> None: ...

    with pytest.raises(SignatureError, match=r"parameter 'value': needs a name"):
        analyze(refused)

    def plain(value: NotMine) -> None: ...

    # the service rule declines a subclass: an argument then, which is no JSON data (pydantic names it)
    with pytest.raises(Exception, match="NotMine"):
        analyze(plain)


class Reading(BaseModel):
    value: float
    unit: str = "C"


def test_tools_returning_one_type_share_its_adapter_and_get_their_own_schema() -> None:
    """The result type is described once (its adapter, serialization schema and canonical form made
    once: the framework's four job tools return one type); each tool's schema is its own copy."""

    def first() -> Reading:
        return Reading(value=1.0)

    async def second(place: str) -> Reading:
        return Reading(value=2.0)

    def counted(scale: Annotated[int, Field(ge=1)]) -> Annotated[int, Field(ge=0)]:  # unhashable metadata
        return scale

    one, two = analyze(first), analyze(second)
    assert one.output_adapter is two.output_adapter
    assert one.output_schema == two.output_schema and one.output_schema is not two.output_schema
    one.output_schema["properties"]["value"]["type"] = "changed"
    assert two.output_schema["properties"]["value"]["type"] == "number"
    assert analyze(second).output_schema["properties"]["value"]["type"] == "number"
    assert analyze(counted).output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer", "minimum": 0}},
        "required": ["result"],
    }
