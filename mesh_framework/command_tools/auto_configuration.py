"""Click commands as tools, as an auto-configuration: an app that marks a command `@mcp_command` or exposes
some in `commands.expose` has them planned while it loads (names, schemas, problems) and served as tools
(command_tools/beans.py); any other loads neither their discovery nor click."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["CommandToolsAutoConfiguration", "marks_commands", "serves_commands"]


def marks_commands(modules: Sequence[str]) -> bool:
    """A variable of one of the scanned `modules` carries the `@mcp_command` mark. The marks' module is
    loaded by `@mcp_command`: while it is not, nothing is marked, and no module is looked at."""
    marks = sys.modules.get("mesh_framework.command_tools.command_marks")
    return marks is not None and bool(marks.declares_commands(modules))


def serves_commands(context: ConditionContext) -> tuple[bool, str]:
    if context.settings.commands.expose:
        return True, "commands.expose names click commands"
    if context.scan is not None and marks_commands(context.scan.modules):
        return True, "a scanned module marks a click command @mcp_command"
    return False, "no @mcp_command in the scanned modules and commands.expose is empty"


@configuration
@conditional(serves_commands, "an @mcp_command or commands.expose")
@imports("mesh_framework.command_tools.beans:CommandToolsBeans")
class CommandToolsAutoConfiguration:
    """Gates the command tools' beans (command_tools/beans.py) on the app serving click commands."""
