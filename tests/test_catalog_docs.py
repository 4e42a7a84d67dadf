"""The Python examples of docs/catalog.md run, in order, in one namespace, in an empty folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .agents import ROOT

DOC = ROOT / "docs" / "catalog.md"


def test_catalog_page_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 10
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_catalog"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    out = capsys.readouterr().out
    assert "HttpDefinition(url='https://api.githubcopilot.com/mcp/', headers=['Authorization'])" in out
    assert "the variable GITHUB_TOKEN is not defined" in out
    assert "unknown MCP server(s): jira, slack" in out
    assert "MCP server 'filesystem' is a local process (stdio)" in out
