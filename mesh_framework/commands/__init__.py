"""The `mesh` command's groups, one module each; `mesh_framework.cli` assembles them.

Every module offers `register(commands)`, which adds its subcommand(s) with a `handler` that returns the
exit code. Output goes through `commands.output` (plain and stable when stdout is not a terminal, rich
tables and colour when it is, JSON with `--json`); problems are raised as `CliError`, printed on one line.
"""
