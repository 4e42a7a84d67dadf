"""docs/commands.md: its titled blocks are written into a fresh `mesh new` project, and each of its other
Python blocks runs there alone (or continuing the block it names), with the framework installed; the
commands run as real child processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "commands.md"

pytestmark = pytest.mark.timeout(90)


def test_commands_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(
        DOC.read_text(),
        DOC,
        new_project(tmp_path),
        framework_site,
        files={
            "ops/cli.py",
            "ops/admin.py",
            "ops_agent/__init__.py",
            "ops_agent/config/application.yaml",
            "ops_agent/status.py",
        },
        runs=3,
    )
