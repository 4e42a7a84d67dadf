"""Typer commands exposed as tools: `commands.expose: ["tests.apps.typer_ops.cli:app"]`."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

app = typer.Typer()
db = typer.Typer(help="Database commands.")
app.add_typer(db, name="db")


class Region(enum.Enum):
    EU = "eu"
    US = "us"


@app.command()
def deploy(
    service: Annotated[str, typer.Argument(help="Service to deploy")],
    replicas: Annotated[int, typer.Option(help="How many replicas")] = 2,
    region: Annotated[Region, typer.Option(help="Where")] = Region.EU,
    dry_run: Annotated[bool, typer.Option(help="Only print the plan")] = False,
    tag: Annotated[list[str] | None, typer.Option(help="Image tags")] = None,
) -> None:
    """Deploy a service."""
    print(f"deploy {service} x{replicas} in {region.value} dry_run={dry_run} tags={tag or []}")


@db.command("run-migrations")
def run_migrations(steps: int = 1) -> None:
    """Apply migrations."""
    for step in range(steps):
        print(f"migration {step + 1}")
    if steps > 2:
        raise typer.Exit(code=2)
