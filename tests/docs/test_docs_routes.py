"""docs/routes.md: its titled Python blocks are written into a fresh `mesh new` project, and each of its
other Python blocks runs there alone, with the framework installed; its YAML block is a valid settings
file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mesh_framework.config.settings import MeshSettings

from ..agents import ROOT
from ..docs_examples import BLOCK, framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "routes.md"

pytestmark = pytest.mark.timeout(90)


def test_routes_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(
        DOC.read_text(),
        DOC,
        new_project(tmp_path),
        framework_site,
        files={"docs_web/__init__.py", "docs_api/__init__.py"},
        runs=3,
        python_files_only=True,
    )


def test_routes_page_settings_are_valid() -> None:
    [settings] = [code for kind, title, code in BLOCK.findall(DOC.read_text()) if kind == "yaml"]
    web = MeshSettings.model_validate(yaml.safe_load(settings)).web
    assert web.static[0].path == "/" and web.static[0].directory == "static"
    assert web.cors.enabled and web.cors.allow_origins == ["http://localhost:5173"]
