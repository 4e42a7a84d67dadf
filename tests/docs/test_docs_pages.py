"""The Python examples of the getting-started, concepts and deployment pages: each block runs alone in a
fresh `mesh new` project, with the framework installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..agents import ROOT
from ..docs_examples import chains, framework_site, new_project, page_blocks, run_page  # noqa: F401

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize("page", ["index.md", "concepts.md", "deployment.md"])
def test_page_examples_run(page: str, tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    doc = ROOT / "docs" / page
    text = doc.read_text()
    runs = len(chains(page_blocks(text)))
    run_page(text, doc, new_project(tmp_path), framework_site, files=set(), runs=runs)
