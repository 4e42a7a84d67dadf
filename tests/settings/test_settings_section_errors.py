"""A bad value in the application's own typed section (`@config_properties`) is reported as every other
setting is (key, value, origin, reason; exit 1, no traceback) by `mesh run`, `mesh config` and the pytest
kit, although a component takes the section in its constructor."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mesh_framework.scaffold import create_project
from tests.agents import ROOT, run_cli

ONE_TEST = ["tests/test_tools.py::test_add"]  # a test of the new project that takes mesh_client


def project(tmp_path: Path, max_name_length: str = "40") -> Path:
    """A `mesh new` project (its GreetingService takes GreetingProperties) with `greeting.max-name-length`
    set as given in config/application.yaml."""
    folder = create_project("shop", directory=tmp_path / "shop")
    settings = folder / "config" / "application.yaml"
    text = settings.read_text()
    assert "max-name-length: 40" in text
    settings.write_text(text.replace("max-name-length: 40", f"max-name-length: {max_name_length}"))
    return folder


def assert_reported(stderr: str, *expected: str) -> None:
    assert "Traceback" not in stderr and "AttributeError" not in stderr, stderr
    assert "wiring problem(s) found before start-up" in stderr, stderr
    for text in expected:
        assert text in stderr, stderr


@pytest.mark.parametrize("command", ["config", "run"])
def test_a_bad_value_in_the_file_is_reported_with_its_line(tmp_path: Path, command: str) -> None:
    folder = project(tmp_path, "-3")
    result = run_cli([command, "shop"], cwd=folder)
    assert result.returncode == 1, result.stdout + result.stderr
    assert_reported(
        result.stderr,
        "greeting.max_name_length = -3 (from config/application.yaml:11)",
        "greater than 0",
    )


@pytest.mark.parametrize("command", ["config", "run"])
def test_a_bad_value_in_the_environment_is_reported_with_its_variable(tmp_path: Path, command: str) -> None:
    folder = project(tmp_path)
    result = run_cli([command, "shop"], cwd=folder, env={"MESH_GREETING__EXCITED": "maybe"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert_reported(
        result.stderr,
        "greeting.excited = 'maybe' (from environment variable MESH_GREETING__EXCITED)",
        "valid boolean",
    )


def test_the_pytest_kit_fails_the_test_with_the_problem_and_no_traceback(tmp_path: Path) -> None:
    folder = project(tmp_path, "lots")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(folder)])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", *ONE_TEST],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 error" in result.stdout, result.stdout
    assert "mesh_app 'shop': 1 wiring problem(s) found before start-up" in result.stdout
    assert "greeting.max_name_length = 'lots' (from config/application.yaml:11)" in result.stdout
    assert "Traceback" not in result.stdout and "assembly.py" not in result.stdout, result.stdout
