"""Signature analysis, done once per tool at start-up: what the client sends, what the mesh injects.

Injected parameters are found by type: `McpMeshTool` (one per declared dependency, in order),
`MeshLlmAgent`, `ToolContext`, a type that carries an injection rule (tools/injection.py: a feature's, such
as `JobContext`, `@mesh_service` classes, `A2aClient`) and component types the container knows.
Everything else is a client argument, validated by a pydantic model built from the signature and
described by its JSON schema.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

from .._frozen import frozen
from ..injectables import McpMeshTool, MeshLlmAgent
from ..input_required import InputRequired
from .context import ToolContext
from .injection import Injection, InjectionError, InjectionKind, SlotGroup, injection_rule

__all__ = ["InjectedParam", "ToolSignature", "analyze_signature"]


@frozen
class InjectedParam:
    name: str
    kind: InjectionKind
    optional: bool
    slot: int = -1  # dependency index for kind == "tool"; the group's first for kind == "service"
    bean_type: Any = None  # for kind == "bean"
    service: SlotGroup | None = None  # for kind == "service": the slots it is built over
    bean: str | None = None  # for kind == "bean": a framework bean's name, injected as bean[key]
    key: str | None = None  # (an A2aClient's peer: `a2a_clients["weather"]`)


@frozen
class ToolSignature:
    arguments_model: type[BaseModel]
    injected: tuple[InjectedParam, ...]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    output_adapter: TypeAdapter[Any] | None
    wraps_result: bool
    is_async: bool
    wants_context: bool
    return_type: Any = None
    streams: bool = False  # returns Stream[str]: chunks as progress notifications (tools/streaming.py)
    # Answered as an event stream (wants a ToolContext, or streams): one flag for the endpoint to read.
    event_stream: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "event_stream", self.wants_context or self.streams)


class SignatureError(Exception):
    """A tool signature the framework cannot serve; the message says which parameter and why."""


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """Strip `Annotated[...]` and `| None`; return the core type and whether None was allowed."""
    optional = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            if len(args) == len(get_args(annotation)) or len(args) != 1:
                return annotation, optional
            optional = True
            annotation = args[0]
        else:
            return annotation, optional


def _is_subclass(candidate: Any, base: type | tuple[type, ...]) -> bool:
    return isinstance(candidate, type) and issubclass(candidate, base)


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's generated `title` keys: they repeat the property names and bloat tools/list."""
    if isinstance(schema, dict):
        return {
            k: (_strip_titles(v) if k != "properties" else {p: _strip_titles(s) for p, s in v.items()})
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(s) for s in schema]
    return schema


def _without_input_required(annotation: Any) -> Any:
    """`str | InputRequired` describes its complete result as `str`: the other branch is not output."""
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [a for a in get_args(annotation) if not _is_subclass(a, InputRequired)]
        if len(kept) != len(get_args(annotation)):
            return Union[tuple(kept)] if kept else None  # noqa: UP007 - built from a runtime tuple
    return annotation


def _output_of(annotation: Any) -> tuple[dict[str, Any] | None, TypeAdapter[Any] | None, bool]:
    """Output schema, serializer and whether the value is wrapped as `{"result": value}`."""
    annotation = _without_input_required(annotation)
    if annotation is inspect.Signature.empty or annotation is Any or annotation is None:
        return None, None, False
    core, _ = _unwrap(annotation)
    if core is type(None) or _is_response(core):  # a route's own answer (HTMLResponse, ...) as it is
        return None, None, False
    content = sys.modules.get("mesh_framework.content")  # an annotation naming its types has loaded it
    if content is not None:
        kinds = content.CONTENT_TYPES
        if _is_subclass(core, content.ToolResult) or _is_subclass(core, kinds):
            return None, None, False
        if get_origin(core) in (list, tuple) and any(_is_subclass(a, kinds) for a in get_args(core)):
            return None, None, False
    try:
        schema, adapter, wraps = _described(annotation)
    except TypeError:  # an annotation that cannot be a key (an unhashable metadata object): not shared
        schema, adapter, wraps = _describe(annotation)
    return _copied(schema), adapter, wraps


@functools.lru_cache(maxsize=256)
def _described(annotation: Any) -> tuple[dict[str, Any], TypeAdapter[Any], bool]:
    """`_describe`, once per result type: tools that return the same type (the framework's job tools,
    `-> str`, ...) share its adapter, its schemas made once."""
    return _describe(annotation)


def _describe(annotation: Any) -> tuple[dict[str, Any], TypeAdapter[Any], bool]:
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    schema = _strip_titles(adapter.json_schema(mode="serialization"))
    if schema.get("type") == "object":
        return schema, adapter, False
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if "$defs" in schema:
        wrapped["$defs"] = schema.pop("$defs")
    return wrapped, adapter, True


