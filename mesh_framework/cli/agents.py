"""`mesh list` and `mesh status`: the agents a registry knows (ours or MCP Mesh's), from `GET /agents`.

`mesh status` adds the registry's `GET /health`, each agent's last heartbeat (relative to the registry's
own clock, the listing's `timestamp`) and its dependency slots as the registry resolved them.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .common import EXIT_OK, Unreachable, client_settings, json_option, registry_option, registry_url
from .output import echo, emit_json, escape_controls, escaped, is_terminal, rich_table

if TYPE_CHECKING:
    import ssl

__all__ = ["Listing", "fetch_agents", "read_agents", "register", "shown_url", "tool_names"]

TIMEOUT = 5.0


class Listing:
    """One `GET /agents` answer: the agents (dicts in MCP Mesh's field names) and the registry's clock."""

    __slots__ = ("agents", "timestamp", "url")

    def __init__(self, url: str, agents: list[dict[str, Any]], timestamp: str | None) -> None:
        self.url = url
        self.agents = agents
        self.timestamp = timestamp


def register(commands: Any) -> None:
    listing = commands.add_parser("list", help="list the agents the registry knows")
    registry_option(listing)
    json_option(listing)
    listing.add_argument(
        "--all",
        action="store_true",
        help="also the tools the framework adds to every agent (__mesh_job_*, get_server_status)",
    )
    listing.set_defaults(handler=_list)
    status = commands.add_parser(
        "status", help="the registry's health and each agent's health, last heartbeat and dependencies"
    )
    registry_option(status)
    json_option(status)
    status.set_defaults(handler=_status)


def read_agents(url: str) -> Listing:
    """`GET {url}/agents`; Unreachable (exit 3) when nothing answers, or not like a registry."""
    from http.client import HTTPException

    from .registry_http import get_json

    settings = client_settings()  # registry.token and tls.* (ca_file) apply to the CLI too
    token = settings.registry.token if settings is not None else None
    headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else {}
    shown = shown_url(url)
    try:
        status, body = get_json(url, "/agents", headers=headers, timeout=TIMEOUT, tls=lambda: _tls(settings))
    except (OSError, HTTPException) as exc:
        raise Unreachable(
            f"the registry at {shown} is unreachable ({type(exc).__name__}); start one with `mesh run APP` "
            "or `mesh registry`, or pass --registry-url"
        ) from None
    if status == 401:
        raise Unreachable(
            f"the registry at {shown} {'refused the token' if token else 'requires a token'} (HTTP 401); "
            "set registry.token (MESH_REGISTRY__TOKEN)"
        )
    agents = body.get("agents", ...) if status == 200 and isinstance(body, dict) else ...
    if agents is None:  # MCP Mesh says null when empty
        agents = []
    if not isinstance(agents, list):
        raise Unreachable(
            f"{shown} does not answer like an MCP Mesh registry (GET /agents); check --registry-url"
        )
    stamp = body.get("timestamp") if isinstance(body, dict) else None
    return Listing(url, [a for a in agents if isinstance(a, dict)], stamp if isinstance(stamp, str) else None)


async def fetch_agents(url: str) -> Listing:
    """`read_agents` from a coroutine (in a worker thread: the event loop keeps running)."""
    import asyncio

    return await asyncio.to_thread(read_agents, url)


def read_health(url: str) -> dict[str, Any] | None:
    """`GET {url}/health`, or None when it does not answer with a JSON object."""
    from http.client import HTTPException

    from .registry_http import get_json

    try:
        _, body = get_json(url, "/health", headers={}, timeout=TIMEOUT, tls=lambda: _tls(client_settings()))
    except (OSError, HTTPException):
        return None
    return body if isinstance(body, dict) else None


def _tls(settings: Any) -> ssl.SSLContext | bool:
    """The TLS context for an https registry: the settings' (`tls.ca_file`, mutual TLS), else the system's
    certificate authorities (`tls` defaults)."""
    from ..security.tls import client_ssl_context

    if settings is None:
        from ..config.settings import TlsSettings

        return client_ssl_context(TlsSettings())
    return client_ssl_context(settings.tls)


def tool_names(agent: dict[str, Any]) -> list[str]:
    return [
        t.get("function_name") or t.get("name") or ""
        for t in agent.get("tools") or agent.get("capabilities") or []
        if isinstance(t, dict)
    ]


def is_framework_tool(name: str) -> bool:
    """A tool the framework adds to every agent (the job tools, the status tool), which `mesh list` and
    the mesh page leave out unless asked (the page's rule: registry/console/routes.py)."""
    return name.startswith("__mesh_job_") or name == "get_server_status"


def shown_tools(agent: dict[str, Any], everything: bool) -> list[str]:
    """The agent's tool names, the framework's own left out unless `everything`."""
    return [name for name in tool_names(agent) if everything or not is_framework_tool(name)]


def agent_id(agent: dict[str, Any]) -> str:
    return str(agent.get("id") or agent.get("agent_id") or "?")


# -- mesh list -------------------------------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    listing = read_agents(registry_url(args.registry_url))
    if args.json:
        agents = [_summary(a, everything=args.all) for a in listing.agents]
        emit_json({"registry": shown_url(listing.url), "agents": agents})
        return EXIT_OK
    url = shown_url(listing.url)
    if not listing.agents:
        echo(f"no agents registered at {url}")
        return EXIT_OK
    rows = [  # what the registry says, shown with its control characters escaped
        escaped(
            [
                str(a.get("name", "?")),
                agent_id(a),
                str(a.get("status", "?")),
                str(a.get("endpoint", "?")),
                ", ".join(map(str, shown_tools(a, args.all))),
            ]
        )
        for a in listing.agents
    ]
    if is_terminal():
        rich_table(
            ["NAME", "ID", "STATUS", "ENDPOINT", "TOOLS"],
            [[*row[:2], _health(row[2]), *row[3:]] for row in rows],
            title=f"Agents at {url}",
            styles=["bold", "dim", None, "cyan", None],
            wrap=[False, False, False, True, True],
        )
        return EXIT_OK
    echo(f"{'NAME':<16} {'ID':<28} {'STATUS':<10} {'ENDPOINT':<28} TOOLS")
    for name, ident, status, endpoint, tools in rows:
        echo(f"{name:<16} {ident:<28} {status:<10} {endpoint:<28} {tools}")
    return EXIT_OK


def shown_url(url: str) -> str:
    """The registry URL as the CLI prints it: a password in it masked."""
    from ..config.url_masking import mask_url_credentials

    return escape_controls(mask_url_credentials(url))


def _summary(agent: dict[str, Any], *, everything: bool) -> dict[str, Any]:
    summary = {
        "name": agent.get("name"),
        "id": agent_id(agent),
        "status": agent.get("status"),
        "endpoint": agent.get("endpoint"),
        "namespace": agent.get("namespace"),
        "version": agent.get("version"),
        "tools": shown_tools(agent, everything),
    }
    if agent.get("a2a_producer") or agent.get("a2a_consumer"):  # MCP Mesh's A2A flags, when set
        summary["a2a_producer"] = bool(agent.get("a2a_producer"))
        summary["a2a_consumer"] = bool(agent.get("a2a_consumer"))
    return summary


def _health(status: str) -> Any:
    from rich.text import Text

    return Text(status, style="green" if status == "healthy" else "red")


# -- mesh status -----------------------------------------------------------------------------------------


def _status(args: argparse.Namespace) -> int:
    url = registry_url(args.registry_url)
    listing, health = read_agents(url), read_health(url)
    now = _parse_time(listing.timestamp) or datetime.now(UTC)
    names = {agent_id(a): str(a.get("name", "?")) for a in listing.agents}
    agents = [_agent_status(a, now, names) for a in listing.agents]
    registry = {
        "url": shown_url(url),
        "status": health.get("status", "unknown") if health else "unknown",
        "service": health.get("service") if health else None,
        "version": health.get("version") if health else None,
        "uptime_seconds": health.get("uptime_seconds") if health else None,
    }
    if args.json:
        emit_json({"registry": registry, "agents": agents})
        return EXIT_OK
    # what the registry says, shown with its control characters escaped
    agents, registry = escaped(agents), escaped(registry)
    echo(_registry_line(registry))
    if not agents:
        echo("no agents registered")
        return EXIT_OK
    if is_terminal():
        _status_table(agents)
        return EXIT_OK
    echo()
    header = ["NAME", "ID", "HEALTH", "LAST HEARTBEAT", "DEPENDENCIES"]
    rows = [
        [a["name"], a["id"], a["status"], _ago(a["last_heartbeat_seconds"]), _dependency_summary(a)]
        for a in agents
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(4)]
    for row, agent in zip([header, *rows], [None, *agents], strict=True):
        echo("  ".join(f"{cell!s:<{widths[i]}}" for i, cell in enumerate(row[:4])) + "  " + row[4])
        for line in _dependency_lines(agent) if agent else []:
            echo(f"  {line}")
    return EXIT_OK


def _agent_status(agent: dict[str, Any], now: datetime, names: dict[str, str]) -> dict[str, Any]:
    seen = _parse_time(agent.get("last_seen"))
    slots = []
    for row in agent.get("dependency_resolutions") or []:
        if not isinstance(row, dict):
            continue
        provider = str(row.get("provider_agent_id") or "")
        slots.append(
            {
                "tool": row.get("function_name"),
                "capability": row.get("capability"),
                "resolved": row.get("status") == "available",
                "provider_id": provider or None,
                "provider_name": names.get(provider),
                "provider_tool": row.get("mcp_tool") or None,
                "endpoint": row.get("endpoint") or None,
            }
        )
    total = agent.get("total_dependencies")
    resolved = agent.get("dependencies_resolved")
    providers = [
        {
            "tool": row.get("function_name"),
            "capability": row.get("capability"),
            "provider_id": row.get("provider_agent_id"),
            "provider_name": names.get(str(row.get("provider_agent_id"))),
            "provider_tool": row.get("mcp_tool"),
        }
        for row in agent.get("llm_provider_resolutions") or []
        if isinstance(row, dict)
    ]
    return {
        "name": str(agent.get("name", "?")),
        "id": agent_id(agent),
        "status": str(agent.get("status", "unknown")),
        "endpoint": agent.get("endpoint"),
        "last_heartbeat": agent.get("last_seen"),
        "last_heartbeat_seconds": round(max(0.0, (now - seen).total_seconds()), 1) if seen else None,
        "dependencies": {
            "total": total if isinstance(total, int) else len(slots),
            "resolved": resolved if isinstance(resolved, int) else sum(s["resolved"] for s in slots),
            "slots": slots,
        },
        "llm_providers": providers,
        "llm_tools": len(agent.get("llm_tool_resolutions") or []),
        "capabilities": _capabilities(agent),
        "llm_filters": _llm_filters(agent),
    }


def _capabilities(agent: dict[str, Any]) -> list[dict[str, Any]]:
    """What the agent provides (the listing's `capabilities`), as the mesh page shows them."""
    return [
        {
            "name": c.get("name"),
            "tool": c.get("function_name"),
            "tags": list(c.get("tags") or []),
            "version": c.get("version"),
        }
        for c in agent.get("capabilities") or []
        if isinstance(c, dict)
    ]


def _llm_filters(agent: dict[str, Any]) -> list[dict[str, Any]]:
    """Each LLM tool's filter as the registry resolved it: the mesh tools it matched."""
    matches: dict[str, list[str]] = {}
    for row in agent.get("llm_tool_resolutions") or []:
        if isinstance(row, dict):
            matches.setdefault(str(row.get("function_name")), []).append(str(row.get("mcp_tool")))
    return [{"tool": tool, "matches": names} for tool, names in matches.items()]


def _capability_line(agent: dict[str, Any]) -> str | None:
    shown = [c["name"] + (f" [{', '.join(c['tags'])}]" if c["tags"] else "") for c in agent["capabilities"]]
    return f"provides: {', '.join(str(s) for s in shown)}" if shown else None


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _ago(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s ago"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s ago"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m ago"


def _registry_line(registry: dict[str, Any]) -> str:
    details = [
        str(part)
        for part in (
            registry["service"],
            registry["version"] and f"version {registry['version']}",
            registry["uptime_seconds"] is not None and f"up {_ago(registry['uptime_seconds'])[:-4]}",
        )
        if part
    ]
    shown = f" ({', '.join(details)})" if details else ""
    return f"registry {registry['url']}: {registry['status']}{shown}"


def _dependency_summary(agent: dict[str, Any]) -> str:
    deps = agent["dependencies"]
    if not deps["total"]:
        return "none"
    return f"{deps['resolved']}/{deps['total']} resolved"


def _dependency_lines(agent: dict[str, Any]) -> list[str]:
    provides = _capability_line(agent)
    lines = [provides] if provides else []
    for slot in agent["dependencies"]["slots"]:
        if slot["resolved"]:
            by = slot["provider_name"] or slot["provider_id"] or "?"
            lines.append(
                f"{slot['tool']} needs {slot['capability']}: resolved by {by} "
                f"({slot['provider_tool']} at {slot['endpoint']})"
            )
        else:
            lines.append(f"{slot['tool']} needs {slot['capability']}: UNRESOLVED")
    deps = agent["dependencies"]
    named = sum(1 for s in deps["slots"] if not s["resolved"])
    if deps["total"] - deps["resolved"] > named:  # MCP Mesh lists resolved slots only
        lines.append(f"{deps['total'] - deps['resolved'] - named} dependency slot(s) UNRESOLVED")
    for provider in agent["llm_providers"]:
        by = provider["provider_name"] or provider["provider_id"]
        lines.append(f"{provider['tool']} needs LLM provider {provider['capability']}: resolved by {by}")
    for entry in agent["llm_filters"]:
        lines.append(f"{entry['tool']} LLM filter matches: {', '.join(entry['matches'])}")
    return lines


def _status_table(agents: list[dict[str, Any]]) -> None:
    from rich.text import Text

    rows = []
    for agent in agents:
        deps = Text()
        for slot in agent["dependencies"]["slots"]:
            by = slot["provider_name"] or slot["provider_id"] if slot["resolved"] else "UNRESOLVED"
            deps.append(
                f"{slot['tool']} -> {slot['capability']}: {by}\n", "green" if slot["resolved"] else "red"
            )
        missing = agent["dependencies"]["total"] - len(agent["dependencies"]["slots"])
        if missing > 0:
            deps.append(f"{missing} more UNRESOLVED\n", "red")
        for provider in agent["llm_providers"]:
            by = provider["provider_name"] or provider["provider_id"]
            deps.append(f"{provider['tool']} -> LLM {provider['capability']}: {by}\n", "green")
        for entry in agent["llm_filters"]:
            deps.append(f"{entry['tool']} LLM tools: {', '.join(entry['matches'])}\n")
        deps.rstrip()
        if not deps.plain:
            deps = Text("none", "dim")
        seen = _ago(agent["last_heartbeat_seconds"])
        provides = ", ".join(
            c["name"] + (f" [{', '.join(c['tags'])}]" if c["tags"] else "") for c in agent["capabilities"]
        )
        rows.append([agent["name"], agent["id"], _health(agent["status"]), seen, provides or "-", deps])
    rich_table(
        ["NAME", "ID", "HEALTH", "LAST HEARTBEAT", "PROVIDES", "DEPENDENCIES"],
        rows,
        styles=["bold", "dim", None, None, "cyan", None],
        wrap=[False, False, False, False, True, True],
    )
