"""starter_app shows a Markdown prompt (`starter_app/prompts/review_notes.md`), served beside its tools."""

from __future__ import annotations

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from mesh_framework.testing.client import SyncMeshClient


async def test_the_starter_app_serves_its_markdown_prompt() -> None:
    async with mesh_client(MeshApplication.load("starter_app", environ={})) as client:
        listed = (await client.result("prompts/list"))["prompts"]
        assert [p["name"] for p in listed] == ["review_notes"]
        assert listed[0]["arguments"][0] == {
            "name": "user",
            "required": True,
            "description": "Whose notes to review",
        }
        params = {"name": "review_notes", "arguments": {"user": "ada", "focus": "todos"}}
        result = await client.result("prompts/get", params, name="review_notes")
        text = result["messages"][0]["content"]["text"]
        assert text.startswith(
            "Read the notes kept for ada (the `list_notes` tool) and list the todos they hold."
        )
        completion = await client.result(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "review_notes"},
                "argument": {"name": "focus", "value": "d"},
            },
        )
        assert completion["completion"]["values"] == ["dates"]


def test_the_test_kit_reads_prompts_and_resources() -> None:
    client = SyncMeshClient(MeshApplication.load("starter_app", environ={}))
    try:
        prompt = client.get_prompt("review_notes", {"user": "bo"}, modern=False)
        assert "important points" in prompt["messages"][0]["content"]["text"]
        with pytest.raises(AssertionError, match="missing the required argument"):
            client.get_prompt("review_notes")
    finally:
        client.close()
