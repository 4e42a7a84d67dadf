"""docs/media.md: its titled Python block is written to a project folder and its other Python block runs
against that package; its YAML block is a valid settings file."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import yaml

from mesh_framework.config.settings import MeshSettings

from .agents import ROOT

DOC = ROOT / "docs" / "media.md"
BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)

pytestmark = pytest.mark.timeout(60)


def test_media_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(DOC.read_text())
    files = {title: code for kind, title, code in blocks if title and kind == "python"}
    assert set(files) == {"docs_media/__init__.py"}
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    runs = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(runs) == 1
    try:
        exec(compile(runs[0], str(DOC), "exec"), {"__name__": "docs_media_run"})
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] == "docs_media"]:
            del sys.modules[module]


def test_media_page_settings_are_valid() -> None:
    [settings] = [code for kind, title, code in BLOCK.findall(DOC.read_text()) if kind == "yaml"]
    media = MeshSettings.model_validate(yaml.safe_load(settings)).media
    assert (media.storage, media.bucket, media.endpoint) == ("s3", "media-bucket", "http://minio:9000")
    assert (media.inline_max_bytes, media.max_upload_bytes) == (16384, 4194304)
