"""Catalog files and `mcp.servers` settings entries, read into `McpServerDefinition`s.

The file format is the `{"mcpServers": {...}}` of Claude Desktop, Claude Code and Gemini CLI, or VS Code's
`{"servers": {...}}`. Every problem of every file and entry is collected and raised as one `CatalogError`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import CatalogError, display_path
from .definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition
from .placeholders import PlaceholderError, expand

if TYPE_CHECKING:
    from ..config.loader import LoadedSettings

__all__ = ["load_catalog", "parse_server", "read_catalog", "read_settings_catalog"]

logger = logging.getLogger("mesh_framework.catalog")

Where = Callable[[str | None], str]
"""Where a server entry (field None) or one of its fields comes from: a file, or a settings origin."""
Problem = Callable[[str | None, str], None]

_LOCAL_FIELDS = ("command", "args", "env", "cwd")
_URL_FIELDS = ("url", "headers", "httpUrl")
_FIELDS = ("type", *_LOCAL_FIELDS, *_URL_FIELDS)
_ALIASES = {"http_url": "httpUrl"}  # settings keys are normalized to snake_case
_TYPES = {"stdio": "stdio", "sse": "sse", "http": "http", "streamablehttp": "http"}
_FIELDS_HINT = (
    "the fields are type, command, args, env, cwd (a local process) and url, headers (an HTTP or SSE "
    "server; httpUrl for Gemini's streamable HTTP)"
)


def parse_server(
    name: str, entry: Any, *, source: str, environ: Mapping[str, str] | None = None
) -> McpServerDefinition:
    """One catalog entry (`{"command": ..., "args": [...]}` or `{"type": "http", "url": ...}`), parsed.

    `source` (a file, or a settings origin) is named in every problem; `${VAR}` placeholders are resolved
    from `environ` (default: the process environment). Raises CatalogError listing every problem.
    """
    definition, problems = _parse(name, entry, _fixed(source), _environ(environ))
    if definition is None:
        raise CatalogError(problems)
    return definition


def load_catalog(
    paths: Iterable[str | Path], environ: Mapping[str, str] | None = None
) -> dict[str, McpServerDefinition]:
    """The servers of catalog files; a folder stands for its `*.json` files in name order.

    A server named in two files, malformed JSON, bad entries and unresolved `${VAR}`s are all reported
    together in one CatalogError.
    """
    servers, _origins, problems = _load_files([Path(p) for p in paths], _environ(environ))
    if problems:
        raise CatalogError(problems)
    return servers


def read_catalog(
    paths: Iterable[str | Path], environ: Mapping[str, str] | None = None
) -> tuple[dict[str, McpServerDefinition], dict[str, str]]:
    """`load_catalog` with the file each server came from, by server name."""
    servers, origins, problems = _load_files([Path(p) for p in paths], _environ(environ))
    if problems:
        raise CatalogError(problems)
    return servers, origins


def read_settings_catalog(
    loaded: LoadedSettings, config_dir: Path | None, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, McpServerDefinition], dict[str, str]]:
    """The servers, and where each came from, of `mcp.catalog` files (relative paths against
    `config_dir`, else the working directory) and `mcp.servers` entries. A settings entry replaces a file
    entry of the same name."""
    environ = _environ(environ)
    mcp = loaded.settings.mcp
    base = config_dir if config_dir is not None else Path.cwd()
    problems: list[str] = []
    paths: list[Path] = []
    for listed in mcp.catalog:
        path = Path(listed).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.exists():
            problems.append(
                f"mcp.catalog = {listed!r} (from {loaded.origin_of('mcp.catalog')}): no such file or folder "
                f"({display_path(path)}); relative paths start at {display_path(base)}"
            )
            continue
        paths.append(path)
    servers, origins, file_problems = _load_files(paths, environ)
    problems.extend(file_problems)
    for name, entry in mcp.servers.items():
        where = _settings_where(loaded, name)
        definition, entry_problems = _parse(name, entry, where, environ)
        problems.extend(entry_problems)
        if definition is None:
            continue
        if name in servers:
            logger.debug("mcp.servers.%s (%s) replaces the entry of %s", name, where(None), origins[name])
        servers[name] = definition
        origins[name] = where(None)
    if problems:
        raise CatalogError(problems)
    return servers, origins


# -- files ----------------------------------------------------------------------------------------


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _catalog_files(paths: list[Path], problems: list[str]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.glob("*.json") if p.is_file())
            if not found:
                logger.debug("catalog folder %s holds no *.json file", display_path(path))
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            problems.append(f"{display_path(path)}: no such catalog file or folder")
    unique: dict[Path, Path] = {}
    for file in files:
        unique.setdefault(file.resolve(), file)
    return list(unique.values())


def _load_files(
    paths: list[Path], environ: Mapping[str, str]
) -> tuple[dict[str, McpServerDefinition], dict[str, str], list[str]]:
    problems: list[str] = []
    servers: dict[str, McpServerDefinition] = {}
    origins: dict[str, str] = {}
    for file in _catalog_files(paths, problems):
        shown = display_path(file)
        section = _read_servers(file, shown, problems)
        for name, entry in section.items():
            if name in origins:
                problems.append(
                    f"MCP server '{name}' is defined in both {origins[name]} and {shown}; remove it from one "
                    "file or rename one of them"
                )
                continue
            origins[name] = shown
            definition, entry_problems = _parse(name, entry, _fixed(shown), environ)
            problems.extend(entry_problems)
            if definition is not None:
                servers[name] = definition
    return servers, {n: origins[n] for n in servers}, problems


def _fixed(source: str) -> Where:
    return lambda _field: source


def _read_servers(file: Path, shown: str, problems: list[str]) -> dict[str, Any]:
    """The server section of one file (`mcpServers`, or VS Code's `servers`); problems are appended."""
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        problems.append(f"{shown}: cannot read the catalog file ({exc.strerror})")
        return {}
    except UnicodeDecodeError:
        problems.append(f"{shown}: not UTF-8 text; save the catalog file as UTF-8 JSON")
        return {}
    repeated: list[str] = []

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                repeated.append(key)
            result[key] = value
        return result

    try:
        data = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        hint = ""
        if text[exc.pos : exc.pos + 2] in ("//", "/*"):
            hint = "; JSON has no comments (VS Code's mcp.json allows them), remove them"
        problems.append(f"{shown}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}){hint}")
        return {}
    for key in dict.fromkeys(repeated):
        problems.append(
            f"{shown}: the key '{key}' appears twice in one object (JSON keeps the last); keep one"
        )
    example = '{"mcpServers": {"NAME": {"command": "npx", "args": ["-y", "PACKAGE"]}}}'
    if not isinstance(data, dict):
        problems.append(f"{shown}: the top level must be an object like {example}")
        return {}
    if "mcpServers" in data and "servers" in data:
        problems.append(f"{shown}: has both 'mcpServers' and 'servers'; keep one object of servers")
        return {}
    section = data.get("mcpServers", data.get("servers"))
    if section is None:
        problems.append(
            f"{shown}: no 'mcpServers' object; a catalog file looks like {example} (VS Code's "
            '{"servers": ...} works too)'
        )
        return {}
    if not isinstance(section, dict):
        key = "mcpServers" if "mcpServers" in data else "servers"
        problems.append(f"{shown}: '{key}' must be an object of servers by name, like {example}")
        return {}
    return section


def _settings_where(loaded: LoadedSettings, name: str) -> Where:
    """The origin of `mcp.servers.NAME` (its first value) or of one of its fields (`config/...yaml:12`)."""
    prefix = f"mcp.servers.{name}"

    def first(key: str) -> str | None:
        for dotted, origin in loaded.origins.items():
            if dotted == key or dotted.startswith(key + "."):
                return origin
        return None

    def where(field: str | None) -> str:
        if field is not None:
            for spelled in (field, *[k for k, v in _ALIASES.items() if v == field]):
                found = first(f"{prefix}.{spelled}")
                if found is not None:
                    return found
        return first(prefix) or loaded.origin_of(prefix)

    return where


# -- one entry ------------------------------------------------------------------------------------


def _parse(
    name: str, entry: Any, where: Where, environ: Mapping[str, str]
) -> tuple[McpServerDefinition | None, list[str]]:
    problems: list[str] = []

    def problem(field: str | None, text: str) -> None:
        problems.append(f"MCP server '{name}' ({where(field)}): {text}")

    if not isinstance(name, str) or not name.strip():
        problems.append(f"MCP server names must be non-empty strings, not {name!r} ({where(None)})")
        return None, problems
    if not isinstance(entry, Mapping):
        problem(None, f"must be an object with 'command' (a local process) or 'url', not {_kind(entry)}")
        return None, problems
    fields = {_ALIASES.get(str(key), str(key)): value for key, value in entry.items()}
    unknown = [str(key) for key in entry if _ALIASES.get(str(key), str(key)) not in _FIELDS]
    if unknown:
        problem(None, f"unknown field(s) {', '.join(map(repr, unknown))}; {_FIELDS_HINT}")
    kind = _server_type(fields, problem)
    if kind is None:
        return None, problems
    if "httpUrl" in fields:
        if "url" in fields:
            problem("httpUrl", "has both 'url' and 'httpUrl'; keep one")
        elif kind != "http":
            problem("httpUrl", f"'httpUrl' means streamable HTTP, but the type is '{kind}'; use 'url'")
    wrong = [f for f in (_URL_FIELDS if kind == "stdio" else _LOCAL_FIELDS) if f in fields]
    for field in wrong:
        other = "a local process (stdio)" if kind == "stdio" else f"an {kind.upper()} server"
        problem(field, f"'{field}' does not apply to {other}; {_FIELDS_HINT}")
    if kind == "stdio":
        make = _stdio(name, fields, problem, environ)
    else:
        make = _remote(name, kind, fields, problem, environ)
    if problems:
        return None, problems
    return _build(make, problem), problems


def _server_type(fields: Mapping[str, Any], problem: Problem) -> str | None:
    raw = fields.get("type")
    if raw is None:
        if "command" in fields:
            return "stdio"
        if "url" in fields or "httpUrl" in fields:
            return "http"
        problem(None, "has neither 'command' (a local process) nor 'url' (a remote server); add one")
        return None
    kind = _TYPES.get(raw.lower().replace("-", "").replace("_", "")) if isinstance(raw, str) else None
    if kind is None:
        problem(
            "type",
            f'unknown type {raw!r}; use "stdio" (a local process), "sse" or "http" (streamable HTTP, '
            'also spelled "streamable-http")',
        )
    return kind


def _text(field: str, path: str, value: str, problem: Problem, environ: Mapping[str, str]) -> str:
    try:
        return expand(value, environ)
    except PlaceholderError as exc:
        for text in exc.problems:
            problem(field, f"{path}: {text}")
        return value


def _strings(field: str, value: Any, problem: Problem, environ: Mapping[str, str]) -> dict[str, str]:
    """An object of strings (env, headers); values are never shown in problems (they may be secrets)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problem(field, f"'{field}' must be an object of names to strings, not {_kind(value)}")
        return {}
    result: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(item, str):
            problem(field, f"{field} '{key}' must be a string, not {_kind(item)}; quote it")
            continue
        result[str(key)] = _text(field, f"{field}.{key}", item, problem, environ)
    return result


def _stdio(
    name: str, fields: Mapping[str, Any], problem: Problem, environ: Mapping[str, str]
) -> Callable[[], McpServerDefinition]:
    command = fields.get("command")
    if command is None:
        problem("command", '\'command\' is missing; name the program to start, e.g. "command": "npx"')
    elif not isinstance(command, str) or not command.strip():
        problem("command", f"'command' must name the program to start, not {command!r}")
    else:
        command = _text("command", "command", command, problem, environ)
        if not command.strip():
            problem("command", "'command' is empty once its placeholders are resolved")
    raw_args = fields.get("args", [])
    args: list[str] = []
    if raw_args is None:
        raw_args = []
    if isinstance(raw_args, str) or not isinstance(raw_args, list):
        problem("args", f'\'args\' must be a list of strings, e.g. ["-y", "PACKAGE"], not {_kind(raw_args)}')
    else:
        for index, arg in enumerate(raw_args):
            if isinstance(arg, str):
                args.append(_text("args", f"args[{index}]", arg, problem, environ))
            else:
                problem("args", f"args[{index}] must be a string, not {_kind(arg)} ({arg!r}); quote it")
    env = _strings("env", fields.get("env"), problem, environ)
    cwd = fields.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        problem("cwd", f"'cwd' must be a folder path, not {_kind(cwd)}")
        cwd = None
    elif cwd is not None:
        cwd = _text("cwd", "cwd", cwd, problem, environ) or None
    return lambda: StdioDefinition(str(command), args, env, cwd, name=name)


def _remote(
    name: str, kind: str, fields: Mapping[str, Any], problem: Problem, environ: Mapping[str, str]
) -> Callable[[], McpServerDefinition]:
    field = "httpUrl" if "httpUrl" in fields and "url" not in fields else "url"
    url = fields.get(field)
    if url is None:
        problem(field, '\'url\' is missing; give the server\'s http(s) URL, e.g. "url": "https://host/mcp"')
    elif not isinstance(url, str):
        problem(field, f"'url' must be an http(s) URL string, not {_kind(url)}")
    else:
        url = _text(field, field, url, problem, environ)
        parts = urlsplit(url)
        if "${" not in url and (parts.scheme not in ("http", "https") or not parts.netloc):
            problem(field, f'url {url!r} is not an http(s) URL; write it like "https://host/mcp"')
    headers = _strings("headers", fields.get("headers"), problem, environ)
    factory = SseDefinition if kind == "sse" else HttpDefinition
    return lambda: factory(str(url), headers, name=name)


def _build(make: Callable[[], McpServerDefinition], problem: Problem) -> McpServerDefinition | None:
    try:
        return make()
    except CatalogError as exc:  # checked above already; kept so that no definition error escapes bare
        for text in exc.problems:
            problem(None, text.split(": ", 1)[-1])
        return None


def _kind(value: Any) -> str:
    return {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)
