"""`mesh catalog list|show|export` and secrets in `mesh config`: masked when shown, one line per error."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework.cli import main
from mesh_framework.config.loader import load_settings
from mesh_framework.errors import ConfigError
from tests.agents import run_cli

APPLICATION = """\
mcp:
  catalog: servers.json
  servers:
    web:
      type: http
      url: https://web.example.com/mcp
      headers:
        Authorization: Bearer ${WEB_TOKEN}
        X-Api-Key: k3y-value
        Accept: application/json
    fs:
      command: npx
      args: [-y, server-fs, /tmp]
      env:
        FS_PASSWORD: pa55word
        PLAIN: visible-nowhere
"""


@pytest.fixture(autouse=True)
def keep_logging() -> Iterator[None]:
    """`main()` configures the root logger for a command-line run; put it back for the next tests."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "application.yaml").write_text(APPLICATION)
    (folder / "servers.json").write_text(
        json.dumps(
            {"mcpServers": {"notes": {"command": "python", "args": ["-m", "notes"], "env": {"K": "v4l"}}}}
        )
    )
    monkeypatch.setenv("WEB_TOKEN", "t0ken-value")
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


SECRETS = ("t0ken-value", "k3y-value", "pa55word", "visible-nowhere", "v4l")


def test_mesh_config_masks_server_env_values_and_credential_headers(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "config", "starter_app", "--config", str(config))
    assert code == 0, err
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()}
    assert rows["mcp.servers.web.headers.Authorization"] == "******"
    assert rows["mcp.servers.web.headers.X-Api-Key"] == "******"
    assert rows["mcp.servers.web.headers.Accept"] == "application/json"
    assert rows["mcp.servers.fs.env.FS_PASSWORD"] == rows["mcp.servers.fs.env.PLAIN"] == "******"
    assert rows["mcp.servers.fs.command"] == "npx"
    assert not any(secret in out + err for secret in SECRETS)


def test_settings_errors_mask_server_secrets_too(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "mcp:\n  servers:\n    - {command: x, env: {PLAIN: pa55word}, headers: {Cookie: c00kie, Accept: a}}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={})
    text = str(caught.value)
    assert "mcp.servers = " in text and "'PLAIN': '******'" in text and "'Cookie': '******'" in text
    assert "pa55word" not in text and "c00kie" not in text and "'Accept': 'a'" in text


def test_catalog_list_shows_every_server_with_its_target_and_origin(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "catalog", "list", "starter_app", "--config", str(config))
    assert code == 0, err
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert list(lines) == ["notes", "web", "fs"]
    assert lines["notes"].split()[1:] == ["stdio", "python", "-m", "notes", f"{config}/servers.json"]
    assert "http" in lines["web"] and "https://web.example.com/mcp" in lines["web"]
    assert "application.yaml:5" in lines["web"]
    assert "npx -y server-fs /tmp" in lines["fs"] and "application.yaml:12" in lines["fs"]
    assert not any(secret in out for secret in SECRETS)


def test_catalog_show_masks_env_values_and_credential_headers(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "catalog", "show", "web", "starter_app", "--config", str(config))
    assert code == 0
    shown = json.loads(out)
    assert (
        shown["name"] == "web" and shown["type"] == "http" and shown["origin"].endswith("application.yaml:5")
    )
    assert shown["headers"] == {
        "Authorization": "******",
        "X-Api-Key": "******",
        "Accept": "application/json",
    }
    code, out, _ = run(capsys, "catalog", "show", "fs", "starter_app", "--config", str(config))
    assert json.loads(out)["env"] == {"FS_PASSWORD": "******", "PLAIN": "******"}
    assert not any(secret in out for secret in SECRETS)


def test_catalog_export_prints_the_translated_config_unmasked(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "catalog",
        "export",
        "starter_app",
        "--config",
        str(config),
        "--format",
        "claude",
        "--server",
        "fs",
    )
    assert code == 0
    assert json.loads(out) == {
        "mcpServers": {
            "fs": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "server-fs", "/tmp"],
                "env": {"FS_PASSWORD": "pa55word", "PLAIN": "visible-nowhere"},
            }
        }
    }
    code, out, err = run(
        capsys,
        "catalog",
        "export",
        "starter_app",
        "--config",
        str(config),
        "--format",
        "openai",
        "--skip-local",
    )
    assert code == 0, err
    assert json.loads(out) == [
        {
            "type": "mcp",
            "server_label": "web",
            "server_url": "https://web.example.com/mcp",
            "headers": {
                "Authorization": "Bearer t0ken-value",
                "X-Api-Key": "k3y-value",
                "Accept": "application/json",
            },
            "require_approval": "never",
        }
    ]
    assert "left out local (stdio) MCP server(s) notes, fs" in err


def test_catalog_export_errors_are_one_line_each_and_exit_1(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "catalog", "export", "starter_app", "--config", str(config), "--format", "openai"
    )
    assert (code, out) == (1, "")
    reason = (
        "is a local process (stdio) and the OpenAI API cannot start local processes; serve it over HTTP, "
        "give an override entry, or skip local servers (--skip-local)"
    )
    assert err.splitlines() == [
        f"mesh catalog export: MCP server 'notes' {reason}",
        f"mesh catalog export: MCP server 'fs' {reason}",
    ]
    code, _, err = run(
        capsys, "catalog", "export", "starter_app", "--config", str(config), "--format", "cursor"
    )
    assert code == 2 and err.strip() == (  # a usage error
        "mesh catalog export: unknown --format 'cursor'; "
        "the formats: claude, vscode, gemini, anthropic, openai"
    )
    code, _, err = run(
        capsys,
        "catalog",
        "export",
        "starter_app",
        "--config",
        str(config),
        "--format",
        "anthropic",
        "--skip-local",
    )
    assert code == 1 and err.splitlines()[-1] == (
        "mesh catalog export: MCP server 'web': the Anthropic API carries only an 'Authorization: Bearer' "
        "token, not the credential header(s) X-Api-Key; give an override entry"
    )
    code, _, err = run(capsys, "catalog", "show", "nope", "starter_app", "--config", str(config))
    assert code == 1 and err.startswith(
        "mesh catalog show: unknown MCP server(s): nope (the catalog has: notes,"
    )


def test_catalog_from_a_file_without_an_app(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "mcp.json"
    file.write_text(json.dumps({"servers": {"docs": {"type": "sse", "url": "https://docs.example.com/sse"}}}))
    code, out, _ = run(capsys, "catalog", "export", "--file", str(file), "--format", "gemini")
    assert code == 0 and json.loads(out) == {"mcpServers": {"docs": {"url": "https://docs.example.com/sse"}}}
    code, out, _ = run(capsys, "catalog", "list", "--file", str(file))
    assert out.split() == ["docs", "sse", "https://docs.example.com/sse", str(file)]
    assert run(capsys, "catalog", "list", "starter_app", "--file", str(file))[0] == 2
    code, _, err = run(capsys, "catalog", "list")
    assert code == 2 and "name the application module" in err


def test_a_bad_catalog_file_is_reported_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(
        '{"mcpServers": {\n  "a": {"type": "grpc"},\n  "b": {"command": "x",}\n}}'
    )
    result = run_cli(["catalog", "list", "--file", str(tmp_path / "mcp.json")])
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("mesh catalog list: ") and "mcp.json:3:" in line and "not valid JSON" in line
