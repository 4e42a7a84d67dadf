"""The `POST /heartbeat` payload of the MCP Mesh registry protocol, validated into records.

Validation names the offending field (`tools[1].dependencies[0].version: ...`); MCP Mesh answers such
payloads with HTTP 200 and `status: error`, the embedded registry with HTTP 400 (see `app.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._frozen import frozen, record
from ..errors import MeshError
from ..mesh.selectors import SelectorQuery, parse_selector
from ..schemas.canonical import schema_hash

__all__ = [
    "AGENT_TYPES",
    "RUNTIMES",
    "DependencySlot",
    "LlmFilter",
    "PayloadError",
    "Registration",
    "SchemaExpectation",
    "SelectorDetails",
    "ToolRecord",
    "endpoint_of",
    "parse_registration",
    "read_canonical",
]

AGENT_ID = re.compile(r"[a-z0-9-]+")
AGENT_TYPES = ("mcp_agent", "api", "a2a")
RUNTIMES = ("python", "typescript", "java")
FILTER_MODES = ("all", "best_match", "*")
MAX_DESCRIPTION = 256
ROUTE_NAME = re.compile(r"^[A-Z]+:/")


class PayloadError(MeshError, ValueError):
    """A heartbeat payload is invalid; `field` is the JSON path of the first offending field."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)


@frozen
class SchemaExpectation:
    """A dependency's `expectedSchemaCanonical`, `expectedSchemaHash` and `matchMode` (registry/stages.py)."""

    mode: str
    canonical: dict[str, Any] | None
    hash: str
    digest: str = ""  # the canonical form's own hash, computed here (`hash` is what the agent claims)


@frozen
class SelectorDetails:
    """What the audit trace says of a selector beyond its query: its plain tags and expected schema."""

    tags: list[str]
    schema: SchemaExpectation | None = None


@frozen
class DependencySlot:
    """One entry of a tool's `dependencies`: one selector, or several alternatives tried in order;
    `details` are parallel to `alternatives`."""

    alternatives: tuple[SelectorQuery, ...]
    details: tuple[SelectorDetails, ...] = ()

    @property
    def capability(self) -> str:
        return self.alternatives[0].capability


@frozen
class LlmFilter:
    """A tool's `llm_filter`: capability names or selectors; `wildcard` when any tool may match."""

    entries: tuple[SelectorQuery, ...]
    mode: str
    wildcard: bool


@record(slots=True, eq=False)
class ToolRecord:
    """One declared tool of an agent; also a resolution candidate (`ProviderLike`).

    `healthy` mirrors the owning agent's health and is flipped by the store.
    """

    agent_id: str
    function_name: str
    capability: str
    version: str
    tags: frozenset[str]
    tag_list: list[str]
    description: str
    input_schema: Any
    kwargs: Any
    namespace: str
    endpoint: str
    dependencies: tuple[DependencySlot, ...] = ()
    output_schema_hash: str = ""  # `outputSchemaHash`: what the schema stage compares
    output_schema_canonical: dict[str, Any] | None = None
    output_schema_digest: str = ""  # the canonical form's own hash, computed here
    llm_filter: LlmFilter | None = None
    llm_provider: SelectorQuery | None = None
    healthy: bool = True


@record(slots=True, eq=False)
class Registration:
    """A validated heartbeat payload; `raw` is the payload as received (what the store persists)."""

    agent_id: str
    name: str
    agent_type: str
    runtime: str
    version: str
    description: str
    http_host: str
    http_port: int
    namespace: str
    endpoint: str
    a2a_producer: bool
    a2a_consumer: bool
    tools: tuple[ToolRecord, ...]
    raw: dict[str, Any]
    provider_view: tuple[Any, ...] = field(default=())
    consumer_view: tuple[Any, ...] = field(default=())

    @property
    def is_consumer(self) -> bool:
        return any(t.dependencies or t.llm_filter or t.llm_provider for t in self.tools)


def endpoint_of(agent_id: str, host: str, port: int) -> str:
    """The URL other agents use, as MCP Mesh builds it (`stdio://id` without a port, `localhost` for any)."""
    if port == 0:
        return f"stdio://{agent_id}"
    for scheme in ("http://", "https://"):
        host = host.removeprefix(scheme)
    if not host or host == "0.0.0.0":
        host = "localhost"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _string(data: Mapping[str, Any], key: str, path: str, default: str | None = None) -> str:
    value = data.get(key)
    if value is None:
        if default is None:
            raise PayloadError(path + key, "required")
        return default
    if not isinstance(value, str):
        raise PayloadError(path + key, f"must be a string, not {type(value).__name__}")
    return value


def _name(data: Mapping[str, Any], key: str, path: str) -> str:
    value = _string(data, key, path)
    if not value.strip():
        raise PayloadError(path + key, "must be a non-empty string")
    return value


