"""The package a user installs is mesh_framework alone: the wheel built from this checkout holds no
`starter_app`, `tests`, `benchmarks` or `scripts`, so nothing of the repository lands on a project's path;
it does hold the package's own data files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from mesh_framework import __version__

from ..docs_examples import build_wheel, wheel_top_level

pytestmark = pytest.mark.timeout(120)


def test_the_wheel_installs_only_mesh_framework(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    assert wheel_top_level(wheel) == {"mesh_framework", f"mesh_framework-{__version__}.dist-info"}
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mesh_framework/scaffold/templates/pyproject.toml.j2" in names  # what `mesh new` writes
    assert "mesh_framework/registry/ui/page.html" in names  # the mesh page
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
