"""What the registry and the console read from a request: strict JSON bodies (`read_json`, `parse_json`,
one parser for every JSON route) and integer query parameters (`query_int`).

Python's `json` takes more than JSON: `NaN`, `Infinity` and numbers too large for a float (which become
`inf`), lone surrogates (`"\\ud800"`, a string no UTF-8 response can hold), and nesting as deep as the
recursion limit. Each of those, once stored, breaks whatever renders it later (`/agents`, `/ui/state`,
`/ui/console`) for every reader; so a body holding one is refused at the door with a `BodyError` that
names where it is (`tools[0].name`), and what the registry keeps can always be written back as JSON.

Nesting is measured before parsing, over the body's brackets outside strings, so a deep body is refused
without recursing at all.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from starlette.requests import Request

__all__ = ["MAX_INT_DIGITS", "MAX_JSON_DEPTH", "BodyError", "parse_json", "query_int", "read_json"]

MAX_JSON_DEPTH = 100  # objects and arrays inside each other: a heartbeat's schemas stay far below
MAX_INT_DIGITS = 40  # 128-bit trace ids (39 digits) fit; a float made of the rest stays finite

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1
_SURROGATE = re.compile("[\ud800-\udfff]")


class BodyError(ValueError):
    """A body that is not strict JSON, or a bad query parameter; `field` is the JSON path of the offending
    value ("" for the whole body), or the parameter's name."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)


class _NotJson:
    """What `NaN`, `Infinity` or an out-of-range number parse to, so the walk can say where it was."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _constant(text: str) -> _NotJson:
    return _NotJson(text)


def _float(text: str) -> float | _NotJson:
    value = float(text)
    return value if math.isfinite(value) else _NotJson(text)


def _int(text: str) -> int | _NotJson:
    digits = len(text) - text.startswith("-")
    return int(text) if digits <= MAX_INT_DIGITS else _NotJson(text[:20] + "...")


def _depth(raw: bytes) -> int:
    """How deep arrays and objects nest in `raw`, counted over its brackets outside strings (in C)."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _check(value: Any) -> None:
    """Raise BodyError at the first value JSON cannot carry back out (iterative: no recursion)."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                raise BodyError(where, "holds a lone UTF-16 surrogate (\\ud800-\\udfff): send valid Unicode")
        elif isinstance(node, _NotJson):
            raise BodyError(
                where,
                f"{node.text} is not a JSON number this registry takes: send a finite number "
                f"of at most {MAX_INT_DIGITS} digits, or null",
            )
        elif isinstance(node, dict):
            for key, item in node.items():
                if _SURROGATE.search(key):
                    raise BodyError(where, f"a key holds a lone UTF-16 surrogate: {key!r}")
                stack.append((item, _path(where, key)))
        elif isinstance(node, list):
            stack.extend((item, _path(where, i)) for i, item in enumerate(node))


def parse_json(raw: bytes | str, *, what: str = "the body") -> Any:
    """The JSON value of `raw`, or BodyError: not JSON, nested deeper than MAX_JSON_DEPTH, a non-finite
    or oversized number, or a lone surrogate. `what` names the body in the messages."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _depth(data) > MAX_JSON_DEPTH:
        raise BodyError("", f"{what} is nested deeper than {MAX_JSON_DEPTH} levels: send a flatter document")
    try:
        value = json.loads(data, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except RecursionError:  # unreachable below the depth limit; kept so it can never become a 500
        raise BodyError("", f"{what} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and UnicodeDecodeError for bytes that are not UTF-8
        raise BodyError("", f"{what} is not valid JSON ({exc})") from None
    _check(value)
    return value


async def read_json(request: Request, *, what: str = "the body") -> Any:
    """The request's body as strict JSON (`parse_json`); the guarded edge has bounded its size already."""
    return parse_json(await request.body(), what=what)


def query_int(request: Request, name: str, default: int, *, low: int = 0, high: int) -> int:
    """The query parameter `name` as an integer from `low` to `high` (`default` when absent or empty);
    BodyError naming it otherwise (ASCII digits only: `int()` also takes other scripts' digits)."""
    text = request.query_params.get(name, "")
    if not text:
        return default
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 18) or not low <= int(text) <= high:
        raise BodyError(name, f"must be an integer from {low} to {high}, not {text[:40]!r}")
    return int(text)
