"""The `mesh` command: `mesh config` prints every value with its origin; errors are clear and non-zero."""

from __future__ import annotations

from tests.agents import run_cli


def test_mesh_config_prints_values_with_origins() -> None:
    result = run_cli(["config", "starter_app", "--profile", "dev"], env={"MESH_REGISTRY__TOKEN": "hunter2"})
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert "code (@mesh_agent parameter)" in rows["agent.name"]
    assert "config/application-dev.yaml:3" in rows["server.port"]
    assert "config/application.yaml:" in rows["server.path"]
    assert "command line (--profile)" in rows["profiles"]
    assert "generated" in rows["agent.id"]
    assert "******" in rows["registry.token"] and "hunter2" not in result.stdout
    assert "config/application-dev.yaml:5" in rows["greeting.excited"]
    plain = run_cli(["config", "starter_app"])
    excited = next(line for line in plain.stdout.splitlines() if line.startswith("greeting.excited"))
    assert excited.split()[1:] == ["false", "default"]  # typed sections show their defaults too


def test_cli_value_beats_everything() -> None:
    result = run_cli(["config", "starter_app", "--port", "9123"], env={"MCP_MESH_HTTP_PORT": "9000"})
    row = next(line for line in result.stdout.splitlines() if line.startswith("server.port"))
    assert "9123" in row and "command line (--port)" in row


def test_missing_app_and_unknown_profile_are_clear_errors() -> None:
    missing = run_cli(["run"])
    assert missing.returncode == 2
    assert "name the application module" in missing.stderr
    profile = run_cli(["config", "starter_app", "--profile", "nope"])
    assert profile.returncode == 1
    assert "application-nope.yaml not found" in profile.stderr
    assert "Traceback" not in profile.stderr


def test_wiring_errors_exit_non_zero_with_all_problems() -> None:
    result = run_cli(["run", "tests.apps.wiring_bad", "--port", "0"])
    assert result.returncode == 1
    assert "5 wiring problem(s) found before start-up" in result.stderr
    assert "serving" not in result.stderr
