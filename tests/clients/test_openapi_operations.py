"""How OpenAPI operations become tool plans and how arguments are written into requests, read from small
documents: parameter styles, argument names that clash, 3.0's schema dialect, references that point
elsewhere, names derived for operations without operationId, bodies that cannot be sent."""

from __future__ import annotations

from typing import Any

import pytest

from mesh_framework.openapi.document import SpecError, parse_document
from mesh_framework.openapi.encoding import cookie_value, header_value, path_value, query_pairs
from mesh_framework.openapi.operations import derived_name, plan_operations, tool_name

pytestmark = pytest.mark.timeout(30)


def document(paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> Any:
    raw = {"openapi": version, "info": {"title": "T", "version": "1"}, "paths": paths, **extra}
    return parse_document(raw, "t.yaml")


OK = {"200": {"description": "ok"}}


@pytest.mark.parametrize(
    ("style", "explode", "value", "pairs"),
    [
        ("form", True, [1, 2], [("id", "1"), ("id", "2")]),
        ("form", False, [1, 2], [("id", "1,2")]),
        ("spaceDelimited", False, ["a", "b"], [("id", "a b")]),
        ("pipeDelimited", False, ["a", "b"], [("id", "a|b")]),
        ("form", True, {"a": 1, "b": True}, [("a", "1"), ("b", "true")]),
        ("form", False, {"a": 1, "b": 2}, [("id", "a,1,b,2")]),
        ("deepObject", True, {"a": 1}, [("id[a]", "1")]),
        ("form", True, False, [("id", "false")]),
    ],
)
def test_query_styles(style: str, explode: bool, value: Any, pairs: list[tuple[str, str]]) -> None:
    assert query_pairs("id", value, style, explode) == pairs


@pytest.mark.parametrize(
    ("style", "explode", "value", "written"),
    [
        ("simple", False, "a b/c", "a%20b%2Fc"),
        ("simple", False, [1, 2], "1,2"),
        ("simple", False, {"a": 1, "b": 2}, "a,1,b,2"),
        ("simple", True, {"a": 1, "b": 2}, "a=1,b=2"),
        ("label", False, 5, ".5"),
        ("label", True, [1, 2], ".1.2"),
        ("label", False, [1, 2], ".1,2"),
        ("matrix", False, 5, ";id=5"),
        ("matrix", True, [1, 2], ";id=1;id=2"),
        ("matrix", False, [1, 2], ";id=1,2"),
        ("matrix", True, {"a": 1, "b": 2}, ";a=1;b=2"),
    ],
)
def test_path_styles(style: str, explode: bool, value: Any, written: str) -> None:
    assert path_value("id", value, style, explode) == written


def test_header_and_cookie_values() -> None:
    assert header_value([1, 2], False) == "1,2"
    assert header_value({"a": 1, "b": 2}, True) == "a=1,b=2"
    assert cookie_value({"a": 1}) == "a,1" and cookie_value(2.5) == "2.5"


def test_names_from_operation_ids_and_paths() -> None:
    assert tool_name("pets/list all") == "pets_list_all"
    assert tool_name("x" * 200) == "x" * 128
    assert derived_name("GET", "/pets/{petId}/toys") == "get_pets_petId_toys"
    assert derived_name("delete", "/") == "delete"


def test_a_parameter_sharing_a_name_with_another_argument_is_renamed() -> None:
    doc = document(
        {
            "/items/{id}": {
                "put": {
                    "operationId": "put_item",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "id", "in": "query", "schema": {"type": "string"}},
                    ],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {"type": "object", "properties": {"id": {"type": "integer"}}}
                            }
                        }
                    },
                    "responses": OK,
                }
            }
        }
    )
    [operation] = plan_operations(doc).operations
    assert list(operation.input_schema["properties"]) == ["id__path", "id__query", "id"]
    assert operation.input_schema["required"] == ["id__path"]
    assert {p.argument: p.name for p in operation.parameters} == {"id__path": "id", "id__query": "id"}


