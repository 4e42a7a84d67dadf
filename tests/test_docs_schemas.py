"""docs/services.md, sections "Schema matching" and "The resolution audit": the titled block is written to
a project folder, the other Python blocks run in order against it, in one namespace."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from .agents import ROOT

DOC = ROOT / "docs" / "services.md"
BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)

pytestmark = pytest.mark.timeout(60)


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_schema_matching_and_audit_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = DOC.read_text()
    blocks = [
        b
        for title in ("Schema matching", "The resolution audit")
        for b in BLOCK.findall(_section(text, title))
    ]
    files = {title: code for _, title, code in blocks if title}
    assert set(files) == {"docs_viewer/__init__.py"}
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_schemas"}
    runs = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(runs) == 3
    try:
        for code in runs:
            exec(compile(code, str(DOC), "exec", dont_inherit=True), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] == "docs_viewer"]:
            del sys.modules[module]
