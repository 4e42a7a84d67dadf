"""The conformance suites' prompt and resource scenarios (names and URIs are fixed by the suites).

`test_prompt_with_arguments` is a Markdown file in `prompts/`; the others are functions.
"""

from __future__ import annotations

import base64

from mesh_framework import (
    EmbeddedResource,
    ImageContent,
    InputRequired,
    PromptMessage,
    ToolContext,
    elicit,
    mesh_prompt,
    mesh_resource,
)

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


@mesh_prompt()
def test_simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@mesh_prompt()
def test_prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
    """A prompt embedding a resource."""
    return [
        PromptMessage(
            EmbeddedResource(resourceUri, "text/plain", text="Embedded resource content for testing.")
        ),
        PromptMessage("Please process the embedded resource above."),
    ]


@mesh_prompt()
def test_prompt_with_image() -> list[PromptMessage]:
    """A prompt carrying an image."""
    return [
        PromptMessage(ImageContent(PNG_1X1, "image/png")),
        PromptMessage("Please analyze the image above."),
    ]


@mesh_prompt()
def test_input_required_result_prompt(ctx: ToolContext) -> str | InputRequired:
    """Asks the client for context first (2026-07-28 multi-round request)."""
    answer = ctx.input_responses.get("user_context")
    if answer is None:
        form = elicit("What context should the prompt use?", {"context": {"type": "string"}}, ["context"])
        return InputRequired({"user_context": form})
    context = (answer.get("content") or {}).get("context", "")
    return f"Use this context: {context}"


@mesh_resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A text resource."""
    return "This is the content of the static text resource."


@mesh_resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A binary resource."""
    return base64.b64decode(PNG_1X1)


@mesh_resource("test://template/{id}/data", mime_type="application/json")
def template_data(id: str) -> dict[str, object]:
    """A resource template."""
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@mesh_resource("test://watched-resource", mime_type="text/plain")
def watched() -> str:
    """The resource the subscription scenarios name (a stateless server cannot notify of changes)."""
    return "Watched resource content."
