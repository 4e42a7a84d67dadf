"""docs/routes.md: its titled Python blocks are written to a project folder, its other Python blocks run in
order against those packages; its YAML block is a valid settings file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mesh_framework.config.settings import MeshSettings

from .agents import ROOT
from .docs_examples import BLOCK, run_examples

DOC = ROOT / "docs" / "routes.md"

pytestmark = pytest.mark.timeout(60)


def test_routes_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    run_examples(
        blocks,
        DOC,
        tmp_path,
        monkeypatch,
        files={"docs_web/__init__.py", "docs_api/__init__.py"},
        runs=2,
        python_files_only=True,
    )


def test_routes_page_settings_are_valid() -> None:
    [settings] = [code for kind, title, code in BLOCK.findall(DOC.read_text()) if kind == "yaml"]
    web = MeshSettings.model_validate(yaml.safe_load(settings)).web
    assert web.static[0].path == "/" and web.static[0].directory == "static"
    assert web.cors.enabled and web.cors.allow_origins == ["http://localhost:5173"]
