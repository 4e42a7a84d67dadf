"""Canonical schemas and hashes equal MCP Mesh's (its own normalizer, run in the mcp-mesh venv), the subset
rule, and the errors for types without a schema."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from mesh_framework.schemas import SchemaTypeError, canonical_schema, json_schema_of, subset_diff
from mesh_framework.schemas.canonical import camel_case
from tests.interop.mcp_mesh import MESH_PYTHON


class Color(str, Enum):  # noqa: UP042 - pydantic's usual spelling
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    x: int
    when: datetime


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Tree(BaseModel):
    root: Node
    name: str


class Ping(BaseModel):
    pong: Optional[Pong] = None  # noqa: UP045 - the Optional spelling is what is being tested


class Pong(BaseModel):
    ping: Optional[Ping] = None  # noqa: UP045


class Everything(BaseModel):
    """A docstring (dropped)."""

    text: str = Field(description="dropped", title="Dropped")
    market_cap: float = 0.5
    inner: Optional[Inner] = None  # noqa: UP045
    tags: list[str] = []
    color: Color = Color.RED
    mode: Literal["a", "b"] = "a"
    union: int | str = 1
    day: date | None = None
    mapping: dict[str, int] = {}
    URLPath: str = ""


class Caption(BaseModel):
    text: str
    confidence: float


@dataclass
class CaptionClass:
    text: str
    confidence: float


class CaptionDict(TypedDict):
    text: str
    confidence: float


TYPES: list[Any] = [Everything, Inner, Node, Tree, Ping, Caption, CaptionClass, CaptionDict, list[Caption]]
TYPES += [Optional[Caption], int, str | None]  # noqa: UP045
EDGE_CASES: list[dict[str, Any]] = [
    {
        "type": "object",
        "additionalProperties": True,
        "properties": {"a": {"type": "string", "enum": ["b", "a"]}},
    },
    {
        "type": "object",
        "properties": {"title": {"type": "string"}, "name": {"type": "string"}},
        "required": ["title"],
    },
    {"type": ["null", "string", "integer"]},
    {"enum": [True, False]},
    {"enum": [1, 2.5]},
    {"enum": [1.0, 2.5]},
    {
        "type": "object",
        "properties": {
            "market_cap": {"type": "number", "minimum": 0},
            "URLPath": {"type": "string", "format": "uri", "x-media-type": "image/png"},
            "é": {"const": "ü", "type": "string"},
            "u": {"oneOf": [{"type": "integer"}, {"type": "string"}], "discriminator": {}},
            "n": {"type": "string", "nullable": True},
        },
        "required": ["market_cap", "URLPath"],
        "examples": [1],
    },
    {"$ref": "http://example.com/schema"},
    {"$ref": "#/$defs/Missing"},
    {"properties": {"userID": {}, "HTTPStatus": {}, "already_camelCase": {}, "a-b c": {}, "XMLParser": {}}},
    {"anyOf": [{"type": "null"}, {"type": "string"}, {"type": "integer"}]},
    {
        "oneOf": [{"type": "null"}, {"$ref": "#/$defs/X", "description": "d"}],
        "$defs": {"X": {"type": "object"}},
    },
    {"anyOf": [{"enum": ["a"]}, {"type": "null"}]},
    {"anyOf": [{"const": 1.5}, {"type": "null"}]},
    {"anyOf": [{"items": {}}, {"type": "null"}, {"type": "null"}]},
    {"anyOf": [{"type": "null"}, {"anyOf": [{"type": "string"}, {"type": "null"}]}]},
    {"anyOf": [{"type": "null"}, {"oneOf": [{"type": "string"}, {"type": "integer"}]}]},
    {"anyOf": [{"type": "null"}, {"anyOf": [{"type": "string"}]}], "title": "x"},
    {"anyOf": [{"enum": ["a"]}, {"const": "b"}, {"type": "null"}]},
    {"type": "string", "examples": ["a"], "default": "x", "readOnly": True, "$comment": "kept"},
    {"type": "string", "nullable": False},
]


def mesh_normalize(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """MCP Mesh's own normalizer (mcp_mesh_core.normalize_schema_py), in the mcp-mesh venv."""
    code = (
        "import json, sys, mcp_mesh_core as core\n"
        "norm = core.normalize_schema_py\n"
        "found = [json.loads(norm(json.dumps(s), 'python')) for s in json.load(sys.stdin)]\n"
        "print(json.dumps(found))"
    )
    done = subprocess.run(
        [str(MESH_PYTHON), "-c", code],
        input=json.dumps(schemas),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_canonical_forms_and_hashes_equal_mcp_meshs_normalizer() -> None:
    schemas = [json_schema_of(t) for t in TYPES] + EDGE_CASES
    theirs = mesh_normalize(schemas)
    for schema, expected in zip(schemas, theirs, strict=True):
        ours = canonical_schema(schema)
        assert ours.canonical == expected["canonical"], schema
        assert ours.hash == expected["hash"], schema
        assert list(ours.warnings) == expected["warnings"], schema
        assert ours.verdict == expected["verdict"], schema


def test_the_captured_hash_of_mcp_meshs_caption_consumer() -> None:
    # Captured from an mcp-mesh 3.8 consumer's heartbeat (expected_type=Caption).
    canonical = canonical_schema(Caption)
    assert canonical.canonical == {
        "properties": {"confidence": {"type": "number"}, "text": {"type": "string"}},
        "required": ["confidence", "text"],
        "type": "object",
    }
    assert canonical.hash.startswith("sha256:b477ba42")


def test_models_dataclasses_and_typed_dicts_reduce_to_one_form() -> None:
    forms = {canonical_schema(t).hash for t in (Caption, CaptionClass, CaptionDict)}
    assert len(forms) == 1
    described = {
        "type": "object",
        "title": "Other",
        "description": "words",
        "properties": {
            "text": {"type": "string", "title": "Words"},
            "confidence": {"type": "number", "default": 1.0},
        },
        "required": ["text", "confidence"],
        "additionalProperties": False,
    }
    assert canonical_schema(described).hash in forms


def test_recursive_models_keep_their_recursion_under_a_name_of_their_shape() -> None:
    canonical = canonical_schema(Node).canonical
    (name,) = canonical["$defs"]
    assert name.startswith("Recursive_") and canonical["$ref"] == f"#/$defs/{name}"


def test_camel_case() -> None:
    assert [camel_case(n) for n in ("market_cap", "URLPath", "userID", "HTTPStatus", "a-b c")] == [
        "marketCap",
        "urlPath",
        "userId",
        "httpStatus",
        "aBC",
    ]


class Socketish:
    pass


class Holder(BaseModel):
    model_config = {"arbitrary_types_allowed": True}
    name: str
    handle: Socketish


def test_a_type_without_a_schema_is_named_with_its_field() -> None:
    with pytest.raises(SchemaTypeError) as caught:
        canonical_schema(Holder)
    message = str(caught.value)
    assert "test_schema_canonical.Holder has no JSON Schema" in message
    assert "'handle: Socketish'" in message


def test_a_value_that_is_not_a_type_is_refused() -> None:
    with pytest.raises(SchemaTypeError, match="42 is not a type"):
        canonical_schema(42)
    with pytest.raises(SchemaTypeError, match="Socketish has no JSON Schema"):
        canonical_schema(Socketish)


def test_subset_keeps_extra_producer_fields_and_reports_what_differs() -> None:
    wanted = canonical_schema(
        {
            "type": "object",
            "properties": {
                "label": {"type": "integer"},
                "x": {"type": "number"},
                "extra": {"type": "string"},
            },
            "required": ["label", "x"],
        }
    ).canonical
    offered = canonical_schema(
        {
            "type": "object",
            "properties": {"label": {"type": "string"}, "y": {"type": "number"}},
            "required": ["label"],
        }
    ).canonical
    assert subset_diff(wanted, offered) == [
        {"consumer_type": "integer", "kind": "type_mismatch", "path": "label", "producer_type": "string"},
        {"field": "x", "kind": "missing_field", "path": "x"},
    ]
    richer = {
        "type": "object",
        "properties": {"label": {"type": "integer"}, "x": {"type": "integer"}, "more": {"type": "string"}},
    }
    assert subset_diff(wanted, richer) == []  # integer satisfies number; `extra` is not required


def test_subset_recurses_into_nested_objects_and_array_items() -> None:
    wanted = {
        "type": "object",
        "required": ["rows"],
        "properties": {
            "rows": {
                "type": "array",
                "items": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}},
            }
        },
    }
    offered = {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {}}}},
    }
    assert subset_diff(wanted, offered) == [{"field": "id", "kind": "missing_field", "path": "rows.[].id"}]
    no_items = {"type": "object", "properties": {"rows": {"type": "array"}}}
    assert subset_diff(wanted, no_items) == [{"kind": "missing_items_schema", "path": "rows.[]"}]


def test_a_selector_checks_its_match_mode() -> None:
    from mesh_framework import Selector

    assert Selector("caption", expected_type=Caption).match_mode == "subset"  # MCP Mesh's default
    assert Selector("caption").match_mode is None
    with pytest.raises(ValueError, match="match_mode must be 'subset' or 'strict', not 'loose'"):
        Selector("caption", expected_type=Caption, match_mode="loose")
    with pytest.raises(ValueError, match="match_mode='strict' needs expected_type"):
        Selector("caption", match_mode="strict")
