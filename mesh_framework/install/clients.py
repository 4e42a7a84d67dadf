"""The MCP clients `mesh install` knows: where each keeps its servers, and the entry each expects.

    config_path("cursor", home=Path.home(), platform=sys.platform)     # ~/.cursor/mcp.json
    server_entry("vscode", Target(url="http://127.0.0.1:9090/mcp"))   # {"type": "http", "url": ...}

Pure functions: the home folder, the platform and the project folder are parameters, so every client's
Linux and macOS paths are computed (and tested) on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CLIENTS",
    "FILE_CLIENTS",
    "SCOPES",
    "Client",
    "Target",
    "UnknownClient",
    "client",
    "config_path",
    "server_entry",
]

SCOPES = ("user", "project")


class UnknownClient(ValueError):
    """A client name `mesh install` does not know."""


@dataclass(frozen=True)
class Target:
    """What the client connects to: an MCP endpoint's `url`, or a `command` (argv) it starts (stdio)."""

    url: str | None = None
    command: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Client:
    """One client: its display name, the key holding its servers, and its user and project files."""

    name: str
    title: str
    servers_key: str
    # user file, relative to the home folder: the Linux/other path, and macOS's when it differs
    user_path: str | None
    user_path_macos: str | None = None
    # project file, relative to the project folder (None: the client has no project file)
    project_path: str | None = None
    # whether the file may hold comments and trailing commas (JSONC): such a file is refused, not rewritten
    jsonc: bool = False


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client("claude-code", "Claude Code", "mcpServers", ".claude.json", project_path=".mcp.json"),
        Client(
            "claude-desktop",
            "Claude Desktop",
            "mcpServers",
            ".config/Claude/claude_desktop_config.json",
            "Library/Application Support/Claude/claude_desktop_config.json",
        ),
        Client("cursor", "Cursor", "mcpServers", ".cursor/mcp.json", project_path=".cursor/mcp.json"),
        Client(
            "vscode",
            "VS Code",
            "servers",
            ".config/Code/User/mcp.json",
            "Library/Application Support/Code/User/mcp.json",
            project_path=".vscode/mcp.json",
            jsonc=True,
        ),
        Client(
            "gemini-cli",
            "Gemini CLI",
            "mcpServers",
            ".gemini/settings.json",
            project_path=".gemini/settings.json",
            jsonc=True,
        ),
        Client("mcp-json", "a generic mcp.json", "mcpServers", None),
    )
}
"""Every client by name; `mcp-json` has no file: its entry is printed."""

FILE_CLIENTS = tuple(name for name, c in CLIENTS.items() if c.user_path is not None)


def client(name: str) -> Client:
    found = CLIENTS.get(name)
    if found is None:
        raise UnknownClient(f"unknown client {name!r}; the clients: {', '.join(CLIENTS)}")
    return found


def config_path(
    name: str, *, home: Path, platform: str, scope: str = "user", project: Path | None = None
) -> Path:
    """The file client `name` reads its servers from: the user's (under `home`, by `platform` as
    `sys.platform` spells it) or the project's (under `project`)."""
    found = client(name)
    if found.user_path is None:
        raise ValueError(f"{found.name} has no configuration file; its entry is printed")
    if scope == "project":
        if found.project_path is None:
            raise ValueError(f"{found.title} has no project configuration file; use --scope user")
        return (project or Path.cwd()) / found.project_path
    if scope != "user":
        raise ValueError(f"unknown scope {scope!r}; the scopes: {', '.join(SCOPES)}")
    relative = found.user_path_macos if platform == "darwin" and found.user_path_macos else found.user_path
    return home / relative


def server_entry(name: str, target: Target) -> dict[str, Any]:
    """The entry client `name` expects for `target`.

    URL entries differ per client (`type: http` for Claude Code and VS Code, a bare `url` for Cursor,
    `httpUrl` for Gemini CLI); Claude Desktop's file takes commands only, so a URL is reached through
    `mesh stdio --url URL`, which `target.command` must then start (the caller builds it).
    """
    found = client(name)
    if target.url is not None and found.name != "claude-desktop":
        if found.name == "cursor":
            return {"url": target.url}
        if found.name == "gemini-cli":
            return {"httpUrl": target.url}
        return {"type": "http", "url": target.url}
    if not target.command:
        raise ValueError("the target has neither a URL nor a command")
    command, *args = target.command
    entry: dict[str, Any] = {"command": command, "args": args}
    if found.name in ("claude-code", "vscode", "mcp-json"):
        return {"type": "stdio", **entry}
    return entry
