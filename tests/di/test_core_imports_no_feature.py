"""The core imports no feature: no module of the core (settings, the container, tools, the MCP endpoint, the
mesh client, security, errors, specs and decorators, the HTTP edge) imports, even inside a function or for
type checking only, a module of a feature package (LLM, jobs, A2A, media, routes, the registry, ...). A
feature plugs into the core through the extension points the core defines (docs/architecture.md).

Every import that broke the rule has moved: the imports left to move are listed in TO_MOVE, 0 of them, and
the list stays empty. A new core-to-feature import fails; should one ever be listed while it moves, the
listed one fails once gone, until it is removed from the list (and the count above lowered).
"""

from __future__ import annotations

import ast
import re

from .test_import_direction import import_graph, imported, modules

PACKAGE = "mesh_framework"

# Top-level modules and packages of mesh_framework, each in one layer.
CORE = {
    "_frozen",
    "_lazy",
    "_version",
    "argument_completion",
    "config",
    "content",
    "deadline",
    "decorators",
    "di",
    "edge",
    "errors",
    "events",
    "extension",
    "failures",
    "injectables",
    "input_required",
    "observation",
    "logs",
    "mesh",
    "propagation",
    "protocol",
    "remote_features",
    "resolution_audit",
    "schemas",
    "security",
    "serving",
    "specs",
    "sse",
    "stream",
    "tested_versions",
    "tools",
}
FEATURES = {
    "a2a",
    "callbacks",
    "catalog",
    "command_tools",
    "console_feed",
    "health",
    "jobs",
    "llm",
    "media",
    "mesh_gateway",
    "metrics",
    "openapi",
    "prompts",
    "registry",
    "resources",
    "routes",
    "services",
    "skills",
    "status",
    "tracing",
}
# What puts the two together (the application, the `mesh` command, the test kit): free to import both.
ASSEMBLY = {"app", "application", "cli", "fastapi", "install", "launcher", "scaffold", "testing"}

# Core -> feature imports still to move onto an extension point: "importer -> imported" (module names
# without the `mesh_framework.` prefix). Only ever remove lines (and lower the count in the docstring).
TO_MOVE = """
"""


def _layer(module: str) -> str | None:
    top = module.split(".")[1] if "." in module else ""
    for name, members in (("core", CORE), ("feature", FEATURES), ("assembly", ASSEMBLY)):
        if top in members:
            return name
    return None


def _short(module: str) -> str:
    return module.removeprefix(f"{PACKAGE}.")


def core_to_feature_imports() -> set[str]:
    """Every import of a core module that loads a feature module, as `importer -> imported`."""
    found = set()
    for importer, targets in import_graph().items():
        if _layer(importer) != "core":
            continue
        found |= {f"{_short(importer)} -> {_short(t)}" for t in targets if _layer(t) == "feature"}
    return found


def to_move() -> list[str]:
    return [line.strip() for line in TO_MOVE.strip().splitlines()]


def test_every_module_is_in_one_layer() -> None:
    assert not CORE & FEATURES and not CORE & ASSEMBLY and not FEATURES & ASSEMBLY
    unplaced = sorted(m for m in modules() if m != PACKAGE and _layer(m) is None)
    assert unplaced == [], f"put each in CORE, FEATURES or ASSEMBLY of {__name__}: {unplaced}"


def test_the_core_imports_no_new_feature() -> None:
    new = sorted(core_to_feature_imports() - set(to_move()))
    assert new == [], (
        "the core imports a feature; let the feature plug into an extension point of the core "
        "(docs/architecture.md, 'Extension points') instead:\n  " + "\n  ".join(new)
    )


def test_the_imports_to_move_only_shrink() -> None:
    listed = to_move()
    assert len(listed) == len(set(listed)), "TO_MOVE lists an import twice"
    gone = sorted(set(listed) - core_to_feature_imports())
    assert gone == [], (
        "moved, so remove from TO_MOVE (and lower the count in the docstring):\n  " + "\n  ".join(gone)
    )
    stated = re.search(r"listed in TO_MOVE, (\d+) of them", __doc__ or "")
    assert stated is not None and int(stated.group(1)) == len(listed), (
        f"{len(listed)} core-to-feature imports left to move: say so in the module docstring"
    )


def test_function_local_and_type_checking_imports_count() -> None:
    """Imports inside a function or under `if TYPE_CHECKING:` are found as module-level ones are."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ..jobs.service import JobService\n"
        "def build() -> None:\n"
        "    from ..llm import wiring\n"
    )
    known = set(modules())
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= imported(f"{PACKAGE}.di.container", False, node, known)
    assert found == {f"{PACKAGE}.jobs.service", f"{PACKAGE}.llm.wiring"}
    assert {_layer(m) for m in found} == {"feature"}
