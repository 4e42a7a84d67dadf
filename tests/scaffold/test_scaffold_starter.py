"""starter_app and the `mesh new` template stay one thing.

`mesh new starter_app --agent calculator --llm --catalog` generates what starter_app holds: the agent, the
component and its typed config section, the tools, the second agent, the catalog server, the settings. The
comparison is of meaning, not bytes: Python modules as syntax trees without their module docstrings and
imports (the import grouping differs, since mesh_framework is first-party here), the agent classes without
their names, docstrings and `name=`; settings and catalog files as data. starter_app may hold a few extra
definitions, listed below, that a new project does not need.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml

from mesh_framework.scaffold import create_project

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    "starter_app/__init__.py",
    "starter_app/greeting.py",
    "starter_app/tools.py",
    "starter_app/clients.py",
    "starter_app/azure.py",
    "starter_app/calculator.py",
    "starter_app/servers/notes.py",
]
DATA = [
    "config/application.yaml",
    "config/application-dev.yaml",
    "config/application-azure.yaml",
    "config/mcp-servers.json",
]
# What starter_app shows beyond a new project (a tool timeout, a background tool, the caller's identity),
# and the imports only they need.
STARTER_ONLY = {
    "starter_app/tools.py": {
        "slow_echo",
        "countdown",
        "Caller",
        "whoami",
        "import asyncio",
        "from mesh_framework import JobContext",
        "from mesh_framework import ToolContext",
    }
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("generated") / "starter_app"
    return create_project("starter_app", directory=folder, agents=["calculator"], llm=True, catalog=True)


def meaning(path: Path) -> tuple[dict[str, str], set[str]]:
    """Top-level definitions (name → normalized source) and imports of a module."""
    definitions: dict[str, str] = {}
    imports: set[str] = set()
    body = ast.parse(path.read_text()).body
    if body and _is_docstring(body[0]):
        body = body[1:]
    for node in body:
        if isinstance(node, ast.ImportFrom):
            imports |= {f"from {node.module} import {alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            imports |= {f"import {alias.name}" for alias in node.names}
        elif isinstance(node, ast.ClassDef) and _is_agent(node):
            definitions["<agent class>"] = ast.unparse(_anonymous(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[node.name] = ast.unparse(node)
        else:
            definitions[f"<line {node.lineno}>"] = ast.unparse(node)
    return definitions, imports


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_agent(node: ast.ClassDef) -> bool:
    return any(
        isinstance(d, ast.Call) and getattr(d.func, "id", "") == "mesh_agent" for d in node.decorator_list
    )


def _anonymous(node: ast.ClassDef) -> ast.ClassDef:
    node.name = "Agent"
    node.body = [n for n in node.body if not _is_docstring(n)] or [ast.Pass()]
    for decorator in node.decorator_list:
        assert isinstance(decorator, ast.Call)
        decorator.keywords = [k for k in decorator.keywords if k.arg != "name"]
    return node


@pytest.mark.parametrize("module", MODULES)
def test_the_template_generates_starter_app(generated: Path, module: str) -> None:
    starter_definitions, starter_imports = meaning(ROOT / module)
    definitions, imports = meaning(generated / module)
    only = STARTER_ONLY.get(module, set())
    for name, source in definitions.items():
        assert name in starter_definitions, f"{module}: the template makes {name}, starter_app lacks it"
        assert source == starter_definitions[name], f"{module}: {name} differs from starter_app's"
    extra = (set(starter_definitions) - set(definitions)) | (starter_imports - imports)
    assert extra <= only, (
        f"{module}: starter_app has {sorted(extra - only)} that the template lacks: change "
        "mesh_framework/scaffold/templates too (or list it in STARTER_ONLY)"
    )
    assert imports <= starter_imports, f"{module}: imports {sorted(imports - starter_imports)}"


@pytest.mark.parametrize("name", DATA)
def test_settings_and_catalog_are_starter_app_s(generated: Path, name: str) -> None:
    load = json.loads if name.endswith(".json") else yaml.safe_load
    assert load((generated / name).read_text()) == load((ROOT / name).read_text())


def test_the_agent_names_follow_the_project(generated: Path) -> None:
    # the only normalized value: the first agent is named after the project (starter_app calls it `starter`)
    assert 'name="starter-app"' in (generated / "starter_app/__init__.py").read_text()
    assert 'name="starter"' in (ROOT / "starter_app/__init__.py").read_text()
    assert 'name="calculator"' in (generated / "starter_app/calculator.py").read_text()