def _copied(schema: Any) -> Any:
    """A tool's own copy of a shared schema (its JSON values: dicts, lists and scalars)."""
    if isinstance(schema, dict):
        return {k: _copied(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_copied(v) for v in schema]
    return schema


def _is_response(annotation: Any) -> bool:
    """A Starlette `Response` class, known by name so that declaring a tool does not import Starlette."""
    return isinstance(annotation, type) and any(
        c.__module__ == "starlette.responses" and c.__name__ == "Response" for c in annotation.__mro__
    )


_STREAM_ORIGINS = (
    collections.abc.AsyncIterator,
    collections.abc.AsyncIterable,
    collections.abc.AsyncGenerator,
)


def _streams(function: Callable[..., Any], annotation: Any) -> bool:
    """Whether the return annotation is `Stream[str]`; SignatureError for any other async iterator."""
    core, _ = _unwrap(annotation)
    if get_origin(core) not in _STREAM_ORIGINS and core not in _STREAM_ORIGINS:
        if inspect.isasyncgenfunction(function):
            raise SignatureError(
                "is an async generator but does not return Stream[str]; annotate it -> Stream[str] "
                "(from mesh_framework import Stream) to stream its chunks"
            )
        return False
    item = get_args(core)[0] if get_args(core) else None
    if item is not str:
        name = getattr(item, "__name__", None) or repr(item)
        shown = f"a stream of {name}" if item is not None else "Stream without an item type"
        raise SignatureError(
            f"returns {shown}; only Stream[str] is supported: yield str chunks "
            "(from mesh_framework import Stream)"
        )
    if not (inspect.isasyncgenfunction(function) or inspect.iscoroutinefunction(function)):
        raise SignatureError(
            "returns Stream[str] but is not async; write it as an async generator (async def ... yield)"
        )
    return True


def _injection(name: str, annotation: Any, core: Any) -> Injection | None:
    """How a parameter of a type carrying an injection rule is filled (tools/injection.py), else None."""
    rule = injection_rule(core)
    if rule is None:
        return None
    try:
        return rule.injection(name, annotation, core)
    except InjectionError as exc:
        raise SignatureError(f"parameter '{name}': {exc}") from None


def analyze_signature(
    function: Callable[..., Any],
    *,
    model_name: str,
    dependency_count: int,
    bean_types: Callable[[Any], bool] = lambda _t: False,
    input_schema: Mapping[str, Any] | None = None,
    skip_self: bool = False,
) -> ToolSignature:
    """Analyze `function` once. Raises SignatureError naming the parameter at fault."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as exc:
        raise SignatureError(
            f"an annotation cannot be resolved at run time ({exc}); import the type outside "
            "`if TYPE_CHECKING:` or quote only names that exist when the module has loaded"
        ) from None
    signature = inspect.signature(function)
    fields: dict[str, Any] = {}
    injected: list[InjectedParam] = []
    service_slot = dependency_count  # services' slots follow the declared dependencies
    for param in list(signature.parameters.values())[1 if skip_self else 0 :]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise SignatureError(
                f"parameter '{param.name}': *args, **kwargs and positional-only are not supported"
            )
        annotation = hints.get(param.name, Any)
        core, optional = _unwrap(annotation)
        optional = optional or param.default is None
        if _is_subclass(core, McpMeshTool):
            slot = sum(1 for i in injected if i.kind == "tool")
            if slot >= dependency_count:
                raise SignatureError(
                    f"parameter '{param.name}' is typed McpMeshTool but the tool declares only "
                    f"{dependency_count} dependenc{'y' if dependency_count == 1 else 'ies'}; "
                    "add its capability to @mesh_tool(dependencies=[...])"
                )
            injected.append(InjectedParam(param.name, "tool", optional, slot=slot))
        elif _is_subclass(core, MeshLlmAgent):
            injected.append(InjectedParam(param.name, "llm", optional))
        elif _is_subclass(core, ToolContext):
            injected.append(InjectedParam(param.name, "context", optional))
        elif (found := _injection(param.name, annotation, core)) is not None:
            if found.slots is not None:
                injected.append(
                    InjectedParam(param.name, "service", optional, slot=service_slot, service=found.slots)
                )
                service_slot += len(found.slots.dependencies(service_slot))
            else:
                injected.append(
                    InjectedParam(
                        param.name,
                        found.kind,
                        optional,
                        bean_type=found.bean_type,
                        bean=found.bean,
                        key=found.key,
                    )
                )
        elif bean_types(core):
            injected.append(InjectedParam(param.name, "bean", optional, bean_type=core))
        else:
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[param.name] = (annotation, default)
    model = create_model(
        model_name,
        __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
        **fields,
    )
    schema = dict(input_schema) if input_schema is not None else _strip_titles(model.model_json_schema())
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    streams = _streams(function, hints.get("return", inspect.Signature.empty))
    output_schema, output_adapter, wraps = (
        (None, None, False) if streams else _output_of(hints.get("return", inspect.Signature.empty))
    )
    wants_context = any(i.kind == "context" for i in injected)
    return ToolSignature(
        arguments_model=model,
        injected=tuple(injected),
        input_schema=schema,
        output_schema=output_schema,
        output_adapter=output_adapter,
        wraps_result=wraps,
        is_async=streams or inspect.iscoroutinefunction(function),
        wants_context=wants_context,
        return_type=hints.get("return"),
        streams=streams,
    )
