"""Components: a typed config section, a clock behind a Protocol, and the greeting service using both."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from pydantic import BaseModel, Field

from mesh_framework import component, config_properties


@config_properties("greeting")
class GreetingProperties(BaseModel):
    """The `greeting:` section of application.yaml (env: MESH_GREETING__TEMPLATE, ...)."""

    template: str = "Hello, {name}!"
    excited: bool = False
    max_name_length: int = Field(40, gt=0)


class Clock(Protocol):
    def now(self) -> datetime: ...


@component
class SystemClock:
    """The only Clock implementation, so `Clock` parameters receive it."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@component
class GreetingService:
    def __init__(self, properties: GreetingProperties, clock: Clock) -> None:
        self.properties = properties
        self.clock = clock
        self.greeted = 0

    def greet(self, name: str) -> str:
        name = name.strip()[: self.properties.max_name_length] or "stranger"
        text = self.properties.template.format(name=name)
        self.greeted += 1
        return text.rstrip("!.") + "!!!" if self.properties.excited else text

    def part_of_day(self) -> str:
        hour = self.clock.now().hour
        return "morning" if hour < 12 else "afternoon" if hour < 18 else "evening"
