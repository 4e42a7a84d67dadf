"""The conformance suites' tool scenarios, one tool each (names are fixed by the suites)."""

from __future__ import annotations

import asyncio
import base64
import io
import wave
from typing import Annotated, Any

from pydantic import Field

from mesh_framework import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    InputRequired,
    TextContent,
    ToolContext,
    ToolResult,
    elicit,
    list_roots,
    mesh_tool,
    sample,
)

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def _silent_wav() -> str:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 80)
    return base64.b64encode(buffer.getvalue()).decode()


@mesh_tool()
def test_simple_text() -> str:
    """Returns simple text (listed first: the header-validation scenario calls it without arguments)."""
    return "This is a simple text response for testing."


@mesh_tool()
def test_image_content() -> ImageContent:
    """Returns an image."""
    return ImageContent(PNG_1X1, "image/png")


@mesh_tool()
def test_audio_content() -> AudioContent:
    """Returns audio."""
    return AudioContent(_silent_wav(), "audio/wav")


@mesh_tool()
def test_embedded_resource() -> EmbeddedResource:
    """Returns an embedded resource."""
    return EmbeddedResource(
        "test://embedded-resource", "text/plain", text="This is an embedded resource content."
    )


@mesh_tool()
def test_multiple_content_types() -> ToolResult:
    """Returns text, an image and a resource."""
    return ToolResult(
        [
            TextContent("Multiple content types test:"),
            ImageContent(PNG_1X1, "image/png"),
            EmbeddedResource(
                "test://mixed-content-resource", "application/json", text='{"test":"data","value":123}'
            ),
        ]
    )


@mesh_tool()
def test_error_handling() -> str:
    """Always fails."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@mesh_tool()
async def test_tool_with_progress(ctx: ToolContext) -> str:
    """Reports progress three times."""
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        await asyncio.sleep(0.05)
    return "Progress test completed"


@mesh_tool()
async def test_tool_with_logging(ctx: ToolContext) -> str:
    """Sends three log messages."""
    for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.info(message)
        await asyncio.sleep(0.05)
    return "Logging test completed"


@mesh_tool(client_capabilities=["sampling"])
def test_missing_capability() -> str:
    """Needs the sampling capability: a client without it is refused with -32021."""
    return "the client declared sampling"


@mesh_tool()
def test_streaming_elicitation() -> str:
    """Answers without sending requests to the client (there is no back channel)."""
    return "No elicitation needed"


@mesh_tool()
async def test_logging_tool(ctx: ToolContext) -> str:
    """Logs, which reaches the client only when its request asks for a log level."""
    await ctx.info("logging tool ran")
    return "Logging tool completed"


JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@mesh_tool(description="Tool with JSON Schema 2020-12 features", input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(
    name: str | None = None,
    address: dict[str, str] | None = None,
    contactMethod: str | None = None,
    phone: str | None = None,
    email: str | None = None,
) -> str:
    return f"contact {name} by {contactMethod}"


# -- multi-round-trip tools (2026-07-28 InputRequiredResult) ------------------------------------------------


def _accepted(ctx: ToolContext, key: str) -> dict[str, Any] | None:
    answer = ctx.input_responses.get(key)
    if (
        isinstance(answer, dict)
        and answer.get("action") == "accept"
        and isinstance(answer.get("content"), dict)
    ):
        return answer["content"]
    return None


NAME_FORM = elicit("What is your name?", {"name": {"type": "string"}}, ["name"])
OK_FORM = elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"])


@mesh_tool()
def test_input_required_result_elicitation(ctx: ToolContext) -> str | InputRequired:
    """Asks the user's name, then greets."""
    content = _accepted(ctx, "user_name")
    if content is None or "name" not in content:
        return InputRequired({"user_name": NAME_FORM})
    return f"Hello, {content['name']}!"


@mesh_tool()
def test_input_required_result_sampling(ctx: ToolContext) -> str | InputRequired:
    """Asks the client's LLM a question."""
    answer = ctx.input_responses.get("capital_question")
    if answer is None:
        return InputRequired({"capital_question": sample("What is the capital of France?", max_tokens=100)})
    return f"The model answered: {answer.get('content', {}).get('text', '')}"


@mesh_tool()
def test_input_required_result_list_roots(ctx: ToolContext) -> str | InputRequired:
    """Asks the client for its roots."""
    answer = ctx.input_responses.get("client_roots")
    if answer is None:
        return InputRequired({"client_roots": list_roots()})
    return f"{len(answer.get('roots', []))} root(s)"


def _confirm_with_state(ctx: ToolContext) -> str | InputRequired:
    if ctx.request_state == {"step": "confirm"} and _accepted(ctx, "confirm") is not None:
        return "state-ok"
    return InputRequired({"confirm": OK_FORM}, state={"step": "confirm"})


@mesh_tool()
def test_input_required_result_request_state(ctx: ToolContext) -> str | InputRequired:
    """Round-trips signed state."""
    return _confirm_with_state(ctx)


@mesh_tool()
def test_input_required_result_tampered_state(ctx: ToolContext) -> str | InputRequired:
    """Round-trips signed state; an altered state is refused by the framework."""
    return _confirm_with_state(ctx)


@mesh_tool()
def test_input_required_result_multiple_inputs(ctx: ToolContext) -> str | InputRequired:
    """Asks for elicitation, sampling and roots at once."""
    keys = ("user_name", "capital_question", "client_roots")
    if ctx.request_state == {"asked": list(keys)} and all(k in ctx.input_responses for k in keys):
        return "all inputs received"
    return InputRequired(
        {
            "user_name": NAME_FORM,
            "capital_question": sample("What is the capital of France?"),
            "client_roots": list_roots(),
        },
        state={"asked": list(keys)},
    )


@mesh_tool()
def test_input_required_result_multi_round(ctx: ToolContext) -> str | InputRequired:
    """Two rounds of questions, each with its own state."""
    state = ctx.request_state or {}
    if state.get("step") == 1 and (first := _accepted(ctx, "name")) is not None:
        color_form = elicit("Favourite colour?", {"color": {"type": "string"}}, ["color"])
        return InputRequired({"color": color_form}, state={"step": 2, "name": first.get("name")})
    if state.get("step") == 2 and (second := _accepted(ctx, "color")) is not None:
        return f"{state['name']} likes {second.get('color')}"
    return InputRequired({"name": NAME_FORM}, state={"step": 1})


@mesh_tool()
def test_input_required_result_capabilities(ctx: ToolContext) -> str | InputRequired:
    """Asks only for what the client declared it can answer."""
    if ctx.input_responses:
        return "answered"
    if "elicitation" in ctx.client_capabilities:
        return InputRequired({"user_name": NAME_FORM})
    if "sampling" in ctx.client_capabilities:
        return InputRequired({"capital_question": sample("What is the capital of France?")})
    return "the client can answer nothing"


@mesh_tool()
def test_custom_header(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """Mirrors `region` in the Mcp-Param-Region header (SEP-2243)."""
    return f"region {region}"
