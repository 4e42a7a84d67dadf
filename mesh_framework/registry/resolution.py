"""What the registry answers an agent: its dependency slots, LLM tools and LLM providers.

An answer is `{"dependencies_resolved": ..., "llm_tools": ..., "llm_providers": ...}` in MCP Mesh's shapes.
Each resolved slot (and LLM provider) also carries `alternates`: the next qualifying healthy providers
in rank order (at most MAX_ALTERNATES), so a consumer can fail over without waiting for the registry (MCP
Mesh clients ignore it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..mesh.selectors import SelectorQuery, rank_providers, score_candidate, version_sort_key
from .audit import AuditLog, Trace
from .payload import DependencySlot, LlmFilter, Registration, SelectorDetails, ToolRecord
from .stages import run_stages

__all__ = ["MAX_ALTERNATES", "Answer", "ProviderIndex", "explain_slot", "resolve", "unresolved_slot"]

# A consumer retries once, on the first alternate it has not seen refuse; a few spare entries cover
# providers that died together, without every answer listing the whole fleet.
MAX_ALTERNATES = 3

Answer = dict[str, Any]
ProviderIndex = Mapping[str, Sequence[ToolRecord]]


def unresolved_slot(capability: str) -> dict[str, Any]:
    """The placeholder MCP Mesh puts in a slot nobody provides."""
    return {
        "agent_id": "",
        "capability": capability,
        "endpoint": "",
        "function_name": "",
        "status": "unresolved",
    }


def _alternate(tool: ToolRecord) -> dict[str, Any]:
    return {"agent_id": tool.agent_id, "endpoint": tool.endpoint, "function_name": tool.function_name}


def _rank_any_capability(
    query: SelectorQuery, tools: Iterable[ToolRecord], namespace: str | None
) -> list[ToolRecord]:
    """Rank by tags and version alone, for LLM filters that name no capability."""
    matches: list[tuple[int, ToolRecord]] = []
    for tool in tools:
        probe = SelectorQuery(tool.capability, query.tags, query.version, query.namespace)
        score = score_candidate(probe, tool, namespace)
        if score is not None:
            matches.append((score, tool))
    matches.sort(key=lambda m: (m[1].agent_id, m[1].function_name))
    matches.sort(key=lambda m: (m[0], version_sort_key(m[1].version)), reverse=True)
    return [tool for _, tool in matches]


def _resolve_slot(
    slot: DependencySlot, index: ProviderIndex, namespace: str
) -> tuple[dict[str, Any], Trace | None]:
    """The slot's answer, and the trace of the alternative that resolved it (else of the last one)."""
    ranked: list[ToolRecord] = []
    trace: Trace | None = None
    for position, query in enumerate(slot.alternatives):
        details = slot.details[position] if position < len(slot.details) else SelectorDetails([])
        found, traced = run_stages(
            query, index.get(query.capability, ()), namespace, tags=details.tags, schema=details.schema
        )
        if trace is None or trace.chosen is None:
            trace = traced
        for tool in found:
            if tool not in ranked:
                ranked.append(tool)
    if not ranked:
        return unresolved_slot(slot.capability), trace
    best = ranked[0]
    return {
        "agent_id": best.agent_id,
        "capability": best.capability,
        "endpoint": best.endpoint,
        "function_name": best.function_name,
        "kwargs": best.kwargs,
        "status": "available",
        "alternates": [_alternate(t) for t in ranked[1 : 1 + MAX_ALTERNATES]],
    }, trace


def _llm_tool(tool: ToolRecord) -> dict[str, Any]:
    return {
        "capability": tool.capability,
        "description": tool.description,
        "endpoint": tool.endpoint,
        "inputSchema": tool.input_schema,
        "name": tool.function_name,
        "tags": tool.tag_list,
        "version": tool.version,
    }


