"""Media to the model through the official OpenAI and Anthropic SDKs, against local servers speaking their
wire formats: `llm(question, media=[uri])` and images that tools return, fetched from the store when the
request is built, in each vendor's input shape (the bytes the servers received are checked)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from tests.llm_fakes import fake_anthropic, fake_openai, text, tool_call
from tests.media_files import PDF, png

pytestmark = pytest.mark.timeout(60)


def load(tmp_path: Path, vendor: str, base_url: str) -> MeshApplication:
    env = {
        "MESH_MEDIA__PATH": str(tmp_path),
        f"MESH_LLM__VENDORS__{vendor.upper()}__BASE_URL": base_url,
        f"MESH_LLM__VENDORS__{vendor.upper()}__API_KEY": "sk-test",
    }
    return MeshApplication.load("tests.apps.media_app", environ=env)


def stored(tmp_path: Path, name: str, data: bytes) -> str:
    (tmp_path / "media").mkdir(exist_ok=True)
    (tmp_path / "media" / name).write_bytes(data)
    return f"file://{tmp_path}/media/{name}"


def data_url_bytes(url: str, mime_type: str) -> bytes:
    prefix = f"data:{mime_type};base64,"
    assert url.startswith(prefix)
    return base64.b64decode(url[len(prefix) :])


async def test_openai_gets_the_image_argument_as_an_image_url_part(tmp_path: Path) -> None:
    image = png(3000)
    uri = stored(tmp_path, "receipt.png", image)
    with fake_openai([text("A receipt for 12 EUR.")]) as server:
        async with mesh_client(load(tmp_path, "openai", server.base_url)) as client:
            result = await client.call_tool("describe", {"question": "What is this?", "image": uri})
    assert result["structuredContent"] == {"result": "A receipt for 12 EUR."}
    question = server.requests[0]["messages"][-1]
    assert question["role"] == "user"
    said, picture = question["content"]
    assert said == {"type": "text", "text": "What is this?"}
    assert picture["type"] == "image_url" and picture["image_url"]["detail"] == "high"
    assert data_url_bytes(picture["image_url"]["url"], "image/png") == image


async def test_openai_sees_an_image_a_tool_returned_in_mcp_mesh_shape(tmp_path: Path) -> None:
    script = [tool_call("render", {"size": 40_000}, id="call_1"), text("A noisy grey chart.")]
    with fake_openai(script) as server:
        async with mesh_client(load(tmp_path, "openai", server.base_url)) as client:
            result = await client.call_tool("describe", {"question": "Draw and describe a chart"})
    assert result["structuredContent"] == {"result": "A noisy grey chart."}
    chart = (tmp_path / "media" / "chart.png").read_bytes()
    *_, tool_message, images = server.requests[1]["messages"]
    assert tool_message == {"role": "tool", "tool_call_id": "call_1", "content": "[Image from tool result]"}
    assert images["role"] == "user"
    lead, picture = images["content"]
    assert lead == {"type": "text", "text": "Here are the images from the tool results above:"}
    assert data_url_bytes(picture["image_url"]["url"], "image/png") == chart


async def test_anthropic_gets_a_pdf_as_a_document_block(tmp_path: Path) -> None:
    uri = stored(tmp_path, "invoice.pdf", PDF)
    with fake_anthropic([text("An invoice.")]) as server:
        async with mesh_client(load(tmp_path, "anthropic", server.base_url)) as client:
            result = await client.call_tool("describe_claude", {"question": "Summarise", "document": uri})
    assert result["structuredContent"] == {"result": "An invoice."}
    [turn] = server.requests[0]["messages"]
    said, document = turn["content"]
    assert said == {"type": "text", "text": "Summarise"}
    assert document["type"] == "document"
    assert document["source"]["type"] == "base64" and document["source"]["media_type"] == "application/pdf"
    assert base64.b64decode(document["source"]["data"]) == PDF


async def test_anthropic_gets_a_tool_image_inline_in_the_tool_result(tmp_path: Path) -> None:
    script = [tool_call("render", {"size": 500}, id="toolu_1"), text("Grey noise.")]
    with fake_anthropic(script) as server:
        async with mesh_client(load(tmp_path, "anthropic", server.base_url)) as client:
            result = await client.call_tool("describe_claude", {"question": "Chart?"})
    assert result["structuredContent"] == {"result": "Grey noise."}
    chart = (tmp_path / "media" / "chart.png").read_bytes()
    results: list[dict[str, Any]] = server.requests[1]["messages"][-1]["content"]
    [tool_result] = [block for block in results if block["type"] == "tool_result"]
    assert tool_result["tool_use_id"] == "toolu_1"
    [image] = [block for block in tool_result["content"] if block["type"] == "image"]
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == chart


async def test_media_that_does_not_exist_fails_the_tool_before_the_model_is_asked(tmp_path: Path) -> None:
    with fake_openai([]) as server:
        async with mesh_client(load(tmp_path, "openai", server.base_url)) as client:
            result = await client.call_tool(
                "describe", {"question": "?", "image": f"file://{tmp_path}/media/gone.png"}
            )
    assert result["isError"] is True
    assert f"Media 'file://{tmp_path}/media/gone.png' does not exist" in result["content"][0]["text"]
    assert server.requests == []


async def test_the_model_is_told_which_parameters_take_media_and_passes_uris(tmp_path: Path) -> None:
    image = png(800)
    uri = stored(tmp_path, "photo.png", image)
    script = [tool_call("measure", {"image": uri}, id="call_1"), text("800 bytes or so.")]
    with fake_openai(script) as server:
        async with mesh_client(load(tmp_path, "openai", server.base_url)) as client:
            result = await client.call_tool("describe", {"question": "How big is the photo?"})
    assert result["structuredContent"] == {"result": "800 bytes or so."}
    offered = {t["function"]["name"]: t["function"] for t in server.requests[0]["tools"]}
    assert offered["measure"]["description"] == (
        "Size and type of an image. Accepts media: 'image' accepts image/* URIs."
    )
    assert offered["render"]["description"] == "Render a chart of about `size` bytes."
    tool_message = server.requests[1]["messages"][-1]
    assert json.loads(tool_message["content"]) == {"size": len(image), "mime": "image/png"}


async def test_a_tool_image_that_cannot_be_fetched_is_a_line_for_the_model(tmp_path: Path) -> None:
    script = [tool_call("vanished", {}, id="call_1"), text("The chart is gone.")]
    with fake_openai(script) as server:
        async with mesh_client(load(tmp_path, "openai", server.base_url)) as client:
            result = await client.call_tool("describe", {"question": "Show the chart"})
    assert result["structuredContent"] == {"result": "The chart is gone."}
    tool_message = server.requests[1]["messages"][-1]  # no image, so no user message of images
    assert tool_message["role"] == "tool"
    line = tool_message["content"]
    assert line.startswith(f"[resource_link: Vanished (image/png) at file://{tmp_path}/media/vanished.png")
    assert "(fetch failed: Media " in line and "does not exist" in line
