"""The Python examples of docs/production.md run, in order, in one namespace."""

from __future__ import annotations

import re

from .agents import ROOT

DOC = ROOT / "docs" / "production.md"


def test_production_page_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 2
    namespace: dict[str, object] = {"__name__": "docs_production"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert "reset" in namespace and "TeamVerifier" in namespace


def test_production_page_has_the_sections_operators_look_for() -> None:
    headings = re.findall(r"^## (.+)$", DOC.read_text(), flags=re.M)
    for section in (
        "Registry on PostgreSQL with replicas",
        "TLS",
        "Tokens and authorization",
        "Limits",
        "Faults",
    ):
        assert section in headings
