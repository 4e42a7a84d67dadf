"""docs/callbacks.md: each Python block runs alone in a fresh `mesh new shop --catalog` project (whose
`notes` server the first one starts), with the framework installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "callbacks.md"

pytestmark = pytest.mark.timeout(90)


def test_callbacks_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(DOC.read_text(), DOC, new_project(tmp_path, catalog=True), framework_site, files=set(), runs=6)