def test_a_body_that_is_no_plain_object_is_the_argument_body() -> None:
    body = {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}
    doc = document({"/tags": {"post": {"operationId": "add_tags", "requestBody": body, "responses": OK}}})
    [operation] = plan_operations(doc).operations
    assert operation.input_schema["properties"]["body"] == {"type": "array", "items": {"type": "string"}}
    assert operation.body is not None and operation.body.argument == "body"


def test_openapi_30_schema_dialect_becomes_json_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
            "any": {"nullable": True, "description": "no type"},
            "nullable": {"type": "string"},  # a property of that name stays
        },
    }
    body = {"required": True, "content": {"application/json": {"schema": schema}}}
    doc = document({"/x": {"post": {"operationId": "x", "requestBody": body, "responses": OK}}})
    props = plan_operations(doc).operations[0].input_schema["properties"]
    assert props["n"] == {"type": "integer", "exclusiveMinimum": 0}
    assert props["any"] == {"anyOf": [{"description": "no type"}, {"type": "null"}]}
    assert props["nullable"] == {"type": "string"}


def test_31_schemas_are_left_as_written() -> None:
    param = {"name": "q", "in": "query", "schema": {"type": ["string", "null"], "exclusiveMinimum": 3}}
    doc = document({"/x": {"get": {"operationId": "x", "parameters": [param], "responses": OK}}}, "3.1.0")
    props = plan_operations(doc).operations[0].input_schema["properties"]
    assert props["q"] == {"type": ["string", "null"], "exclusiveMinimum": 3}


def test_a_path_item_reference_is_followed() -> None:
    doc = document(
        {"/a": {"$ref": "#/x-shared/item"}},
        **{"x-shared": {"item": {"get": {"operationId": "shared_get", "responses": OK}}}},
    )
    assert [o.name for o in plan_operations(doc).operations] == ["shared_get"]


def test_references_outside_or_to_nothing_are_problems_of_their_operation() -> None:
    doc = document(
        {
            "/a": {"get": {"operationId": "a", "parameters": [{"$ref": "other.yaml#/p"}], "responses": OK}},
            "/b": {
                "get": {
                    "operationId": "b",
                    "parameters": [{"$ref": "#/components/parameters/No"}],
                    "responses": OK,
                }
            },
            "/c": {"get": {"operationId": "c", "responses": OK}},
        }
    )
    planned = plan_operations(doc)
    assert [o.name for o in planned.operations] == ["c"]
    assert planned.problems == [
        "GET /a: $ref 'other.yaml#/p' points outside the document; only '#/...' references are read",
        "GET /b: $ref '#/components/parameters/No' points at nothing in the document",
    ]


def test_a_required_body_that_cannot_be_sent_leaves_the_operation_out() -> None:
    upload = {"required": True, "content": {"multipart/form-data": {"schema": {"type": "object"}}}}
    optional = {"content": {"application/octet-stream": {"schema": {"type": "string"}}}}
    doc = document(
        {
            "/upload": {"post": {"operationId": "upload", "requestBody": upload, "responses": OK}},
            "/touch": {"post": {"operationId": "touch", "requestBody": optional, "responses": OK}},
        }
    )
    planned = plan_operations(doc)
    assert [o.name for o in planned.operations] == ["touch"]
    assert planned.skipped == [
        "POST /upload: its request body is multipart/form-data; JSON, form and text/plain bodies are sent"
    ]


def test_tags_filter_operations() -> None:
    doc = document(
        {
            "/a": {"get": {"operationId": "a", "tags": ["x"], "responses": OK}},
            "/b": {"get": {"operationId": "b", "tags": ["x", "y"], "responses": OK}},
            "/c": {"get": {"operationId": "c", "responses": OK}},
        }
    )
    assert [o.name for o in plan_operations(doc, include_tags=["x"]).operations] == ["a", "b"]
    assert [o.name for o in plan_operations(doc, exclude_tags=["y"]).operations] == ["a", "c"]


def test_a_later_patch_version_reads_as_its_line() -> None:
    assert document({}, "3.0.9").version == "3.0"
    with pytest.raises(SpecError, match="is OpenAPI 3.2.0; only 3.0 and 3.1"):
        document({}, "3.2.0")
