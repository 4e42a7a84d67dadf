"""The Python examples of docs/jobs.md run, in order, in one namespace."""

from __future__ import annotations

import re

from .agents import ROOT

DOC = ROOT / "docs" / "jobs.md"


def test_jobs_page_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 5
    namespace: dict[str, object] = {"__name__": "docs_jobs"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert {"reindex", "backup", "plan_trip", "orchestrate", "purge", "book_trip"} <= namespace.keys()
