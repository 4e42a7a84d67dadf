"""Jobs as an auto-configuration: an app with a background or task tool, click commands served as tools
(they run as jobs unless marked otherwise), the job tools asked for (`jobs.serve_tools`) or a registry
(every agent of a mesh answers for its jobs) gets the job service (jobs/beans.py); any other loads none of
its modules."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["JobsAutoConfiguration"]


def may_use_jobs(context: ConditionContext) -> tuple[bool, str]:
    """Whether the app may run jobs, read from its settings and scan (the service decides for good once
    every tool is in the registry: a command marked `background=False` runs inline)."""
    settings = context.settings
    if settings.registry.enabled:
        return True, "registry.enabled: the agent answers for the mesh's jobs"
    if settings.jobs.serve_tools:
        return True, "jobs.serve_tools is set"
    scan = context.scan
    if scan is not None:
        for tool in scan.tools:
            if tool.spec.background or tool.spec.task:
                kind = "background" if tool.spec.background else "task"
                return True, f"tool {tool.key} is a {kind} tool"
        if settings.commands.expose:
            return True, "commands.expose serves click commands, which run as jobs by default"
        from ..command_tools.auto_configuration import marks_commands  # no click: only the marks are read

        if marks_commands(scan.modules):
            return True, "an @mcp_command serves a click command, which runs as a job by default"
    return False, "no background or task tool, no click command, no registry and jobs.serve_tools unset"


@configuration
@conditional(may_use_jobs, "a background or task tool, a click command, a registry or jobs.serve_tools")
@imports("mesh_framework.jobs.beans:JobsBeans")
class JobsAutoConfiguration:
    """Gates the job service's beans (jobs/beans.py) on the app running jobs."""
