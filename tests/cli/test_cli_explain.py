"""`mesh config APP --explain KEY`: every layer's value for one key, and the one that won (which always
agrees with `mesh config`); unknown keys are usage errors naming the closest ones."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ..agents import ROOT
from .test_cli_json import Cli, clean_fixture, cli_fixture  # noqa: F401 (fixtures)


def layers(explanation: dict[str, Any]) -> list[tuple[str, str, Any, bool]]:
    return [
        (layer["layer"], layer["source"], layer["value"] if layer["set"] else "-", layer["wins"])
        for layer in explanation["layers"]
    ]


def test_every_layer_of_server_port(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_MESH_HTTP_PORT", "9000")
    explanation = cli.json("config", "starter_app", "--profile", "dev", "--explain", "server.port")
    assert explanation["key"] == "server.port" and explanation["value"] == 9000
    assert explanation["origin"] == "environment variable MCP_MESH_HTTP_PORT"
    assert layers(explanation) == [
        ("command line", "--port", "-", False),
        ("environment", "MESH_SERVER__PORT", "-", False),
        ("environment", "MCP_MESH_HTTP_PORT", "9000", True),
        ("profile dev, agents.starter", "config/application-dev.yaml", "-", False),
        ("profile dev", "config/application-dev.yaml:3", 0, False),
        ("application.yaml, agents.starter", "config/application.yaml", "-", False),
        ("application.yaml", "config/application.yaml:5", 8080, False),
        ("code", "@mesh_agent(port=...)", 8080, False),
        ("default", "MeshSettings", 8080, False),
    ]


def test_the_command_line_wins_and_the_nested_env_name_beats_the_mcp_mesh_one(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_MESH_HTTP_PORT", "9000")
    monkeypatch.setenv("MESH_SERVER__PORT", "9001")
    explanation = cli.json("config", "starter_app", "--explain", "server.port")
    winners = [(layer[1], layer[2]) for layer in layers(explanation) if layer[3]]
    assert winners == [("MESH_SERVER__PORT", "9001")]
    explanation = cli.json("config", "starter_app", "--port", "7000", "--explain", "server.port")
    assert [layer for layer in layers(explanation) if layer[3]] == [("command line", "--port", 7000, True)]


def test_the_agents_section_of_a_project_with_several_agents(cli: Cli) -> None:
    explanation = cli.json("config", "starter_app.calculator", "--explain", "server.port")
    assert explanation["value"] == 8081
    rows = layers(explanation)
    assert ("application.yaml, agents.calculator", "config/application.yaml:20", 8081, True) in rows
    assert ("code", "@mesh_agent(port=...)", 8081, False) in rows


def test_plain_output_names_the_winner(cli: Cli) -> None:
    code, out, _ = cli("config", "starter_app", "--explain", "greeting.template")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "greeting.template = Hello, {name}!  (from config/application.yaml:10)"
    assert lines[2].split() == ["LAYER", "SOURCE", "VALUE"]
    (winner,) = [line for line in lines if line.endswith("wins")]
    assert winner.split()[:2] == ["application.yaml", "config/application.yaml:10"]
    default = next(line for line in lines if line.startswith("default"))
    assert "GreetingProperties" in default and default.endswith("overridden")


def test_computed_values_and_profiles(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    explanation = cli.json("config", "starter_app", "--explain", "agent.id")
    (winner,) = [layer for layer in explanation["layers"] if layer["wins"]]
    assert winner["layer"] == "computed" and winner["source"] == "generated ({name}-{8 hex})"
    assert winner["value"] == explanation["value"] and explanation["value"].startswith("starter-")
    monkeypatch.setenv("MESH_PROFILES_ACTIVE", "dev")
    explanation = cli.json("config", "starter_app", "--explain", "profiles")
    assert explanation["value"] == ["dev"]
    assert [layer for layer in layers(explanation) if layer[3]] == [
        ("environment", "MESH_PROFILES_ACTIVE", "dev", True)
    ]


def test_relaxed_spelling_is_accepted(cli: Cli) -> None:
    assert cli.json("config", "starter_app", "--explain", "server.max-body-bytes")["key"] == (
        "server.max_body_bytes"
    )


def test_secrets_are_masked_in_every_layer(cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "config", tmp_path, dirs_exist_ok=True)
    with (tmp_path / "application.yaml").open("a") as settings:
        settings.write("registry:\n  token: yaml-s3cret\n")
    (tmp_path / "application-vault.yaml").write_text("server:\n  request-state-key: yaml-s3cret\n")
    monkeypatch.setenv("MESH_SERVER__REQUEST_STATE_KEY", "env-s3cret")
    monkeypatch.setenv("MESH_REGISTRY__TOKEN", "hunter2")
    for key in ("server.request_state_key", "registry.token"):
        args = ["config", "starter_app", "--config", str(tmp_path), "--profile", "vault", "--explain", key]
        code, out, err = cli(*args)
        assert code == 0, err
        assert "s3cret" not in out and "hunter2" not in out and "******" in out
        explanation = cli.json(*args)
        assert sum(layer["set"] for layer in explanation["layers"]) >= 2
        assert all(layer["value"] in ("******", None) for layer in explanation["layers"])


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("server.prot", "unknown setting 'server.prot'; did you mean server.port"),
        ("port", "unknown setting 'port'; did you mean server.port?"),
        ("zzz.qqq", "unknown setting 'zzz.qqq'; `mesh config APP` lists every key"),
        ("server", "'server' is a section; explain one of its keys: server.host, server.port"),
    ],
)
def test_unknown_keys_are_usage_errors_with_close_matches(cli: Cli, key: str, message: str) -> None:
    code, out, err = cli("config", "starter_app", "--explain", key)
    assert (code, out) == (2, "")
    assert err.startswith(f"mesh config: {message}") and len(err.splitlines()) == 1


def test_a_command_line_origin_names_the_option_as_typed() -> None:
    from mesh_framework.config.loader import load_settings

    loaded = load_settings(cli={"registry.url": "http://127.0.0.1:9", "logging.level": "DEBUG"}, environ={})
    assert loaded.origin_of("registry.url") == "command line (--registry-url)"
    assert loaded.origin_of("logging.level") == "command line (--log-level)"
