"""docs/services.md, section "Service interfaces": its titled block is written to a project folder, its
other Python blocks run in order against that project."""

from __future__ import annotations

from pathlib import Path

import pytest

from .agents import ROOT
from .docs_examples import BLOCK, run_examples, section

DOC = ROOT / "docs" / "services.md"

pytestmark = pytest.mark.timeout(60)


def test_service_interfaces_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(section(DOC.read_text(), "Service interfaces"))
    run_examples(blocks, DOC, tmp_path, monkeypatch, files={"docs_media/__init__.py"}, runs=2)
