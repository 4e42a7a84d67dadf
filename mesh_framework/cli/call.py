"""`mesh call TOOL [ARGS...]`: call a tool of the mesh through the registry.

Arguments are `key=value` pairs (the value parsed as JSON when it parses, else taken as a string:
`a=1` is 1, `name=Ada` is "Ada", `tags='["x"]'` a list) and/or JSON objects, merged left to right. A
`key=value` whose parameter the tool's schema types as a string keeps its text (`name=42` is "42").
With `--wait`, a background tool's job is followed to its end and its result shown (`job_wait.py`).
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Sequence
from typing import Any

from .agents import agent_id, fetch_agents, shown_url, tool_names
from .common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Unreachable,
    client_settings,
    json_option,
    registry_option,
    registry_url,
)
from .output import emit_json, show_value

__all__ = ["parse_arguments", "register"]

EXAMPLE = 'e.g. `mesh call add a=1 b=2` or `mesh call add \'{"a": 1, "b": 2}\'`'


def register(commands: Any) -> None:
    call = commands.add_parser("call", help="call a tool of the mesh")
    call.add_argument("tool", help="tool (function) name or capability")
    call.add_argument(
        "arguments",
        nargs="*",
        default=[],
        metavar="ARG",
        help="key=value (value parsed as JSON when it parses, else a string) or a JSON object",
    )
    call.add_argument("--agent", help="agent name or id, when several serve the tool")
    call.add_argument(
        "--token",
        help="bearer token for an agent that requires one (default: auth.dependency_tokens.TOOL or "
        "auth.client_token, e.g. $MESH_AUTH__CLIENT_TOKEN; the environment keeps it out of `ps`)",
    )
    call.add_argument(
        "--wait",
        action="store_true",
        help="a background tool: follow its job to the end and show its result (Ctrl-C cancels the job)",
    )
    registry_option(call)
    json_option(call)
    call.set_defaults(handler=_run_call)


def _run_call(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_call(args))


def _credentials(token: str | None, tool: str) -> dict[str, str]:
    """The Authorization header the call carries: `--token`, else the settings' token for the tool (as an
    agent's own calls send it), else none."""
    if token:
        return {"authorization": f"Bearer {token}"}
    settings = client_settings()
    if settings is None:  # the environment sets no token
        return {}
    from ..security.credentials import credential_headers

    return credential_headers(settings.auth, tool)


