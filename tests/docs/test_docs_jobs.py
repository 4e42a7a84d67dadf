"""docs/jobs.md: its titled block is written into a fresh `mesh new` project, and each of its other Python
blocks runs there alone, with the framework installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "jobs.md"

pytestmark = pytest.mark.timeout(90)


def test_jobs_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(
        DOC.read_text(), DOC, new_project(tmp_path), framework_site, files={"docs_jobs/__init__.py"}, runs=4
    )
