"""Catalog files and `mcp.servers` entries: every format, `${VAR}`, every bad input named with its source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.catalog import (
    HttpDefinition,
    McpServerCatalog,
    SseDefinition,
    StdioDefinition,
    catalog_from_settings,
    load_catalog,
    parse_server,
)
from mesh_framework.config.loader import load_settings
from mesh_framework.errors import CatalogError


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def problems_of(paths: list[Path], environ: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(CatalogError) as caught:
        load_catalog(paths, environ or {})
    return caught.value.problems


def test_claude_desktop_format_every_kind_of_server(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "fs": {
                    "command": "npx",
                    "args": ["-y", "server-fs", "/tmp"],
                    "env": {"A": "1"},
                    "cwd": "/srv",
                },
                "typed": {"type": "stdio", "command": "uvx"},
                "events": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "web": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}},
                "dashed": {"type": "streamable-http", "url": "https://h/a"},
                "camel": {"type": "streamableHttp", "url": "https://h/b"},
                "gemini": {"httpUrl": "https://h/c"},
                "bare": {"url": "https://h/d"},
            },
            "globalShortcut": "ignored: other keys of a client's settings file",
        },
    )
    servers = load_catalog([file], {})
    assert servers == {
        "fs": StdioDefinition("npx", ["-y", "server-fs", "/tmp"], {"A": "1"}, "/srv"),
        "typed": StdioDefinition("uvx"),
        "events": SseDefinition("http://127.0.0.1:9/sse"),
        "web": HttpDefinition("https://h/mcp", {"Authorization": "Bearer t"}),
        "dashed": HttpDefinition("https://h/a"),
        "camel": HttpDefinition("https://h/b"),
        "gemini": HttpDefinition("https://h/c"),
        "bare": HttpDefinition("https://h/d"),
    }
    assert list(servers) == ["fs", "typed", "events", "web", "dashed", "camel", "gemini", "bare"]


def test_vscode_format_is_accepted_and_its_inputs_ignored(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "key", "password": True}],
            "servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp"}},
        },
    )
    assert load_catalog([file], {}) == {"gh": HttpDefinition("https://api.example.com/mcp")}


def test_placeholders_resolve_in_every_string_value(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "fs": {
                    "command": "${BIN:-npx}",
                    "args": ["--root", "${HOME}/data", "$${HOME}", "cost: $5", "${EMPTY}"],
                    "env": {"TOKEN": "${env:TOKEN}"},
                    "cwd": "${HOME}",
                },
                "web": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"X-Key": "${KEY:-none}"}},
            }
        },
    )
    environ = {"HOME": "/home/ada", "TOKEN": "t0k", "HOST": "example.com", "EMPTY": "", "KEY": ""}
    servers = load_catalog([file], environ)
    assert servers["fs"] == StdioDefinition(
        "npx", ["--root", "/home/ada/data", "${HOME}", "cost: $5", ""], {"TOKEN": "t0k"}, "/home/ada"
    )
    assert servers["web"] == HttpDefinition("https://example.com/mcp", {"X-Key": "none"})


def test_undefined_variable_names_the_variable_the_server_and_the_file(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json", {"mcpServers": {"gh": {"command": "x", "env": {"T": "${GITHUB_TOKEN}"}}}}
    )
    (problem,) = problems_of([file])
    assert "MCP server 'gh'" in problem and "mcp.json" in problem
    assert "the variable GITHUB_TOKEN is not defined" in problem and "${GITHUB_TOKEN:-default}" in problem


def test_vscode_input_placeholders_and_malformed_placeholders_are_clear_errors(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json",
        {
            "servers": {
                "gh": {
                    "type": "http",
                    "url": "https://h/mcp",
                    "headers": {"A": "${input:key}", "B": "${x y}"},
                }
            }
        },
    )
    text = "\n".join(problems_of([file]))
    assert "${input:key} is a VS Code input" in text
    assert "${x y} is not a valid placeholder" in text


def test_malformed_json_names_file_line_and_column(tmp_path: Path) -> None:
    file = write(tmp_path / "bad.json", '{\n  "mcpServers": {\n    "fs": {"command": "x",}\n  }\n}\n')
    (problem,) = problems_of([file])
    assert "bad.json:3:" in problem and "not valid JSON" in problem
    commented = write(tmp_path / "c.json", '{\n  // my servers\n  "servers": {}\n}\n')
    (problem,) = problems_of([commented])
    assert "c.json:2:3: not valid JSON" in problem and "JSON has no comments" in problem


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"type": "websocket", "url": "ws://h"}, "unknown type 'websocket'; use \"stdio\""),
        ({"type": "stdio", "args": ["a"]}, "'command' is missing; name the program to start"),
        ({"type": "http"}, "'url' is missing; give the server's http(s) URL"),
        ({"type": "sse", "url": "h/sse"}, "url 'h/sse' is not an http(s) URL"),
        ({}, "has neither 'command' (a local process) nor 'url' (a remote server)"),
        ({"command": "x", "args": "-y pkg"}, "'args' must be a list of strings"),
        (
            {"command": "x", "args": ["--port", 8080]},
            "args[1] must be a string, not a number (8080); quote it",
        ),
        ({"command": "x", "env": {"PORT": 8080}}, "env 'PORT' must be a string, not a number; quote it"),
        ({"command": "x", "env": ["A=1"]}, "'env' must be an object of names to strings, not a list"),
        ({"command": 7}, "'command' must name the program to start, not 7"),
        ({"command": "x", "cwd": 1}, "'cwd' must be a folder path"),
        ({"command": "x", "disabled": True}, "unknown field(s) 'disabled'; the fields are type, command"),
        ({"command": "x", "url": "https://h"}, "'url' does not apply to a local process (stdio)"),
        ({"type": "http", "url": "https://h", "args": []}, "'args' does not apply to an HTTP server"),
        ({"url": "https://h", "httpUrl": "https://h"}, "has both 'url' and 'httpUrl'"),
        ({"type": "sse", "httpUrl": "https://h"}, "'httpUrl' means streamable HTTP, but the type is 'sse'"),
        ("npx server", "must be an object with 'command' (a local process) or 'url', not a string"),
    ],
)
def test_bad_entries_name_the_server_the_file_and_the_fix(tmp_path: Path, entry: Any, expected: str) -> None:
    file = write(tmp_path / "mcp.json", {"mcpServers": {"srv": entry}})
    text = "\n".join(problems_of([file]))
    assert "MCP server 'srv' (" in text and "mcp.json)" in text
    assert expected in text


def test_secret_values_never_appear_in_problems(tmp_path: Path) -> None:
    file = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "web": {"type": "http", "url": "https://h", "headers": {"Authorization": ["Bearer s3cret"]}}
            }
        },
    )
    assert "s3cret" not in "\n".join(problems_of([file]))


def test_same_name_in_two_files_names_both_files(tmp_path: Path) -> None:
    first = write(tmp_path / "a.json", {"mcpServers": {"fs": {"command": "x"}}})
    second = write(tmp_path / "b.json", {"servers": {"fs": {"command": "y"}}})
    (problem,) = problems_of([first, second])
    assert "MCP server 'fs' is defined in both" in problem and "a.json" in problem and "b.json" in problem


def test_same_name_twice_in_one_file_is_reported(tmp_path: Path) -> None:
    file = write(tmp_path / "a.json", '{"mcpServers": {"fs": {"command": "x"}, "fs": {"command": "y"}}}')
    assert "the key 'fs' appears twice in one object" in problems_of([file])[0]


def test_a_folder_merges_its_json_files_in_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "catalog"
    write(folder / "20-web.json", {"mcpServers": {"web": {"type": "http", "url": "https://h/mcp"}}})
    write(folder / "10-local.json", {"mcpServers": {"fs": {"command": "npx"}, "git": {"command": "uvx"}}})
    write(folder / "notes.txt", "not a catalog")
    servers = load_catalog([folder, folder / "10-local.json"], {})  # a file listed twice is read once
    assert list(servers) == ["fs", "git", "web"]
    catalog = McpServerCatalog.from_json(folder, environ={})
    assert catalog.origin_of("web") is not None and catalog.origin_of("web").endswith("20-web.json")


def test_every_problem_of_every_file_in_one_error(tmp_path: Path) -> None:
    write(tmp_path / "a.json", "{nope")
    write(tmp_path / "b.json", {"mcpServers": {"x": {"type": "grpc"}, "y": {"command": "${UNSET}"}}})
    write(tmp_path / "c.json", {"tools": {}})
    problems = problems_of([tmp_path, tmp_path / "missing.json"])
    assert len(problems) == 5
    text = "\n".join(problems)
    assert "a.json:1:2: not valid JSON" in text
    assert "unknown type 'grpc'" in text and "the variable UNSET is not defined" in text
    assert "c.json: no 'mcpServers' object" in text
    assert "missing.json: no such catalog file or folder" in text


def test_parse_server_names_the_given_source() -> None:
    assert parse_server("fs", {"command": "npx"}, source="code") == StdioDefinition("npx")
    with pytest.raises(CatalogError, match=r"MCP server 'fs' \(somewhere:3\): 'command' is missing"):
        parse_server("fs", {"type": "stdio"}, source="somewhere:3")


# -- settings --------------------------------------------------------------------------------------

SETTINGS = """\
mcp:
  catalog: [servers.json]
  servers:
    web:
      type: http
      url: https://${HOST}/mcp
      headers:
        Authorization: Bearer ${TOKEN}
    fs:
      command: local-fs
      args: [--read-only]
