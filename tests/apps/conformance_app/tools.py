"""The conformance suites' tool scenarios, one tool each (names are fixed by the suites)."""

from __future__ import annotations

import asyncio
import base64
import io
import wave
from typing import Any

from mesh_framework import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    TextContent,
    ToolContext,
    ToolResult,
    mesh_tool,
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
    return EmbeddedResource("test://embedded-resource", "text/plain", text="This is an embedded resource content.")


@mesh_tool()
def test_multiple_content_types() -> ToolResult:
    """Returns text, an image and a resource."""
    return ToolResult([
        TextContent("Multiple content types test:"),
        ImageContent(PNG_1X1, "image/png"),
        EmbeddedResource("test://mixed-content-resource", "application/json", text='{"test":"data","value":123}'),
    ])


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
    contactMethod: str | None = None,  # noqa: N803 - the suite's property name
    phone: str | None = None,
    email: str | None = None,
) -> str:
    return f"contact {name} by {contactMethod}"
