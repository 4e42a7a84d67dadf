"""What collecting the suite costs: every pytest -n worker collects every test module (importing it and
what it imports) before running its share, so a module's import-time work is paid by every worker, and by
every run that deselects it. Slow SDKs are imported by the tests that use them, and what collection built
is frozen out of the garbage collector's later passes (tests/conftest.py)."""

from __future__ import annotations

import ast
import gc
import re

import pytest

from tests.agents import ROOT
from tests.conftest import COLLECTION_GC

SLOW_TO_IMPORT = (
    "anthropic",
    "openai",
    "a2a",
    "mesh_framework.llm.vendors.anthropic",
    "mesh_framework.llm.vendors.openai",
    "mesh_framework.a2a.a2a_server",
)
"""Slow to import (the vendor SDKs ~2 CPU-s together, a2a-sdk and the A2A server ~0.35) and used by a few
modules."""

IMPORTS = re.compile(
    r"^\s*(import|from)\s.*\b(" + "|".join(re.escape(name) for name in SLOW_TO_IMPORT) + r")\b", re.MULTILINE
)
"""An import statement naming one of them: only the modules with one are parsed."""


def test_collection_leaves_its_objects_frozen_and_the_collector_on(request: pytest.FixtureRequest) -> None:
    frozen, left, enabled = request.config.stash[COLLECTION_GC]
    assert enabled and gc.isenabled()
    # what collection built (every test module's objects) was frozen, so left out of the objects later
    # collections walk (gc.get_objects()); read as collection ended: a test may unfreeze since (serve()
    # freezes the heap, and a test of it unfreezes)
    assert frozen > 10 * max(left, 1000)


def module_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) of each import run when the module is imported: at its top level, or in a block
    there that is not `if TYPE_CHECKING:` (functions and classes' bodies run later, or not at all)."""
    found: list[tuple[int, str]] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            pending.extend(
                statement
                for field in ("body", "orelse", "finalbody")
                for statement in getattr(node, field, [])
            )
            pending.extend(
                statement for handler in getattr(node, "handlers", []) for statement in handler.body
            )
    return found


def test_test_modules_import_slow_sdks_in_the_tests_that_use_them() -> None:
    """A test module importing a slow SDK at module level makes every worker pay for it at collection,
    whether or not it runs that module: import it in the tests (or fixtures) that use it, and name its
    types for annotations under `if TYPE_CHECKING:`."""
    modules = [*(ROOT / "tests").rglob("test_*.py"), *(ROOT / "tests").rglob("conftest.py")]
    assert len(modules) > 200
    slow = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in modules
        if IMPORTS.search(text := path.read_text())
        for line, name in module_level_imports(ast.parse(text))
        if any(name == slow or name.startswith(slow + ".") for slow in SLOW_TO_IMPORT)
    ]
    assert slow == []


def test_the_rule_sees_imports_at_module_level_only() -> None:
    source = """
import openai
from a2a.types import Task
if TYPE_CHECKING:
    import anthropic
else:
    import json
try:
    from mesh_framework.llm.vendors.openai import OpenAIChatModel
except ImportError:
    import os
def test() -> None:
    import anthropic
class Test:
    import a2a
"""
    assert sorted(module_level_imports(ast.parse(source))) == [
        (2, "openai"),
        (3, "a2a.types"),
        (7, "json"),
        (9, "mesh_framework.llm.vendors.openai"),
        (11, "os"),
    ]
