"""The command tools' beans (gated by command_tools/auto_configuration.py): the commands planned while the
app loads, their problems reported with the others; the tools added to the agent's registry."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import LoadPlan, ScannedApp, ToolSource
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .discovery import CommandPlan
from .wiring import add_command_tools, plan_agent_commands

__all__ = ["COMMAND_TOOLS_ORDER", "CommandPlans", "CommandToolsBeans"]

# Before the job tools' source (jobs/beans.py), which runs the commands that are background tools.
COMMAND_TOOLS_ORDER = 0


class CommandPlans(LoadPlan):
    """The click commands served as tools, and the problems with them."""

    def __init__(self, plans: list[CommandPlan], problems: list[str]) -> None:
        self.plans = plans
        self.problems = problems


class _CommandTools(ToolSource):
    def __init__(self, plans: CommandPlans, settings: MeshSettings) -> None:
        self.plans = plans
        self.settings = settings

    def add_tools(self, registry: MeshToolWrapperRegistry) -> None:
        add_command_tools(registry, self.plans.plans, self.settings)


@configuration
class CommandToolsBeans:
    @bean
    def command_plans(self, app: ScannedApp) -> CommandPlans:
        return CommandPlans(*plan_agent_commands(app.loaded, app.scan.modules, app.tool_plans))

    @bean(order=COMMAND_TOOLS_ORDER)
    def command_tools(self, plans: CommandPlans, settings: MeshSettings) -> ToolSource:
        return _CommandTools(plans, settings)
