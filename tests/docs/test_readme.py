"""The examples of the README (the checkout's own, with its starter) run as written; its test example as a
user's test file. docs/testing.md's run in a fresh project: tests/docs/test_docs_testing.py."""

from __future__ import annotations

import re

import pytest

from ..agents import ROOT


def test_the_readme_testing_example_passes(pytester: pytest.Pytester) -> None:
    text = (ROOT / "README.md").read_text()
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "def test_" in b]
    pytester.makeini("[pytest]\nmesh_app = starter_app\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_greeting=block)
    pytester.syspathinsert(ROOT)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_the_other_readme_examples_run() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "def test_" not in b]
    assert len(blocks) >= 2
    namespace: dict[str, object] = {"__name__": "readme_examples"}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert {"StarterAgent", "calc", "ask"} <= namespace.keys()
