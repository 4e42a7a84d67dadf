"""MCP Mesh's schema verdict policy at start-up: a `BLOCK` schema refuses the agent unless the tool sets
`output_schema_strict=False`; `tools.schema_strict` (`MCP_MESH_SCHEMA_STRICT`) makes `WARN` refuse too; a
`WARN` that does not refuse is logged on one line."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import TypeAdapter

from .canonical import CanonicalSchema, SchemaTypeError, Verdict
from .wire import expected_schema, tool_schemas

__all__ = ["check_expected_schema", "check_tool_schemas", "dependency_schema_problems", "refuses"]

logger = logging.getLogger("mesh_framework.schemas")


def refuses(verdict: Verdict, *, cluster_strict: bool, tool_strict: bool) -> bool:
    """MCP Mesh's truth table: BLOCK refuses unless the tool opts out; WARN refuses only when the cluster
    is strict and the tool does not opt out; OK never."""
    if verdict == "BLOCK":
        return tool_strict
    if verdict == "WARN":
        return cluster_strict and tool_strict
    return False


def _problem(found: CanonicalSchema, what: str, *, opt_out: bool) -> str:
    promoted = " (tools.schema_strict made WARN refuse)" if found.verdict == "WARN" else ""
    fix = "; simplify the type" + (", or set output_schema_strict=False on the tool" if opt_out else "")
    return f"{what}: schema verdict {found.verdict}{promoted}: {'; '.join(found.warnings)}{fix}"


def check_tool_schemas(
    tool: str,
    input_schema: Mapping[str, Any] | None,
    output: TypeAdapter[Any] | None,
    *,
    streams: bool,
    cluster_strict: bool,
    tool_strict: bool,
) -> list[str]:
    """The problems that refuse start-up for tool `tool`'s input and output schemas (empty: it may
    start); a verdict that does not refuse but lost something is logged here, on one line each."""
    problems: list[str] = []
    for kind, found in tool_schemas(input_schema, output, streams=streams).items():
        what = f"its {kind} schema"
        if refuses(found.verdict, cluster_strict=cluster_strict, tool_strict=tool_strict):
            problems.append(_problem(found, what, opt_out=True))
        elif found.verdict != "OK":
            demoted = " (output_schema_strict=False: sent without canonical form)" if found.blocked else ""
            logger.warning(
                "Tool '%s' %s: schema verdict %s%s: %s",
                tool,
                what,
                found.verdict,
                demoted,
                "; ".join(found.warnings),
            )
    return problems


def check_expected_schema(found: CanonicalSchema, what: str, *, cluster_strict: bool) -> str | None:
    """The problem that refuses start-up for a dependency's expected schema (None: it may start; a WARN
    is logged). A consumer has no opt-out, as in MCP Mesh."""
    if refuses(found.verdict, cluster_strict=cluster_strict, tool_strict=True):
        return _problem(found, what, opt_out=False)
    if found.verdict == "WARN":
        logger.warning("%s: schema verdict WARN: %s", what, "; ".join(found.warnings))
    return None


def dependency_schema_problems(dependencies: Iterable[Any], *, cluster_strict: bool) -> list[str]:
    """The problems of dependencies' (`DependencySpec`s') expected types: a type without a JSON Schema, or
    a verdict that refuses start-up (computed now, once: the heartbeat reuses it)."""
    problems: list[str] = []
    for dependency in dependencies:
        what = f"dependency {dependency.index} ('{dependency.selector.capability}'): expected_type"
        try:
            found = expected_schema(dependency.selector)
        except SchemaTypeError as exc:
            problems.append(f"{what}: {exc}")
            continue
        problem = None if found is None else check_expected_schema(found, what, cluster_strict=cluster_strict)
        if problem is not None:
            problems.append(problem)
    return problems
