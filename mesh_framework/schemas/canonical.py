"""Canonical JSON Schemas and their hashes, as MCP Mesh's SDKs compute them (its schema normalizer).

A schema is reduced to what a consumer can rely on: property names, types, which properties are required,
enums, formats (`format`, `x-media-type`) and nested shapes. Everything else goes:

- removed: `title`, `description`, `examples`, `default`, `$schema`, `$id`, `markdownDescription`,
  `discriminator`, and `additionalProperties` (`true` with a warning: the canonical form says less);
- `$ref`s into `$defs`/`definitions` are inlined; definitions that refer to themselves (recursive models)
  stay as `$defs` named `Recursive_` + 12 hex digits of their shape, so the name of the class does not count;
- `anyOf`/`oneOf` with one branch and `null` (and `nullable: true`) become `"type": [T, "null"]`; other
  `oneOf`s become `anyOf`; type lists are sorted with `null` last;
- `required` is sorted, an all-string `enum` is sorted, an enum without a type gets its values' type;
- property names are camelCased (`market_cap` → `marketCap`), so Python, TypeScript and Java agree.

The rules apply to every object of the schema, the `properties` map included, exactly as MCP Mesh's
normalizer applies them (so a property named `title` or `default` is dropped there too): the hash must be
byte-equal with the one MCP Mesh's agents publish. The hash is `sha256:` + the hex SHA-256 of the
canonical form as compact JSON with sorted keys (non-ASCII characters written as they are).

Inlining is bounded as MCP Mesh bounds it: every inlined definition adds the JSON values of its body to a
count, and a count over `max_inlined_nodes` (500,000, MCP Mesh's default) stops with verdict `BLOCK` and
no canonical form (a diamond-shaped `$defs` graph expands exponentially).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Literal, get_type_hints, is_typeddict

from pydantic import BaseModel, TypeAdapter
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

from .._frozen import frozen
from ..errors import MeshError

__all__ = [
    "MAX_INLINED_NODES",
    "CanonicalSchema",
    "SchemaTypeError",
    "Verdict",
    "canonical_schema",
    "json_schema_of",
    "normalize_schema",
    "schema_hash",
    "type_name",
]

Verdict = Literal["OK", "WARN", "BLOCK"]

MAX_INLINED_NODES = 500_000

ADDITIONAL_TRUE_WARNING = "stripped additionalProperties: true (lossy)"
_STRIPPED = (
    "title",
    "description",
    "examples",
    "default",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "markdownDescription",
    "discriminator",
)
_NOT_SCHEMAS = ("enum", "required", "type")  # their values are data, not schemas
_REF_PREFIXES = ("#/$defs/", "#/definitions/")
_WORD_BREAK = re.compile(r"[_\- ]")


class SchemaTypeError(MeshError, TypeError):
    """A type has no JSON Schema (or is not a type at all); the message names it."""


@frozen
class CanonicalSchema:
    """A schema in canonical form: `canonical` (a JSON value), its `hash` and what was lost (`warnings`)."""

    canonical: dict[str, Any]
    hash: str
    warnings: tuple[str, ...] = ()
    blocked: bool = False  # no canonical form (canonical is {} and hash ""): see `warnings`

    @property
    def verdict(self) -> Verdict:
        """MCP Mesh's verdict: `BLOCK` when there is no canonical form, `WARN` when something was dropped
        that a consumer might have relied on, else `OK`."""
        if self.blocked:
            return "BLOCK"
        return "WARN" if self.warnings else "OK"


def schema_hash(canonical: Any) -> str:
    """`sha256:` + hex SHA-256 of `canonical` as compact JSON with sorted keys."""
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def type_name(tp: Any) -> str:
    """`module.Qualname` of a class, else its repr: how errors name a type."""
    if isinstance(tp, type):
        return f"{tp.__module__}.{tp.__qualname__}"
    return repr(tp)


# -- types to JSON Schema ---------------------------------------------------------------------------


def json_schema_of(tp: Any) -> dict[str, Any]:
    """The JSON Schema of a pydantic model, a dataclass, a TypedDict or any type pydantic describes
    (validation mode, as MCP Mesh's agents extract it). SchemaTypeError names a type that has none."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        try:
            tp.model_rebuild()
            return tp.model_json_schema()
        except (PydanticSchemaGenerationError, PydanticUserError, TypeError, NameError) as exc:
            raise SchemaTypeError(_no_schema(tp, exc)) from None
    if not (isinstance(tp, type) or dataclasses.is_dataclass(tp) or is_typeddict(tp) or _is_type_form(tp)):
        raise SchemaTypeError(
            f"{tp!r} is not a type; expected_type takes a pydantic model, a dataclass, a TypedDict or "
            "a JSON Schema dict"
        )
    try:
        return TypeAdapter(tp).json_schema()
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError, NameError) as exc:
        raise SchemaTypeError(_no_schema(tp, exc)) from None


