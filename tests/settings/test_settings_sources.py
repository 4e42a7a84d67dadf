"""The settings sources one by one: YAML with lines, env names (nested and MCP Mesh), errors, masking."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh_framework.config.loader import load_settings, validate_section
from mesh_framework.config.sources import MCP_MESH_ENV_NAMES, normalize_key
from mesh_framework.errors import ConfigError


@pytest.mark.parametrize(
    ("variable", "value", "key", "expected"),
    [
        ("MCP_MESH_HTTP_HOST", "10.1.2.3", "agent.host", "10.1.2.3"),
        ("MCP_MESH_HTTP_PORT", "9001", "server.port", 9001),
        ("MCP_MESH_REGISTRY_URL", "http://reg:8000", "registry.url", "http://reg:8000"),
        ("MCP_MESH_NAMESPACE", "prod", "agent.namespace", "prod"),
        ("MCP_MESH_AGENT_NAME", "calc", "agent.name", "calc"),
        ("MCP_MESH_HEALTH_INTERVAL", "2.5", "registry.heartbeat_interval", 2.5),
    ],
)
def test_mcp_mesh_environment_names(variable: str, value: str, key: str, expected: object) -> None:
    loaded = load_settings(environ={variable: value})
    section, field = key.split(".")
    assert getattr(getattr(loaded.settings, section), field) == expected
    assert loaded.origin_of(key) == f"environment variable {variable}"
    assert MCP_MESH_ENV_NAMES[variable] == key


def test_nested_mesh_name_beats_mcp_mesh_name() -> None:
    loaded = load_settings(environ={"MCP_MESH_HTTP_PORT": "1", "MESH_SERVER__PORT": "2"})
    assert loaded.settings.server.port == 2
    assert loaded.origin_of("server.port") == "environment variable MESH_SERVER__PORT"


def test_env_json_lists_and_user_sections() -> None:
    loaded = load_settings(
        environ={"MESH_SCAN__EXCLUDE": '["a.*", "b"]', "MESH_GREETING__TEMPLATE": "Hi {name}"}
    )
    assert loaded.settings.scan.exclude == ["a.*", "b"]
    assert loaded.settings.extra_section("greeting") == {"template": "Hi {name}"}


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("max-body-bytes", "max_body_bytes"),
        ("maxBodyBytes", "max_body_bytes"),
        ("MAX_BODY_BYTES", "max_body_bytes"),
        ("port", "port"),
    ],
)
def test_relaxed_binding(raw: str, normalized: str) -> None:
    assert normalize_key(raw) == normalized


def test_yaml_relaxed_keys_and_line_origins(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "# comment\nserver:\n  maxBodyBytes: 100\n  host-check: false\n"
    )
    loaded = load_settings(config_dir=tmp_path, environ={})
    assert loaded.settings.server.max_body_bytes == 100
    assert loaded.settings.server.host_check is False
    assert loaded.origin_of("server.max_body_bytes").endswith("application.yaml:3")
    assert loaded.origin_of("server.host_check").endswith("application.yaml:4")


def test_bad_values_are_reported_together_with_key_value_origin_reason(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("server:\n  port: 99999\n  pathh: /x\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={"MESH_REGISTRY__HEARTBEAT_INTERVAL": "soon"})
    problems = caught.value.problems
    assert len(problems) == 3
    text = "\n".join(problems)
    assert "server.port = 99999 (from " in text
    assert "application.yaml:2): Input should be less than or equal to 65535" in text
    assert "server.pathh (from " in text
    assert "application.yaml:3): 'server' has no setting 'pathh'; did you mean 'path'?" in text
    assert (
        "registry.heartbeat_interval = 'soon' (from environment variable MESH_REGISTRY__HEARTBEAT_INTERVAL)"
        in text
    )


def test_missing_profile_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("{}\n")
    with pytest.raises(
        ConfigError,
        match=r"profiles = 'prod' \(from environment variable MESH_PROFILES_ACTIVE\): "
        r"application-prod.yaml not found",
    ):
        load_settings(config_dir=tmp_path, environ={"MESH_PROFILES_ACTIVE": "prod"})


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("server:\n  port: [1,\n")
    with pytest.raises(ConfigError, match=r"application.yaml:\d+: not valid YAML"):
        load_settings(config_dir=tmp_path, environ={})


def test_invalid_yaml_says_what_the_parser_found(tmp_path: Path) -> None:
    """Files are parsed by libyaml when PyYAML has it; a file it refuses is reported with the pure-Python
    parser's wording, which names the character at fault."""
    (tmp_path / "application.yaml").write_text("server:\n\tport: 8080\n")
    with pytest.raises(ConfigError, match=r"application.yaml:2: not valid YAML \(found character '\\t'"):
        load_settings(config_dir=tmp_path, environ={})


