"""docs/commands.md: its file blocks are written to a project folder, its other Python blocks run in
order against that project (real commands in child processes)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from .agents import ROOT

DOC = ROOT / "docs" / "commands.md"
FILE_BLOCK = re.compile(r"^# ([\w/]+\.(?:py|yaml))\n")


def test_commands_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```(python|yaml)\n(.*?)```", DOC.read_text(), flags=re.S)
    files = {m.group(1): code for _, code in blocks if (m := FILE_BLOCK.match(code))}
    assert set(files) == {
        "ops/cli.py",
        "ops/admin.py",
        "ops_agent/__init__.py",
        "ops_agent/config/application.yaml",
        "ops_agent/status.py",
    }
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    (tmp_path / "ops" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    for prefix in ("MESH_", "MCP_MESH_"):
        for key in [k for k in list(__import__("os").environ) if k.startswith(prefix)]:
            monkeypatch.delenv(key)
    monkeypatch.setenv("MESH_REGISTRY__ENABLED", "false")
    namespace: dict[str, object] = {"__name__": "docs_commands"}
    try:
        runs = [code for kind, code in blocks if kind == "python" and not FILE_BLOCK.match(code)]
        assert len(runs) >= 5
        for code in runs:
            exec(compile(code, str(DOC), "exec"), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] in ("ops", "ops_agent")]:
            del sys.modules[module]
