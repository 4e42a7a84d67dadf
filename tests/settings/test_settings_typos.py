"""Settings nothing reads, under one rule with the closest name: a key a section this agent reads lacks (a
framework section or a `@config_properties` model) stops start-up; a misspelt top-level section is warned
(an error under config.strict). `mesh config` shows these problems instead of failing on them."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mesh_framework import ConfigError, MeshApplication, WiringError
from mesh_framework.config.loader import load_settings

from ..agents import ROOT, run_cli

# The starter app's `ask` tool names the catalog server `notes`, so these files declare one.
NOTES = "mcp:\n  servers:\n    notes: {command: python}\n"
SECTION_TYPO = "greting:\n  template: 'Hi {name}'\n" + NOTES
KEY_TYPOS = (
    "tools:\n  timout: 5\n"
    "greeting:\n  max-name-lenght: 5\n"
    "auth:\n  tokens:\n    - {token: x, scope: [math]}\n"
    "llm:\n  ask:\n    max-tokns: 5\n" + NOTES
)
FRAMEWORK = "tools.timout (from {}:2): 'tools' has no setting 'timout'; did you mean 'timeout'?"
USER = (
    "greeting.max_name_lenght (from {}:4): GreetingProperties has no setting 'max_name_lenght'; "
    "did you mean 'max_name_length'?"
)
IN_LIST = "auth.tokens.0.scope (from {}:7): 'auth.tokens.0' has no setting 'scope'; did you mean 'scopes'?"
LLM = "llm.ask.max_tokns (from {}:10): 'llm.ask' has no setting 'max_tokns'; did you mean 'max_tokens'?"


def config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "application.yaml").write_text(text)
    return tmp_path


def expected(tmp_path: Path) -> list[str]:
    path = tmp_path / "application.yaml"
    return [IN_LIST.format(path), FRAMEWORK.format(path), LLM.format(path), USER.format(path)]


def test_a_misspelt_section_is_warned_with_the_closest_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mesh_framework"):
        app = MeshApplication.load("starter_app", config=config(tmp_path, SECTION_TYPO), environ={})
    messages = [r.getMessage() for r in caplog.records]
    assert any("greting (from" in m and "did you mean 'greeting'?" in m for m in messages), messages
    assert app.settings.server.port == 8080  # loading went on


def test_misspelt_keys_stop_start_up_with_the_closest_name_in_every_section(tmp_path: Path) -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("starter_app", config=config(tmp_path, KEY_TYPOS), environ={})
    assert caught.value.problems == expected(tmp_path)


def test_loading_settings_alone_names_the_closest_key_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=config(tmp_path, KEY_TYPOS), environ={})
    path = tmp_path / "application.yaml"
    assert caught.value.problems == [IN_LIST.format(path), FRAMEWORK.format(path), LLM.format(path)]


def test_strict_config_stops_start_up_on_a_misspelt_section(tmp_path: Path) -> None:
    folder = config(tmp_path, SECTION_TYPO + "config:\n  strict: true\n")
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("starter_app", config=folder, environ={})
    text = str(caught.value)
    assert "did you mean 'greeting'?" in text and "config.strict is on" in text


def test_mesh_config_shows_the_problems_instead_of_failing(tmp_path: Path) -> None:
    folder = config(tmp_path, KEY_TYPOS + "greting:\n  template: 'Hi {name}'\n")
    result = run_cli(["config", "starter_app", "--config", str(folder)])
    assert result.returncode == 0, result.stderr
    for problem in expected(tmp_path):
        assert f"mesh config: {problem} (mesh run stops on this)" in result.stderr.splitlines()
    assert "did you mean 'greeting'?" in result.stderr  # the warning
    rows = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines() if line.strip()}
    assert rows["tools.timeout"] == "30.0" and rows["greeting.max_name_length"] == "40"
    listing = json.loads(run_cli(["config", "starter_app", "--config", str(folder), "--json"]).stdout)
    assert listing["problems"] == expected(tmp_path)
    assert "tools.timeout" in listing["settings"] and "tools.timout" not in listing["settings"]


def test_mesh_run_stops_with_the_same_problems(tmp_path: Path) -> None:
    result = run_cli(["run", "starter_app", "--config", str(config(tmp_path, KEY_TYPOS)), "--port", "0"])
    assert result.returncode == 1
    assert [line.removeprefix("  - ") for line in result.stderr.splitlines()[1:]] == expected(tmp_path)


def test_another_agent_s_section_is_not_a_typo(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # the calculator shares the starter's application.yaml, whose `greeting:` only the starter reads
    shared = "greeting:\n  template: 'Hi {name}'\n"
    with caplog.at_level(logging.WARNING, logger="mesh_framework"):
        MeshApplication.load("starter_app.calculator", config=config(tmp_path, shared), environ={})
    assert not [r.getMessage() for r in caplog.records if "greeting" in r.getMessage()]
    strict = shared + "config:\n  strict: true\n"
    with pytest.raises(WiringError, match=r"greeting \(from .*application\.yaml:2\): no settings section"):
        MeshApplication.load("starter_app.calculator", config=config(tmp_path, strict), environ={})


def test_an_agent_without_typos_loads_no_suggestion_machinery() -> None:
    """Start-up cost: difflib (1 ms to import) is loaded for a suggestion only; the starter app loads
    without it, and without the models of list and mapping entries (`config/entries.py`)."""
    code = (
        "import sys\n"
        "from mesh_framework.app import MeshApplication\n"
        "MeshApplication.load('starter_app', cli={'registry.enabled': False})\n"
        "print(json.dumps(sorted({'difflib', 'mesh_framework.config.entries'} & set(sys.modules))))\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    done = subprocess.run(
        [sys.executable, "-c", "import json\n" + code],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []
