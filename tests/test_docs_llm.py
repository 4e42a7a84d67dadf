"""The Python examples of docs/llm.md run, in order, in one namespace."""

from __future__ import annotations

import re

from .agents import ROOT

DOC = ROOT / "docs" / "llm.md"


def test_llm_page_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "docs_llm"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert "calculate" in namespace and "gpt" in namespace
