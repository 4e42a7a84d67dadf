"""Prompts, resources and completers of the content agent."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Annotated, Literal

from mesh_framework import (
    InputRequired,
    PromptMessage,
    ToolContext,
    completer,
    component,
    elicit,
    mesh_prompt,
    mesh_resource,
    mesh_tool,
)


class Severity(enum.Enum):
    LOW = "low"
    HIGH = "high"
    CRITICAL = "critical"


@component
class Runbooks:
    """A component whose methods are a prompt, a resource template and their completers."""

    def __init__(self) -> None:
        self.services = ["billing", "search", "auth", "bookings"]

    @mesh_prompt(title="Incident triage")
    def triage(
        self,
        service: Annotated[str, "The service that misbehaves"],
        severity: Severity = Severity.LOW,
        minutes: int = 5,
    ) -> list[PromptMessage]:
        """Triage an incident of one service."""
        return [
            PromptMessage(f"Triage {service} ({severity.value}), looking back {minutes * 60} seconds."),
            PromptMessage("I will start with the dashboards.", role="assistant"),
        ]

    @completer("service", prompt="triage")
    def triage_services(self, value: str) -> list[str]:
        return [s for s in self.services if s.startswith(value)]

    @mesh_resource("logs://{service}/{day}", mime_type="text/plain")
    async def logs(self, service: str, day: int) -> str:
        """Log lines of a service for one day of the month."""
        return f"{service} on day {day:02d}: 3 errors"

    @completer("service", resource="logs://{service}/{day}")
    async def log_services(self, value: str, context: Mapping[str, str]) -> list[str]:
        if context.get("day") == "0":  # no day 0: nothing logged
            return []
        return [s for s in self.services if s.startswith(value)]


@mesh_prompt()
def greet(name: str, style: Literal["formal", "casual"] = "casual") -> str:
    """Greet someone."""
    return f"Good day, {name}." if style == "formal" else f"Hi {name}!"


@mesh_prompt()
def flaky() -> str:
    """A prompt whose source is down."""
    raise RuntimeError("the prompt store is offline")


@mesh_prompt()
async def plan_trip(city: str, ctx: ToolContext) -> str | InputRequired:
    """Plans a trip; asks the user for dates first (2026-07-28 multi-round request)."""
    answer = ctx.input_responses.get("dates")
    if answer is None:
        form = elicit(f"When do you travel to {city}?", {"dates": {"type": "string"}}, ["dates"])
        return InputRequired({"dates": form}, state={"city": city})
    return f"Plan a trip to {ctx.request_state['city']} on {answer['content']['dates']}."


@mesh_resource("config://app", mime_type="application/json")
def app_config() -> dict[str, object]:
    """The agent's configuration."""
    return {"mode": "test", "replicas": 2}


@mesh_resource("blob://{+path}")
def blob(path: str) -> bytes:
    """Bytes named by a path (slashes allowed)."""
    return path.encode() + b"\x00\xff"


@mesh_tool()
def ping() -> str:
    """A tool, so the agent serves all three kinds."""
    return "pong"
