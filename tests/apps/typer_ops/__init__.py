"""A Typer application (Typer 0.2x builds its commands from its own copy of click)."""
