"""Project and agent names: what `mesh new` accepts, and the package, module, agent and class names made
from them (`my-shop` → package `my_shop`, agent `my-shop`, class `MyShopAgent`)."""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidNameError

__all__ = ["AgentName", "ProjectNames", "agent_names", "project_names"]

_NAME = re.compile(r"[a-z](?:[a-z0-9_-]*[a-z0-9])?")
_RULE = (
    "lowercase letters, digits, '-' and '_', starting with a letter and ending with a letter or digit "
    "(e.g. 'my-agent', whose package is 'my_agent')"
)

# Import names a project's package must not take: it would hide the framework, a package the framework
# runs on, or the project's own folders.
_TAKEN = frozenset(
    {
        "anthropic",
        "config",
        "dependency_injector",
        "httpcore2",
        "httptools",
        "httpx2",
        "jinja2",
        "mcp",
        "mesh_framework",
        "openai",
        "pydantic",
        "pydantic_settings",
        "pytest",
        "rich",
        "starlette",
        "test",
        "tests",
        "uvicorn",
        "watchfiles",
        "yaml",
    }
)
# Modules of the generated package, which another agent's module must not replace.
_MODULES = frozenset({"greeting", "tools", "servers", "prompts"})


@dataclass(frozen=True)
class ProjectNames:
    """The names made from a project name."""

    project: str
    package: str
    agent: str
    class_name: str


@dataclass(frozen=True)
class AgentName:
    """One more agent of the project: its module (`order_book`), agent name (`order-book`) and class."""

    module: str
    name: str
    class_name: str


def project_names(name: str) -> ProjectNames:
    """Names for project `name`; InvalidNameError saying what is allowed when it cannot be used."""
    package = _identifier(name, "project")
    if package in sys.stdlib_module_names:
        raise InvalidNameError(
            f"project name '{name}': '{package}' is a module of Python's standard library, which the "
            "project's package would hide; choose another name"
        )
    if package in _TAKEN:
        raise InvalidNameError(
            f"project name '{name}': a package named '{package}' would hide "
            f"{_hidden(package)}; choose another name"
        )
    return ProjectNames(name, package, package.replace("_", "-"), _camel(package) + "Agent")


def agent_names(names: Iterable[str], project: ProjectNames) -> list[AgentName]:
    """Names of the project's other agents, in order; InvalidNameError for a name that cannot be used."""
    agents: list[AgentName] = []
    for name in names:
        module = _identifier(name, "agent")
        agent = module.replace("_", "-")
        if module in _MODULES:
            raise InvalidNameError(
                f"agent name '{name}': the package already has a module '{module}'; "
                f"choose a name other than {', '.join(sorted(_MODULES))}"
            )
        if agent == project.agent:
            raise InvalidNameError(
                f"agent name '{name}': the project's first agent is already named '{project.agent}'"
            )
        if any(other.module == module for other in agents):
            raise InvalidNameError(f"agent name '{name}' is given twice")
        agents.append(AgentName(module, agent, _camel(module) + "Agent"))
    return agents


def _identifier(name: str, kind: str) -> str:
    if not name or not name.strip():
        raise InvalidNameError(f"the {kind} name is empty; use {_RULE}")
    if not _NAME.fullmatch(name):
        hint = re.sub(r"[^a-z0-9_-]+", "-", name.strip().lower()).strip("-_")
        suggestion = f"; try '{hint}'" if hint and _NAME.fullmatch(hint) and hint != name else ""
        raise InvalidNameError(f"{kind} name '{name}' is not allowed: use {_RULE}{suggestion}")
    identifier = name.replace("-", "_")
    if keyword.iskeyword(identifier):
        raise InvalidNameError(
            f"{kind} name '{name}': '{identifier}' is a Python keyword and cannot name a module"
        )
    return identifier


def _hidden(package: str) -> str:
    if package == "mesh_framework":
        return "the framework itself"
    if package in {"config", "tests", "test"}:
        return f"the project's own '{package}' folder"
    return f"the installed package '{package}'"


def _camel(identifier: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in identifier.split("_"))
