"""`McpServerDefinition`: how to reach one MCP server (a local process, an SSE URL or a streamable-HTTP URL).

Definitions are immutable and validated when made; a bad one is a `CatalogError` naming the server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from ..errors import CatalogError

__all__ = [
    "HttpDefinition",
    "McpServerDefinition",
    "ServerType",
    "SseDefinition",
    "StdioDefinition",
]

ServerType = Literal["stdio", "sse", "http"]

_EMPTY: Mapping[str, str] = MappingProxyType({})


def _frozen_strings(server: str, what: str, values: Mapping[str, Any] | None) -> Mapping[str, str]:
    if not values:
        return _EMPTY
    if not isinstance(values, Mapping):
        raise CatalogError(
            f"MCP server '{server}': {what} must be an object of strings, not {type(values).__name__}"
        )
    bad = [k for k, v in values.items() if not isinstance(k, str) or not isinstance(v, str)]
    if bad:
        raise CatalogError(
            f"MCP server '{server}': {what} values must be strings (see {', '.join(map(str, bad))})"
        )
    return MappingProxyType(dict(values))


def _check_url(server: str, url: Any) -> str:
    if not isinstance(url, str) or not url.strip():
        raise CatalogError(f"MCP server '{server}': 'url' is missing; give the server's http(s) URL")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CatalogError(f"MCP server '{server}': url {url!r} is not an http(s) URL")
    return url


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class McpServerDefinition:
    """Base of the three kinds. `name` is the catalog name the definition was registered under."""

    type: ClassVar[ServerType]

    @property
    def is_local(self) -> bool:
        """True for servers started as a local process (a vendor API cannot start them)."""
        return self.type == "stdio"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_dict() == self.to_dict()

    def __hash__(self) -> int:
        return hash((self.type, repr(sorted(self.to_dict().items()))))

    def __repr__(self) -> str:
        # env values and headers often hold secrets: their names are shown, never their values.
        shown = {
            key: sorted(value) if key in ("env", "headers") else value
            for key, value in self.to_dict().items()
        }
        shown.pop("type")
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def to_dict(self) -> dict[str, Any]:
        """The definition in the catalog file format (`{"type": ..., ...}`), empty fields left out."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class StdioDefinition(McpServerDefinition):
    """A server started as a local process speaking MCP on stdin/stdout."""

    type: ClassVar[ServerType] = "stdio"
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str | None

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        *,
        name: str = "(unnamed)",
    ) -> None:
        if not isinstance(command, str) or not command.strip():
            raise CatalogError(
                f"MCP server '{name}': 'command' is missing or empty; name the program to start"
            )
        if isinstance(args, str) or not all(isinstance(a, str) for a in args):
            raise CatalogError(f"MCP server '{name}': 'args' must be a list of strings, not {args!r}")
        if cwd is not None and not isinstance(cwd, str):
            raise CatalogError(f"MCP server '{name}': 'cwd' must be a string, not {cwd!r}")
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "args", tuple(args))
        object.__setattr__(self, "env", _frozen_strings(name, "'env'", env))
        object.__setattr__(self, "cwd", cwd)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "stdio", "command": self.command}
        if self.args:
            data["args"] = list(self.args)
        if self.env:
            data["env"] = dict(self.env)
        if self.cwd:
            data["cwd"] = self.cwd
        return data


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class _UrlDefinition(McpServerDefinition):
    url: str
    headers: Mapping[str, str]

    def __init__(
        self, url: str, headers: Mapping[str, str] | None = None, *, name: str = "(unnamed)"
    ) -> None:
        object.__setattr__(self, "url", _check_url(name, url))
        object.__setattr__(self, "headers", _frozen_strings(name, "'headers'", headers))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "url": self.url}
        if self.headers:
            data["headers"] = dict(self.headers)
        return data


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class SseDefinition(_UrlDefinition):
    """A server reached over the (handshake-era) HTTP+SSE transport."""

    type: ClassVar[ServerType] = "sse"


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class HttpDefinition(_UrlDefinition):
    """A server reached over streamable HTTP (stateful or stateless)."""

    type: ClassVar[ServerType] = "http"
