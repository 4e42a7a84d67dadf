"""`mesh explain AGENT CAPABILITY`: why the agent's dependency on CAPABILITY wired to its provider, or not.

Reads any MCP Mesh registry (ours or MCP Mesh's): the agent (by name or id) and its dependency slots on
CAPABILITY from `GET /agents`, then each slot's newest trace from `GET /events` (a dependency_resolved or
dependency_unresolved event). A registry records a trace only when it decided something (two or more
candidates, or an eviction); for a slot without one, our registry's `GET /explain` computes it now, and
MCP Mesh's says only how it resolved. `--json` prints the traces as the registry gave them.

This explains the mesh's wiring between agents; for the wiring inside one app (its beans, their scopes and
origins, and why each condition matched or not), see `mesh beans APP`.
"""

from __future__ import annotations

import argparse
from typing import Any

from .agents import TIMEOUT, _tls, agent_id, read_agents
from .common import EXIT_ERROR, EXIT_OK, CliError, Unreachable, client_settings, json_option, registry_option
from .common import registry_url as resolve_registry_url
from .output import echo, emit_json, escape_controls, is_terminal, plain_table, rich_table

__all__ = ["register"]

EVENT_LIMIT = 500
NO_TRACE = (
    "the registry recorded no decision for it (a registry records one when two or more providers were "
    "candidates, or one was evicted)"
)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "explain",
        help="why an agent's dependency resolved to its provider (or did not), stage by stage",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("agent", help="the consumer agent's name or id")
    parser.add_argument("capability", help="the capability it depends on")
    registry_option(parser)
    json_option(parser)
    parser.set_defaults(handler=_explain)


def _get(url: str, path: str, query: dict[str, Any]) -> tuple[int, Any]:
    from http.client import HTTPException
    from urllib.parse import urlencode

    from .registry_http import get_json

    settings = client_settings()
    token = settings.registry.token if settings is not None else None
    headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else {}
    try:
        return get_json(
            url, f"{path}?{urlencode(query)}", headers=headers, timeout=TIMEOUT, tls=lambda: _tls(settings)
        )
    except (OSError, HTTPException) as exc:
        raise Unreachable(f"the registry at {url} stopped answering ({type(exc).__name__})") from None


def _find_agent(agents: list[dict[str, Any]], wanted: str, url: str) -> dict[str, Any]:
    by_id = [a for a in agents if agent_id(a) == wanted]
    named = by_id or [a for a in agents if a.get("name") == wanted]
    if not named:
        known = ", ".join(sorted({str(a.get("name", "?")) for a in agents})) or "none"
        raise CliError(f"no agent named or with id '{wanted}' at {url} (agents: {known})", EXIT_ERROR)
    healthy = [a for a in named if a.get("status") == "healthy"]
    return (healthy or named)[-1]  # the newest registration


def _slots(agent: dict[str, Any], capability: str) -> list[tuple[str, int, dict[str, Any]]]:
    """The agent's dependency slots on `capability`: (tool, index among that tool's dependencies, row)."""
    counters: dict[str, int] = {}
    found = []
    for row in agent.get("dependency_resolutions") or ():
        if not isinstance(row, dict):
            continue
        tool = str(row.get("function_name", ""))
        index = counters.get(tool, 0)
        counters[tool] = index + 1
        if row.get("capability") == capability:
            found.append((tool, index, row))
    return found


def _traced(url: str, agent: str, capability: str) -> dict[tuple[str, int], dict[str, Any]]:
    """The newest recorded trace of each of the agent's slots on `capability`, by (tool, index)."""
    status, body = _get(url, "/events", {"agent_id": agent, "limit": EVENT_LIMIT})
    events = body.get("events") if status == 200 and isinstance(body, dict) else None
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for event in events if isinstance(events, list) else ():
        data = event.get("data") if isinstance(event, dict) else None
        if event.get("event_type") not in ("dependency_resolved", "dependency_unresolved"):
            continue
        if not isinstance(data, dict) or not isinstance(data.get("dep_index"), int):
            continue
        spec = data.get("spec")
        if isinstance(spec, dict) and spec.get("capability") == capability:
            found.setdefault((str(event.get("function_name", "")), data["dep_index"]), data)
    return found


