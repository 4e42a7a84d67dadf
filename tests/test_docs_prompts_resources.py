"""docs/prompts-resources.md: its titled blocks are written to a project folder, its other Python blocks
run in order against that project."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agents import ROOT
from .docs_examples import BLOCK, run_examples

DOC = ROOT / "docs" / "prompts-resources.md"


def test_prompts_resources_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    run_examples(
        blocks,
        DOC,
        tmp_path,
        monkeypatch,
        files={
            "docs_agent/__init__.py",
            "docs_agent/content.py",
            "docs_agent/prompts/release_notes.md",
            "docs_agent/config/application.yaml",
            "docs_agent/handbook/oncall.md",
        },
        runs=3,
    )
