"""One selector resolved stage by stage, as MCP Mesh's registry does: health → capability_match → tags →
version → schema → tiebreaker, each stage keeping or evicting candidates with a typed reason.

The schema stage runs only when the dependency set a match mode (`matchMode`):

| candidate                  | subset                              | strict                        |
|----------------------------|-------------------------------------|-------------------------------|
| no `outputSchemaHash`      | kept                                | evicted (`no_published_hash`) |
| same hash as expected      | kept                                | kept                          |
| another hash               | kept if `subset_diff` finds nothing | evicted                       |

The consumer's hash is not checked against its canonical form (MCP Mesh does not either): the diff reads
the canonical forms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..mesh.selectors import SelectorQuery, TagQuery, version_sort_key
from ..schemas.compatibility import subset_diff
from .audit import Eviction, Stage, StageName, Trace
from .payload import SchemaExpectation, ToolRecord

__all__ = ["run_stages"]


def _tag_failure(tags: TagQuery, have: frozenset[str]) -> tuple[str, dict[str, Any] | None]:
    """Why a provider's tags fail a selector: an excluded tag, then missing required tags, then a group."""
    for tag in tags.excluded:
        if tag in have:
            return "ExtraTagDisallowed", {"disallowed": [tag]}
    missing = [t for t in tags.required if t not in have]
    if missing:
        return "MissingTag", {"missing": missing}
    for group in tags.any_of:
        matched = False
        for alternative in group:
            name = alternative.lstrip("+-")
            if alternative.startswith("-"):
                if name and name in have:
                    return "ExtraTagDisallowed", {"disallowed": [name]}
            elif name in have:
                matched = True
        if not matched:
            return "MissingTag", {"missing_one_of": list(group)}
    return "MissingTag", None


# Subset diffs by the content digests of both canonical forms (computed by this registry, not the hashes
# agents claim): the same pair gives the same reasons, so a fleet re-resolving runs each diff once.
_DIFFS: dict[tuple[str, str], list[dict[str, Any]]] = {}
MAX_DIFFS = 4096


def _diff(schema: SchemaExpectation, tool: ToolRecord) -> list[dict[str, Any]]:
    assert schema.canonical is not None and tool.output_schema_canonical is not None
    key = (schema.digest, tool.output_schema_digest)
    found = _DIFFS.get(key)
    if found is None:
        if len(_DIFFS) >= MAX_DIFFS:
            _DIFFS.clear()
        found = _DIFFS[key] = subset_diff(schema.canonical, tool.output_schema_canonical)
    return found


def _schema_evicts(schema: SchemaExpectation, tool: ToolRecord) -> bool:
    """`_schema_eviction(...) is not None`, without building the details."""
    produced = tool.output_schema_hash
    if not produced:
        return schema.mode == "strict"
    if schema.hash and schema.hash == produced:
        return False
    if schema.mode == "strict":
        return True
    if schema.canonical is None or tool.output_schema_canonical is None:
        return False
    return bool(_diff(schema, tool))


def _schema_eviction(schema: SchemaExpectation, tool: ToolRecord) -> dict[str, Any] | None:
    """The eviction details of a candidate the schema stage drops, or None when it is kept."""
    produced = tool.output_schema_hash
    if not produced:
        if schema.mode != "strict":
            return None
        reasons = [{"kind": "no_published_hash"}]
        return {"mode": "strict", "consumer_hash": schema.hash, "producer_hash": "", "reasons": reasons}
    if schema.hash and schema.hash == produced:
        return None
    if schema.mode == "strict":
        return {"mode": "strict", "consumer_hash": schema.hash, "producer_hash": produced}
    if schema.canonical is None or tool.output_schema_canonical is None:
        return None  # nothing to compare with: kept, as MCP Mesh keeps it
    reasons = _diff(schema, tool)
    if not reasons:
        return None
    return {"mode": "subset", "consumer_hash": schema.hash, "producer_hash": produced, "reasons": reasons}


def _health(tool: ToolRecord) -> Eviction | None:
    return None if tool.healthy else Eviction(tool, "Unhealthy", {"status": "unhealthy"})


def _stage(
    name: StageName, tools: Sequence[ToolRecord], evict: Callable[[ToolRecord], Eviction | None]
) -> Stage:
    stage = Stage(name)
    for tool in tools:
        evicted = evict(tool)
        if evicted is None:
            stage.kept.append(tool)
        else:
            stage.evicted.append(evicted)
    return stage


def run_stages(
    query: SelectorQuery,
    candidates: Sequence[ToolRecord],
    namespace: str,
    *,
    tags: list[str],
    schema: SchemaExpectation | None,
) -> tuple[list[ToolRecord], Trace]:
    """The qualifying candidates best first, and the trace of how they were found."""
    constraint = query.version
    mode = schema.mode if schema is not None else "none"
    trace = Trace(query.capability, tags, constraint.text if constraint else "", mode)
    trace.expected_hash = schema.digest if schema is not None else ""
    wanted = query.namespace or namespace
    scores: dict[int, int] = {}

    def place(tool: ToolRecord) -> Eviction | None:
        if wanted and tool.namespace != wanted:
            return Eviction(tool, "NamespaceMismatch", {"namespace": tool.namespace, "wanted": wanted})
        return None

    def tag(tool: ToolRecord) -> Eviction | None:
        score = query.tags.score(tool.tags)
        if score is None:
            return Eviction(tool, *_tag_failure(query.tags, tool.tags))
        scores[id(tool)] = score
        return None

    def version(tool: ToolRecord) -> Eviction | None:
        if constraint is None or constraint.matches(tool.version):
            return None
        details = {"version": tool.version, "constraint": constraint.text}
        return Eviction(tool, "VersionConstraintFailed", details)

    def shape(tool: ToolRecord) -> Eviction | None:
        if schema is None or not _schema_evicts(schema, tool):
            return None
        return Eviction(tool, "SchemaIncompatible", lambda: _schema_eviction(schema, tool) or {})

    kept: Sequence[ToolRecord] = candidates
    stages: tuple[tuple[StageName, Callable[[ToolRecord], Eviction | None]], ...] = (
        ("health", _health),
        ("capability_match", place),
        ("tags", tag),
        ("version", version),
        ("schema", shape),
    )
    for name, evict in stages:
        stage = _stage(name, kept, evict)
        trace.stages.append(stage)
        kept = stage.kept
        if not kept:
            return [], trace
    ranked = sorted(kept, key=lambda t: (t.agent_id, t.function_name))
    ranked.sort(key=lambda t: (scores[id(t)], version_sort_key(t.version)), reverse=True)
    best = ranked[0]
    trace.stages.append(Stage("tiebreaker", kept=list(ranked), chosen=best))
    trace.chosen = (best.agent_id, best.endpoint, best.function_name)
    return ranked, trace