def _callable(tools: Iterable[ToolRecord]) -> list[ToolRecord]:
    """Only tools with an input schema can be offered to an LLM (or serve as an LLM provider)."""
    return [t for t in tools if t.input_schema is not None]


def _llm_tools(spec: LlmFilter, index: ProviderIndex, own: Registration) -> list[dict[str, Any]]:
    def everything() -> list[ToolRecord]:
        return _callable(t for tools in index.values() for t in tools)

    found: list[ToolRecord] = []
    if spec.mode == "*":
        found = [t for t in everything() if t.healthy and t.agent_id != own.agent_id]
    elif not spec.entries and spec.wildcard:
        found = [t for t in everything() if t.healthy]
    for query in spec.entries if spec.mode != "*" else ():
        if query.capability == "*":
            found.extend(_rank_any_capability(query, everything(), own.namespace))
        else:
            candidates = _callable(index.get(query.capability, ()))
            found.extend(rank_providers(query, candidates, namespace=own.namespace))
    unique: dict[str, ToolRecord] = {}
    for tool in found:  # LLM APIs need unique tool names: the first (best) one wins
        unique.setdefault(tool.function_name, tool)
    chosen = list(unique.values())
    if spec.mode == "best_match":
        best: dict[str, ToolRecord] = {}
        for tool in chosen:
            best.setdefault(tool.capability, tool)
        chosen = list(best.values())
    return [_llm_tool(t) for t in chosen]


def _llm_provider(query: SelectorQuery, index: ProviderIndex, namespace: str) -> dict[str, Any] | None:
    ranked = rank_providers(query, _callable(index.get(query.capability, ())), namespace=namespace)
    if not ranked:
        return None
    best = ranked[0]
    vendor = best.kwargs.get("vendor") if isinstance(best.kwargs, dict) else None
    return {
        "agent_id": best.agent_id,
        "capability": best.capability,
        "endpoint": best.endpoint,
        "kwargs": best.kwargs,
        "name": best.function_name,
        "status": "available",
        "tags": best.tag_list,
        "vendor": vendor if isinstance(vendor, str) else "unknown",
        "version": best.version,
        "alternates": [_alternate(t) for t in ranked[1 : 1 + MAX_ALTERNATES]],
    }


def explain_slot(
    registration: Registration, index: ProviderIndex, function_name: str, dep_index: int
) -> Trace | None:
    """The trace of one dependency slot resolved now (nothing recorded); None for an unknown slot."""
    for tool in registration.tools:
        if tool.function_name == function_name and 0 <= dep_index < len(tool.dependencies):
            return _resolve_slot(tool.dependencies[dep_index], index, registration.namespace)[1]
    return None


def resolve(registration: Registration, index: ProviderIndex, audit: AuditLog | None = None) -> Answer:
    """The agent's answer against the providers in `index` (capability → tools, unhealthy ones included);
    each dependency slot's trace goes to `audit` (registry/audit.py), which keeps those worth keeping."""
    dependencies: dict[str, list[dict[str, Any]]] = {}
    llm_tools: dict[str, list[dict[str, Any]]] = {}
    llm_providers: dict[str, dict[str, Any]] = {}
    namespace = registration.namespace
    for tool in registration.tools:
        if tool.dependencies:
            slots = dependencies[tool.function_name] = []
            for position, slot in enumerate(tool.dependencies):
                answer, trace = _resolve_slot(slot, index, namespace)
                slots.append(answer)
                if audit is not None and trace is not None:
                    consumer = registration.agent_id, registration.name
                    audit.record(*consumer, tool.function_name, position, trace)
        if tool.llm_filter is not None:
            llm_tools[tool.function_name] = _llm_tools(tool.llm_filter, index, registration)
        if tool.llm_provider is not None:
            provider = _llm_provider(tool.llm_provider, index, namespace)
            if provider is not None:
                llm_providers[tool.function_name] = provider
    return {"dependencies_resolved": dependencies, "llm_tools": llm_tools, "llm_providers": llm_providers}
