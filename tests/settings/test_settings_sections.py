"""Loading builds `MeshSettings` section by section (only the sections given values are validated, the others
are made from their defaults) and the result is the one validating the settings whole gives; any invalid
value validates them whole, so every problem is still reported at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from mesh_framework.config.loader import _build_settings, _merge_layers, load_settings
from mesh_framework.config.settings import (
    LlmSettings,
    LlmVendorSettings,
    MeshSettings,
    _unset,
    section_defaults,
)
from mesh_framework.config.sources import ACTIVE_SOURCES, LayerSource
from mesh_framework.errors import ConfigError
from tests.agents import ROOT


def _sections(model: type[BaseModel]) -> list[type[BaseModel]]:
    """The models of `model`'s sections and of theirs (every model made from its defaults)."""
    found: list[type[BaseModel]] = []
    for info in model.model_fields.values():
        if info.default_factory is _unset:
            assert isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
            found += [info.annotation, *_sections(info.annotation)]
    return found


SECTIONS = _sections(MeshSettings)


def assert_same_model(made: BaseModel, validated: BaseModel) -> None:
    """Equal values of equal types (repr tells 30 from 30.0), set fields and extras, at every level."""
    assert type(made) is type(validated)
    assert made == validated
    assert repr(made) == repr(validated)
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_extra == validated.model_extra
    for name in type(made).model_fields:
        mine, theirs = getattr(made, name), getattr(validated, name)
        if isinstance(theirs, BaseModel):
            assert_same_model(mine, theirs)


def test_the_sections_made_from_defaults_are_the_validated_defaults() -> None:
    assert len(SECTIONS) > 25 and SECTIONS.count(MeshSettings) == 0
    for model in SECTIONS:
        assert_same_model(section_defaults(model), model.model_validate({}))
    assert_same_model(LlmSettings().vendor("openai"), LlmVendorSettings())  # a vendor nothing configures


def _whole(*layers: dict[str, Any]) -> MeshSettings:
    """The settings validated whole, from pydantic-settings' own merge of the layers (first wins)."""
    sources = tuple(LayerSource(MeshSettings, f"layer {i}", data) for i, data in enumerate(layers))
    token = ACTIVE_SOURCES.set(sources)
    try:
        return MeshSettings()
    finally:
        ACTIVE_SOURCES.reset(token)


CASES: list[tuple[dict[str, Any], ...]] = [
    ({},),
    ({"profiles": ["dev"], "server": {"port": 0}},),
    (
        {"server": {"port": "9001", "allowed_hosts": ["a"]}, "greeting": {"template": "Hi"}},
        {
            "server": {"port": 1, "path": "/x", "allowed_hosts": ["b", "c"]},
            "registry": {"urls": "http://r:1"},
        },
        {"agent": {"name": "calc", "version": "2"}, "greeting": {"template": "Hello", "other": 1}},
    ),
    (
        {"llm": {"defaults": {"model": "m"}, "summarize": {"max_tokens": 5}}, "jobs": {"retention": {}}},
        {"jobs": {"retention": {"max_count": "7"}, "tools": {"t": 2}}, "logging": {"level": "debug"}},
    ),
    (
        {"auth": {"tokens": [{"token": "s3cr3t", "scopes": ["a"]}], "dependency_tokens": {"x": "t"}}},
        {"web": {"cors": {"allow_origins": ["*"]}, "static": [{"directory": "static"}]}},
        {"a2a": {"peers": {"p": {"url": "http://p:1"}}}, "mcp": {"servers": {"s": {"command": "x"}}}},
    ),
]


@pytest.mark.parametrize("layers", CASES)
def test_section_by_section_equals_validating_whole(layers: tuple[dict[str, Any], ...]) -> None:
    made = _build_settings(_merge_layers(layers))
    assert made is not None
    whole = _whole(*layers)
    assert_same_model(made, whole)
    assert made.model_dump() == whole.model_dump()


def test_an_invalid_value_leaves_it_to_validating_whole() -> None:
    assert _build_settings({"server": {"port": "x"}}) is None
    assert _build_settings({"server": {"prot": 1}}) is None  # a key nothing reads
    assert _build_settings({"profiles": "dev"}) is None  # not a list: validated whole
    assert _build_settings({"server": {"port": 1}}) is not None


def test_every_problem_of_every_section_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "server:\n  port: x\nregistry:\n  timeout: -1\nlogging:\n  levl: INFO\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={"MESH_AGENT__ID": "Not Safe"})
    where = f"(from {tmp_path / 'application.yaml'}"
    assert caught.value.problems == [
        "agent.id = 'Not Safe' (from environment variable MESH_AGENT__ID): an agent id may hold only "
        "lowercase letters, digits and hyphens",
        f"server.port = 'x' {where}:2): Input should be a valid integer, unable to parse string as an "
        "integer",
        f"registry.timeout = -1 {where}:4): Input should be greater than 0",
        f"logging.levl {where}:6): 'logging' has no setting 'levl'; did you mean 'level'?",
    ]


def test_loading_builds_the_validators_of_the_sections_given_values_only() -> None:
    """Start-up cost: the validator of a section nobody set, and of the whole tree, is never built."""
    script = """
import json
from mesh_framework.config import settings
from mesh_framework.config.loader import load_settings
environ = {"MESH_TOOLS__TIMEOUT": "5"}
loaded = load_settings(cli={"server.port": 0}, code={"agent.name": "calc"}, environ=environ)
assert loaded.settings.server.port == 0 and loaded.settings.tools.timeout == 5.0
assert loaded.settings.llm.vendor("openai").timeout == 60.0  # no vendor configured: the defaults
print(json.dumps(sorted(
    name for name in settings.__all__ if getattr(getattr(settings, name), "__pydantic_complete__", False)
)))
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []  # nor of those given plain values (test_settings_plain_values)
