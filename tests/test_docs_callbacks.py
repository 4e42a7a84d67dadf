"""The Python examples of docs/callbacks.md run, in order, in one namespace."""

from __future__ import annotations

import re

from .agents import ROOT

DOC = ROOT / "docs" / "callbacks.md"


def test_callbacks_page_examples_run(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {"__name__": "docs_callbacks"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert "add_note" in capsys.readouterr().out  # type: ignore[attr-defined]
