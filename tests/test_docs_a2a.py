"""docs/a2a.md: its titled block is written to a project folder, its other Python blocks run in order
against that project."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from .agents import ROOT

DOC = ROOT / "docs" / "a2a.md"
BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)

pytestmark = pytest.mark.timeout(60)


def test_a2a_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    files = {title: code for _, title, code in blocks if title}
    assert set(files) == {"docs_a2a/__init__.py"}
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_a2a_page"}
    runs = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(runs) == 2
    try:
        for code in runs:
            exec(compile(code, str(DOC), "exec"), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] == "docs_a2a"]:
            del sys.modules[module]
