"""docs/openapi.md: its files (a FastAPI service, an agent and its settings) are written into a fresh
`mesh new` project and its example runs there with the framework installed: the service on a loopback
port, its operations called as the agent's tools; what it prints is what the page says it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "openapi.md"

pytestmark = pytest.mark.timeout(120)


def test_openapi_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    text = DOC.read_text()
    out = run_page(
        text,
        DOC,
        new_project(tmp_path),
        framework_site,
        files={
            "inventory_service.py",
            "inventory_agent/__init__.py",
            "inventory_agent/config/application.yaml",
        },
        runs=1,
    )
    printed = text.split("It prints:\n\n", 1)[1].split("\n\n", 1)[0]
    assert out.splitlines() == [line.removeprefix("    ") for line in printed.splitlines()]
