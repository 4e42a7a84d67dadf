"""An agent whose commands and status sections cannot be served: every problem is reported at once."""

from __future__ import annotations

import click

from mesh_framework import mesh_agent, mesh_tool, status_section


@mesh_agent(name="click-bad")
class ClickBad:
    pass


@click.group()
def ops() -> None:
    """Two paths that map to one tool name."""


@ops.command("stress-start")
def stress_start_flat() -> None:
    """stress-start"""


@ops.group()
def stress() -> None:
    """stress"""


@stress.command("start")
def stress_start_nested() -> None:
    """stress start"""


@ops.command()
def greet() -> None:
    """Clashes with the function tool."""


@mesh_tool(name="greet")
def greet_tool() -> str:
    return "hi"


@status_section("cluster")
def cluster_a() -> dict[str, int]:
    return {}


@status_section("cluster")
def cluster_b() -> dict[str, int]:
    return {}


@status_section("nodes")
def nodes(region: str) -> dict[str, str]:
    return {"region": region}
