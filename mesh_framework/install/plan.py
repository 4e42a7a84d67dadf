"""What `mesh install` writes: the target (a URL, or an app started by this environment's `mesh`), the
client's entry for it, and the change to the client's file.

An app becomes a command the client starts: `MESH stdio APP --directory PROJECT`, where MESH is the
absolute path of the `mesh` executable beside this interpreter (the environment's own: a venv's `mesh`
runs with that venv's Python, whatever the client's PATH holds) and PROJECT the folder the app is
imported from. The folder is an argument, not a `cwd` field, because not every client has one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .clients import Target, client, config_path, server_entry
from .config_file import FileChange, plan_change

__all__ = ["Install", "mesh_executable", "plan_install", "target_for"]


def mesh_executable(python: str | None = None, platform: str | None = None) -> list[str]:
    """How to start this environment's `mesh`: the `mesh` script beside the interpreter when there is
    one, else the interpreter with `-m mesh_framework.cli`. The interpreter's path is kept as it is (not
    resolved), so a venv's `python` symlink still selects the venv."""
    interpreter = os.path.abspath(python or sys.executable)
    windows = (platform or sys.platform) == "win32"
    script = Path(interpreter).parent / ("mesh.exe" if windows else "mesh")
    if script.is_file():
        return [str(script)]
    return [interpreter, "-m", "mesh_framework.cli"]


def target_for(
    client_name: str,
    *,
    url: str | None,
    app: str | None,
    mesh: Sequence[str],
    directory: Path,
) -> Target:
    """The target for `--url URL` or `APP`; Claude Desktop reaches a URL through `mesh stdio --url`."""
    if app is not None:
        return Target(command=(*mesh, "stdio", app, "--directory", str(directory)))
    assert url is not None
    if client_name == "claude-desktop":
        return Target(url=url, command=(*mesh, "stdio", "--url", url))
    return Target(url=url)


@dataclass(frozen=True)
class Install:
    """One `mesh install`: the client's entry, and the change to its file (None for `mcp-json`)."""

    client: str
    name: str
    entry: dict[str, Any]
    change: FileChange | None

    def printed(self) -> dict[str, Any]:
        """The entry as a file of its own would hold it: `{KEY: {NAME: entry}}`."""
        return {client(self.client).servers_key: {self.name: self.entry}}


def plan_install(
    client_name: str,
    name: str,
    target: Target,
    *,
    home: Path,
    platform: str,
    scope: str = "user",
    project: Path | None = None,
) -> Install:
    """The entry for `target` and, for a client with a file, the change to it (the file is only read)."""
    found = client(client_name)
    entry = server_entry(found.name, target)
    if found.user_path is None:
        return Install(found.name, name, entry, None)
    path = config_path(found.name, home=home, platform=platform, scope=scope, project=project)
    return Install(found.name, name, entry, plan_change(path, found.servers_key, name, entry))
