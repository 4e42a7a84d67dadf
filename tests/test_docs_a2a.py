"""docs/a2a.md: its titled block is written to a project folder, its other Python blocks run in order
against that project."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agents import ROOT
from .docs_examples import BLOCK, run_examples

DOC = ROOT / "docs" / "a2a.md"

pytestmark = pytest.mark.timeout(60)


def test_a2a_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    run_examples(blocks, DOC, tmp_path, monkeypatch, files={"docs_a2a/__init__.py"}, runs=2)
