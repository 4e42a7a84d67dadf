"""Client resolves, consumer translates: each format's exact output, stdio to vendor APIs, overrides."""

from __future__ import annotations

import logging

import pytest

from mesh_framework.catalog import (
    FORMATS,
    HttpDefinition,
    McpServerCatalog,
    McpServerDefinition,
    SseDefinition,
    StdioDefinition,
    anthropic_toolsets,
    to_anthropic,
    to_claude_code,
    to_gemini,
    to_openai,
    to_vscode,
    translate,
)
from mesh_framework.errors import CatalogError

FS = StdioDefinition("npx", ["-y", "server-fs", "/tmp"], {"TOKEN": "t"})
NOTES = StdioDefinition("python", ["notes.py"], cwd="/srv/notes")
EVENTS = SseDefinition("https://events.example.com/sse")
WEB = HttpDefinition("https://web.example.com/mcp", {"Authorization": "Bearer s3cret"})
SERVERS: dict[str, McpServerDefinition] = {"fs": FS, "notes": NOTES, "events": EVENTS, "web": WEB}
REMOTE = {"events": EVENTS, "web": WEB}


def test_claude_code_config() -> None:
    assert to_claude_code(SERVERS) == {
        "mcpServers": {
            "fs": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "server-fs", "/tmp"],
                "env": {"TOKEN": "t"},
            },
            "notes": {
                "type": "stdio",
                "command": "python",
                "args": ["notes.py"],
                "env": {},
                "cwd": "/srv/notes",
            },
            "events": {"type": "sse", "url": "https://events.example.com/sse"},
            "web": {
                "type": "http",
                "url": "https://web.example.com/mcp",
                "headers": {"Authorization": "Bearer s3cret"},
            },
        }
    }


def test_vscode_config_has_the_same_entries_under_servers() -> None:
    assert to_vscode(SERVERS) == {"servers": to_claude_code(SERVERS)["mcpServers"]}


def test_gemini_settings() -> None:
    assert to_gemini(SERVERS) == {
        "mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "env": {"TOKEN": "t"}},
            "notes": {"command": "python", "args": ["notes.py"], "env": {}, "cwd": "/srv/notes"},
            "events": {"url": "https://events.example.com/sse"},
            "web": {"httpUrl": "https://web.example.com/mcp", "headers": {"Authorization": "Bearer s3cret"}},
        }
    }


def test_anthropic_mcp_servers_take_the_bearer_token() -> None:
    servers = to_anthropic(REMOTE)
    assert servers == [
        {"type": "url", "url": "https://events.example.com/sse", "name": "events"},
        {"type": "url", "url": "https://web.example.com/mcp", "name": "web", "authorization_token": "s3cret"},
    ]
    assert anthropic_toolsets(servers) == [
        {"type": "mcp_toolset", "mcp_server_name": "events"},
        {"type": "mcp_toolset", "mcp_server_name": "web"},
    ]


def test_anthropic_cannot_carry_other_headers_or_other_schemes(caplog: pytest.LogCaptureFixture) -> None:
    plain = {"web": HttpDefinition("https://h/mcp", {"Authorization": "Bearer t", "Accept": "text/plain"})}
    with caplog.at_level(logging.WARNING, logger="mesh_framework.catalog"):
        assert to_anthropic(plain) == [
            {"type": "url", "url": "https://h/mcp", "name": "web", "authorization_token": "t"}
        ]
    assert caplog.messages == [
        "Anthropic API: MCP server 'web' loses its header(s) Accept (the API carries only a bearer token)"
    ]
    odd = {
        "keyed": HttpDefinition("https://h/mcp", {"X-Api-Key": "k", "Authorization": "Bearer t"}),
        "basic": HttpDefinition("https://h/mcp", {"Authorization": "Basic dTpw"}),
    }
    with pytest.raises(CatalogError) as caught:
        to_anthropic(odd)
    text = "\n".join(caught.value.problems)
    assert (
        "MCP server 'keyed': the Anthropic API carries only an 'Authorization: Bearer' token, not the "
        in text
    )
    assert "credential header(s) X-Api-Key; give an override entry" in text
    assert "MCP server 'basic'" in text and "is not 'Bearer TOKEN'" in text
    assert "dTpw" not in text and "'k'" not in text


def test_openai_tools_with_sanitized_labels() -> None:
    servers = {"web search": WEB, "events": SseDefinition("https://e/sse", {"X-Key": "k"})}
    assert to_openai(servers) == [
        {
            "type": "mcp",
            "server_label": "web_search",
            "server_url": "https://web.example.com/mcp",
            "headers": {"Authorization": "Bearer s3cret"},
            "require_approval": "never",
        },
        {
            "type": "mcp",
            "server_label": "events",
            "server_url": "https://e/sse",
            "headers": {"X-Key": "k"},
            "require_approval": "never",
        },
    ]
    assert "require_approval" not in to_openai({"web": WEB}, require_approval=None)[0]
    with pytest.raises(CatalogError, match=r"server_label 'a_b' would name two MCP servers"):
        to_openai({"a.b": WEB, "a b": WEB})


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
def test_stdio_servers_cannot_go_to_a_vendor_api(vendor: str) -> None:
    with pytest.raises(CatalogError) as caught:
        translate(vendor, SERVERS)
    problems = caught.value.problems
    assert len(problems) == 2
    assert problems[0].startswith("MCP server 'fs' is a local process (stdio)")
    assert "API cannot start local processes" in problems[0] and "--skip-local" in problems[0]


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
def test_skip_local_leaves_them_out_with_one_warning(vendor: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mesh_framework.catalog"):
        entries = translate(vendor, SERVERS, skip_local=True)
    assert len(entries) == 2
    (record,) = caplog.records
    assert "left out local (stdio) MCP server(s) fs, notes" in record.getMessage()
    assert "\n" not in record.getMessage()


def test_overrides_replace_the_translated_entry_of_their_name() -> None:
    native = {"type": "url", "url": "https://fs.example.com/mcp", "name": "fs"}
    assert to_anthropic({"fs": FS, "web": WEB}, overrides={"fs": native, "unused": {"x": 1}}) == [
        native,
        {"type": "url", "url": "https://web.example.com/mcp", "name": "web", "authorization_token": "s3cret"},
    ]
    claude = to_claude_code({"fs": FS}, overrides={"fs": {"command": "docker", "args": ["run", "fs"]}})
    assert claude == {"mcpServers": {"fs": {"command": "docker", "args": ["run", "fs"]}}}
    gemini = translate("gemini", {"web": WEB}, overrides={"web": {"httpUrl": "https://w", "trust": True}})
    assert gemini == {"mcpServers": {"web": {"httpUrl": "https://w", "trust": True}}}
    tools = to_openai(
        {"fs": FS}, overrides={"fs": {"type": "mcp", "server_label": "fs", "connector_id": "c"}}
    )
    assert tools == [{"type": "mcp", "server_label": "fs", "connector_id": "c"}]


def test_translate_takes_a_catalog_and_rejects_unknown_formats() -> None:
    catalog = McpServerCatalog.of(SERVERS)
    assert translate("claude", catalog) == to_claude_code(SERVERS)
    assert translate("vscode", catalog, skip_local=True) == to_vscode(SERVERS)  # clients run stdio themselves
    assert FORMATS == ("claude", "vscode", "gemini", "anthropic", "openai")
    with pytest.raises(
        CatalogError, match=r"unknown format 'cursor'; the formats are claude, vscode, gemini, "
    ):
        translate("cursor", catalog)
