"""Pure data describing agents, tools, components and dependency selectors.

Nothing here performs I/O or imports from the rest of the package, so every other layer can depend on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

from ._frozen import frozen

__all__ = [
    "AgentSpec",
    "ComponentSpec",
    "ConfigPropertiesSpec",
    "DependencySpec",
    "LlmSpec",
    "Selector",
    "ToolSpec",
    "scope_names",
]

TagExpression = str | tuple[str, ...]


@frozen
class Selector:
    """Which capability a dependency needs, narrowed by tags and a version constraint.

    Tags follow MCP Mesh: a plain tag is required, `+tag` is preferred, `-tag` is excluded, and a nested
    list is an OR of alternatives, e.g. `Selector("llm", tags=["+claude", ["gpt", "claude"]])`.

    `expected_type` (a pydantic model, dataclass, TypedDict or JSON Schema dict) is the shape the consumer
    expects the provider's result to have; the registry then keeps only providers whose output schema
    matches it by `match_mode` (`"subset"`, the default, or `"strict"`; see docs/services.md).
    """

    capability: str
    tags: tuple[TagExpression, ...] = ()
    version: str | None = None
    namespace: str | None = None
    expected_type: Any = field(default=None, compare=False)
    match_mode: str | None = None

    def __init__(
        self,
        capability: str,
        tags: Sequence[str | Sequence[str]] = (),
        version: str | None = None,
        namespace: str | None = None,
        *,
        expected_type: Any = None,
        match_mode: str | None = None,
    ) -> None:
        if not isinstance(capability, str) or not capability:
            raise ValueError("Selector capability must be a non-empty string")
        normalized: list[TagExpression] = []
        for tag in tags:
            normalized.append(tag if isinstance(tag, str) else tuple(tag))
        if match_mode not in (None, "subset", "strict"):
            raise ValueError(
                f"Selector {capability!r}: match_mode must be 'subset' or 'strict', not {match_mode!r}"
            )
        if match_mode is not None and expected_type is None:
            raise ValueError(
                f"Selector {capability!r}: match_mode={match_mode!r} needs expected_type (the shape to match)"
            )
        object.__setattr__(self, "capability", capability)
        object.__setattr__(self, "tags", tuple(normalized))
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "namespace", namespace)
        object.__setattr__(self, "expected_type", expected_type)
        mode = match_mode or ("subset" if expected_type is not None else None)  # MCP Mesh's default
        object.__setattr__(self, "match_mode", mode)

    @classmethod
    def of(cls, value: str | Selector | Mapping[str, Any]) -> Selector:
        """Accept the shapes users write in `dependencies=[...]`: a capability name, a Selector or a dict."""
        if isinstance(value, Selector):
            return value
        if isinstance(value, str):
            return cls(value)
        if isinstance(value, Mapping):
            return cls(**value)
        raise TypeError(f"A dependency must be a capability name, a Selector or a dict, not {value!r}")

    def to_wire(self) -> dict[str, Any]:
        """The selector as MCP Mesh's heartbeat carries it (empty fields omitted)."""
        wire: dict[str, Any] = {"capability": self.capability}
        if self.tags:
            wire["tags"] = [t if isinstance(t, str) else list(t) for t in self.tags]
        if self.version:
            wire["version"] = self.version
        if self.namespace:
            wire["namespace"] = self.namespace
        return wire


@frozen
class DependencySpec:
    """One declared dependency of a tool, at a fixed index among that tool's dependencies."""

    index: int
    selector: Selector
    required: bool = False  # MCP Mesh's `required: true`: a service method's @selector(required=True)


@frozen
class ToolSpec:
    """What `@mesh_tool` recorded about a function or method."""

    function: Callable[..., Any]
    name: str | None = None
    capability: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    version: str = "1.0.0"
    dependencies: tuple[DependencySpec, ...] = ()
    timeout: float | None = None
    input_schema: Mapping[str, Any] | None = None
    client_capabilities: tuple[str, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    scopes: tuple[str, ...] = ()  # OAuth scopes a caller's token needs (security/authorization.py)
    background: bool = False  # a plain call answers with a job handle while the body runs
    task: bool = False  # MCP Mesh job semantics: runs as a job when submitted through the registry
    max_concurrent: int | None = None  # this tool's own limit of running jobs
    task_required: bool = False  # background="required": MCP clients with a task form must use it
    prepare: Callable[..., Any] | None = None  # a background tool's input rounds before its job starts
    output_schema_strict: bool = True  # False: a BLOCK schema verdict is logged, not refused (schemas/policy)
    options: Mapping[str, Any] = field(default_factory=dict)  # keywords a feature reads, not advertised (a2a)


@frozen
class LlmSpec:
    """What `@mesh_llm` recorded: the code layer of an LLM tool's settings (None: not set in code).

    `provider` is a `"vendor/model"` string or a Selector of a mesh provider agent; `filter` the selectors
    of the mesh tools the LLM gets (`("*",)` for all); `tools` extra tool callbacks or catalog server names.
    """

    provider: str | Selector | None = None
    filter: tuple[Selector | str, ...] | None = None
    filter_mode: str | None = None
    system_prompt: str | None = None
    max_iterations: int | None = None
    response_model: Any = None
    parallel_tool_calls: bool | None = None
    tools: tuple[Any, ...] = ()
    model_params: Mapping[str, Any] = field(default_factory=dict)


@frozen
class AgentSpec:
    """What `@mesh_agent` recorded: the code layer of the settings plus the packages to scan."""

    target: Any
    module: str
    params: Mapping[str, Any]
    scan: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    health_check: Any = None  # `@mesh_agent(health_check=fn)`: a health indicator


@frozen
class ComponentSpec:
    """What `@component` recorded about a class."""

    cls: type
    name: str
    primary: bool = False
    qualifier: str | None = None
    scope: str = "singleton"  # "prototype": one per injection; "call": one per tool call, request or job
    order: int | None = None  # its place in `list[T]` collections (lower first)


@frozen
class ConfigPropertiesSpec:
    """A pydantic model bound to one section (`prefix`) of the layered settings."""

    model: type
    prefix: str


def scope_names(scopes: Sequence[str], where: str) -> tuple[str, ...]:
    """`scopes` (OAuth scope tokens, RFC 6749 §3.3) as a tuple; ValueError naming `where` for a string or
    a scope that is empty or holds a space or a quote."""
    if isinstance(scopes, str):
        raise ValueError(f"{where}: scopes must be a list of scope names, e.g. scopes=[{scopes!r}]")
    bad = [s for s in scopes if not isinstance(s, str) or not s or any(c.isspace() or c in '"\\' for c in s)]
    if bad:
        raise ValueError(f"{where}: scope(s) {bad!r} invalid: a scope is a name without spaces or quotes")
    return tuple(scopes)