def _report(agent: dict[str, Any], tool: str, index: int, source: str, data: Any) -> dict[str, Any]:
    from ..resolution_audit import summarize  # here: mesh --help and mesh list load no pydantic

    chosen = data.get("chosen") if isinstance(data, dict) else None
    provider = chosen.get("agent_id") if isinstance(chosen, dict) else None
    return {
        "agent_id": agent_id(agent),
        "agent_name": str(agent.get("name", "?")),
        "function_name": tool,
        "dep_index": index,
        "status": "available" if provider else "unresolved",
        "provider": provider,
        "source": source,
        "trace": data,
        "summary": summarize(data),
    }


def _explain(args: argparse.Namespace) -> int:
    url = resolve_registry_url(args.registry_url)
    listing = read_agents(url)
    agent = _find_agent(listing.agents, args.agent, url)
    ident, name = agent_id(agent), str(agent.get("name", "?"))
    reports = {
        key: _report(agent, *key, "events", data)
        for key, data in _traced(url, ident, args.capability).items()
    }
    # MCP Mesh's listing leaves unresolved slots out (so its indexes may be off): a listed slot that an
    # event already covers (same tool, same provider) is not shown twice
    for tool, index, row in _slots(agent, args.capability):
        provider = row.get("provider_agent_id") or None
        if (tool, index) in reports or any(
            key[0] == tool and provider and report["provider"] == provider for key, report in reports.items()
        ):
            continue
        status, body = _get(url, "/explain", {"agent_id": ident, "function_name": tool, "dep_index": index})
        if status == 200 and isinstance(body, dict) and isinstance(body.get("trace"), dict):
            reports[(tool, index)] = _report(agent, tool, index, "explain", body["trace"])
        else:
            untraced = _report(agent, tool, index, "none", None)
            untraced |= {"status": row.get("status"), "provider": provider}
            untraced["summary"] = _untraced(args.capability, row)
            reports[(tool, index)] = untraced
    if not reports:
        declared = sorted({str(r.get("capability")) for r in agent.get("dependency_resolutions") or ()})
        listed = ", ".join(declared) or "none"
        raise CliError(
            f"agent '{name}' ({ident}) has no dependency on '{args.capability}' (its dependencies: {listed})",
            EXIT_ERROR,
        )
    ordered = [reports[key] for key in sorted(reports)]
    if args.json:
        emit_json({"registry": url, "explanations": ordered})
        return EXIT_OK
    for number, report in enumerate(ordered):
        if number:
            echo()
        _show(report)
    return EXIT_OK


def _untraced(capability: str, row: dict[str, Any]) -> str:
    if row.get("status") == "available":
        target = f"{row.get('provider_agent_id', '?')}:{row.get('mcp_tool', '?')}"
        return f"`{capability}` -> {target}; {NO_TRACE}"
    return f"no provider of `{capability}`; {NO_TRACE}"


def _show(report: dict[str, Any]) -> None:
    from ..resolution_audit import stage_rows

    title = (
        f"{report['agent_name']} ({report['agent_id']}) tool {report['function_name']}, "
        f"dependency {report['dep_index']}"
    )
    echo(escape_controls(title))  # the registry's words: one line each, whatever they hold
    echo(f"  {escape_controls(str(report['summary']))}")
    data = report["trace"]
    if data is None:
        return
    if report["source"] == "explain":
        echo("  (computed now: the registry recorded no decision for it)")
    rows = stage_rows(data)
    if is_terminal():
        rich_table(["Stage", "Candidate", "Verdict", "Why"], rows, wrap=(False, False, False, True))
    else:
        plain_table([("STAGE", "CANDIDATE", "VERDICT", "WHY"), *rows], caps=(16, 48, 24, 0))
