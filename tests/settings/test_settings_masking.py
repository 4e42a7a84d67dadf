"""Secrets are masked by what declares them (`SecretStr`, the `SECRET` marker) and by whole names, never
by a substring: `llm.defaults.max_tokens` is shown in every form, `registry.token` never is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from mesh_framework import ConfigError
from mesh_framework.config.loader import load_settings, section_rows, validate_section
from mesh_framework.config.masking import MASK, SECRET, is_secret, masked
from mesh_framework.config.settings import MeshSettings

from ..cli_in_process import run_cli_in_process

NOTES = "mcp:\n  servers:\n    notes: {command: python}\n"


def config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "application.yaml").write_text(text + NOTES)
    return tmp_path


def test_max_tokens_is_shown_by_mesh_config_in_every_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = config(tmp_path, "llm:\n  defaults:\n    max-tokens: 512\nregistry:\n  token: r3gistry\n")
    base = ["config", "starter_app", "--config", str(folder)]
    table = run_cli_in_process(base, monkeypatch)
    assert table.returncode == 0, table.stderr
    rows = {line.split()[0]: line.split()[1] for line in table.stdout.splitlines() if line.strip()}
    assert rows["llm.defaults.max_tokens"] == "512" and rows["registry.token"] == MASK
    listing = run_cli_in_process([*base, "--json"], monkeypatch)
    settings = json.loads(listing.stdout)["settings"]
    assert settings["llm.defaults.max_tokens"]["value"] == 512
    assert settings["registry.token"]["value"] == MASK
    explained = run_cli_in_process([*base, "--explain", "llm.defaults.max_tokens", "--json"], monkeypatch)
    explanation = json.loads(explained.stdout)
    assert explanation["value"] == 512
    assert [layer["value"] for layer in explanation["layers"] if layer["set"]] == [512, None]
    secret = json.loads(
        run_cli_in_process([*base, "--explain", "registry.token", "--json"], monkeypatch).stdout
    )
    assert secret["value"] == MASK and "r3gistry" not in json.dumps(secret)


def test_a_bad_max_tokens_is_shown_in_the_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_cli_in_process(
        [
            "config",
            "starter_app",
            "--config",
            str(config(tmp_path, "llm:\n  defaults:\n    max-tokens: lots\n")),
        ],
        monkeypatch,
    )
    assert result.returncode == 1
    assert "llm.defaults.max_tokens = 'lots' (from " in result.stderr
    assert "Input should be a valid integer" in result.stderr


def test_a_bad_secret_is_still_masked_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("registry:\n  token: [hunter2]\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={})
    (problem,) = caught.value.problems
    assert problem.startswith(f"registry.token = {MASK} (from ") and "hunter2" not in problem


class Database(BaseModel):
    url: str = "postgresql://db"
    login: Annotated[str, SECRET] = "admin:s3cret"
    max_tokens: int = 5


def test_the_secret_marker_and_whole_names(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "database:\n  login: me:pw\n"
        "vault:\n  token: t0k\n  db_password: pw\n  token_budget: 7\n  max_tokens: 9\n"
        "llm:\n  defaults:\n    model-params: {api_key: k3y, max_tokens: 3}\n"
    )
    loaded = load_settings(config_dir=tmp_path, environ={})
    section = validate_section(loaded, "database", Database)
    rows = {key: shown for key, shown, _ in section_rows(loaded, "database", section)}
    assert rows == {"database.url": "postgresql://db", "database.login": MASK, "database.max_tokens": "5"}
    table = {key: shown for key, shown, _ in loaded.table()}
    assert table["vault.token"] == table["vault.db_password"] == MASK
    assert table["vault.token_budget"] == "7" and table["vault.max_tokens"] == "9"
    assert table["llm.defaults.model_params.api_key"] == MASK
    assert table["llm.defaults.model_params.max_tokens"] == "3"


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("llm.defaults.max_tokens", False),
        ("llm.vendors.openai.api_key", True),
        ("auth.tokens.0.token", True),
        ("auth.tokens.0.scopes", False),
        ("auth.dependency_tokens.add", True),
        ("auth.client_token", True),
        ("server.request_state_key", True),
        ("mcp.servers.gh.env.ANY", True),
        ("mcp.servers.gh.headers.X-Trace", False),
        ("mcp.servers.gh.headers.Authorization", True),
        ("commands.tools.token_count.timeout", False),
    ],
)
def test_what_is_secret(key: str, secret: bool) -> None:
    assert is_secret(key, MeshSettings) is secret


def test_masked_keeps_what_is_not_secret() -> None:
    value: Any = [{"token": "a", "scopes": ["x"], "client_id": "ci"}]
    assert masked("auth.tokens", value, MeshSettings) == [{"token": MASK, "scopes": ["x"], "client_id": "ci"}]


def test_explain_masks_the_secrets_inside_a_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = config(tmp_path, "auth:\n  tokens:\n    - {token: yaml-s3cret, scopes: [math]}\n")
    env = {"MESH_AUTH__TOKENS": '[{"token": "env-s3cret", "scopes": ["admin"]}]'}
    result = run_cli_in_process(
        ["config", "starter_app", "--config", str(folder), "--explain", "auth.tokens", "--json"],
        monkeypatch,
        env,
    )
    assert result.returncode == 0, result.stderr
    assert "s3cret" not in result.stdout
    explanation = json.loads(result.stdout)
    assert explanation["value"] == [{"token": MASK, "scopes": ["admin"], "client_id": "static"}]
    values = [layer["value"] for layer in explanation["layers"] if layer["set"]]
    assert values == [[{"token": MASK, "scopes": ["admin"]}], [{"token": MASK, "scopes": ["math"]}], []]


def test_url_passwords_are_masked_by_mesh_config_in_every_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = config(
        tmp_path,
        "registry:\n  url: http://user:pw-registry@127.0.0.1:8000\n"
        "tracing:\n  endpoint: http://otel:pw-tracing@127.0.0.1:4318/v1/traces\n"
        "llm:\n  vendors:\n    openai: {base_url: 'https://tk-vendor@llm.internal/v1'}\n",
    )
    env = {"MESH_REGISTRY__URLS": "http://a:pw-one@127.0.0.1:8001,http://b:pw-two@127.0.0.1:8002"}
    base = ["config", "starter_app", "--config", str(folder)]
    table = run_cli_in_process(base, monkeypatch, env)
    assert table.returncode == 0, table.stderr
    assert "pw-" not in table.stdout and "tk-vendor" not in table.stdout
    rows = {line.split()[0]: line.split()[1] for line in table.stdout.splitlines() if line.strip()}
    assert rows["registry.url"] == f"http://user:{MASK}@127.0.0.1:8000"
    assert rows["tracing.endpoint"] == f"http://otel:{MASK}@127.0.0.1:4318/v1/traces"
    assert rows["llm.vendors.openai.base_url"] == f"https://{MASK}@llm.internal/v1"
    listing = run_cli_in_process([*base, "--json"], monkeypatch, env)
    assert listing.returncode == 0, listing.stderr
    assert "pw-" not in listing.stdout and "tk-vendor" not in listing.stdout
    settings = json.loads(listing.stdout)["settings"]
    assert settings["registry.urls"]["value"] == [
        f"http://a:{MASK}@127.0.0.1:8001",
        f"http://b:{MASK}@127.0.0.1:8002",
    ]
    explained = run_cli_in_process([*base, "--explain", "registry.url", "--json"], monkeypatch, env)
    assert explained.returncode == 0, explained.stderr
    assert "pw-registry" not in explained.stdout
    assert json.loads(explained.stdout)["value"] == f"http://user:{MASK}@127.0.0.1:8000"


def problems_of(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> str:
    (tmp_path / "application.yaml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ=environ or {})
    return "\n".join(caught.value.problems)


def test_a_token_written_in_place_of_a_section_is_masked_in_the_error(tmp_path: Path) -> None:
    problem = problems_of(tmp_path, "auth: s3cr3t-token\n")
    assert "s3cr3t" not in problem
    assert problem.startswith(f"auth = {MASK} (from ") and "application.yaml:1)" in problem
    assert "valid dictionary" in problem
    listed = problems_of(tmp_path, "auth:\n  dependency_tokens: s3cr3t-token\n")
    assert listed.startswith(f"auth.dependency_tokens = {MASK} (from ") and "s3cr3t" not in listed


def test_a_mapping_in_place_of_a_secret_keeps_its_origin(tmp_path: Path) -> None:
    problem = problems_of(tmp_path, "registry:\n  token: {a: s3cr3t-token}\n")
    assert "s3cr3t" not in problem
    assert problem.startswith(f"registry.token = {MASK} (from ") and "application.yaml:2)" in problem


def test_a_secret_variable_in_the_wrong_place_is_masked_in_the_error(tmp_path: Path) -> None:
    problem = problems_of(tmp_path, "server:\n  port: ${GITHUB_TOKEN}\n", {"GITHUB_TOKEN": "ghp-s3cr3t"})
    assert "ghp-s3cr3t" not in problem
    assert problem.startswith(f"server.port = {MASK} (from ")
    assert "via environment variable GITHUB_TOKEN" in problem and "valid integer" in problem
    plain = problems_of(tmp_path, "server:\n  port: ${PORT}\n", {"PORT": "eighty"})
    assert plain.startswith("server.port = 'eighty' (from ")


def test_a_url_password_is_masked_in_the_value_and_the_reason(tmp_path: Path) -> None:
    problem = problems_of(tmp_path, "registry:\n  url: ftp://user:pw-registry@127.0.0.1\n")
    assert "pw-registry" not in problem
    assert problem.startswith(f"registry.url = 'ftp://user:{MASK}@127.0.0.1' (from ")
    assert "is not an http(s) URL" in problem
