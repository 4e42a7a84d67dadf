"""Every pair of settings layers and the origin each reports: CLI > env > profile > yaml > code > default."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.config.loader import load_settings

LAYERS = ["cli", "env", "profile", "yaml", "code", "default"]


def _load(tmp_path: Path, values: dict[str, int]) -> Any:
    """Put `server.port` = value into each named layer and load."""
    (tmp_path / "application.yaml").write_text(
        f"server:\n  port: {values['yaml']}\n" if "yaml" in values else "agent:\n  name: t\n"
    )
    if "profile" in values:
        (tmp_path / "application-p.yaml").write_text(f"# profile\nserver:\n  port: {values['profile']}\n")
    else:
        (tmp_path / "application-p.yaml").write_text("{}\n")
    environ = {"MESH_PROFILES_ACTIVE": "p"}
    if "env" in values:
        environ["MESH_SERVER__PORT"] = str(values["env"])
    return load_settings(
        cli={"server.port": values["cli"]} if "cli" in values else None,
        code={"server.port": values["code"]} if "code" in values else None,
        config_dir=tmp_path,
        environ=environ,
    )


EXPECTED_ORIGIN = {
    "cli": "command line (--port)",
    "env": "environment variable MESH_SERVER__PORT",
    "profile": "application-p.yaml:3",
    "yaml": "application.yaml:2",
    "code": "code (@mesh_agent parameter)",
    "default": "default",
}


@pytest.mark.parametrize(("high", "low"), list(itertools.combinations(LAYERS, 2)))
def test_higher_layer_wins_and_reports_its_origin(tmp_path: Path, high: str, low: str) -> None:
    values = {
        layer: 1000 + i for i, layer in enumerate(LAYERS) if layer in (high, low) and layer != "default"
    }
    loaded = _load(tmp_path, values)
    expected = values.get(high, 8080)
    assert loaded.settings.server.port == expected
    assert loaded.origin_of("server.port").endswith(EXPECTED_ORIGIN[high])


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_alone(tmp_path: Path, layer: str) -> None:
    values = {} if layer == "default" else {layer: 4321}
    loaded = _load(tmp_path, values)
    assert loaded.settings.server.port == (8080 if layer == "default" else 4321)
    assert loaded.origin_of("server.port").endswith(EXPECTED_ORIGIN[layer])


def test_later_profile_beats_earlier_profile(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("server:\n  port: 1\n")
    (tmp_path / "application-a.yaml").write_text("server:\n  port: 2\n  path: /a\n")
    (tmp_path / "application-b.yaml").write_text("server:\n  port: 3\n")
    loaded = load_settings(config_dir=tmp_path, environ={"MESH_PROFILES_ACTIVE": "a,b"})
    assert loaded.settings.server.port == 3
    assert loaded.settings.server.path == "/a"  # deep merge keeps the sibling from the earlier profile
    assert loaded.origin_of("server.port").endswith("application-b.yaml:2")
    assert loaded.origin_of("server.path").endswith("application-a.yaml:3")


def test_profile_from_cli_beats_env_and_yaml(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("profiles: [y]\nserver:\n  port: 1\n")
    for name, port in (("y", 2), ("e", 3), ("c", 4)):
        (tmp_path / f"application-{name}.yaml").write_text(f"server:\n  port: {port}\n")
    assert load_settings(config_dir=tmp_path, environ={}).settings.server.port == 2
    assert load_settings(config_dir=tmp_path, environ={"MESH_PROFILES_ACTIVE": "e"}).settings.server.port == 3
    loaded = load_settings(config_dir=tmp_path, environ={"MESH_PROFILES_ACTIVE": "e"}, profiles=["c"])
    assert loaded.settings.server.port == 4
    assert loaded.settings.profiles == ["c"]
    assert loaded.origin_of("profiles") == "command line (--profile)"


def test_nested_env_deep_merges_with_yaml(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("server:\n  port: 1\n  path: /x\n")
    loaded = load_settings(config_dir=tmp_path, environ={"MESH_SERVER__PORT": "7"})
    assert (loaded.settings.server.port, loaded.settings.server.path) == (7, "/x")


def test_none_code_parameter_is_not_a_value(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text("server:\n  port: 1234\n")
    loaded = load_settings(code={"server.port": None, "agent.name": None}, config_dir=tmp_path, environ={})
    assert loaded.settings.server.port == 1234
    assert loaded.settings.agent.name == "mesh-agent"
