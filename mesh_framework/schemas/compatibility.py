"""Whether a producer's canonical output schema satisfies what a consumer expects: MCP Mesh's registry rule.

Match modes (a dependency's `match_mode`):

- `subset`: every property the consumer *requires* must exist in the producer with a compatible type,
  checked recursively through nested objects and array items. Extra producer properties are fine, and so
  are properties the consumer does not require. `integer` satisfies `number`; a type list on the consumer
  (`["string", "null"]`) needs a compatible producer type for each entry; a missing type on either side
  matches anything. Names are compared after canonicalization (camelCase).
- `strict`: the canonical hashes must be equal.

Not compared: titles, descriptions, defaults, examples, enum values, formats and numeric or length limits
(they are in the hash, so `strict` sees them). A producer that publishes no output schema hash is kept
by `subset` and evicted by `strict` (`no_published_hash`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

__all__ = ["MATCH_MODES", "MatchMode", "describe_reasons", "subset_diff", "types_compatible"]

MatchMode = Literal["subset", "strict"]
MATCH_MODES: tuple[str, ...] = ("subset", "strict")


def _types(declared: Any) -> list[str]:
    if isinstance(declared, str):
        return [declared] if declared else []
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str) and t]
    return []


def types_compatible(consumer: Any, producer: Any) -> bool:
    """Whether a producer's `type` satisfies a consumer's (`integer` satisfies `number`)."""
    wanted, offered = _types(consumer), _types(producer)
    if not wanted or not offered:
        return True
    return all(any(w == o or (w == "number" and o == "integer") for o in offered) for w in wanted)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _join(parent: str, child: str) -> str:
    return f"{parent}.{child}" if parent else child


def subset_diff(
    consumer: Mapping[str, Any], producer: Mapping[str, Any], path: str = ""
) -> list[dict[str, Any]]:
    """Why `producer` does not satisfy `consumer` under `subset` (empty: it does), in MCP Mesh's reason
    shapes: `{"kind": "missing_field", "field", "path"}`, `{"kind": "type_mismatch", "path",
    "consumer_type", "producer_type"}`, `{"kind": "missing_items_schema", "path"}`."""
    reasons: list[dict[str, Any]] = []
    if not types_compatible(consumer.get("type"), producer.get("type")):
        reasons.append(
            {
                "consumer_type": consumer.get("type"),
                "kind": "type_mismatch",
                "path": path,
                "producer_type": producer.get("type"),
            }
        )
    wanted: Mapping[str, Any] = _mapping(consumer.get("properties"))
    offered: Mapping[str, Any] = _mapping(producer.get("properties"))
    listed = consumer.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    for field in (f for f in required if isinstance(f, str)):
        if field not in offered:
            reasons.append({"field": field, "kind": "missing_field", "path": _join(path, field)})
            continue
        mine, theirs = wanted.get(field), offered[field]
        if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
            reasons.extend(subset_diff(mine, theirs, _join(path, field)))
    items = consumer.get("items")
    if isinstance(items, Mapping):
        produced = producer.get("items")
        if isinstance(produced, Mapping):
            reasons.extend(subset_diff(items, produced, _join(path, "[]")))
        else:
            reasons.append({"kind": "missing_items_schema", "path": _join(path, "[]")})
    return reasons


def _type_text(declared: Any) -> str:
    names = _types(declared)
    return "|".join(names) if names else "any"


def describe_reasons(reasons: list[Any], limit: int = 3) -> str:
    """`missing text; label is string, expected integer` — schema reasons in a few words."""
    parts: list[str] = []
    for reason in reasons:
        if not isinstance(reason, Mapping):
            continue
        kind, path = reason.get("kind"), reason.get("path") or reason.get("field") or "(root)"
        if kind == "missing_field":
            parts.append(f"missing {path}")
        elif kind == "type_mismatch":
            parts.append(
                f"{path} is {_type_text(reason.get('producer_type'))}, "
                f"expected {_type_text(reason.get('consumer_type'))}"
            )
        elif kind == "missing_items_schema":
            parts.append(f"{path} has no item schema")
        elif kind == "no_published_hash":
            parts.append("publishes no output schema")
        elif kind == "strict_hash_mismatch":
            parts.append("a different schema")
        else:
            parts.append(str(kind))
    if len(parts) > limit:
        parts = [*parts[:limit], f"{len(parts) - limit} more"]
    return ", ".join(parts)
