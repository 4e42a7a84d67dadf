"""docs/services.md, sections "Schema matching" and "The resolution audit": the titled block is written to
a project folder, the other Python blocks run in order against it, in one namespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agents import ROOT
from .docs_examples import BLOCK, run_examples, section

DOC = ROOT / "docs" / "services.md"

pytestmark = pytest.mark.timeout(60)


def test_schema_matching_and_audit_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = DOC.read_text()
    blocks = [
        b
        for title in ("Schema matching", "The resolution audit")
        for b in BLOCK.findall(section(text, title))
    ]
    run_examples(blocks, DOC, tmp_path, monkeypatch, files={"docs_viewer/__init__.py"}, runs=3)
