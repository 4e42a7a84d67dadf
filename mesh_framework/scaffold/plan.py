"""What a project is made of: the files (template → path) for the chosen options, and the values the
templates read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .names import AgentName, ProjectNames

__all__ = ["FIRST_PORT", "PlannedFile", "context", "framework_checkout", "plan"]

FIRST_PORT = 8080  # the first agent's; the others get the next ones, in the order given


@dataclass(frozen=True)
class PlannedFile:
    """One file of the project: rendered from `template` (under `templates/`) to `path` (relative)."""

    template: str
    path: str
    values: Mapping[str, Any] = field(default_factory=dict)


def plan(
    project: ProjectNames, agents: Sequence[AgentName], *, llm: bool, catalog: bool
) -> list[PlannedFile]:
    """Every file of the project, in the order they are written."""
    package = project.package
    files = [
        PlannedFile("pyproject.toml.j2", "pyproject.toml"),
        PlannedFile("README.md.j2", "README.md"),
        PlannedFile("gitignore.j2", ".gitignore"),
        PlannedFile("config/application.yaml.j2", "config/application.yaml"),
        PlannedFile("config/application-dev.yaml.j2", "config/application-dev.yaml"),
        PlannedFile("package/__init__.py.j2", f"{package}/__init__.py"),
        PlannedFile("package/greeting.py.j2", f"{package}/greeting.py"),
        PlannedFile("package/tools.py.j2", f"{package}/tools.py"),
    ]
    files += [
        PlannedFile("package/agent.py.j2", f"{package}/{agent.module}.py", {"agent": agent})
        for agent in agents
    ]
    if catalog:
        files.append(PlannedFile("config/mcp-servers.json.j2", "config/mcp-servers.json"))
    if llm:  # `--profile azure`: `ask`'s OpenAI client is the app's own bean, Azure's
        files.append(PlannedFile("config/application-azure.yaml.j2", "config/application-azure.yaml"))
    if catalog or llm:
        files.append(PlannedFile("package/clients.py.j2", f"{package}/clients.py"))
    if llm:
        files.append(PlannedFile("package/azure.py.j2", f"{package}/azure.py"))
    if catalog:
        files += [
            PlannedFile("package/servers/__init__.py.j2", f"{package}/servers/__init__.py"),
            PlannedFile("package/servers/notes.py.j2", f"{package}/servers/notes.py"),
        ]
    if llm:
        files.append(PlannedFile("package/prompts/assistant.j2.j2", f"{package}/prompts/assistant.j2"))
    files.append(PlannedFile("tests/test_tools.py.j2", "tests/test_tools.py"))
    files += [
        PlannedFile("tests/test_agent.py.j2", f"tests/test_{agent.module}_agent.py", {"agent": agent})
        for agent in agents
    ]
    if catalog:
        files.append(PlannedFile("tests/test_jot.py.j2", "tests/test_jot.py"))
    if llm:
        files.append(PlannedFile("tests/test_ask.py.j2", "tests/test_ask.py"))
    return files


def context(
    project: ProjectNames, agents: Sequence[AgentName], *, llm: bool, catalog: bool
) -> dict[str, Any]:
    """The values every template sees."""
    package = project.package
    modules = [f"{package}.{agent.module}" for agent in agents]
    checkout = framework_checkout()
    return {
        "project": project,
        "agents": list(agents),
        "agent_ports": {agent.module: FIRST_PORT + 1 + i for i, agent in enumerate(agents)},
        "llm": llm,
        "catalog": catalog,
        # azure.py imports the openai SDK: only `--profile azure` loads it (clients.py's @imports)
        # azure.py imports the openai SDK: only `--profile azure` loads it (clients.py's @imports)
        "excluded": modules
        + ([f"{package}.azure"] if llm else [])
        + ([f"{package}.servers.*"] if catalog else []),
        "run_apps": " ".join([package, *modules]),
        "tools_imports": _tools_imports(dependent=not agents, llm=llm),
        "framework_path": str(checkout) if checkout else None,
    }


def framework_checkout() -> Path | None:
    """The source checkout this mesh_framework runs from (an editable install), if it is one."""
    import tomllib  # only `mesh new` reads it

    root = Path(__file__).resolve().parents[2]
    try:
        with (root / "pyproject.toml").open("rb") as file:
            name = tomllib.load(file).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return root if name == "mesh-framework" else None


def _tools_imports(*, dependent: bool, llm: bool) -> list[str]:
    names = {"component", "mesh_tool"}
    if dependent:
        names |= {"mesh_service", "selector"}  # sum_of_squares's service interface
    if llm:
        names |= {"MeshLlmAgent", "Stream", "mesh_llm"}
    # isort's order: classes (CamelCase) before functions
    return sorted(names, key=lambda name: (not name[:1].isupper(), name))
