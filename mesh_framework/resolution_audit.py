"""Reading resolution traces (the `data` of MCP Mesh's `dependency_resolved`/`dependency_unresolved` events,
ours or MCP Mesh's registry's): one line saying why, and the rows of a stage-by-stage table.

    summarize(data)
    # "no provider of `add` with tags fast: 2 evicted by tags (calc-1:add: missing fast; calc-2:add: ...)"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .schemas.compatibility import describe_reasons

__all__ = ["eviction_text", "spec_text", "stage_rows", "summarize"]

MAX_LISTED = 3  # evictions named per stage in a one-line summary


def _names(values: Any) -> str:
    return ", ".join(str(v) for v in values) if isinstance(values, Sequence) and values else "?"


def eviction_text(reason: str, details: Any) -> str:
    """Why one candidate was evicted, in a few words."""
    details = details if isinstance(details, Mapping) else {}
    if reason == "MissingTag":
        if "missing_one_of" in details:
            return "missing one of " + "|".join(str(t) for t in details["missing_one_of"] or ())
        return "missing " + _names(details.get("missing")) if details.get("missing") else "missing a tag"
    if reason == "ExtraTagDisallowed":
        return "has excluded tag " + _names(details.get("disallowed"))
    if reason == "VersionConstraintFailed":
        return f"version {details.get('version', '?')} fails {details.get('constraint', '?')}"
    if reason == "Unhealthy":
        return str(details.get("status") or "unhealthy")
    if reason == "NamespaceMismatch":
        return f"namespace {details.get('namespace', '?')}, wanted {details.get('wanted', '?')}"
    if reason == "SchemaIncompatible":
        reasons = details.get("reasons")
        if isinstance(reasons, list) and reasons:
            return describe_reasons(reasons)
        return f"schema hash differs ({details.get('mode', 'strict')})"
    if reason == "Unavailable" and details.get("reason"):
        return f"unavailable: {details['reason']}"
    return reason


def spec_text(spec: Any) -> str:
    """`` `add` with tags fast, version >=2, schema subset``."""
    spec = spec if isinstance(spec, Mapping) else {}
    text = f"`{spec.get('capability', '?')}`"
    if spec.get("tags"):
        text += " with tags " + " ".join(str(t) for t in spec["tags"])
    if spec.get("version_constraint"):
        text += f", version {spec['version_constraint']}"
    if spec.get("schema_mode") not in (None, "", "none"):
        text += f", schema {spec['schema_mode']}"
    return text


def _evictions(stages: Sequence[Any]) -> list[str]:
    parts: list[str] = []
    for stage in stages:
        if not isinstance(stage, Mapping):
            continue
        evicted = [e for e in stage.get("evicted") or () if isinstance(e, Mapping)]
        if not evicted:
            continue
        named = [
            f"{e.get('id', '?')}: {eviction_text(str(e.get('reason', '')), e.get('details'))}"
            for e in evicted
        ]
        if len(named) > MAX_LISTED:
            named = [*named[:MAX_LISTED], f"{len(named) - MAX_LISTED} more"]
        parts.append(f"{len(evicted)} evicted by {stage.get('stage', '?')} ({'; '.join(named)})")
    return parts


def summarize(data: Any) -> str:
    """One line: what the slot resolved to, or why nothing qualified."""
    data = data if isinstance(data, Mapping) else {}
    stages = [s for s in data.get("stages") or () if isinstance(s, Mapping)]
    spec = spec_text(data.get("spec"))
    evictions = _evictions(stages)
    chosen = data.get("chosen")
    if isinstance(chosen, Mapping) and chosen.get("agent_id"):
        target = f"{chosen.get('agent_id')}:{chosen.get('function_name', '')}"
        entered = len(stages[0].get("kept") or ()) + len(stages[0].get("evicted") or ()) if stages else 0
        line = f"{spec} -> {target} ({entered} candidate{'s' if entered != 1 else ''})"
        return line + (": " + ", ".join(evictions) if evictions else "")
    if not evictions:
        return f"no provider of {spec}: no agent offers it"
    return f"no provider of {spec}: " + ", ".join(evictions)


def _kept_text(kept: Sequence[Any]) -> str:
    return ", ".join(str(k) for k in kept) if len(kept) <= 2 else f"{len(kept)} candidates"


def stage_rows(data: Any) -> list[tuple[str, str, str, str]]:
    """`(stage, candidate, verdict, why)` rows: each eviction on its own row, the candidates a stage kept
    on one (named when there are at most two), the tiebreaker's choice on its own."""
    data = data if isinstance(data, Mapping) else {}
    rows: list[tuple[str, str, str, str]] = []
    for stage in data.get("stages") or ():
        if not isinstance(stage, Mapping):
            continue
        name = str(stage.get("stage", "?"))
        chosen = stage.get("chosen")
        kept = [k for k in stage.get("kept") or () if not (chosen and k == chosen)]
        if chosen:
            rows.append((name, str(chosen), "chosen", str(stage.get("reason") or "")))
        if kept:
            rows.append((name, _kept_text(kept), "kept", ""))
        for evicted in stage.get("evicted") or ():
            if isinstance(evicted, Mapping):
                reason = str(evicted.get("reason", ""))
                why = eviction_text(reason, evicted.get("details"))
                rows.append((name, str(evicted.get("id", "?")), reason, why))
        if not stage.get("kept") and not stage.get("evicted"):
            rows.append((name, "-", "none", "no candidate"))
    return rows
