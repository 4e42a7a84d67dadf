"""`${VAR}` placeholders in settings files: resolved from the environment as Spring Boot does, with the
variable named in the origin; an unset variable without a default stops start-up naming key, file, line
and variable. Catalog entries keep the catalog's rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mesh_framework import ConfigError
from mesh_framework.catalog import catalog_from_settings
from mesh_framework.catalog import placeholders as catalog_placeholders
from mesh_framework.catalog.definitions import StdioDefinition
from mesh_framework.catalog.placeholders import PlaceholderError
from mesh_framework.config import placeholders
from mesh_framework.config.loader import load_settings

from ..agents import run_cli

AUTH = (
    "auth:\n"
    "  tokens:\n"
    '    - {token: "${CI_TOKEN}", scopes: [math], client_id: ci}\n'
    '  client_token: "${CLIENT_TOKEN}"\n'
    "  dependency_tokens:\n"
    '    add: "${ADD_SERVICE_TOKEN}"\n'
)
TOKENS = {"CI_TOKEN": "ci-s3cret", "CLIENT_TOKEN": "client-s3cret", "ADD_SERVICE_TOKEN": "add-s3cret"}


def folder(tmp_path: Path, text: str, **profiles: str) -> Path:
    (tmp_path / "application.yaml").write_text(text)
    for name, profile in profiles.items():
        (tmp_path / f"application-{name}.yaml").write_text(profile)
    return tmp_path


def test_the_production_page_s_tokens_come_from_the_environment(tmp_path: Path) -> None:
    loaded = load_settings(config_dir=folder(tmp_path, AUTH), environ=TOKENS)
    auth = loaded.settings.auth
    assert auth.tokens[0].token.get_secret_value() == "ci-s3cret"
    assert auth.client_token is not None and auth.client_token.get_secret_value() == "client-s3cret"
    assert auth.dependency_tokens["add"].get_secret_value() == "add-s3cret"
    assert loaded.origin_of("auth.client_token").endswith(
        "application.yaml:4 via environment variable CLIENT_TOKEN"
    )
    assert loaded.origin_of("auth.tokens").endswith("application.yaml:3 via environment variable CI_TOKEN")


def test_defaults_empty_values_and_the_escape(tmp_path: Path) -> None:
    text = (
        "server:\n"
        "  port: ${PORT:8123}\n"  # Spring Boot: the default when unset
        "  instructions: 'a ${EMPTY:fallback} b ${EMPTY:-fallback} c'\n"  # `:-` also when empty
        "agent:\n"
        "  description: 'costs $5; $${HOME} is literal; ${env:WHO}'\n"
        "  namespace: ${NS:-dev}\n"
    )
    loaded = load_settings(config_dir=folder(tmp_path, text), environ={"EMPTY": "", "WHO": "ada"})
    settings = loaded.settings
    assert settings.server.port == 8123
    assert settings.server.instructions == "a  b fallback c"
    assert settings.agent.description == "costs $5; ${HOME} is literal; ada"
    assert settings.agent.namespace == "dev"
    assert loaded.origin_of("server.port").endswith("application.yaml:2 via default (PORT not set)")
    assert loaded.origin_of("server.instructions").endswith(
        "application.yaml:3 via environment variable EMPTY, default (EMPTY empty)"
    )
    assert loaded.origin_of("agent.description").endswith("application.yaml:5 via environment variable WHO")
    environ = {"PORT": "9001", "NS": "prod", "WHO": "ada"}
    set_port = load_settings(config_dir=tmp_path, environ=environ).settings
    assert (set_port.server.port, set_port.agent.namespace) == (9001, "prod")


def test_profile_files_and_agents_sections_are_resolved_too(tmp_path: Path) -> None:
    config = folder(
        tmp_path,
        "agents:\n  starter:\n    server:\n      port: ${STARTER_PORT}\n",
        prod="registry:\n  url: ${REGISTRY_URL:http://127.0.0.1:8000}\n",
    )
    environ = {"MESH_PROFILES_ACTIVE": "prod", "MESH_AGENT__NAME": "starter", "STARTER_PORT": "7001"}
    loaded = load_settings(config_dir=config, environ=environ)
    assert loaded.settings.server.port == 7001
    assert loaded.settings.registry.url == "http://127.0.0.1:8000"
    assert loaded.origin_of("registry.url").endswith(
        "application-prod.yaml:2 via default (REGISTRY_URL not set)"
    )


def test_an_unset_variable_stops_start_up_naming_key_file_line_and_variable(tmp_path: Path) -> None:
    config = folder(tmp_path, "server:\n  port: 8080\n" + AUTH)
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=config, environ={"CLIENT_TOKEN": "x"})
    problems = caught.value.problems
    assert len(problems) == 2, problems
    first, second = problems
    assert first.startswith("auth.tokens.0.token (from ") and "application.yaml:5): ${CI_TOKEN}" in first
    assert "the variable CI_TOKEN is not defined; set it or write ${CI_TOKEN:default}" in first
    assert second.startswith("auth.dependency_tokens.add (from ") and "application.yaml:8)" in second
    assert "ADD_SERVICE_TOKEN" in second


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("'${server.port}'", "${server.port} is not a valid placeholder; write ${NAME} or ${NAME:default}"),
        ("'${OPEN'", "'${' is not closed; write ${NAME}, or $${ for a literal ${"),
        ("'${A:${B}}'", "a default cannot hold another placeholder"),
        ("'${input:key}'", "${input:key} is a VS Code input"),
    ],
)
def test_malformed_placeholders_are_clear_errors(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=folder(tmp_path, f"agent:\n  description: {value}\n"), environ={})
    (problem,) = caught.value.problems
    assert problem.startswith("agent.description (from ") and "application.yaml:2): " in problem
    assert message in problem


def test_catalog_entries_keep_the_catalog_rules(tmp_path: Path) -> None:
    """`mcp.servers` values are resolved once, by the catalog (which refuses `${VAR:default}`)."""
    text = "mcp:\n  servers:\n    fs: {command: '${BIN:-npx}', args: ['$${HOME}', '${env:HOME}']}\n"
    environ = {"HOME": "/home/ada"}
    loaded = load_settings(config_dir=folder(tmp_path, text), environ=environ)
    catalog = catalog_from_settings(loaded, tmp_path, environ)
    fs = catalog.get("fs")
    assert isinstance(fs, StdioDefinition) and (fs.command, fs.args) == ("npx", ("${HOME}", "/home/ada"))
    assert catalog_placeholders.expand is placeholders.expand  # one implementation
    with pytest.raises(PlaceholderError, match=r"\$\{A:b\} is not a valid placeholder"):
        catalog_placeholders.expand("${A:b}", {})
    assert placeholders.expand("${A:b}", {}, placeholders.SETTINGS) == "b"


def test_mesh_config_names_the_variable_and_masks_the_secret(tmp_path: Path) -> None:
    config = folder(tmp_path, AUTH + "mcp:\n  servers:\n    notes: {command: python}\n")
    args = ["config", "starter_app", "--config", str(config), "--explain", "auth.client_token"]
    result = run_cli([*args, "--json"], env=TOKENS)
    assert result.returncode == 0, result.stderr
    explanation = json.loads(result.stdout)
    assert explanation["value"] == "******"
    assert explanation["origin"].endswith("application.yaml:4 via environment variable CLIENT_TOKEN")
    (winner,) = [layer for layer in explanation["layers"] if layer["wins"]]
    assert winner["source"].endswith("via environment variable CLIENT_TOKEN")
    assert winner["value"] == "******"
    plain = run_cli(args, env=TOKENS)
    assert plain.returncode == 0, plain.stderr
    assert "via environment variable CLIENT_TOKEN" in plain.stdout.splitlines()[0]
    table = run_cli(["config", "starter_app", "--config", str(config)], env=TOKENS)
    assert "s3cret" not in table.stdout + plain.stdout + result.stdout
    assert "${" not in table.stdout


def test_mesh_run_stops_on_an_unset_variable(tmp_path: Path) -> None:
    config = folder(tmp_path, AUTH + "mcp:\n  servers:\n    notes: {command: python}\n")
    result = run_cli(["run", "starter_app", "--config", str(config), "--port", "0"], env={"CI_TOKEN": "x"})
    assert result.returncode == 1
    assert result.stderr.startswith("mesh run: starter_app: ")
    assert "auth.client_token (from " in result.stderr and "application.yaml:4): ${CLIENT_TOKEN}" in (
        result.stderr
    )
    assert "the variable CLIENT_TOKEN is not defined" in result.stderr
