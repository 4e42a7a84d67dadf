"""`CommandTool`: the wrapper serving one command. Inline it answers with the command's output; in the
background (the default) the agent's job runner answers with a job handle, and each line the command
prints becomes a job message."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Mapping
from typing import Any

from pydantic import ValidationError

from ..errors import ToolExecutionError
from ..specs import ToolSpec
from ..tools.context import ToolContext
from ..tools.signature import InjectedParam, ToolSignature
from ..tools.wrapper import MeshToolWrapper, _format_validation_error, error_result
from .discovery import CommandPlan
from .runner import CommandOutcome, LineListener, run_command

__all__ = ["JOB_PARAMETER", "CommandFailed", "CommandTool", "describe_outcome"]

logger = logging.getLogger("mesh_framework.cli")

JOB_PARAMETER = "_mesh_job"  # where the job runner puts the JobContext (never a click parameter name)


class CommandFailed(ToolExecutionError):
    """A command exited non-zero or ran past its timeout; the message has the exit code and last lines."""

    def __init__(self, message: str, outcome: CommandOutcome, tool: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.outcome = outcome


def _command() -> None:  # the spec's function: a command tool runs in a child process
    """A click command served as a tool."""


def describe_outcome(display: str, outcome: CommandOutcome, last: int = 10) -> str:
    """One message saying how a command that did not succeed ended, with its last lines."""
    if outcome.timed_out:
        head = f"Command '{display}' did not finish within {outcome.timeout}s and was stopped"
    elif outcome.exit_code is not None and outcome.exit_code < 0:
        head = f"Command '{display}' was killed by signal {-outcome.exit_code}"
    else:
        head = f"Command '{display}' exited with code {outcome.exit_code}"
    lines = outcome.last(last)
    return head + (":\n" + "\n".join(lines) if lines else " (no output)")


class CommandTool(MeshToolWrapper):
    """Serves one click command: arguments validated against its options, run in a child process."""

    __slots__ = ("keep_lines", "kill_grace", "plan")

    def __init__(self, plan: CommandPlan, *, keep_lines: int = 1000, kill_grace: float = 2.0) -> None:
        # A background command declares a JobContext slot, so the job runner takes over its calls.
        injected = (InjectedParam(JOB_PARAMETER, "job", True),) if plan.background else ()
        signature = ToolSignature(
            arguments_model=plan.schema.model,
            injected=injected,
            input_schema=plan.schema.input_schema,
            output_schema=None,
            output_adapter=None,
            wraps_result=False,
            is_async=True,
            wants_context=not plan.background,  # inline: each line is also a log notification
        )
        spec = ToolSpec(
            function=_command,
            name=plan.name,
            capability=plan.capability,
            description=plan.description,
            tags=plan.tags,
            background=plan.background,
            kwargs={"command": plan.display, "timeout": plan.timeout},
        )
        super().__init__(
            key=f"command.{plan.reference}" + "".join(f".{p}" for p in plan.path),
            name=plan.name,
            spec=spec,
            signature=signature,
            target=_command,
            description=plan.description,
            timeout=None,  # the runner enforces the command's own timeout, stopping its process
        )
        self.plan = plan
        self.keep_lines = keep_lines
        self.kill_grace = kill_grace

    def values(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The caller's arguments, validated (only those given); raises pydantic's ValidationError."""
        model = self.plan.schema.model.model_validate(arguments or {})
        return model.model_dump(by_alias=True, exclude_unset=True)

    def argv(self, arguments: Mapping[str, Any] | None) -> list[str]:
        """Validated arguments as the command line below the root; raises pydantic's ValidationError."""
        return [*self.plan.path, *self.plan.schema.argv(self.values(arguments))]

    async def run(
        self, argv: list[str], on_line: LineListener | None = None, *, timeout: float | None = None
    ) -> CommandOutcome:
        """Run the command; `timeout` (a caller's shorter budget) replaces the command's own."""
        return await run_command(
            self.plan.reference,
            self.plan.prog,
            argv,
            timeout=self.plan.timeout if timeout is None else timeout,
            on_line=on_line,
            keep_lines=self.keep_lines,
            kill_grace=self.kill_grace,
        )

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        try:
            values = self.values(arguments)
            argv = [*self.plan.path, *self.plan.schema.argv(values)]
        except ValidationError as exc:
            return error_result(_format_validation_error(self.name, exc))
        except ValueError as exc:  # a value the command line cannot express
            return error_result(f"Invalid arguments for tool '{self.name}': {exc}")
        if self.job_hook is not None:  # background: the job runner answers with a handle
            return await self.job_hook(self, {**values, JOB_PARAMETER: None}, context)
        timeout = None
        if deadline is not None:  # the caller's budget (X-Mesh-Timeout), when shorter than the command's
            left = deadline - time.monotonic()
            if self.plan.timeout is None or left < self.plan.timeout:
                timeout = max(left, 0.001)
        try:
            outcome = await self.run(
                argv, _log_lines(context, self.name) if context is not None else None, timeout=timeout
            )
        except OSError as exc:
            logger.warning("command tool '%s' could not start: %s", self.name, exc)
            return error_result(f"Command '{self.plan.display}' could not start: {exc}")
        text = outcome.text()
        if not outcome.ok:
            text = describe_outcome(self.plan.display, outcome)
            logger.warning("command tool '%s': %s", self.name, text.partition("\n")[0])
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": self._summary(outcome, list(outcome.lines)),
            "isError": not outcome.ok,
        }

    async def invoke(self, kwargs: dict[str, Any]) -> Any:
        """The job runner's path: run the command, its lines becoming the job's messages; a failure raises
        `CommandFailed` (the job ends `failed` with the exit code and last lines)."""
        values = dict(kwargs)
        job = values.pop(JOB_PARAMETER, None)
        argv = [*self.plan.path, *self.plan.schema.argv(values)]
        on_line: LineListener | None = None
        if job is not None:

            def on_line(stream: str, line: str) -> None:
                job.message(line)

        outcome = await self.run(argv, on_line)
        if not outcome.ok:
            raise CommandFailed(describe_outcome(self.plan.display, outcome), outcome, self.name)
        return self._summary(outcome, outcome.last(20))

    def _summary(self, outcome: CommandOutcome, output: list[str]) -> dict[str, Any]:
        return {"command": self.plan.display, "exit_code": outcome.exit_code, "output": output}


def _log_lines(context: ToolContext, tool: str) -> LineListener:
    """Each line of an inline command as an MCP log notification (stderr lines as warnings) while it runs."""

    def on_line(stream: str, line: str) -> Awaitable[None]:
        return context.log("warning" if stream == "stderr" else "info", line, logger=tool)

    return on_line
