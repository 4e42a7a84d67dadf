"""Settings nothing reads are reported, with the closest name: a warning, or an error under config.strict."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mesh_framework import MeshApplication, WiringError

from .agents import run_cli

# The starter app's `ask` tool names the catalog server `notes`, so these files declare one.
TYPOS = (
    "greting:\n  template: 'Hi {name}'\n"
    "greeting:\n  max-name-lenght: 5\n"
    "mcp:\n  servers:\n    notes: {command: python}\n"
)


def config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "application.yaml").write_text(text)
    return tmp_path


def test_typos_are_warned_with_the_closest_name(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mesh_framework"):
        app = MeshApplication.load("starter_app", config=config(tmp_path, TYPOS), environ={})
    messages = [r.getMessage() for r in caplog.records]
    assert any("greting (from" in m and "did you mean 'greeting'?" in m for m in messages), messages
    assert any(
        "greeting.max_name_lenght" in m
        and "GreetingProperties has no setting" in m
        and "did you mean 'max_name_length'?" in m
        for m in messages
    ), messages
    assert app.settings.server.port == 8080  # loading went on


def test_strict_config_stops_start_up(tmp_path: Path) -> None:
    folder = config(tmp_path, TYPOS + "config:\n  strict: true\n")
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("starter_app", config=folder, environ={})
    text = str(caught.value)
    assert "did you mean 'greeting'?" in text and "did you mean 'max_name_length'?" in text
    assert "config.strict is on" in text


def test_mesh_config_shows_the_warnings(tmp_path: Path) -> None:
    result = run_cli(["config", "starter_app", "--config", str(config(tmp_path, TYPOS))])
    assert result.returncode == 0
    assert "did you mean 'greeting'?" in result.stderr and "did you mean 'max_name_length'?" in result.stderr


def test_another_agent_s_section_is_not_a_typo(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # the calculator shares the starter's application.yaml, whose `greeting:` only the starter reads
    shared = "greeting:\n  template: 'Hi {name}'\n"
    with caplog.at_level(logging.WARNING, logger="mesh_framework"):
        MeshApplication.load("starter_app.calculator", config=config(tmp_path, shared), environ={})
    assert not [r.getMessage() for r in caplog.records if "greeting" in r.getMessage()]
    strict = shared + "config:\n  strict: true\n"
    with pytest.raises(WiringError, match=r"greeting \(from .*application\.yaml:2\): no settings section"):
        MeshApplication.load("starter_app.calculator", config=config(tmp_path, strict), environ={})
