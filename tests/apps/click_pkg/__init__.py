"""Commands spread over a package (`commands.expose: ["tests.apps.click_pkg"]`):
names start with each outermost command's name."""

from __future__ import annotations

import click


@click.command()
def health() -> None:
    """Health of the platform."""
    click.echo("healthy")
