"""Media in and out of tools, in process: MCP Mesh's schema for media parameters, arguments read from the
store on demand, media results embedded or linked by size, the store injected by type, and bad URIs."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.media import media_refs
from mesh_framework.testing import mesh_client
from tests.media_files import png

pytestmark = pytest.mark.timeout(60)


def load(tmp_path: Path, **env: str) -> MeshApplication:
    return MeshApplication.load("tests.apps.media_app", environ={"MESH_MEDIA__PATH": str(tmp_path), **env})


async def test_a_media_parameter_has_mcp_mesh_schema_and_is_read_on_demand(tmp_path: Path) -> None:
    image = png(500)
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "photo.png").write_bytes(image)
    async with mesh_client(load(tmp_path)) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["describe"]["inputSchema"]["properties"]["image"] == {
            "anyOf": [{"type": "string"}, {"type": "null"}],
            "default": None,
            "x-media-type": "image/*",
            "description": "(accepts media URI: image/*)",
        }
        assert "store" not in tools["where"]["inputSchema"]["properties"]  # injected by type
        result = await client.call_tool("measure", {"image": f"file://{tmp_path}/media/photo.png"})
        assert result["structuredContent"] == {"size": len(image), "mime": "image/png"}
        assert (await client.call_tool("where", {}))["structuredContent"] == {
            "result": f"local folder {tmp_path}/media"
        }


async def test_media_results_are_embedded_when_small_and_linked_when_large(tmp_path: Path) -> None:
    async with mesh_client(load(tmp_path)) as client:
        small = await client.call_tool("render", {"size": 1000, "filename": "small.png"})
        large = await client.call_tool("render", {"size": 20_000, "filename": "large.png"})
    [image] = small["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]) == (tmp_path / "media" / "small.png").read_bytes()
    [link] = large["content"]
    stored = (tmp_path / "media" / "large.png").read_bytes()
    assert link == {
        "type": "resource_link",
        "uri": f"file://{tmp_path}/media/large.png",
        "name": "Chart",
        "description": "q3",
        "mimeType": "image/png",
        "size": len(stored),
    }
    assert "structuredContent" not in large


async def test_the_inline_threshold_is_a_setting(tmp_path: Path) -> None:
    async with mesh_client(load(tmp_path, MESH_MEDIA__INLINE_MAX_BYTES="0")) as client:
        small = await client.call_tool("render", {"size": 200})
    assert small["content"][0]["type"] == "resource_link"


@pytest.mark.parametrize(
    ("uri", "said"),
    [
        ("file:///etc/passwd", "outside this agent's local folder"),
        ("s3://media/media/x.png", "uses s3://, but this agent's media store is the local folder"),
        ("file://{base}/media/none.png", "MediaNotFound: Media 'file://{base}/media/none.png' does not"),
        ("file://{base}/media/doc.pdf", "is application/pdf, but image/* is expected"),
    ],
)
async def test_bad_media_arguments_are_tool_errors_that_say_why(tmp_path: Path, uri: str, said: str) -> None:
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "doc.pdf").write_bytes(b"%PDF-1.4\n")
    async with mesh_client(load(tmp_path)) as client:
        result = await client.call_tool("measure", {"image": uri.format(base=tmp_path)})
    assert result["isError"] is True
    assert said.format(base=tmp_path) in result["content"][0]["text"]


async def test_a_value_that_is_not_a_media_uri_is_refused_as_an_argument(tmp_path: Path) -> None:
    async with mesh_client(load(tmp_path)) as client:
        result: dict[str, Any] = await client.call_tool("measure", {"image": "chart.png"})
    assert result["isError"] is True
    assert "expected a media URI (file://... or s3://...), got 'chart.png'" in result["content"][0]["text"]


async def test_audio_and_other_media_are_embedded_with_their_types(tmp_path: Path) -> None:
    async with mesh_client(load(tmp_path)) as client:
        [clip] = (await client.call_tool("sound", {"seconds": 2}))["content"]
        [pdf] = (await client.call_tool("report", {}))["content"]
    assert clip["type"] == "audio" and clip["mimeType"] == "audio/wav"
    assert base64.b64decode(clip["data"]) == (tmp_path / "media" / "clip.wav").read_bytes()
    assert pdf["type"] == "resource"
    assert pdf["resource"]["uri"] == f"file://{tmp_path}/media/report.pdf"
    assert pdf["resource"]["mimeType"] == "application/pdf"
    assert base64.b64decode(pdf["resource"]["blob"]) == b"%PDF-1.4\n%%EOF\n"


def test_media_refs_read_both_link_shapes() -> None:
    ours = [{"type": "text", "text": "x"}, {"type": "resource_link", "uri": "s3://b/m/a.png", "name": "a"}]
    mcp_mesh = {"type": "resource_link", "resource": {"uri": "file:///tmp/mcp-mesh-media/media/b.png"}}
    assert media_refs(ours) == ["s3://b/m/a.png"]
    assert media_refs(mcp_mesh) == ["file:///tmp/mcp-mesh-media/media/b.png"]
    assert media_refs("plain text") == []