def parse_arguments(items: Sequence[str], texts: frozenset[str] = frozenset()) -> dict[str, Any]:
    """`key=value` pairs and JSON objects, merged left to right; CliError (exit 2) for anything else.
    A `key=value` whose key is in `texts` (string parameters) keeps its text."""
    arguments: dict[str, Any] = {}
    for item in items:
        if "=" not in item and item.lstrip()[:1] not in ("{", "["):
            raise CliError(f"argument {item!r} is neither key=value nor a JSON object; {EXAMPLE}", EXIT_USAGE)
        if item.lstrip()[:1] in ("{", "["):
            try:
                value = json.loads(item)
            except json.JSONDecodeError as exc:
                raise CliError(
                    f"arguments must be a JSON object or key=value pairs, {EXAMPLE} ({exc})", EXIT_USAGE
                ) from None
            if not isinstance(value, dict):
                raise CliError(f"arguments must be a JSON object or key=value pairs, {EXAMPLE}", EXIT_USAGE)
            arguments.update(value)
            continue
        key, _, raw = item.partition("=")
        if not key.strip():
            raise CliError(f"argument {item!r} has no name before '='; {EXAMPLE}", EXIT_USAGE)
        if key.strip() in texts:
            arguments[key.strip()] = raw
            continue
        try:
            arguments[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            arguments[key.strip()] = raw
    return arguments


def _not_text(items: Sequence[str]) -> set[str]:
    """The keys of `key=value` items whose value parses as JSON other than a string (`n=42`, `f=true`)."""
    keys = set()
    for item in items:
        if "=" in item and item.lstrip()[:1] not in ("{", "["):
            key, _, raw = item.partition("=")
            try:
                if not isinstance(json.loads(raw), str):
                    keys.add(key.strip())
            except json.JSONDecodeError:
                pass
    return keys


def _is_text(schema: Any) -> bool:
    """Whether a property's JSON Schema takes only strings (or null)."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "string":
        return True
    options = schema.get("anyOf") or schema.get("oneOf")
    if not isinstance(options, list) or not options:
        return False
    kinds = [o.get("type") if isinstance(o, dict) else None for o in options]
    return "string" in kinds and all(k in ("string", "null") for k in kinds)


async def _by_schema(
    args: argparse.Namespace,
    arguments: dict[str, Any],
    transport: Any,
    endpoint: str,
    headers: dict[str, str],
) -> dict[str, Any]:
    """`arguments`, with the text of a `key=value` kept where the tool's schema (the agent's `tools/list`,
    asked only when a value parsed as a number, boolean, ...) types the parameter as a string: `name=42`
    sends "42". Unchanged when the tools cannot be listed (the call itself then says what is wrong)."""
    from ..mesh.transport import ProviderUnreachable, RemoteError

    candidates = _not_text(args.arguments)
    if not candidates:
        return arguments
    try:
        listed = await transport.request(endpoint, "tools/list", {}, headers=headers)
    except (ProviderUnreachable, RemoteError):
        return arguments
    texts = text_parameters(listed, args.tool) & candidates
    return parse_arguments(args.arguments, frozenset(texts)) if texts else arguments


def text_parameters(tools: Any, tool: str) -> frozenset[str]:
    """The parameters of `tool` (in a `tools/list` result) its input schema types as strings."""
    for entry in tools.get("tools", []) if isinstance(tools, dict) else []:
        if isinstance(entry, dict) and entry.get("name") == tool:
            properties = (entry.get("inputSchema") or {}).get("properties") or {}
            return frozenset(name for name, schema in properties.items() if _is_text(schema))
    return frozenset()


def _failure(exc: Exception, tool: str, *, first: bool, token: bool) -> CliError:
    """What `mesh call` says when calling `tool` (`first`: the tool asked for, not a job poll) failed: an
    agent that cannot be reached, or that went away mid-request (killed, crashed), exits 3 either way; a
    tool or protocol error exits 1."""
    from ..mesh.transport import ConnectionLost, ProviderUnreachable

    if isinstance(exc, ProviderUnreachable):
        return Unreachable(str(exc))
    if isinstance(exc, ConnectionLost):
        ran = "; it may or may not have run" if first else ""
        return Unreachable(f"{exc.endpoint} went away during the call of '{tool}' ({exc.reason}){ran}")
    unauthorized = getattr(exc, "status", None) == 401
    fix = f"; {'check' if token else 'pass'} --token (or MESH_AUTH__CLIENT_TOKEN)"
    return CliError(f"{exc}{fix if unauthorized else ''}", EXIT_ERROR)


async def _call(args: argparse.Namespace) -> int:
    import httpx2

    from ..errors import ToolExecutionError
    from ..mesh.proxy import unwrap_result
    from ..mesh.transport import McpTransport, ProviderUnreachable, RemoteError
    from .job_wait import job_id_of, job_value, wait_for_job

    arguments = parse_arguments(args.arguments)
    headers = _credentials(args.token, args.tool)
    listing = await fetch_agents(registry_url(args.registry_url))
    agents = [a for a in listing.agents if a.get("status", "healthy") == "healthy"]
    if args.agent:
        agents = [a for a in agents if args.agent in (a.get("name"), agent_id(a))]
        if not agents:
            at = shown_url(listing.url)
            raise CliError(f"no healthy agent named '{args.agent}' at {at} (see `mesh list`)")
    serving = [a for a in agents if args.tool in tool_names(a)]
    if not serving:
        known = sorted({name for agent in agents for name in tool_names(agent)})
        close = difflib.get_close_matches(args.tool, known, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else " (see `mesh list`)"
        at = shown_url(listing.url)
        raise CliError(f"no healthy agent at {at} serves a tool named '{args.tool}'{hint}")
    agent = serving[0]
    endpoint = str(agent.get("endpoint", "")).rstrip("/") + "/mcp"
    name = str(agent.get("name"))
    async with httpx2.AsyncClient(trust_env=False) as http:
        transport = McpTransport(http, client_name="mesh-cli", client_version="1")

        async def call_tool(tool: str, tool_arguments: dict[str, Any]) -> tuple[dict[str, Any], Any]:
            try:
                result = await transport.request(
                    endpoint, "tools/call", {"name": tool, "arguments": tool_arguments}, headers=headers
                )
                return result, unwrap_result(result, tool=tool, agent=name)
            except (ProviderUnreachable, RemoteError, ToolExecutionError) as exc:
                raise _failure(exc, tool, first=tool == args.tool, token=bool(headers)) from None

        result, value = await call_tool(
            args.tool, await _by_schema(args, arguments, transport, endpoint, headers)
        )
        structured = result.get("structuredContent")
        job_id = job_id_of(result) if args.wait else None
        if job_id is not None:

            async def job_tool(tool: str, tool_arguments: dict[str, Any]) -> Any:
                return (await call_tool(tool, tool_arguments))[1]

            row = await wait_for_job(job_tool, job_id, args.tool, registry=listing.url)
            value, structured = job_value(row), row.get("result")
    if args.json:
        answer = {"tool": args.tool, "agent": agent.get("name"), "agent_id": agent_id(agent)}
        if job_id is not None:
            answer["job_id"] = job_id
        emit_json({**answer, "result": value, "structured_content": structured})
    else:
        show_value(value)
    return EXIT_OK
