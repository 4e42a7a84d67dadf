"""Decorators that record metadata on classes and functions, and do nothing else.

Importing a module full of decorated code binds no port and starts nothing: assembly happens later, in one
place (`MeshApplication`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

from .argument_completion import completer
from .di.configuration import check_scope
from .specs import (
    AgentSpec,
    ComponentSpec,
    ConfigPropertiesSpec,
    DependencySpec,
    LlmSpec,
    Selector,
    ToolSpec,
)

__all__ = [
    "completer",
    "component",
    "config_properties",
    "mesh_agent",
    "mesh_llm",
    "mesh_tool",
]

AGENT_ATTR = "__mesh_agent__"
COMPONENT_ATTR = "__mesh_component__"
TOOL_ATTR = "__mesh_tool__"
# More tools one function serves (ToolSpecs), beside its own (an LLM provider's stream tool).
EXTRA_TOOLS_ATTR = "__mesh_extra_tools__"
CONFIG_ATTR = "__mesh_config_properties__"
LLM_ATTR = "__mesh_llm__"
FILTER_MODES = ("all", "best_match", "*")

C = TypeVar("C", bound=type)
F = TypeVar("F", bound=Callable[..., Any])

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


@overload
def component(cls: C, /) -> C: ...
@overload
def component(
    *,
    name: str | None = None,
    primary: bool = False,
    qualifier: str | None = None,
    scope: str = "singleton",
    order: int | None = None,
) -> Callable[[C], C]: ...
def component(
    cls: C | None = None,
    /,
    *,
    name: str | None = None,
    primary: bool = False,
    qualifier: str | None = None,
    scope: str = "singleton",
    order: int | None = None,
) -> C | Callable[[C], C]:
    """Mark a class as a component: the container builds one instance, wiring its constructor by type.

    `primary=True` picks this class when several implement the same base; `qualifier` names it for
    `Annotated[Base, Qualifier("name")]` parameters. `scope="prototype"` builds a new instance for each
    injection, `scope="call"` one per tool call, route request or job (closed when it ends); `order` places
    it in `list[Base]` collections (lower first, then by name).
    """
    check_scope(scope, "@component")
    if order is not None and (not isinstance(order, int) or isinstance(order, bool)):
        raise ValueError(f"@component: order must be an integer, not {order!r}")

    def mark(target: C) -> C:
        if not isinstance(target, type):
            raise TypeError(f"@component applies to classes, not {target!r}")
        spec = ComponentSpec(
            cls=target,
            name=name or target.__name__,
            primary=primary,
            qualifier=qualifier,
            scope=scope,
            order=order,
        )
        setattr(target, COMPONENT_ATTR, spec)
        return target

    return mark(cls) if cls is not None else mark


def mesh_agent(
    name: str | None = None,
    *,
    version: str | None = None,
    description: str | None = None,
    host: str | None = None,
    port: int | None = None,
    namespace: str | None = None,
    registry_url: str | None = None,
    heartbeat_interval: float | None = None,
    scan: Sequence[str] = (),
    exclude: Sequence[str] = (),
    health_check: Callable[[], Any] | None = None,
    health_check_ttl: float | None = None,
) -> Callable[[C], C]:
    """Declare the agent an application runs. Parameters left `None` are not values (settings decide).

    `scan` names the packages to scan for components and tools (default: the package of the decorated
    class); `exclude` holds module-name patterns (`fnmatch`) skipped by the scan. `health_check` (sync or
    async, no arguments) is a health indicator named `health_check`; `health_check_ttl` sets
    `health.cache_ttl` (MCP Mesh's parameters).
    """
    params: dict[str, Any] = {
        "agent.name": name,
        "agent.version": version,
        "agent.description": description,
        "agent.host": host,
        "server.port": port,
        "agent.namespace": namespace,
        "registry.url": registry_url,
        "registry.heartbeat_interval": heartbeat_interval,
        "health.cache_ttl": health_check_ttl,
    }
    if health_check is not None and not callable(health_check):
        raise TypeError(
            f"@mesh_agent(health_check=...) takes a function without arguments, not {health_check!r}"
        )

    def mark(target: C) -> C:
        spec = AgentSpec(
            target=target,
            module=target.__module__,
            params={k: v for k, v in params.items() if v is not None},
            scan=tuple(scan),
            exclude=tuple(exclude),
            health_check=health_check,
        )
        setattr(target, AGENT_ATTR, spec)
        return target

    return mark


def mesh_tool(
    capability: str | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    tags: Sequence[str] = (),
    version: str = "1.0.0",
    dependencies: Sequence[str | Selector | Mapping[str, Any]] = (),
    timeout: float | None = None,
    input_schema: Mapping[str, Any] | None = None,
    client_capabilities: Sequence[str] = (),
    background: bool | Literal["required"] = False,
    task: bool = False,
    max_concurrent: int | None = None,
    scopes: Sequence[str] = (),
    prepare: Callable[..., Any] | None = None,
    output_schema_strict: bool = True,
    **kwargs: Any,
) -> Callable[[F], F]:
    """Serve a function (or a component's method) as an MCP tool and advertise it as `capability`.

    The tool name defaults to the function name, the capability to the tool name and the description to
    the docstring. `dependencies` lists capabilities of other agents; each one is injected, in declaration
    order, into the parameters typed `McpMeshTool`. `timeout` (seconds) bounds one call. `input_schema`
    replaces the schema derived from the signature (it is served verbatim). `client_capabilities` names
    capabilities a 2026-07-28 client must declare to call the tool (else error -32021). Extra keyword
    arguments are free-form metadata advertised with the tool (MCP Mesh's `kwargs`).

    `background=True` answers a call at once with a job handle while the body runs (poll it with
    `__mesh_job_status`/`__mesh_job_result`); `task=True` is MCP Mesh's job tool: a plain call runs inline, a
    job submitted through the registry runs as a job. Either body may take a `JobContext` (`MeshJob`)
    parameter. `max_concurrent` caps this tool's running jobs (see the `jobs` settings).
    `background="required"` also makes MCP clients that have a task form use it: a 2026-07-28 request
    without the tasks extension is refused with -32021, a 2025-11-25 call without `params.task` with
    -32601. `prepare(ctx, arguments)` (sync or async) runs in the request before a background tool's job
    starts: returning `InputRequired` asks the client first (2026-07-28 multi-round calls), None starts
    the job, whose body reads the answers from its own `ToolContext`.

    `scopes` are the OAuth scopes a caller's access token needs (with `auth.*` configured; else HTTP 403).
    `a2a=True` serves the tool as an A2A skill too (as `@mesh_a2a()` does). `output_schema_strict=False`
    lets the agent start when the tool's schema has no canonical form (verdict `BLOCK`, logged instead),
    and exempts it from `tools.schema_strict`.
    """
    if not isinstance(output_schema_strict, bool):
        raise ValueError(f"output_schema_strict must be True or False, got {output_schema_strict!r}")
    if isinstance(scopes, str) or any(not isinstance(s, str) or not s or " " in s for s in scopes):
        raise ValueError(f"scopes must be a list of scope names without spaces, got {scopes!r}")
    if max_concurrent is not None and max_concurrent <= 0:
        raise ValueError(f"max_concurrent must be positive, got {max_concurrent!r}")
    if background not in (True, False, "required"):
        raise ValueError(f'background must be True, False or "required", got {background!r}')
    if prepare is not None and (not background or not callable(prepare)):
        raise ValueError(
            "prepare= takes a function (ctx, arguments) and applies to background tools only; a plain "
            "tool returns InputRequired from its body"
        )
    # Keywords a feature reads (recorded, not advertised): a2a=True serves an A2A skill (a2a/a2a_marks.py).
    options = {"a2a": True} if kwargs.pop("a2a", False) else {}
    if task:
        kwargs = {**kwargs, "task": True}
    if name is not None and not _TOOL_NAME.match(name):
        raise ValueError(f"Tool name {name!r} is invalid: use 1-128 letters, digits, '_', '-' or '.'")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"Tool timeout must be positive, got {timeout!r}")
    deps = tuple(DependencySpec(index=i, selector=Selector.of(d)) for i, d in enumerate(dependencies))

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@mesh_tool applies to functions and methods, not {function!r}")
        spec = ToolSpec(
            function=function,
            name=name,
            capability=capability,
            description=description,
            tags=tuple(tags),
            version=version,
            dependencies=deps,
            timeout=timeout,
            input_schema=input_schema,
            client_capabilities=tuple(client_capabilities),
            kwargs=dict(kwargs),
            background=bool(background),
            task=task,
            max_concurrent=max_concurrent,
            scopes=tuple(scopes),
            task_required=background == "required",
            prepare=prepare,
            output_schema_strict=output_schema_strict,
            options=options,
        )
        setattr(function, TOOL_ATTR, spec)
        return function

    return mark


def mesh_llm(
    provider: str | Selector | Mapping[str, Any] | None = None,
    *,
    filter: str | Selector | Mapping[str, Any] | Sequence[str | Selector | Mapping[str, Any]] | None = None,
    filter_mode: str | None = None,
    system_prompt: str | None = None,
    max_iterations: int | None = None,
    response_model: Any = None,
    parallel_tool_calls: bool | None = None,
    tools: Sequence[Any] = (),
    **model_params: Any,
) -> Callable[[F], F]:
    """Give a `@mesh_tool` an LLM: its `MeshLlmAgent` parameter is injected by type.

    `provider` is `"vendor/model"` (`"openai/gpt-4o-mini"`, `"anthropic/claude-sonnet-4-5"`) for a direct
    call, or a selector of a mesh provider agent (`{"capability": "llm", "tags": ["+claude"]}`). `filter`
    selects the mesh tools the LLM may call (`"*"` for all); `filter_mode` is `all`, `best_match` or `*`.
    `system_prompt` is text, or `file://path` (a Jinja2 template rendered with the call's context).
    `tools` adds tool callbacks or catalog server names. Other keywords (`temperature`, `max_tokens`, ...)
    go to the model. Every one of them can be set in `application.yaml` (`llm.<tool>`, `llm.defaults`).
    """
    if filter_mode is not None and filter_mode not in FILTER_MODES:
        raise ValueError(f"filter_mode {filter_mode!r} is not one of {', '.join(FILTER_MODES)}")
    if max_iterations is not None and max_iterations <= 0:
        raise ValueError(f"max_iterations must be positive, got {max_iterations!r}")
    chosen = provider if provider is None or isinstance(provider, (str, Selector)) else Selector.of(provider)
    spec = LlmSpec(
        provider=chosen,
        filter=_llm_filter(filter),
        filter_mode=filter_mode,
        system_prompt=system_prompt,
        max_iterations=max_iterations,
        response_model=response_model,
        parallel_tool_calls=parallel_tool_calls,
        tools=tuple(tools),
        model_params=dict(model_params),
    )

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@mesh_llm applies to functions and methods, not {function!r}")
        setattr(function, LLM_ATTR, spec)
        return function

    return mark


def _llm_filter(value: Any) -> tuple[Selector | str, ...] | None:
    if value is None:
        return None
    if value == "*":
        return ("*",)
    items = [value] if isinstance(value, (str, Selector, Mapping)) else list(value)
    return tuple("*" if item == "*" else Selector.of(_any_capability(item)) for item in items)


def _any_capability(item: Any) -> Any:
    """A filter entry of tags only (`{"tags": ["search"]}`) matches any capability."""
    if isinstance(item, Mapping) and not item.get("capability"):
        return {**item, "capability": "*"}
    return item


def config_properties(prefix: str) -> Callable[[C], C]:
    """Bind a pydantic model to the settings section `prefix` (dotted for nested sections).

    The section is read from every settings layer (yaml, profiles, `MESH_<PREFIX>__<FIELD>` env vars), and
    the validated model is injectable by type into component constructors.
    """
    if not prefix or not all(part.isidentifier() for part in prefix.split(".")):
        raise ValueError(f"config_properties prefix {prefix!r} must be dotted identifiers, e.g. 'greeting'")

    def mark(model: C) -> C:
        from pydantic import BaseModel

        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise TypeError(f"@config_properties applies to pydantic models, not {model!r}")
        setattr(model, CONFIG_ATTR, ConfigPropertiesSpec(model=model, prefix=prefix))
        return model

    return mark


def own_metadata(target: Any, attr: str) -> Any:
    """The metadata `attr` set on `target` itself (a subclass does not inherit its base's marks)."""
    if isinstance(target, type):
        return target.__dict__.get(attr)
    return getattr(target, attr, None)
