"""Commands marked one by one with `@mcp_command`."""

from __future__ import annotations

import click

from mesh_framework import mcp_command


@click.group()
def admin() -> None:
    """Administration."""


@mcp_command(background=False, timeout=60, description="Disk usage of a path")
@admin.command("disk-usage")
@click.argument("path", type=click.Path())
@click.option("--human/--raw", default=True, help="Human-readable sizes")
def disk_usage(path: str, human: bool) -> None:
    click.echo(f"{path}: 42{'K' if human else ''}")


@admin.command("not-a-tool")
def not_a_tool() -> None:
    """Left out: not marked."""


@mcp_command(name="say_hello", background=False)
@click.command()
@click.option("--who", default="world")
def hello(who: str) -> None:
    """Say hello."""
    click.echo(f"hello {who}")
