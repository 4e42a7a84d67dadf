"""The Python examples of the getting-started, concepts and deployment pages run, in order, per page."""

from __future__ import annotations

import re

import pytest

from .agents import ROOT


@pytest.mark.parametrize("page", ["index.md", "concepts.md", "deployment.md"])
def test_page_examples_run(page: str) -> None:
    text = (ROOT / "docs" / page).read_text()
    namespace: dict[str, object] = {"__name__": f"docs_{page[:-3]}"}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        exec(compile(block, f"docs/{page}", "exec"), namespace)
