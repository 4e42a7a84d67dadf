"""`ToolContext` -> MCP `_meta`: what of the caller's context travels with an outgoing tool call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import to_json

from ..tools.context import ToolContext

__all__ = ["ToolContextMetaConverter"]

# Keys never forwarded: Spring AI's name for the server exchange, which is live state, not data.
_DROPPED = frozenset({"exchange"})


def _json_safe(value: Any) -> bool:
    try:
        to_json(value)
    except (TypeError, ValueError):
        return False
    return True


class ToolContextMetaConverter:
    """Turns the caller's `ToolContext` into the `_meta` of an outgoing call (None: send no `_meta`).

    The default copies the JSON-safe `context.entries` and drops the exchange; `no_op()` sends nothing;
    `of(fn)` wraps a function of the context.
    """

    def convert(self, context: ToolContext | None) -> dict[str, Any] | None:
        if context is None or not context.entries:
            return None
        meta = {k: v for k, v in context.entries.items() if k not in _DROPPED and _json_safe(v)}
        return meta or None

    def __call__(self, context: ToolContext | None) -> dict[str, Any] | None:
        return self.convert(context)

    @classmethod
    def default(cls) -> ToolContextMetaConverter:
        return cls()

    @classmethod
    def no_op(cls) -> ToolContextMetaConverter:
        return _NoOp()

    @classmethod
    def of(
        cls, convert: Callable[[ToolContext | None], Mapping[str, Any] | None]
    ) -> ToolContextMetaConverter:
        return _FunctionConverter(convert)


class _NoOp(ToolContextMetaConverter):
    def convert(self, context: ToolContext | None) -> dict[str, Any] | None:
        return None


class _FunctionConverter(ToolContextMetaConverter):
    def __init__(self, convert: Callable[[ToolContext | None], Mapping[str, Any] | None]) -> None:
        self._convert = convert

    def convert(self, context: ToolContext | None) -> dict[str, Any] | None:
        meta = self._convert(context)
        return dict(meta) if meta else None