def _choice(data: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = _string(data, key, "", default) or default
    if value not in choices:
        raise PayloadError(key, f"{value!r} is not one of {', '.join(choices)}")
    return value


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise PayloadError(key, f"must be a boolean, not {type(value).__name__}")
    return value


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PayloadError(path, f"must be an object, not {type(value).__name__}")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise PayloadError(path, f"must be a list, not {type(value).__name__}")
    return value


def _tags(value: Any, path: str, nested: bool) -> list[Any]:
    tags = _list(value, path)
    for i, tag in enumerate(tags):
        if isinstance(tag, str):
            continue
        if nested and isinstance(tag, list) and all(isinstance(t, str) for t in tag):
            continue
        expected = "a string or a list of strings" if nested else "a string"
        raise PayloadError(f"{path}[{i}]", f"must be {expected}, not {tag!r}")
    return tags


def _selector(value: Any, path: str) -> SelectorQuery:
    data = _object(value, path)
    _name(data, "capability", path + ".")
    _tags(data.get("tags"), path + ".tags", nested=True)
    for key in ("version", "namespace"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise PayloadError(f"{path}.{key}", f"must be a string, not {type(data[key]).__name__}")
    try:
        return parse_selector(data)
    except ValueError as exc:
        where = ".version" if "constraint" in str(exc) else ""
        raise PayloadError(path + where, str(exc)) from None


MAX_SCHEMA_DEPTH = 64  # nesting a canonical schema may have: the schema stage walks it recursively


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_SCHEMA_DEPTH:
            break
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _canonical(value: Any, path: str) -> dict[str, Any] | None:
    """A canonical schema as sent: an object, or the JSON text of one (MCP Mesh's core sends either)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise PayloadError(path, "must be a JSON Schema object (or its JSON text)") from None
    schema = _object(value, path)
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise PayloadError(path, f"is nested deeper than {MAX_SCHEMA_DEPTH} levels")
    return schema


def read_canonical(value: Any, path: str) -> dict[str, Any] | None:
    """A canonical schema field as sent (an object or its JSON text), checked as the schema stage needs;
    raises PayloadError naming `path`."""
    return _canonical(value, path)


def _details(value: Any, path: str) -> SelectorDetails:
    data = value if isinstance(value, dict) else {}
    tags = [t for t in data.get("tags") or () if isinstance(t, str)]
    mode = data.get("matchMode")
    if mode is None:
        return SelectorDetails(tags)
    if not isinstance(mode, str):
        raise PayloadError(path + ".matchMode", f"must be a string, not {type(mode).__name__}")
    digest = data.get("expectedSchemaHash") or ""
    if not isinstance(digest, str):
        raise PayloadError(path + ".expectedSchemaHash", f"must be a string, not {type(digest).__name__}")
    canonical = _canonical(data.get("expectedSchemaCanonical"), path + ".expectedSchemaCanonical")
    own = schema_hash(canonical) if canonical is not None else ""
    return SelectorDetails(tags, SchemaExpectation(mode or "subset", canonical, digest, own))


def _dependency(value: Any, path: str) -> DependencySlot:
    if isinstance(value, list):
        if not value:
            raise PayloadError(path, "an OR list of selectors must not be empty")
        paths = [f"{path}[{i}]" for i in range(len(value))]
        return DependencySlot(
            tuple(_selector(v, p) for v, p in zip(value, paths, strict=True)),
            tuple(_details(v, p) for v, p in zip(value, paths, strict=True)),
        )
    return DependencySlot((_selector(value, path),), (_details(value, path),))


def _llm_filter(value: Any, path: str) -> LlmFilter:
    data = _object(value, path)
    mode = data.get("filter_mode") or "all"
    if mode not in FILTER_MODES:
        raise PayloadError(path + ".filter_mode", f"{mode!r} is not one of {', '.join(FILTER_MODES)}")
    entries: list[SelectorQuery] = []
    wildcard = mode == "*"
    raw = data.get("filter")
    for i, entry in enumerate(_list([raw] if isinstance(raw, (str, dict)) else raw, path + ".filter")):
        where = f"{path}.filter[{i}]"
        if isinstance(entry, str):
            if entry == "*":
                wildcard = True
            elif entry:
                entries.append(SelectorQuery(entry))
        elif isinstance(entry, dict) and not entry.get("capability"):
            _tags(entry.get("tags"), where + ".tags", nested=True)
            wildcard = True  # tags only: any capability, narrowed by tags
            entries.append(_selector({**entry, "capability": "*"}, where))
        else:
            entries.append(_selector(entry, where))
    return LlmFilter(tuple(entries), mode, wildcard)


def _tool(value: Any, index: int, agent_id: str, namespace: str, endpoint: str) -> ToolRecord:
    path = f"tools[{index}]"
    data = _object(value, path)
    prefix = path + "."
    function_name = _name(data, "function_name", prefix)
    # A web route's pseudo-tool ("GET:/path", as MCP Mesh's route agents send) has capability "": it
    # provides nothing, it only carries the route's dependencies.
    route = ROUTE_NAME.match(function_name) is not None
    capability = _string(data, "capability", prefix) if route else _name(data, "capability", prefix)
    tags = _tags(data.get("tags"), prefix + "tags", nested=False)
    kwargs = data.get("kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise PayloadError(prefix + "kwargs", f"must be an object, not {type(kwargs).__name__}")
    schema = data.get("inputSchema")
    if schema is not None and not isinstance(schema, dict):
        raise PayloadError(prefix + "inputSchema", f"must be an object, not {type(schema).__name__}")
    dependencies = tuple(
        _dependency(d, f"{prefix}dependencies[{i}]")
        for i, d in enumerate(_list(data.get("dependencies"), prefix + "dependencies"))
    )
    llm_filter = data.get("llm_filter")
    llm_provider = data.get("llm_provider")
    output_hash = data.get("outputSchemaHash") or ""
    output_canonical = _canonical(data.get("outputSchemaCanonical"), prefix + "outputSchemaCanonical")
    if not isinstance(output_hash, str):
        raise PayloadError(prefix + "outputSchemaHash", f"must be a string, not {type(output_hash).__name__}")
    return ToolRecord(
        agent_id=agent_id,
        function_name=function_name,
        capability=capability,
        version=_string(data, "version", prefix, "1.0.0") or "1.0.0",
        tags=frozenset(tags),
        tag_list=tags,
        description=_string(data, "description", prefix, ""),
        input_schema=schema,
        kwargs=kwargs or {},
        namespace=namespace,
        endpoint=endpoint,
        dependencies=dependencies,
        llm_filter=_llm_filter(llm_filter, prefix + "llm_filter") if llm_filter is not None else None,
        llm_provider=_selector(llm_provider, prefix + "llm_provider") if llm_provider is not None else None,
        output_schema_hash=output_hash,
        output_schema_canonical=output_canonical,
        output_schema_digest=schema_hash(output_canonical) if output_canonical is not None else "",
    )


def _surfaces(value: Any) -> None:
    """`surfaces`: the agent's A2A skills as MCP Mesh lists them; the page and `/a2a/agents` read `path` and
    `skill_id`, so each must be an object with a string path (and a string id when sent)."""
    for i, surface in enumerate(_list(value, "surfaces")):
        where = f"surfaces[{i}]"
        data = _object(surface, where)
        path = data.get("path")
        if not isinstance(path, str):
            raise PayloadError(where + ".path", f"must be a string, not {type(path).__name__}")
        skill = data.get("skill_id")
        if skill is not None and not isinstance(skill, str):
            raise PayloadError(where + ".skill_id", f"must be a string, not {type(skill).__name__}")


def parse_registration(body: Any) -> Registration:
    """Validate a decoded `POST /heartbeat` body; raises PayloadError naming the first bad field."""
    data = _object(body, "")
    agent_id = _string(data, "agent_id", "")
    if not AGENT_ID.fullmatch(agent_id):
        raise PayloadError("agent_id", f"{agent_id!r} may hold only lowercase letters, digits and hyphens")
    agent_type = _choice(data, "agent_type", AGENT_TYPES, "mcp_agent")
    runtime = _choice(data, "runtime", RUNTIMES, "python")
    http_host = _string(data, "http_host", "", "")
    port = data.get("http_port", 0)
    if port is None:
        port = 0
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise PayloadError("http_port", f"must be an integer from 0 to 65535, not {port!r}")
    namespace = _string(data, "namespace", "", "default") or "default"
    endpoint = endpoint_of(agent_id, http_host, port)
    _surfaces(data.get("surfaces"))
    tools = tuple(
        _tool(t, i, agent_id, namespace, endpoint) for i, t in enumerate(_list(data.get("tools"), "tools"))
    )
    registration = Registration(
        agent_id=agent_id,
        name=_string(data, "name", "", agent_id) or agent_id,
        agent_type=agent_type,
        runtime=runtime,
        version=_string(data, "version", "", "1.0.0"),
        description=_string(data, "description", "", "")[:MAX_DESCRIPTION],
        http_host=http_host,
        http_port=port,
        namespace=namespace,
        endpoint=endpoint,
        a2a_producer=_bool(data, "a2a_producer"),
        a2a_consumer=_bool(data, "a2a_consumer"),
        tools=tools,
        raw=data,
    )
    raw_tools = data.get("tools") or []
    registration.provider_view = (
        endpoint,
        namespace,
        tuple(
            (
                t.function_name,
                t.capability,
                t.version,
                t.tag_list,
                t.description,
                t.input_schema,
                t.kwargs,
                t.output_schema_hash,
            )
            for t in tools
        ),
    )
    registration.consumer_view = (
        namespace,
        tuple(
            (t.get("function_name"), t.get("dependencies"), t.get("llm_filter"), t.get("llm_provider"))
            for t in raw_tools
        ),
    )
    return registration
