"""`@mesh_resource("uri")`: serve a function's return value as an MCP resource. It records, nothing more."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .._frozen import frozen
from ..specs import scope_names

__all__ = ["RESOURCE_ATTR", "ResourceSpec", "mesh_resource"]

RESOURCE_ATTR = "__mesh_resource__"
F = TypeVar("F", bound=Callable[..., Any])


@frozen
class ResourceSpec:
    function: Callable[..., Any]
    uri: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    scopes: tuple[str, ...] = ()  # what a resources/read asks of the caller's token


def mesh_resource(
    uri: str,
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    scopes: Sequence[str] = (),
) -> Callable[[F], F]:
    """Serve the function as the resource `uri`, or as a URI template (`"logs://{service}/{date}"`) whose
    variables are the function's parameters (`{+path}` also matches slashes).

    Return `str` (text, default `text/plain`), `bytes` (binary, default `application/octet-stream`), a
    dict or list (JSON) or an `EmbeddedResource`. The name defaults to the function name, the description
    to the docstring. `scopes`: what the caller's access token must grant to read it (a `resources/read`
    without them is refused with 403 `insufficient_scope`, as a tool call is; it is still listed). Usage::

        @mesh_resource("logs://{service}/{date}", mime_type="text/plain")
        def logs(service: str, date: str) -> str:
            return read_logs(service, date)
    """
    if not isinstance(uri, str) or ("://" not in uri and not uri.startswith(("urn:", "data:"))):
        raise ValueError(f"Resource URI {uri!r} needs a scheme, like 'config://app' or 'logs://{{service}}'")

    wanted = scope_names(scopes, f"@mesh_resource({uri!r})")

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@mesh_resource applies to functions and methods, not {function!r}")
        spec = ResourceSpec(function, uri, name, title, description, mime_type, wanted)
        setattr(function, RESOURCE_ATTR, spec)
        return function

    return mark