def _is_type_form(tp: Any) -> bool:
    """`list[Model]`, `Model | None`, `Annotated[...]`: generic aliases and unions are types too."""
    return hasattr(tp, "__origin__") or type(tp).__name__ in ("UnionType", "_UnionGenericAlias")


def _no_schema(tp: Any, exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    culprit = _unsupported_field(tp)
    where = f" (field {culprit})" if culprit else ""
    return (
        f"type {type_name(tp)} has no JSON Schema{where}: {first}; use pydantic models, dataclasses, "
        "TypedDicts and the types pydantic knows (str, int, float, bool, list, dict, datetime, ...)"
    )


def _unsupported_field(tp: Any) -> str | None:
    """The first field of a class whose type has no schema, named `field: Type`."""
    try:
        hints = get_type_hints(tp)
    except Exception:
        return None
    for name, hint in hints.items():
        try:
            TypeAdapter(hint).json_schema()
        except Exception:
            return f"'{name}: {getattr(hint, '__qualname__', repr(hint))}'"
    return None


# -- normalization ----------------------------------------------------------------------------------


def canonical_schema(schema_or_type: Any) -> CanonicalSchema:
    """The canonical form of a JSON Schema dict, or of a type's schema (see `json_schema_of`).

    Usage::

        canonical_schema(Caption).hash            # 'sha256:b477...'
        canonical_schema({"type": "object", ...})
    """
    if isinstance(schema_or_type, Mapping):
        return normalize_schema(schema_or_type)
    return _canonical_of_type(schema_or_type)


@functools.lru_cache(maxsize=512)
def _canonical_of_type(tp: Any) -> CanonicalSchema:
    return normalize_schema(json_schema_of(tp))


def normalize_schema(
    schema: Mapping[str, Any], *, max_inlined_nodes: int = MAX_INLINED_NODES
) -> CanonicalSchema:
    """Reduce a JSON Schema to MCP Mesh's canonical form (see the module's docstring)."""
    try:
        raw = json.loads(json.dumps(schema))  # a private copy holding only JSON values
    except (TypeError, ValueError) as exc:
        return CanonicalSchema({}, "", (f"invalid JSON input: {exc}",), blocked=True)
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = raw.get(key) if isinstance(raw, dict) else None
        if isinstance(found, dict):
            defs.update(found)
    state = _State(defs, _cyclic(defs), max_inlined_nodes)
    try:
        inlined = state.inline(raw)
    except _BudgetExceeded:
        return CanonicalSchema({}, "", (_budget_message(max_inlined_nodes),), blocked=True)
    normalized = state.normalize(inlined)
    if state.cyclic:
        bodies = {name: state.normalize(state.inline(defs[name])) for name in sorted(state.cyclic)}
        rename = {name: "Recursive_" + _shape_hash(body)[:12] for name, body in bodies.items()}
        normalized = _rename_refs(normalized, rename)
        if isinstance(normalized, dict):
            normalized["$defs"] = {rename[n]: _rename_refs(b, rename) for n, b in bodies.items()}
    canonical = normalized if isinstance(normalized, dict) else {}
    return CanonicalSchema(canonical, schema_hash(canonical), tuple(state.warnings))


class _BudgetExceeded(Exception):
    """Inlining went over `max_inlined_nodes`."""


def _budget_message(budget: int) -> str:
    return (
        f"schema exceeds the $ref inlining budget of {budget} nodes: shared $defs are inlined once per use "
        "site, so a diamond-shaped $defs graph expands exponentially"
    )


def _count_nodes(value: Any) -> int:
    """The JSON values in `value`, itself included (how MCP Mesh measures an inlined definition)."""
    if isinstance(value, dict):
        return 1 + sum(_count_nodes(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_count_nodes(v) for v in value)
    return 1


def _ref_name(ref: str) -> str | None:
    for prefix in _REF_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return None


def _refs(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and (name := _ref_name(ref)) is not None:
            out.add(name)
        for child in value.values():
            _refs(child, out)
    elif isinstance(value, list):
        for child in value:
            _refs(child, out)
    return out


def _cyclic(defs: Mapping[str, Any]) -> set[str]:
    """Definitions on a cycle, plus every definition that refers to one (as MCP Mesh's normalizer marks
    them: their `$ref`s are kept instead of inlined)."""
    graph = {name: _refs(body, set()) & defs.keys() for name, body in defs.items()}

    def reaches(start: str, targets: set[str]) -> bool:
        stack, seen = list(graph[start]), set()
        while stack:
            node = stack.pop()
            if node in targets:
                return True
            if node not in seen:
                seen.add(node)
                stack.extend(graph[node])
        return False

    cyclic = {name for name in graph if reaches(name, {name})}
    while cyclic:
        added = {name for name in graph if name not in cyclic and graph[name] & cyclic}
        if not added:
            break
        cyclic |= added
    return cyclic


def _shape_hash(body: Any) -> str:
    """The hex SHA-256 of a definition with every `$ref` target blanked: its shape, not its names."""

    def blank(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ("__CYCLIC__" if k == "$ref" else blank(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [blank(v) for v in value]
        return value

    text = json.dumps(blank(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _rename_refs(value: Any, rename: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, child in value.items():
            if key == "$ref" and isinstance(child, str):
                name = _ref_name(child)
                out[key] = f"#/$defs/{rename[name]}" if name is not None and name in rename else child
            else:
                out[key] = _rename_refs(child, rename)
        return out
    if isinstance(value, list):
        return [_rename_refs(v, rename) for v in value]
    return value


def camel_case(name: str) -> str:
    """`market_cap` → `marketCap`, `URLPath` → `urlPath`, `userID` → `userId` (MCP Mesh's rule)."""
    words: list[str] = []
    current = ""
    for i, char in enumerate(name):
        if _WORD_BREAK.fullmatch(char):
            if current:
                words.append(current)
            current = ""
            continue
        if char.isupper():
            previous = name[i - 1] if i > 0 else ""
            following = name[i + 1] if i + 1 < len(name) else ""
            if previous.islower() or (previous.isupper() and following.islower()):
                if current:
                    words.append(current)
                current = ""
        current += char
    if current:
        words.append(current)
    out = ""
    for index, word in enumerate(words):
        lower = word.lower()
        out += lower if index == 0 else lower[:1].upper() + lower[1:]
    return out


def _with_null(node: dict[str, Any]) -> None:
    kind = node.get("type")
    if isinstance(kind, str):
        if kind != "null":
            node["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        node["type"] = [*kind, "null"]


def _is_null(branch: Any) -> bool:
    return isinstance(branch, dict) and branch.get("type") == "null"


def _nullable(node: dict[str, Any]) -> None:
    """`nullable: true` and unions with `null` as MCP Mesh writes them (in place).

    A union of one typed branch (or one scalar `const`) and `null` becomes that branch with
    `"type": [T, "null"]`; a branch that is itself only a union is flattened into this one; otherwise the
    union keeps its other branches in order with one `null` branch last.
    """
    if node.get("nullable") is True:
        del node["nullable"]
        _with_null(node)
    for key in ("anyOf", "oneOf"):
        while isinstance(node.get(key), list) and any(_is_null(b) for b in node[key]):
            branches: list[Any] = node[key]
            null = next(b for b in branches if _is_null(b))
            rest = [b for b in branches if not _is_null(b)]
            only = rest[0] if len(rest) == 1 and isinstance(rest[0], dict) else None
            if only is not None and "type" in only:
                del node[key]
                node.update(only)
                _with_null(node)
            elif only is not None and "const" in only and _json_type(only["const"]) is not None:
                del node[key]
                node.update(only)
                kind = _json_type(only["const"])
                if kind != "null":
                    node["type"] = [kind, "null"]
            elif only is not None and only.keys() == {"anyOf"} and isinstance(only["anyOf"], list):
                node[key] = [*only["anyOf"], null]
                continue  # the flattened union may now be a nullable one
            else:
                node[key] = [*rest, null]
            break
    kind = node.get("type")
    if isinstance(kind, list):
        names = sorted(t for t in kind if isinstance(t, str) and t != "null")
        node["type"] = [*names, "null"] if "null" in kind else names


def _json_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return None


class _State:
    def __init__(self, defs: dict[str, Any], cyclic: set[str], budget: int) -> None:
        self.defs = defs
        self.cyclic = cyclic
        self.visiting: list[str] = []
        self.warnings: list[str] = []
        self.budget = budget
        self.inlined = 0
        self.sizes: dict[str, int] = {}

    def inline(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.inline(v) for v in value]
        if not isinstance(value, dict):
            return value
        ref = value.get("$ref")
        if isinstance(ref, str):
            name = _ref_name(ref)
            if name is None:
                self.warnings.append(f"non-local $ref kept: {ref}")
                return {"$ref": ref}
            if name in self.cyclic or name in self.visiting:
                kept: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
                for key, child in value.items():
                    if key not in ("$ref", "$defs", "definitions"):
                        kept[key] = self.inline(child)
                return kept
            if name not in self.defs:
                self.warnings.append(f"unresolved $ref: {ref}")
                return {}
            if name not in self.sizes:
                self.sizes[name] = _count_nodes(self.defs[name])
            self.inlined += self.sizes[name]
            if self.inlined > self.budget:
                raise _BudgetExceeded
            self.visiting.append(name)
            resolved = self.inline(self.defs[name])
            self.visiting.pop()
            merged = dict(resolved) if isinstance(resolved, dict) else {"__resolved__": resolved}
            for key, child in value.items():
                if key != "$ref":
                    merged[key] = self.inline(child)
            return merged
        return {k: self.inline(v) for k, v in value.items() if k not in ("$defs", "definitions")}

    def normalize(self, value: Any) -> Any:
        """Children first, then this object's rules (so a union's branches are canonical when merged)."""
        if isinstance(value, list):
            return [self.normalize(v) for v in value]
        if not isinstance(value, dict):
            return value
        node = {k: (v if k in _NOT_SCHEMAS else self.normalize(v)) for k, v in value.items()}
        _nullable(node)
        for key in _STRIPPED:
            node.pop(key, None)
        if isinstance(node.get("oneOf"), list):
            node["anyOf"] = node.pop("oneOf")
        if "additionalProperties" in node and node.pop("additionalProperties") is True:
            self.warnings.append(ADDITIONAL_TRUE_WARNING)
        if isinstance(node.get("enum"), list):
            self._enum(node)
        properties = node.get("properties")
        if isinstance(properties, dict):
            renamed: dict[str, Any] = {}
            changed: dict[str, str] = {}
            for key in sorted(properties):  # on a clash of camelCased names the later one wins
                new = camel_case(key)
                if new != key:
                    changed[key] = new
                renamed[new] = properties[key]
            node["properties"] = renamed
            required = node.get("required")
            if changed and isinstance(required, list):
                node["required"] = [changed.get(r, r) if isinstance(r, str) else r for r in required]
        required = node.get("required")
        if isinstance(required, list):
            node["required"] = sorted(r for r in required if isinstance(r, str))
        return node

    @staticmethod
    def _enum(node: dict[str, Any]) -> None:
        values = node["enum"]
        if "type" not in node and values:
            kinds = {_json_type(v) for v in values}
            if len(kinds) == 1 and None not in kinds:
                node["type"] = kinds.pop()
        if all(isinstance(v, str) for v in values):
            node["enum"] = sorted(values)
