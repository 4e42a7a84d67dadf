"""The schema fields of MCP Mesh's heartbeat: a tool's canonical input and output schemas, a dependency's
expected schema and match mode. Field names are MCP Mesh's (`inputSchemaCanonical`, `outputSchemaHash`,
`expectedSchemaCanonical`, `matchMode`, ...)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from .canonical import CanonicalSchema, canonical_schema, normalize_schema

__all__ = ["dependency_schema_fields", "expected_schema", "tool_schema_fields"]

logger = logging.getLogger("mesh_framework.schemas")

_STREAM_OUTPUT = {"type": "string"}  # a Stream[str] tool's output, as MCP Mesh describes it


def expected_schema(selector: Any) -> CanonicalSchema | None:
    """The canonical schema of a selector's `expected_type` (None without one); SchemaTypeError names a
    type without a schema."""
    expected = getattr(selector, "expected_type", None)
    if expected is None:
        return None
    return canonical_schema(expected)


def dependency_schema_fields(selector: Any) -> dict[str, Any]:
    """`expectedSchemaCanonical`, `expectedSchemaHash` and `matchMode` of a dependency (empty without an
    expected type)."""
    expected = expected_schema(selector)
    if expected is None:
        return {}
    return {
        "expectedSchemaCanonical": expected.canonical,
        "expectedSchemaHash": expected.hash,
        "matchMode": selector.match_mode or "subset",
    }


def tool_schema_fields(
    input_schema: Mapping[str, Any] | None, output: TypeAdapter[Any] | None, *, streams: bool = False
) -> dict[str, Any]:
    """A tool's canonical input and output schemas with their hashes, and `schemaWarnings` when the
    canonical forms lost something. `output` is the tool's result type (None: no output schema)."""
    fields: dict[str, Any] = {}
    warnings: list[str] = []
    if input_schema is not None:
        found = normalize_schema(input_schema)
        fields["inputSchemaCanonical"], fields["inputSchemaHash"] = found.canonical, found.hash
        warnings.extend(found.warnings)
    raw: dict[str, Any] | None = _STREAM_OUTPUT if streams else None
    if output is not None and not streams:
        try:
            raw = output.json_schema()  # validation mode: what MCP Mesh's agents publish
        except Exception as exc:  # a type pydantic serializes but cannot describe: no output schema
            logger.debug("no output schema: %s", exc)
    if raw is not None:
        found = normalize_schema(raw)
        fields["outputSchemaCanonical"], fields["outputSchemaHash"] = found.canonical, found.hash
        warnings.extend(found.warnings)
    if warnings:
        fields["schemaWarnings"] = warnings
    return fields
