"""Running a docs page's examples: its titled blocks are written as a project, its other Python blocks run
in order against that project, in one namespace, as a reader would run them."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)

Block = tuple[str, str, str]  # kind, title ("" when none), code


def section(text: str, title: str) -> str:
    """The part of a page under `## title`, up to the next `## ` heading."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def run_examples(
    blocks: list[Block],
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    files: set[str],
    runs: int,
    python_files_only: bool = False,
) -> None:
    """Write the titled blocks (only Python ones with `python_files_only`) under `tmp_path`, checking they
    are `files`; run the `runs` untitled Python blocks there with no `MESH_`/`MCP_MESH_` variable set; unload
    the project's packages afterwards."""
    written = {
        title: code for kind, title, code in blocks if title and (kind == "python" or not python_files_only)
    }
    assert set(written) == files
    for name, code in written.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    codes = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(codes) == runs
    packages = {name.split("/")[0] for name in written}
    namespace: dict[str, object] = {"__name__": f"docs_{source.stem.replace('-', '_')}_page"}
    try:
        for code in codes:
            exec(compile(code, str(source), "exec", dont_inherit=True), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] in packages]:
            del sys.modules[module]
