"""docs/di.md: its titled blocks are written into a fresh `mesh new` project, the package its `pyproject.toml`
block describes is installed there (a `.dist-info` with its entry points, as an installer leaves it), each
of its other Python blocks runs there alone with the framework installed, and `mesh beans` prints what the
page shows."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, page_blocks, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "di.md"

pytestmark = pytest.mark.timeout(120)


def install_entry_points(project: Path, text: str) -> None:
    """What `pip install` leaves for the page's `pyproject.toml` block: its name, version and entry points."""
    [pyproject] = [tomllib.loads(b.code) for b in page_blocks(text) if b.kind == "toml"]
    meta = pyproject["project"]
    info = project / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n"
    )
    groups = meta["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
            for group, points in groups.items()
        )
    )


def shown_report(text: str) -> tuple[str, str]:
    """The page's `mesh beans` block: the command typed and what it printed."""
    [block] = [b.code for b in page_blocks(text) if b.kind == "text" and b.code.startswith("$ mesh beans")]
    command, _, output = block.partition("\n")
    return command.removeprefix("$ "), output


def test_di_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    text = DOC.read_text()
    project = new_project(tmp_path)
    install_entry_points(project, text)
    run_page(
        text,
        DOC,
        project,
        framework_site,
        files={"docs_beans/__init__.py", "docs_cache_starter/__init__.py"},
        runs=6,
    )
    command, output = shown_report(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTHON"))}
    env["PYTHONPATH"] = os.pathsep.join([str(project), str(framework_site)])
    env["NO_COLOR"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "mesh_framework.cli", *command.split()[1:]],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == output