def test_yaml_lines_are_the_origins_of_the_values(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("# a comment\nserver:\n  port: 8081\ntools:\n  timeout: 5\n")
    loaded = load_settings(config_dir=tmp_path, environ={})
    assert loaded.settings.server.port == 8081
    assert loaded.origin_of("server.port").endswith("application.yaml:3")
    assert loaded.origin_of("tools.timeout").endswith("application.yaml:5")


def test_yaml_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_settings(config_dir=tmp_path, environ={})


def test_secrets_are_masked_in_the_table_and_errors() -> None:
    loaded = load_settings(environ={"MESH_REGISTRY__TOKEN": "s3cr3t", "MESH_BILLING__API_KEY": "k"})
    table = {key: value for key, value, _origin in loaded.table()}
    assert table["registry.token"] == "******"
    assert table["billing.api_key"] == "******"
    assert "s3cr3t" not in repr(loaded.table())
    assert loaded.settings.registry.token is not None
    assert loaded.settings.registry.token.get_secret_value() == "s3cr3t"


def test_agent_id_is_name_plus_eight_hex_and_validated() -> None:
    loaded = load_settings(code={"agent.name": "My Agent_1"}, environ={})
    agent_id = loaded.settings.agent.id
    assert (
        agent_id is not None
        and agent_id.startswith("my-agent-1-")
        and len(agent_id) == len("my-agent-1-") + 8
    )
    assert all(c in "0123456789abcdef" for c in agent_id[-8:])
    assert loaded.origin_of("agent.id").startswith("generated")
    with pytest.raises(ConfigError, match="agent.id = 'Bad_ID'"):
        load_settings(environ={"MESH_AGENT__ID": "Bad_ID"})


def test_local_runs_default_to_loopback_and_remote_registry_to_all_interfaces() -> None:
    local = load_settings(environ={})
    assert (local.settings.agent.host, local.settings.server.host) == ("127.0.0.1", "127.0.0.1")
    loopback_registry = load_settings(environ={"MCP_MESH_REGISTRY_URL": "http://localhost:8000"})
    assert loopback_registry.settings.agent.host == "127.0.0.1"
    remote = load_settings(environ={"MCP_MESH_REGISTRY_URL": "http://192.0.2.10:8000"})
    assert remote.settings.server.host == "0.0.0.0"
    assert remote.settings.agent.host not in (None, "")
    assert remote.origin_of("agent.host").startswith("auto-detected")


def test_config_section_validation_reports_origin(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class Section(BaseModel):
        size: int = 1

    (tmp_path / "application.yaml").write_text("shop:\n  size: big\n")
    loaded = load_settings(config_dir=tmp_path, environ={})
    with pytest.raises(ConfigError, match=r"shop.size = 'big' \(from \S*application.yaml:2\)"):
        validate_section(loaded, "shop", Section)
    (tmp_path / "application.yaml").write_text("shop:\n  size: 3\n")
    section = validate_section(load_settings(config_dir=tmp_path, environ={}), "shop", Section)
    assert section.size == 3  # type: ignore[attr-defined]
