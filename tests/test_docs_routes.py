"""docs/routes.md: its titled Python blocks are written to a project folder, its other Python blocks run in
order against those packages; its YAML block is a valid settings file."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import yaml

from mesh_framework.config.settings import MeshSettings

from .agents import ROOT

DOC = ROOT / "docs" / "routes.md"
BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)

pytestmark = pytest.mark.timeout(60)


def test_routes_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    files = {title: code for kind, title, code in blocks if title and kind == "python"}
    assert set(files) == {"docs_web/__init__.py", "docs_api/__init__.py"}
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_routes"}
    runs = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(runs) == 2
    try:
        for code in runs:
            exec(compile(code, str(DOC), "exec"), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] in ("docs_web", "docs_api")]:
            del sys.modules[module]


def test_routes_page_settings_are_valid() -> None:
    [settings] = [code for kind, title, code in BLOCK.findall(DOC.read_text()) if kind == "yaml"]
    web = MeshSettings.model_validate(yaml.safe_load(settings)).web
    assert web.static[0].path == "/" and web.static[0].directory == "static"
    assert web.cors.enabled and web.cors.allow_origins == ["http://localhost:5173"]
