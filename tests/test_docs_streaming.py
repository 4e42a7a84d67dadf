"""docs/streaming.md: its titled block is written to a project folder, its other Python blocks run in
order against that project."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agents import ROOT
from .docs_examples import BLOCK, run_examples

DOC = ROOT / "docs" / "streaming.md"

pytestmark = pytest.mark.timeout(60)


def test_streaming_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    run_examples(
        blocks, DOC, tmp_path, monkeypatch, files={"docs_stream/__init__.py", "docs_chat/__init__.py"}, runs=3
    )
