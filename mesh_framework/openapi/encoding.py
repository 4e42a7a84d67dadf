"""A tool's arguments as an HTTP request's parts, by the OpenAPI parameter serialization rules (`style`,
`explode`) for the common cases.

- query: `form` (the default; exploded `?id=1&id=2`, else `?id=1,2`; an object's exploded members are
  parameters of their own, `?a=1&b=2`, else `?obj=a,1,b,2`), `spaceDelimited` and `pipeDelimited` arrays
  (`1 2`, `1|2`), `deepObject` objects (`obj[a]=1&obj[b]=2`);
- path: `simple` (the default: `1,2`; an object `a,1,b,2`, exploded `a=1,b=2`), `label` (`.1.2` /
  `.1,2`) and `matrix` (`;id=1;id=2` / `;id=1,2`), each value percent-encoded;
- header: `simple`; cookie: `form`, not exploded.

Scalars are written as JSON writes them (`true`, `3.5`); a parameter described by `content` (not
`schema`) is sent as its JSON text. Other combinations (an object inside an array, `allowReserved`) are
sent as their JSON text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

__all__ = ["cookie_value", "default_explode", "default_style", "header_value", "path_value", "query_pairs"]


def default_style(location: str) -> str:
    return "form" if location in ("query", "cookie") else "simple"


def default_explode(style: str) -> bool:
    return style == "form"


def scalar(value: Any) -> str:
    """One value as text: strings as they are, anything else as JSON writes it."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _flat(value: Mapping[str, Any]) -> list[str]:
    return [part for key, item in value.items() for part in (key, scalar(item))]


def query_pairs(name: str, value: Any, style: str, explode: bool) -> list[tuple[str, str]]:
    """The query parameters that carry `value`."""
    if isinstance(value, list):
        items = [scalar(item) for item in value]
        if style == "spaceDelimited":
            return [(name, " ".join(items))]
        if style == "pipeDelimited":
            return [(name, "|".join(items))]
        return [(name, item) for item in items] if explode else [(name, ",".join(items))]
    if isinstance(value, dict):
        if style == "deepObject":
            return [(f"{name}[{key}]", scalar(item)) for key, item in value.items()]
        if explode:
            return [(key, scalar(item)) for key, item in value.items()]
        return [(name, ",".join(_flat(value)))]
    return [(name, scalar(value))]


def path_value(name: str, value: Any, style: str, explode: bool) -> str:
    """What replaces `{name}` in the path (percent-encoded)."""

    def enc(text: str) -> str:
        return quote(text, safe="")

    if isinstance(value, list):
        items = [enc(scalar(item)) for item in value]
        if style == "label":
            return "." + ("." if explode else ",").join(items)
        if style == "matrix":
            return "".join(f";{name}={item}" for item in items) if explode else f";{name}=" + ",".join(items)
        return ",".join(items)
    if isinstance(value, dict):
        pairs = [(enc(key), enc(scalar(item))) for key, item in value.items()]
        exploded = [f"{key}={item}" for key, item in pairs]
        flat = [part for pair in pairs for part in pair]
        if style == "label":
            return "." + (".".join(exploded) if explode else ",".join(flat))
        if style == "matrix":
            return "".join(f";{pair}" for pair in exploded) if explode else f";{name}=" + ",".join(flat)
        return ",".join(exploded if explode else flat)
    text = enc(scalar(value))
    if style == "label":
        return "." + text
    if style == "matrix":
        return f";{name}={text}"
    return text


def header_value(value: Any, explode: bool) -> str:
    """A header's value (`simple` style)."""
    if isinstance(value, list):
        return ",".join(scalar(item) for item in value)
    if isinstance(value, dict):
        if explode:
            return ",".join(f"{key}={scalar(item)}" for key, item in value.items())
        return ",".join(_flat(value))
    return scalar(value)


def cookie_value(value: Any) -> str:
    """A cookie's value (`form` style, not exploded)."""
    if isinstance(value, list):
        return ",".join(scalar(item) for item in value)
    if isinstance(value, dict):
        return ",".join(_flat(value))
    return scalar(value)
