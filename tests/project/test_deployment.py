"""docs/deployment.md's container image installs a `mesh new` project: the framework's wheel is built from
this checkout as the page says, and the Dockerfile's RUN steps run in a fresh virtual environment (no Docker
engine here) with the project folder as the image's WORKDIR. The installed project then imports from the
venv, `mesh config` loads it, and its own tests pass. The venv (with pip, as the image's Python has it) and
pytest come from uv, from its cache: what the test sets up costs little beside the steps it checks."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mesh_framework.scaffold import create_project

from ..agents import ROOT

PAGE = ROOT / "docs" / "deployment.md"
UV = ROOT / ".tools" / "bootstrap" / "bin" / "uv"


def dockerfile() -> list[str]:
    blocks = re.findall(r"```dockerfile\n(.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) == 1, "docs/deployment.md shows one Dockerfile"
    return blocks[0].splitlines()


def wheel_command() -> list[str]:
    lines = [line.strip() for line in PAGE.read_text().splitlines() if line.strip().startswith("uv build ")]
    assert len(lines) == 1, "docs/deployment.md says how to build the framework's wheel"
    words = shlex.split(lines[0])
    assert words[-1] == "/path/to/mesh_framework"
    return [str(UV), *words[1:-1], str(ROOT)]


def clean_env(venv: Path) -> dict[str, str]:
    """This process's environment without its own project: no PYTHONPATH, no mesh settings, the venv first."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MESH_", "MCP_MESH_", "PYTEST_", "VIRTUAL_ENV", "PYTHON"))
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def uv_env() -> dict[str, str]:
    return {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}


def run(command: list[str] | str, cwd: Path, env: dict[str, str], timeout: float) -> str:
    result = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        shell=isinstance(command, str),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.timeout(180)  # a bound on a loaded machine: pip alone takes ~30 s on an idle one
def test_the_documented_image_installs_a_new_project(tmp_path: Path) -> None:
    project = create_project("shop", directory=tmp_path / "shop", catalog=True, llm=True)
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())
    assert "mesh-framework" in pyproject["tool"]["uv"]["sources"]  # an absolute path: useless in an image

    venv = tmp_path / "image"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    run([str(UV), "venv", "--quiet", "--seed", "--python", python, str(venv)], tmp_path, uv_env(), 60)
    env = clean_env(venv)
    run(wheel_command(), project, env, 60)
    assert [p.name.split("-")[0] for p in (project / "wheels").glob("*.whl")] == ["mesh_framework"]

    lines = dockerfile()
    assert "WORKDIR /app" in lines and "COPY . ." in lines  # the project folder is the image's /app
    steps = [line.removeprefix("RUN ") for line in lines if line.startswith("RUN ")]
    assert steps and all("pip install" in step or "rm " in step for step in steps)
    for step in steps:
        run(step, project, env, 150)
    assert not (project / "wheels").exists()

    # Imported from the image's site-packages, not from a folder of this checkout.
    where = run(
        [str(venv / "bin" / "python"), "-c", "import mesh_framework, shop; print(mesh_framework.__file__)"],
        tmp_path,
        env,
        30,
    )
    assert where.startswith(str(venv)), where
    shown = run([str(venv / "bin" / "mesh"), "config", "shop"], project, env, 30)
    assert "mcp.catalog" in shown and "mcp-servers.json" in shown

    # The project's own tests (the catalog's `notes` server runs on the image's interpreter).
    run(
        [str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), "pytest"],
        project,
        uv_env(),
        60,
    )
    tests = run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"], project, env, 60
    )
    assert "passed" in tests and "failed" not in tests, tests
