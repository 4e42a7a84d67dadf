"""Commands in an agent: planned at load (names, schemas, problems), served as wrappers at build."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..config.loader import LoadedSettings
from ..config.settings import MeshSettings
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .discovery import CommandPlan, plan_commands
from .tool import CommandTool

__all__ = ["add_command_tools", "plan_agent_commands"]


def plan_agent_commands(
    loaded: LoadedSettings, modules: Sequence[str], tools: Sequence[Any]
) -> tuple[list[CommandPlan], list[str]]:
    """The command tools of an agent whose function tools are `tools` (plans), and every problem."""
    taken = {plan.name: f"tool '{plan.key}'" for plan in tools}
    return plan_commands(loaded, modules, taken)


def add_command_tools(
    registry: MeshToolWrapperRegistry, plans: Sequence[CommandPlan], settings: MeshSettings
) -> MeshToolWrapperRegistry:
    for plan in plans:
        registry.add(
            CommandTool(
                plan, keep_lines=settings.commands.output_lines, kill_grace=settings.commands.kill_grace
            )
        )
    return registry
