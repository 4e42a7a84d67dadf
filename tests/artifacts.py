"""Where browser tests keep their screenshots.

Every run writes them under `build/test-artifacts/` (git-ignored), so running the suite leaves the tree as
it was. The screenshots the docs show are the same files: `MESH_UPDATE_DOCS_IMAGES=1 .venv/bin/pytest
tests/console/test_console_page.py tests/starter/test_starter_chat_page.py` writes them to `docs/images/`
instead.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "build" / "test-artifacts"
DOCS_IMAGES = ROOT / "docs" / "images"


def screenshot_path(name: str, *, docs: bool = False) -> Path:
    """The file to write screenshot `name` to: `docs/images/` for a docs image when asked to update them."""
    folder = DOCS_IMAGES if docs and os.environ.get("MESH_UPDATE_DOCS_IMAGES") == "1" else ARTIFACTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
