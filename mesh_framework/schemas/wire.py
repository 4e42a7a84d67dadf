"""The schema fields of MCP Mesh's heartbeat: a tool's canonical input and output schemas, a dependency's
expected schema and match mode. Field names are MCP Mesh's (`inputSchemaCanonical`, `outputSchemaHash`,
`expectedSchemaCanonical`, `matchMode`, ...)."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from .canonical import CanonicalSchema, canonical_schema, normalize_schema

__all__ = [
    "DEMOTED_PREFIX",
    "dependency_schema_fields",
    "expected_schema",
    "tool_schema_fields",
    "tool_schemas",
]

logger = logging.getLogger("mesh_framework.schemas")

_STREAM_OUTPUT = {"type": "string"}  # a Stream[str] tool's output, as MCP Mesh describes it
DEMOTED_PREFIX = "[demoted from BLOCK] "  # a BLOCK warning of a tool with output_schema_strict=False


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


def tool_schemas(
    input_schema: Mapping[str, Any] | None, output: TypeAdapter[Any] | None, *, streams: bool = False
) -> dict[str, CanonicalSchema]:
    """A tool's canonical `input` and `output` schemas (either may be absent). `output` is the tool's
    result type (None: no output schema)."""
    found: dict[str, CanonicalSchema] = {}
    if input_schema is not None:
        found["input"] = normalize_schema(input_schema)
    if streams:
        found["output"] = normalize_schema(_STREAM_OUTPUT)
    elif output is not None and (canonical := _output_schema(output)) is not None:
        found["output"] = canonical
    return found


# A tool's canonical output schema, by its result type's adapter: made once, when the agent loads (its
# verdict is checked then), and read again by every registration of the agent (mesh/registration.py).
_OUTPUTS: weakref.WeakKeyDictionary[TypeAdapter[Any], CanonicalSchema | None] = weakref.WeakKeyDictionary()


def _output_schema(output: TypeAdapter[Any]) -> CanonicalSchema | None:
    if output in _OUTPUTS:
        return _OUTPUTS[output]
    try:
        raw = output.json_schema()  # validation mode: what MCP Mesh's agents publish
    except Exception as exc:  # a type pydantic serializes but cannot describe: no output schema
        logger.debug("no output schema: %s", exc)
        found = None
    else:
        found = normalize_schema(raw)
    _OUTPUTS[output] = found
    return found


def tool_schema_fields(
    input_schema: Mapping[str, Any] | None, output: TypeAdapter[Any] | None, *, streams: bool = False
) -> dict[str, Any]:
    """A tool's canonical input and output schemas with their hashes, and `schemaWarnings` when the
    canonical forms lost something. A `BLOCK` schema (only served with `output_schema_strict=False`) is
    sent without canonical form, its warnings marked as demoted, as MCP Mesh does."""
    fields: dict[str, Any] = {}
    warnings: list[str] = []
    for kind, found in tool_schemas(input_schema, output, streams=streams).items():
        if found.blocked:
            warnings.extend(DEMOTED_PREFIX + w for w in found.warnings)
            continue
        fields[f"{kind}SchemaCanonical"], fields[f"{kind}SchemaHash"] = found.canonical, found.hash
        warnings.extend(found.warnings)
    if warnings:
        fields["schemaWarnings"] = warnings
    return fields
