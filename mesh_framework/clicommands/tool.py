"""`CommandTool`: the wrapper serving one command; inline it answers with the output, in the background
it answers with a job handle and the output becomes the job's messages."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import ValidationError

from ..specs import ToolSpec
from ..tools.context import ToolContext
from ..tools.signature import ToolSignature
from ..tools.wrapper import MeshToolWrapper, _format_validation_error, error_result
from .discovery import CommandPlan
from .runner import CommandOutcome, LineListener, run_command

__all__ = ["CommandFailed", "CommandTool", "describe_outcome"]

logger = logging.getLogger("mesh_framework.commands")

# Starts a background job: (tool, arguments, body) → the handle answered to the caller. The body receives
# a line listener (the job's messages) and returns the result, or raises CommandFailed.
JobStarter = Callable[
    ["CommandTool", Mapping[str, Any], Callable[[LineListener], Awaitable[Any]]], Awaitable[dict[str, Any]]
]


class CommandFailed(Exception):
    """A command exited non-zero or ran past its timeout; the message has the exit code and last lines."""

    def __init__(self, message: str, outcome: CommandOutcome) -> None:
        super().__init__(message)
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

    __slots__ = ("keep_lines", "kill_grace", "plan", "start_job")

    def __init__(self, plan: CommandPlan, *, keep_lines: int = 1000, kill_grace: float = 2.0) -> None:
        signature = ToolSignature(
            arguments_model=plan.schema.model,
            injected=(),
            input_schema=plan.schema.input_schema,
            output_schema=None,
            output_adapter=None,
            wraps_result=False,
            is_async=True,
            wants_context=False,
        )
        spec = ToolSpec(
            function=_command,
            name=plan.name,
            capability=plan.capability,
            description=plan.description,
            tags=plan.tags,
            timeout=plan.timeout,
            kwargs={"command": plan.display, "background": plan.background},
        )
        super().__init__(
            key=f"command.{plan.reference}" + "".join(f".{p}" for p in plan.path),
            name=plan.name,
            spec=spec,
            signature=signature,
            target=_command,
            description=plan.description,
            timeout=None,  # the runner enforces the command's own timeout, killing the process
        )
        self.plan = plan
        self.keep_lines = keep_lines
        self.kill_grace = kill_grace
        self.start_job: JobStarter | None = None

    @property
    def background(self) -> bool:
        return self.plan.background and self.start_job is not None

    def argv(self, arguments: Mapping[str, Any] | None) -> list[str]:
        """Validated arguments as the command line below the root; raises pydantic's ValidationError."""
        values = self.plan.schema.model.model_validate(arguments or {})
        return [*self.plan.path, *self.plan.schema.argv(values.model_dump(by_alias=True, exclude_unset=True))]

    async def run(self, argv: list[str], on_line: LineListener | None = None) -> CommandOutcome:
        return await run_command(
            self.plan.reference,
            self.plan.prog,
            argv,
            timeout=self.plan.timeout,
            on_line=on_line,
            keep_lines=self.keep_lines,
            kill_grace=self.kill_grace,
        )

    async def call(
        self, arguments: Mapping[str, Any] | None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        try:
            argv = self.argv(arguments)
        except ValidationError as exc:
            return error_result(_format_validation_error(self.name, exc))
        if self.background and self.start_job is not None:
            return await self.start_job(
                self, dict(arguments or {}), lambda listener: self._job(argv, listener)
            )
        try:
            outcome = await self.run(argv)
        except OSError as exc:
            logger.warning("command tool '%s' could not start: %s", self.name, exc)
            return error_result(f"Command '{self.plan.display}' could not start: {exc}")
        structured = {
            "command": self.plan.display,
            "exit_code": outcome.exit_code,
            "output": list(outcome.lines),
        }
        if not outcome.ok:
            message = describe_outcome(self.plan.display, outcome)
            logger.warning("command tool '%s': %s", self.name, message.partition("\n")[0])
            return {
                "content": [{"type": "text", "text": message}],
                "structuredContent": structured,
                "isError": True,
            }
        return {
            "content": [{"type": "text", "text": outcome.text()}],
            "structuredContent": structured,
            "isError": False,
        }

    async def _job(self, argv: list[str], on_line: LineListener) -> dict[str, Any]:
        outcome = await self.run(argv, on_line)
        if not outcome.ok:
            raise CommandFailed(describe_outcome(self.plan.display, outcome), outcome)
        return {"command": self.plan.display, "exit_code": outcome.exit_code, "output": outcome.last(20)}
