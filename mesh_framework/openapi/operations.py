"""The operations of an OpenAPI document as tool plans: name, description, input schema and where each
argument goes in the request.

Arguments: each parameter is an argument of its own name; a JSON or form request body whose schema is an
object with `properties` (and no `allOf`/`anyOf`/`oneOf` or open `additionalProperties`) gives each of
its properties as an argument, any other body is the argument `body`. A parameter whose name another
argument also has is renamed `name__in` (`id__query`). The input schema refuses arguments it does not
name (`additionalProperties: false`).

Names: the `operationId` (characters outside `[A-Za-z0-9_.-]` replaced by `_`, at most 128); without
one, the method and the path's words joined by `_`: `GET /pets/{petId}/toys` is `get_pets_petId_toys`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from openapi_pydantic.v3 import v3_0, v3_1

from .document import OpenApiDocument, SpecError
from .encoding import default_explode, default_style
from .schemas import SchemaCollector

__all__ = [
    "METHODS",
    "BodyPlan",
    "Operation",
    "ParameterPlan",
    "derived_name",
    "plan_operations",
    "tool_name",
]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_NAME = 128
_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")
_JSON = re.compile(r"^application/([\w.+-]+\+)?json$")
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class ParameterPlan:
    """One parameter: the argument carrying it, and how it is written into the request."""

    argument: str
    name: str
    location: str  # path, query, header or cookie
    style: str
    explode: bool
    as_json: bool = False  # described by `content`: sent as its JSON text


@dataclass(frozen=True)
class BodyPlan:
    """The request body: its media type, and either the argument holding it whole or the arguments that
    are its properties."""

    media_type: str
    argument: str | None = None
    properties: tuple[str, ...] = ()
    required: bool = False


@dataclass(frozen=True)
class Operation:
    """One operation, planned as a tool."""

    name: str
    method: str
    path: str
    description: str
    input_schema: dict[str, Any]
    parameters: tuple[ParameterPlan, ...] = ()
    body: BodyPlan | None = None
    tags: tuple[str, ...] = ()
    operation_id: str | None = None

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


@dataclass
class PlannedOperations:
    """What a document gives: the operations, and why some were left out (one line each)."""

    operations: list[Operation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def tool_name(operation_id: str) -> str:
    """An operationId as a tool name: characters outside `[A-Za-z0-9_.-]` as `_`, at most 128."""
    return (_NOT_NAME.sub("_", operation_id).strip("_") or "operation")[:MAX_NAME]


def derived_name(method: str, path: str) -> str:
    """The name of an operation without operationId: `get_pets_petId_toys` for `GET /pets/{petId}/toys`."""
    words = [word for word in _NOT_WORD.split(path) if word]
    return "_".join([method.lower(), *words])[:MAX_NAME]


def plan_operations(
    document: OpenApiDocument, include_tags: Sequence[str] = (), exclude_tags: Sequence[str] = ()
) -> PlannedOperations:
    """Every operation of `document` whose tags pass the filters."""
    planned = PlannedOperations()
    for path, method, operation, shared in _operations(document, planned):
        tags = tuple(operation.tags or ())
        if include_tags and not set(tags) & set(include_tags):
            continue
        if set(tags) & set(exclude_tags):
            continue
        label = f"{method.upper()} {path}"
        try:
            planned.operations.append(_plan(document, path, method, operation, shared))
        except SpecError as exc:
            planned.problems.append(f"{label}: {exc}")
        except _Unsupported as exc:
            planned.skipped.append(f"{label}: {exc}")
    return planned


class _Unsupported(Exception):
    """An operation this feature cannot call (a body of a media type it does not write)."""


def _operations(
    document: OpenApiDocument, planned: PlannedOperations
) -> Iterator[tuple[str, str, Any, list[Any]]]:
    for path, declared in (document.model.paths or {}).items():
        item = declared
        if declared.ref is not None:  # a path item elsewhere in the document
            try:
                item = document.resolve(_Ref(declared.ref), _models(document).PathItem)
            except SpecError as exc:
                planned.problems.append(f"path {path}: {exc}")
                continue
        for method in METHODS:
            operation = getattr(item, method, None)
            if operation is not None:
                yield path, method, operation, list(item.parameters or ())


@dataclass(frozen=True)
class _Ref:
    ref: str


def _models(document: OpenApiDocument) -> Any:
    return v3_0 if document.version == "3.0" else v3_1


def _dump(node: Any) -> Any:
    return node.model_dump(mode="json", by_alias=True, exclude_unset=True) if node is not None else {}


def _plan(document: OpenApiDocument, path: str, method: str, operation: Any, shared: list[Any]) -> Operation:
    models = _models(document)
    collector = SchemaCollector(document)
    parameters: dict[tuple[str, str], Any] = {}
    for node in [*shared, *(operation.parameters or ())]:  # the operation's replace the path item's
        parameter = document.resolve(node, models.Parameter)
        parameters[(parameter.name, parameter.param_in.value)] = parameter
    body = _body(document, operation, models)

    properties: dict[str, Any] = {}
    required: list[str] = []
    body_schema: dict[str, Any] | None = None
    body_properties: dict[str, Any] = {}
    if body is not None:
        media_type, request_body, media = body
        body_schema = collector.convert(_dump(media.media_type_schema))
        target = collector.target(body_schema)
        if media_type != "text/plain" and _flattens(target):
            body_properties = dict(target["properties"])

    taken = [name for name, _ in parameters] + list(body_properties)
    if body is not None and not body_properties:
        taken.append("body")
    plans: list[ParameterPlan] = []
    for (name, location), parameter in parameters.items():
        argument = name if taken.count(name) == 1 else f"{name}__{location}"
        schema, as_json = _parameter_schema(collector, parameter)
        if parameter.description and "description" not in schema:
            schema = {**schema, "description": parameter.description}
        properties[argument] = schema
        if parameter.required or location == "path":
            required.append(argument)
        style = parameter.style or default_style(location)
        explode = parameter.explode if parameter.explode is not None else default_explode(style)
        plans.append(ParameterPlan(argument, name, location, style, explode, as_json))

    body_plan = None
    if body is not None:
        media_type, request_body, _ = body
        if body_properties:
            properties.update(body_properties)
            if request_body.required:
                required.extend(n for n in collector.target(body_schema or {}).get("required", ()) if n)
            body_plan = BodyPlan(
                media_type, properties=tuple(body_properties), required=request_body.required
            )
        else:
            schema = dict(body_schema or {})
            if request_body.description and "description" not in schema:
                schema["description"] = request_body.description
            properties["body"] = schema
            if request_body.required:
                required.append("body")
            body_plan = BodyPlan(media_type, argument="body", required=request_body.required)

    input_schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        input_schema["required"] = list(dict.fromkeys(required))
    name = tool_name(operation.operationId) if operation.operationId else derived_name(method, path)
    return Operation(
        name=name,
        method=method,
        path=path,
        description=_description(operation, method, path),
        input_schema=collector.wrap(input_schema),
        parameters=tuple(plans),
        body=body_plan,
        tags=tuple(operation.tags or ()),
        operation_id=operation.operationId,
    )


def _parameter_schema(collector: SchemaCollector, parameter: Any) -> tuple[dict[str, Any], bool]:
    if parameter.param_schema is not None:
        return collector.convert(_dump(parameter.param_schema)), False
    for media in (parameter.content or {}).values():  # `content`: one media type, sent as JSON
        return collector.convert(_dump(media.media_type_schema)), True
    return {}, False


def _body(document: OpenApiDocument, operation: Any, models: Any) -> tuple[str, Any, Any] | None:
    if operation.requestBody is None:
        return None
    request_body = document.resolve(operation.requestBody, models.RequestBody)
    content = request_body.content or {}
    for wanted in (lambda m: bool(_JSON.match(m)), lambda m: m == FORM, lambda m: m == "text/plain"):
        for media_type, media in content.items():
            if wanted(media_type.split(";")[0].strip().lower()):
                return media_type.split(";")[0].strip().lower(), request_body, media
    if not request_body.required:
        return None  # an optional body of another kind: the operation is called without one
    kinds = ", ".join(content) or "no media type"
    raise _Unsupported(f"its request body is {kinds}; JSON, form and text/plain bodies are sent")


def _flattens(schema: Any) -> bool:
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    if schema.get("type", "object") != "object" or any(k in schema for k in ("allOf", "anyOf", "oneOf")):
        return False
    return schema.get("additionalProperties", False) is False


def _description(operation: Any, method: str, path: str) -> str:
    parts = [text.strip() for text in (operation.summary, operation.description) if text and text.strip()]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = parts[1:]
    return "\n\n".join(parts) or f"{method.upper()} {path}"
