"""Marked methods of a component class (tools, prompts, routes, status sections, health indicators) are
found by reading the class bodies statically: what `inspect.getmembers` lists, by name, without running a
descriptor. Reading a deferred pydantic model held by the class would build its schema (start-up time)."""

from __future__ import annotations

import inspect

import pytest
from pydantic import BaseModel, ConfigDict

from mesh_framework import component, mesh_tool
from mesh_framework.di.scan import _component_tools, class_members
from mesh_framework.health.indicator import collect_indicators, health_indicator
from mesh_framework.status.discovery import plan_status_sections
from mesh_framework.status.status_marks import status_section

pytestmark = pytest.mark.timeout(30)


class Deferred(BaseModel):
    model_config = ConfigDict(defer_build=True)
    name: str = "x"


class Base:
    @mesh_tool(capability="inherited")
    def inherited(self) -> str:
        return "base"

    @mesh_tool(capability="overridden")
    def overridden(self) -> str:
        return "base"


@component
class Parts(Base):
    Model = Deferred  # a class attribute the scan must not build

    def overridden(self) -> str:  # no longer a tool
        return "parts"

    @staticmethod
    @mesh_tool(capability="static")
    def fixed() -> str:
        return "fixed"

    @staticmethod
    @status_section("parts")
    def section() -> dict[str, int]:
        return {"parts": 1}

    @staticmethod
    @health_indicator("parts")
    def healthy() -> bool:
        return True

    @classmethod
    def make(cls) -> Parts:
        return cls()


def test_members_are_what_getmembers_lists_read_statically() -> None:
    listed = class_members(Parts)
    names = [name for name, _ in listed]
    assert names == sorted(names)
    ours = {name for name, _ in inspect.getmembers(Parts)} - set(dir(object))
    assert set(names) - set(dir(object)) == ours
    members = dict(listed)
    assert isinstance(members["fixed"], staticmethod) and isinstance(members["make"], classmethod)
    assert members["overridden"] is Parts.__dict__["overridden"]
    assert not Deferred.__pydantic_complete__


def test_marked_methods_are_found_without_building_a_deferred_model() -> None:
    assert sorted(t.attribute for t in _component_tools(Parts)) == ["fixed", "inherited"]
    plans, problems = plan_status_sections([], {Parts: "parts"})
    assert problems == [] and [p.attribute for p in plans] == ["section"]
    assert [i.name for i in collect_indicators([], [Parts()])] == ["parts"]
    assert not Deferred.__pydantic_complete__