"""


def test_settings_entries_merge_with_files_and_win_over_them(tmp_path: Path) -> None:
    write(tmp_path / "application.yaml", SETTINGS)
    write(tmp_path / "servers.json", {"mcpServers": {"fs": {"command": "npx"}, "git": {"command": "uvx"}}})
    environ = {"HOST": "example.com", "TOKEN": "t0k"}
    loaded = load_settings(config_dir=tmp_path, environ=environ)
    catalog = catalog_from_settings(loaded, tmp_path, environ)
    assert list(catalog) == ["fs", "git", "web"]
    assert catalog.get("fs") == StdioDefinition("local-fs", ["--read-only"])
    assert catalog.get("web") == HttpDefinition("https://example.com/mcp", {"Authorization": "Bearer t0k"})
    assert catalog.origin_of("git").endswith("servers.json")
    assert catalog.origin_of("web").endswith("application.yaml:5")


def test_settings_problems_name_the_settings_origin_of_the_field(tmp_path: Path) -> None:
    write(tmp_path / "application.yaml", SETTINGS.replace("command: local-fs", "command: [local-fs]"))
    write(tmp_path / "servers.json", {"mcpServers": {}})
    environ = {"HOST": "example.com"}
    loaded = load_settings(config_dir=tmp_path, environ=environ)
    with pytest.raises(CatalogError) as caught:
        catalog_from_settings(loaded, tmp_path, environ)
    text = "\n".join(caught.value.problems)
    assert "MCP server 'web' (" in text and "application.yaml:8): headers.Authorization: ${TOKEN}" in text
    assert "MCP server 'fs' (" in text and "application.yaml:10): 'command' must name the program" in text


def test_settings_entries_from_the_environment_and_a_missing_catalog_file(tmp_path: Path) -> None:
    write(tmp_path / "application.yaml", "mcp:\n  catalog: nowhere.json\n")
    environ = {"MESH_MCP__SERVERS__DOCS__URL": "not a url"}
    loaded = load_settings(config_dir=tmp_path, environ=environ)
    with pytest.raises(CatalogError) as caught:
        catalog_from_settings(loaded, tmp_path, environ)
    text = "\n".join(caught.value.problems)
    assert "mcp.catalog = 'nowhere.json' (from " in text and "application.yaml:2): no such file" in text
    assert "MCP server 'docs' (environment variable MESH_MCP__SERVERS__DOCS__URL): url 'not a url'" in text


def test_relative_catalog_paths_start_at_the_working_directory_without_a_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"fs": {"command": "npx"}}})
    monkeypatch.chdir(tmp_path)
    loaded = load_settings(environ={"MESH_MCP__CATALOG": "servers.json"})
    assert list(catalog_from_settings(loaded, None, {})) == ["fs"]
