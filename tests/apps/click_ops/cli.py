"""A plain click application (it knows nothing of mesh_framework): groups, nested groups, hyphenated
names and every kind of option. The agent exposes it whole through `commands.expose`."""

from __future__ import annotations

import json
import os
import sys
import time

import click


@click.group()
def cli() -> None:
    """Operations of a small database cluster."""


@cli.command()
def status() -> None:
    """Show whether the cluster is up."""
    click.echo("cluster: up")
    click.echo("nodes: 3")


@cli.group()
def cassandra() -> None:
    """Cassandra commands."""


@cassandra.command("update-config")
@click.option("--heap", type=int, required=True, help="Heap size in MiB")
def update_config(heap: int) -> None:
    """Change the node configuration."""
    click.echo(f"heap set to {heap} MiB")


@cassandra.group()
def stress() -> None:
    """Load testing."""


@stress.command("start")
@click.option("--threads", type=int, default=4, help="Client threads")
@click.option("--rate", type=float, help="Operations per second")
@click.option("--duration", type=click.IntRange(1, 3600), default=60, help="Seconds to run")
@click.option("--profile", type=click.Choice(["read", "write", "mixed"]), default="mixed", help="Workload")
@click.option("--host", "hosts", multiple=True, help="Hosts to load")
@click.option("--dry-run", is_flag=True, help="Print the plan only")
@click.option("-v", "--verbose", count=True, help="More output")
@click.option("--tls/--no-tls", default=True, help="Encrypt connections")
@click.option("--config-file", type=click.Path(), help="Stress profile file")
@click.option("--point", nargs=2, type=float, help="A coordinate pair")
@click.argument("keyspace")
@click.argument("tables", nargs=-1)
def stress_start(**values: object) -> None:
    """Start a stress run.

    Runs until the duration is over.
    \f
    (Not part of the help text.)
    """
    click.echo("starting stress")
    click.echo(json.dumps(values, sort_keys=True))
    click.echo("warning: replication factor is 1", err=True)


@cli.command("fail")
@click.option("--code", type=int, default=3, help="Exit code")
def fail(code: int) -> None:
    """Exit with an error after some output."""
    for i in range(15):
        click.echo(f"step {i}")
    click.echo("disk full", err=True)
    sys.exit(code)


@cli.command("hang")
def hang() -> None:
    """Never finish."""
    click.echo(f"hanging as pid {os.getpid()}")
    time.sleep(600)


@cli.command("read-stdin")
def read_stdin() -> None:
    """Read standard input to its end."""
    data = sys.stdin.read()
    click.echo(f"stdin gave {data!r}")


@cli.command("ask")
def ask() -> None:
    """Ask a question without a default (stdin is at EOF, so click aborts)."""
    click.echo(click.prompt("really"))


@cli.command("count-lines")
@click.option("--lines", type=int, default=5, help="How many lines to print")
@click.option("--pause", type=float, default=0.0, help="Seconds between lines")
def count_lines(lines: int, pause: float) -> None:
    """Print numbered lines."""
    for i in range(lines):
        click.echo(f"line {i}")
        if pause:
            time.sleep(pause)


@cli.command(hidden=True)
def internal() -> None:
    """Not for tools."""
