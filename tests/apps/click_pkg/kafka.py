"""The `kafka` group and its nested `topics` group."""

from __future__ import annotations

import click


@click.group()
def kafka() -> None:
    """Kafka commands."""


@kafka.group()
def topics() -> None:
    """Topics."""


@topics.command("create-topic")
@click.argument("name")
@click.option("--partitions", type=int, default=3)
def create_topic(name: str, partitions: int) -> None:
    """Create a topic."""
    click.echo(f"created {name} with {partitions} partitions")


@kafka.command()
def restart() -> None:
    """Restart the brokers."""
    click.echo("restarted")
