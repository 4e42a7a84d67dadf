"""What the `mesh` command says, through the real entry point: its version, errors that begin with the
command and name the app, no Python API words in its messages."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from ..agents import run_cli


def test_version() -> None:
    result = run_cli(["--version"])
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == f"mesh {importlib.metadata.version('mesh-framework')}\n"


def test_settings_and_wiring_errors_begin_with_the_command_and_name_the_app() -> None:
    wiring = run_cli(["run", "tests.apps.wiring_bad", "--port", "0"])
    assert wiring.returncode == 1
    first, *problems = wiring.stderr.splitlines()
    assert first == "mesh run: tests.apps.wiring_bad: 5 wiring problem(s) found before start-up:"
    assert len(problems) == 5 and all(line.startswith("  - ") for line in problems)
    settings = run_cli(["config", "starter_app", "--profile", "nope"])
    assert settings.returncode == 1
    assert settings.stderr.startswith(
        "mesh config: starter_app: Invalid configuration:\n  - profiles = 'nope'"
    )


def test_a_format_that_does_not_exist_is_a_usage_error() -> None:
    result = run_cli(["catalog", "export", "starter_app", "--format", "claud"])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "mesh catalog export: unknown --format 'claud'; did you mean 'claude'? "
        "the formats: claude, vscode, gemini, anthropic, openai\n"
    )


def test_new_over_existing_files_names_the_options_not_the_python_api(tmp_path: Path) -> None:
    assert run_cli(["new", "shop"], cwd=tmp_path).returncode == 0
    again = run_cli(["new", "shop"], cwd=tmp_path)
    assert again.returncode == 1
    assert again.stderr.startswith(f"mesh new: {tmp_path.resolve() / 'shop'} already has ")
    assert again.stderr.endswith("choose another --directory, or overwrite them with --force\n")
    assert "force=True" not in again.stderr
