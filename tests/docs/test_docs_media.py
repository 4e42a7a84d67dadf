"""docs/media.md: its titled Python block is written into a fresh `mesh new` project and its other Python
block runs there alone, with the framework installed; its YAML block is a valid settings file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mesh_framework.config.settings import MeshSettings

from ..agents import ROOT
from ..docs_examples import BLOCK, framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "media.md"

pytestmark = pytest.mark.timeout(90)


def test_media_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(
        DOC.read_text(),
        DOC,
        new_project(tmp_path),
        framework_site,
        files={"docs_media/__init__.py"},
        runs=1,
        python_files_only=True,
    )


def test_media_page_settings_are_valid() -> None:
    [settings] = [code for kind, title, code in BLOCK.findall(DOC.read_text()) if kind == "yaml"]
    media = MeshSettings.model_validate(yaml.safe_load(settings)).media
    assert (media.storage, media.bucket, media.endpoint) == ("s3", "media-bucket", "http://minio:9000")
    assert (media.inline_max_bytes, media.max_upload_bytes) == (16384, 4194304)
