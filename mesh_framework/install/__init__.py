"""Putting the mesh into an MCP client: `mesh install CLIENT` and `mesh stdio`.

`clients` knows each client's file and entry format, `config_file` merges one entry into a file safely,
`plan` builds the entry for a URL or an app, `stdio` bridges a client that starts commands to HTTP.
Imported only by the command line (`cli/install.py`).
"""

from __future__ import annotations

from .clients import CLIENTS, FILE_CLIENTS, Target, config_path, server_entry
from .config_file import ConfigFileError, FileChange, plan_change, read_config
from .plan import Install, mesh_executable, plan_install, target_for

__all__ = [
    "CLIENTS",
    "FILE_CLIENTS",
    "ConfigFileError",
    "FileChange",
    "Install",
    "Target",
    "config_path",
    "mesh_executable",
    "plan_change",
    "plan_install",
    "read_config",
    "server_entry",
    "target_for",
]
