"""`Mcp-Param-*` headers (SEP-2243): tool arguments a schema marks `x-mcp-header` are mirrored in headers,
so proxies and gateways can route on them; the server checks that each header matches the body.

Declare one with `Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["HEADER_PREFIX", "ParamHeaderError", "check_param_headers", "header_params", "mirrored_headers"]

HEADER_PREFIX = b"mcp-param-"
_ENCODED = re.compile(r"^=\?base64\?(.*)\?=$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


class ParamHeaderError(ValueError):
    """A mirrored argument's header is missing, malformed or differs from the body."""


def header_params(input_schema: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(property, lower-case header suffix) for each top-level property marked `x-mcp-header`."""
    properties = input_schema.get("properties")
    if not isinstance(properties, Mapping):
        return ()
    return tuple(
        (name, str(spec["x-mcp-header"]).lower())
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and spec.get("x-mcp-header")
    )


def _decode(value: str) -> str:
    match = _ENCODED.match(value)
    if match is None:
        return value  # no complete =?base64?...?= wrapper: the value is literal
    encoded = match.group(1)
    if len(encoded) % 4 or not _BASE64.match(encoded):
        raise ParamHeaderError("is not valid base64 inside =?base64?...?=")
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise ParamHeaderError("is not valid base64-encoded UTF-8") from None


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _encode(text: str) -> str:
    """A header value as sent: literal when it is plain visible ASCII without surrounding blanks (and
    does not look encoded), else `=?base64?...?=`."""
    plain = all(" " <= c <= "~" for c in text) and text == text.strip(" \t")
    if plain and _ENCODED.match(text) is None:
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def mirrored_headers(params: tuple[tuple[str, str], ...], arguments: Mapping[str, Any]) -> dict[str, str]:
    """The `Mcp-Param-*` headers (lower-case names) a client sends with `arguments`, one per mirrored
    argument present (`params`: `header_params` of the tool's input schema)."""
    return {
        f"mcp-param-{suffix}": _encode(_render(arguments[name]))
        for name, suffix in params
        if arguments.get(name) is not None
    }


def check_param_headers(
    params: tuple[tuple[str, str], ...], arguments: Mapping[str, Any], headers: Mapping[str, str]
) -> None:
    """Raise ParamHeaderError naming the header unless every mirrored argument matches its header."""
    for name, suffix in params:
        value = arguments.get(name)
        if value is None:
            continue
        header = f"Mcp-Param-{suffix}"
        raw = headers.get(suffix)
        if raw is None:
            raise ParamHeaderError(f"The {header} header is missing; it must mirror argument '{name}'")
        try:
            decoded = _decode(raw.strip(" \t"))
        except ParamHeaderError as exc:
            raise ParamHeaderError(f"The {header} header {exc}") from None
        if decoded != _render(value):
            raise ParamHeaderError(f"The {header} header does not match argument '{name}'")
