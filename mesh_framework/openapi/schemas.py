"""OpenAPI schemas as the JSON Schemas of a tool's input: every schema a `$ref` names is copied into the
input schema's `$defs` (references rewritten to `#/$defs/Name`, recursive schemas kept as references), and
an OpenAPI 3.0 schema's own dialect is turned into JSON Schema's: `nullable: true` adds `null` to the
types, a boolean `exclusiveMinimum`/`exclusiveMaximum` becomes the number it qualifies."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .document import OpenApiDocument

__all__ = ["SchemaCollector"]

# Keys whose values are data (examples, defaults, enumerations), never schemas: left as written.
_DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "x-examples"})
_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class SchemaCollector:
    """Converts the schemas of one tool's input, collecting the referenced ones into `defs`."""

    def __init__(self, document: OpenApiDocument) -> None:
        self.document = document
        self.defs: dict[str, Any] = {}
        self._names: dict[str, str] = {}  # reference -> its $defs name

    def convert(self, schema: Any) -> Any:
        """`schema` (an OpenAPI Schema object's data) as JSON Schema; SpecError for a reference that
        cannot be followed."""
        return self._walk(schema)

    def wrap(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The tool's input schema: `schema` with the collected `$defs`."""
        return {**schema, "$defs": dict(self.defs)} if self.defs else schema

    def target(self, schema: Mapping[str, Any]) -> Any:
        """What a converted schema stands for when it is a bare reference (`{"$ref": "#/$defs/X"}`)."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and len(schema) == 1:
            return self.defs.get(ref.removeprefix("#/$defs/"), schema)
        return schema

    def _walk(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self._walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            return {**{k: v for k, v in node.items() if k != "$ref"}, "$ref": self._reference(ref)}
        converted = {
            key: (value if key in _DATA_KEYS else self._walk(value))
            for key, value in node.items()
            if not (self.document.version == "3.0" and key == "nullable" and isinstance(value, bool))
        }
        if self.document.version == "3.0":
            _from_openapi_30(node, converted)
        return converted

    def _reference(self, ref: str) -> str:
        name = self._names.get(ref)
        if name is None:
            target = self.document.lookup(ref)  # SpecError: outside the document, or pointing nowhere
            name = self._names[ref] = self._free_name(ref)
            self.defs[name] = {}  # reserved first: a recursive schema meets itself as a reference
            self.defs[name] = self._walk(target)
        return f"#/$defs/{name}"

    def _free_name(self, ref: str) -> str:
        base = _NOT_NAME.sub("_", ref.rpartition("/")[2].replace("~1", "/").replace("~0", "~")) or "schema"
        name, n = base, 1
        while name in self.defs:
            n += 1
            name = f"{base}_{n}"
        return name


def _from_openapi_30(original: Mapping[str, Any], converted: dict[str, Any]) -> None:
    if original.get("nullable") is True:
        kind = converted.get("type")
        if isinstance(kind, str):
            converted["type"] = [kind, "null"]
        elif kind is None:
            options = [dict(converted), {"type": "null"}]
            converted.clear()
            converted["anyOf"] = options
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = converted.get(bound)
        if isinstance(flag, bool):
            del converted[bound]
            if flag and limit in converted:
                converted[bound] = converted.pop(limit)
