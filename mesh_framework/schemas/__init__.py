"""Schemas as MCP Mesh compares them: canonical forms, hashes and the subset rule (docs/services.md)."""

from __future__ import annotations

from .canonical import CanonicalSchema, SchemaTypeError, canonical_schema, json_schema_of, normalize_schema
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
