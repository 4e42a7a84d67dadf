"""docs/catalog.md: its Python examples run in a fresh `mesh new` project with the framework installed, the
first alone and each later one continuing the block above (they share the catalog the first one reads); what
they print is what the page says they print."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "catalog.md"

pytestmark = pytest.mark.timeout(90)


def test_catalog_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    out = run_page(DOC.read_text(), DOC, new_project(tmp_path), framework_site, files=set(), runs=1)
    assert "HttpDefinition(url='https://api.githubcopilot.com/mcp/', headers=['Authorization'])" in out
    assert "the variable GITHUB_TOKEN is not defined" in out
    assert "unknown MCP server(s): jira, slack" in out
    assert "MCP server 'filesystem' is a local process (stdio)" in out
