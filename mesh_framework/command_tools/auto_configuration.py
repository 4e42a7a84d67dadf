"""Click commands as tools, as an auto-configuration: an app that marks a command `@mcp_command` or exposes
some in `commands.expose` has them planned while it loads (names, schemas, problems) and served as tools
(command_tools/beans.py); any other loads neither their discovery nor click."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports
from .command_marks import declares_commands

__all__ = ["CommandToolsAutoConfiguration", "serves_commands"]


def serves_commands(context: ConditionContext) -> tuple[bool, str]:
    if context.settings.commands.expose:
        return True, "commands.expose names click commands"
    if context.scan is not None and declares_commands(context.scan.modules):
        return True, "a scanned module marks a click command @mcp_command"
    return False, "no @mcp_command in the scanned modules and commands.expose is empty"


@configuration
@conditional(serves_commands, "an @mcp_command or commands.expose")
@imports("mesh_framework.command_tools.beans:CommandToolsBeans")
class CommandToolsAutoConfiguration:
    """Gates the command tools' beans (command_tools/beans.py) on the app serving click commands."""
