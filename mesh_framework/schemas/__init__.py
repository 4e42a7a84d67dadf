"""Schemas as MCP Mesh compares them: canonical forms, hashes and the subset rule (docs/services.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .canonical import (
        CanonicalSchema,
        SchemaTypeError,
        canonical_schema,
        json_schema_of,
        normalize_schema,
    )
    from .compatibility import MATCH_MODES, MatchMode, subset_diff

__all__ = [
    "MATCH_MODES",
    "CanonicalSchema",
    "MatchMode",
    "SchemaTypeError",
    "canonical_schema",
    "json_schema_of",
    "normalize_schema",
    "subset_diff",
]

# Each name loaded from its module on first use: a tool's schema is made without the subset rule's module.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            ("CanonicalSchema", "SchemaTypeError", "canonical_schema", "json_schema_of", "normalize_schema"),
            ".canonical",
        ),
        **dict.fromkeys(("MATCH_MODES", "MatchMode", "subset_diff"), ".compatibility"),
    },
    globals(),
)
