"""Agent Skills over MCP, read by the `mcp` SDK's Client from a real agent process (`tests/apps/skills_app`)
in both protocol eras the agent serves (2026-07-28, found by `server/discover`, and the handshake era's
stateless form): the extension declared, every listed file read back with the digest and size of its
entry, the front matter identical to the file's, directories listed, clear errors; and `mesh run`
refusing a bad skill in one line naming the file and line."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, MCPError, types
from pydantic import ConfigDict

from tests.agents import ROOT, AgentProcess, agent_env, run_agent

MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}  # the mode asked -> the version negotiated
EXTENSION = "io.modelcontextprotocol/skills"
SKILLS = ROOT / "tests/apps/skills_app/skills"

pytestmark = pytest.mark.timeout(60)


class Answer(types.Result):
    """Any result, its fields kept as they came."""

    model_config = ConfigDict(extra="allow")


class Params(types.RequestParams):
    """Any parameters (an extension's method has no model in the SDK)."""

    model_config = ConfigDict(extra="allow")


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.skills_app") as running:
        yield running


async def call(client: Client, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    request = types.Request(method=method, params=Params.model_validate(params or {}))
    answer = await client.session.send_request(request, Answer)
    return answer.model_dump(by_alias=True)


def frontmatter_of(text: str) -> Any:
    """The front matter as a YAML 1.2 host reads it (`yes` and dates stay text): here the fields are plain
    scalars, so a parse that keeps every scalar a string, then the two booleans-to-be, is enough."""
    block = text.split("---\n")[1]
    return yaml.load(block, Loader=yaml.BaseLoader)  # every scalar a string


@pytest.mark.parametrize("mode", list(MODES))
async def test_the_sdk_client_lists_gets_and_reads_skills(agent: AgentProcess, mode: str) -> None:
    async with Client(agent.mcp_url, mode=mode) as client:
        assert client.protocol_version == MODES[mode]
        capabilities = client.server_capabilities
        assert capabilities.extensions == {EXTENSION: {"directoryRead": True}}
        assert capabilities.resources is not None  # the extension depends on it

        listed = await call(client, "skills/list")
        assert [s["uri"] for s in listed["skills"]] == [
            "skill://release-notes/SKILL.md",
            "skill://release-notes/hotfix/SKILL.md",  # a nested skill is listed on its own too
        ]
        assert ("ttlMs" in listed) == (MODES[mode] == "2026-07-28")  # caching hints from 2026-07-28
        notes = listed["skills"][0]
        assert notes["frontmatter"] == {
            "name": "release-notes",
            "description": "Draft the release notes of a version from its changelog",
            "license": "MIT",
            "allowed-tools": "changelog",
            "reviewed": "yes",  # YAML 1.2: text, as a host's parser reads it (not a boolean)
            "since": "2026-09-01",  # text, not a date
            "metadata": {"version": "1.2", "author": "docs team"},
        }
        assert notes["frontmatter"] == frontmatter_of((SKILLS / "release-notes/SKILL.md").read_text())
        assert [r["uri"] for r in notes["resources"]] == [
            "skill://release-notes/SKILL.md",
            "skill://release-notes/assets/logo.png",
            "skill://release-notes/hotfix/SKILL.md",  # the nested skill's files are the enclosing one's too
            "skill://release-notes/templates/draft%20notes.txt",
            "skill://release-notes/templates/notes.md",
        ]
        for entry in notes["resources"]:  # every file reads back as its entry describes it
            read = await client.read_resource(entry["uri"])
            content = read.contents[0]
            data = (
                base64.b64decode(content.blob)
                if isinstance(content, types.BlobResourceContents)
                else content.text.encode()
            )
            assert len(data) == entry["size"]
            assert "sha256:" + hashlib.sha256(data).hexdigest() == entry["digest"]
        logo = await client.read_resource("skill://release-notes/assets/logo.png")
        assert isinstance(logo.contents[0], types.BlobResourceContents)
        assert logo.contents[0].mime_type == "image/png"

        got = await call(client, "skills/get", {"uri": "skill://release-notes/hotfix/SKILL.md"})
        assert got["skill"] == listed["skills"][1]
        assert "nextCursor" not in got

        resources = (await client.list_resources()).resources
        assert [(str(r.uri), r.name, r.mime_type) for r in resources] == [
            ("skill://release-notes/SKILL.md", "release-notes", "text/markdown"),
            ("skill://release-notes/hotfix/SKILL.md", "hotfix", "text/markdown"),
        ]
        assert resources[0].description == notes["frontmatter"]["description"]

        folder = await call(client, "resources/directory/read", {"uri": "skill://release-notes/templates"})
        assert folder["resources"] == [
            {
                "uri": "skill://release-notes/templates/draft%20notes.txt",
                "name": "draft notes.txt",
                "mimeType": "text/plain",
                "size": 35,
            },
            {
                "uri": "skill://release-notes/templates/notes.md",
                "name": "notes.md",
                "mimeType": "text/markdown",
                "size": 57,
            },
        ]
        root = await call(client, "resources/directory/read", {"uri": "skill://release-notes"})
        assert {r["name"]: r["mimeType"] for r in root["resources"]} == {
            "SKILL.md": "text/markdown",
            "assets": "inode/directory",
            "hotfix": "inode/directory",
            "templates": "inode/directory",
        }


@pytest.mark.parametrize("mode", list(MODES))
async def test_the_sdk_client_gets_clear_errors(agent: AgentProcess, mode: str) -> None:
    async with Client(agent.mcp_url, mode=mode) as client:
        with pytest.raises(MCPError, match=r"No skill is served at skill://nope/SKILL.md") as caught:
            await call(client, "skills/get", {"uri": "skill://nope/SKILL.md"})
        assert caught.value.error.code == -32602
        with pytest.raises(MCPError, match="skills/get needs params.uri"):
            await call(client, "skills/get")
        with pytest.raises(MCPError, match="is a file, not a directory resource") as caught:
            await call(client, "resources/directory/read", {"uri": "skill://release-notes/SKILL.md"})
        assert caught.value.error.code == -32602
        with pytest.raises(MCPError, match="is no cursor this agent gave"):
            await call(client, "skills/list", {"cursor": "next-please"})
        with pytest.raises(MCPError, match="is a directory resource"):
            await client.read_resource("skill://release-notes/templates")
        # a URI is looked up, never joined to a path: nothing outside a skill's files can be read
        for outside in (
            "skill://release-notes/../../__init__.py",
            "skill://release-notes/templates/../../../__init__.py",
            "skill://release-notes/%2e%2e/%2e%2e/__init__.py",
            "skill:///etc/passwd",
            "skill://release-notes//etc/passwd",
            "skill://release-notes/templates/notes.md/",
        ):
            with pytest.raises(MCPError, match="Resource not found") as caught:
                await client.read_resource(outside)
            assert caught.value.error.code == -32602


def test_mesh_run_refuses_a_bad_skill_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad-skills" / "notes"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: release-notes\ndescription: Notes\n---\nBody\n")
    env = agent_env({"MESH_SKILLS__FOLDERS": f'["{tmp_path / "bad-skills"}"]'})
    command = [sys.executable, "-m", "mesh_framework.cli", "run", "tests.apps.skills_app", "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "notes/SKILL.md:2: name 'release-notes' must be the skill's folder name 'notes'" in output
    assert "Traceback" not in output
