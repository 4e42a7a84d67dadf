"""One exception hierarchy for everything the framework raises on purpose."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "CapabilityUnavailable",
    "CatalogError",
    "ConfigError",
    "display_path",
    "MeshError",
    "ToolExecutionError",
    "WiringError",
]


def display_path(path: str | Path) -> str:
    """A path as problem reports show it: relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class MeshError(Exception):
    """Base class of every error raised by mesh_framework."""


class ConfigError(MeshError):
    """Settings could not be loaded or validated; `problems` lists each one, already formatted."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("Invalid configuration:\n" + "\n".join(f"  - {p}" for p in problems))


class CatalogError(ConfigError):
    """An MCP server catalog (definitions, files, names) is invalid; each problem names the server or file."""

    def __init__(self, problems: str | list[str]) -> None:
        super().__init__([problems] if isinstance(problems, str) else problems)
        if len(self.problems) == 1:
            self.args = (self.problems[0],)


class WiringError(MeshError):
    """The container could not be assembled; `problems` lists every wiring problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"{len(problems)} wiring problem(s) found before start-up:\n"
            + "\n".join(f"  - {p}" for p in problems)
        )


class CapabilityUnavailable(MeshError):
    """No agent provides a capability right now: a missing dependency, not a failure (a route answers
    503 naming `capability`). Features raise their own kinds of it (a model served by no provider agent)."""

    capability: str = ""


class ToolExecutionError(MeshError):
    """A remote tool answered with `isError: true` (or could not be reached).

    `definition` is the tool callback's definition when the call went through one; `result` is the MCP
    `CallToolResult` (wire dict) the server answered, when it answered one.
    """

    def __init__(
        self,
        message: str,
        *,
        tool: str = "",
        agent: str = "",
        definition: Any = None,
        result: Mapping[str, Any] | None = None,
    ) -> None:
        self.message = message
        self.tool = tool
        self.agent = agent
        self.definition = definition
        self.result = result
        where = f"{tool}@{agent}" if agent else tool
        super().__init__(f"{where}: {message}" if where else message)
