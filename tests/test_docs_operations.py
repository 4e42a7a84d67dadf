"""The Python examples of the operations page's Health and Metrics sections run, in order."""

from __future__ import annotations

import re

import pytest

from .agents import ROOT


@pytest.mark.parametrize("section", ["Health", "Metrics"])
def test_operations_page_examples_run(section: str) -> None:
    text = (ROOT / "docs" / "operations.md").read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    assert blocks
    namespace: dict[str, object] = {"__name__": f"docs_operations_{section.lower()}"}
    for block in blocks:
        exec(compile(block, "docs/operations.md", "exec"), namespace)
