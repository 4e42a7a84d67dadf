"""Schema verdicts at start-up, as MCP Mesh: its normalizer's BLOCK cases (the $ref inlining budget) give
BLOCK here too; a BLOCK tool schema refuses start-up unless the tool sets output_schema_strict=False;
WARN logs one line, and refuses too under tools.schema_strict (MCP_MESH_SCHEMA_STRICT)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.errors import WiringError
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.schemas.canonical import normalize_schema
from tests.agents import run_cli
from tests.interop.mcp_mesh import MESH_PYTHON

pytestmark = pytest.mark.timeout(120)


def diamond(depth: int) -> dict[str, Any]:
    """D0 -> (D1, D1) -> ... -> D<depth>: each level doubles what inlining writes."""
    defs: dict[str, Any] = {
        f"D{i}": {
            "type": "object",
            "properties": {"l": {"$ref": f"#/$defs/D{i + 1}"}, "r": {"$ref": f"#/$defs/D{i + 1}"}},
        }
        for i in range(depth)
    }
    defs[f"D{depth}"] = {"type": "string", "enum": ["a", "b"]}
    return {"$defs": defs, "$ref": "#/$defs/D0"}


SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(30)}},
    {"$defs": {"A": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
    {
        "$defs": {
            "A": {"type": "object", "properties": {"x": {"$ref": "#/$defs/B"}}, "required": ["x"]},
            "B": {"type": "array", "items": {"type": "integer"}},
        },
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}, "b": {"$ref": "#/$defs/A"}},
    },
    {  # recursive: its $ref is kept, nothing inlined
        "$defs": {
            "N": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}
        },
        "$ref": "#/$defs/N",
    },
    diamond(3),
    diamond(5),
]
BUDGETS = [1, 2, 3, 5, 7, 9, 14, 20, 30, 60, 130, 400]


def mesh_verdicts(schemas: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """MCP Mesh's normalizer with MCP_MESH_SCHEMA_MAX_INLINED_NODES=budget, in the mcp-mesh venv."""
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
        env={"MCP_MESH_SCHEMA_MAX_INLINED_NODES": str(budget), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_the_inlining_budget_gives_block_where_mcp_meshs_normalizer_does() -> None:
    blocked = 0
    for budget in BUDGETS:
        for schema, theirs in zip(SCHEMAS, mesh_verdicts(SCHEMAS, budget), strict=True):
            ours = normalize_schema(schema, max_inlined_nodes=budget)
            assert ours.verdict == theirs["verdict"], (budget, schema)
            if ours.blocked:
                blocked += 1
                assert ours.hash == theirs["hash"] == "" and theirs["canonical"] is None
                assert theirs["warnings"][0].startswith(ours.warnings[0])
            else:
                assert (ours.canonical, ours.hash) == (theirs["canonical"], theirs["hash"])
    assert blocked > 10  # the budgets above cut through every schema that inlines anything


def test_the_default_budget_is_mcp_meshs() -> None:
    schemas = [diamond(13), diamond(14), diamond(16)]
    theirs = [found["verdict"] for found in mesh_verdicts(schemas, 500_000)]
    assert theirs == [normalize_schema(s).verdict for s in schemas] == ["OK", "BLOCK", "BLOCK"]


def test_a_value_that_is_not_json_is_block() -> None:
    found = normalize_schema({"type": "string", "default": object()})
    assert found.verdict == "BLOCK" and found.warnings[0].startswith("invalid JSON input: ")


APP = """
from pydantic import BaseModel, ConfigDict, create_model

from mesh_framework import McpMeshTool, Selector, mesh_agent, mesh_tool


@mesh_agent(name="schemas", version="1.0.0")
class Schemas:
    pass


Leaf = create_model("D16", value=(str, ...))
for level in range(15, -1, -1):  # a diamond: every level names the next twice
    Leaf = create_model(f"D{{level}}", left=(Leaf, ...), right=(Leaf, ...))
Diamond = Leaf


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    text: str


{tools}
"""

BLOCK_TOOL = """
@mesh_tool({args})
async def huge() -> Diamond:
    raise NotImplementedError
"""

WARN_TOOL = """
@mesh_tool({args})
async def loose(text: str) -> Open:
    return Open(text=text)
"""

WARN_DEPENDENCY = """
@mesh_tool(dependencies=[Selector("open", expected_type=Open)])
async def reader(open: McpMeshTool) -> str:
    return "x"
"""


@pytest.fixture
def app_dir(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("schema_app_")]:
        del sys.modules[name]


def write_app(directory: Path, name: str, *tools: str) -> str:
    (directory / f"{name}.py").write_text(textwrap.dedent(APP.format(tools="\n".join(tools))))
    return name


def test_block_refuses_start_up_naming_the_tool_and_the_reason(app_dir: Path) -> None:
    name = write_app(app_dir, "schema_app_block", BLOCK_TOOL.format(args=""))
    with pytest.raises(WiringError) as refused:
        MeshApplication.load(name, environ={})
    (problem,) = refused.value.problems
    assert (
        "tool 'schema_app_block.huge'" in problem and "its output schema: schema verdict BLOCK: " in problem
    )
    assert "exceeds the $ref inlining budget of 500000 nodes" in problem
    assert "set output_schema_strict=False on the tool" in problem


def test_block_through_mesh_run_is_one_line(app_dir: Path) -> None:
    name = write_app(app_dir, "schema_app_cli", BLOCK_TOOL.format(args=""))
    result = run_cli(["run", name, "--port", "0"], cwd=app_dir, env={"MESH_REGISTRY__ENABLED": "false"})
    assert result.returncode == 1, result.stderr
    assert "tool 'schema_app_cli.huge'" in result.stderr and "schema verdict BLOCK" in result.stderr
    assert "Traceback" not in result.stderr


def test_output_schema_strict_false_starts_logs_and_sends_no_canonical_form(
    app_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    name = write_app(app_dir, "schema_app_demoted", BLOCK_TOOL.format(args="output_schema_strict=False"))
    with caplog.at_level(logging.WARNING, logger="mesh_framework.schemas"):
        app = MeshApplication.load(name, environ={})
    (line,) = [r.getMessage() for r in caplog.records if "huge" in r.getMessage()]
    assert line.startswith("Tool 'huge' its output schema: schema verdict BLOCK (output_schema_strict=False")
    tools = heartbeat_payload(app.settings, app.container.tools(), 0)["tools"]
    (entry,) = [t for t in tools if t["function_name"] == "huge"]  # beside the framework's job tools
    assert "outputSchemaHash" not in entry and "outputSchemaCanonical" not in entry
    assert entry["inputSchemaHash"].startswith("sha256:")
    assert entry["schemaWarnings"][0].startswith(
        "[demoted from BLOCK] schema exceeds the $ref inlining budget"
    )
    assert "output_schema_strict" not in entry["kwargs"]  # not shipped, as MCP Mesh


def test_warn_logs_one_line_and_starts(app_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    name = write_app(app_dir, "schema_app_warn", WARN_TOOL.format(args=""), WARN_DEPENDENCY)
    with caplog.at_level(logging.WARNING, logger="mesh_framework.schemas"):
        app = MeshApplication.load(name, environ={})
    lines = [r.getMessage() for r in caplog.records if r.name == "mesh_framework.schemas"]
    lossy = "schema verdict WARN: stripped additionalProperties: true (lossy)"
    assert sorted(lines) == [
        f"Tool 'loose' its output schema: {lossy}",
        f"dependency 0 ('open'): expected_type: {lossy}",
    ]
    tools = {
        t["function_name"]: t for t in heartbeat_payload(app.settings, app.container.tools(), 0)["tools"]
    }
    assert tools["loose"]["schemaWarnings"] == ["stripped additionalProperties: true (lossy)"]


@pytest.mark.parametrize(
    "environ",
    [{"MCP_MESH_SCHEMA_STRICT": "true"}, {"MESH_TOOLS__SCHEMA_STRICT": "true"}],
    ids=["mcp-mesh-name", "settings-key"],
)
def test_schema_strict_makes_warn_refuse(app_dir: Path, environ: dict[str, str]) -> None:
    name = write_app(
        app_dir,
        f"schema_app_strict_{next(iter(environ))[:4].lower()}",
        WARN_TOOL.format(args=""),
        WARN_DEPENDENCY,
    )
    with pytest.raises(WiringError) as refused:
        MeshApplication.load(name, environ=environ)
    problems = refused.value.problems
    assert len(problems) == 2
    assert any(
        ".loose': its output schema: " in p
        and "its output schema: schema verdict WARN (tools.schema_strict made WARN refuse)" in p
        for p in problems
    )
    assert any(
        "dependency 0 ('open'): expected_type: schema verdict WARN (tools.schema_strict" in p
        for p in problems
    )


def test_schema_strict_spares_a_tool_with_output_schema_strict_false(app_dir: Path) -> None:
    name = write_app(app_dir, "schema_app_spared", WARN_TOOL.format(args="output_schema_strict=False"))
    app = MeshApplication.load(name, environ={"MCP_MESH_SCHEMA_STRICT": "true"})
    assert app.settings.tools.schema_strict is True


def test_output_schema_strict_must_be_a_bool() -> None:
    from mesh_framework import mesh_tool

    with pytest.raises(ValueError, match="output_schema_strict must be True or False"):
        mesh_tool(output_schema_strict="no")  # type: ignore[arg-type]


ROUTES = """
from typing import Annotated

from fastapi import FastAPI

from mesh_framework import mesh_route
from mesh_framework.fastapi import MeshTool, serve


class Handle:
    def __init__(self, x: int) -> None:
        self.x = x


@mesh_route("/handle", dependencies=[Selector("c", expected_type=Handle)])
async def handle(c: McpMeshTool) -> str:
    return "x"


@mesh_route("/open", dependencies=[Selector("c", expected_type=Open)])
async def open_route(c: McpMeshTool) -> str:
    return "x"


api = serve(FastAPI())


@api.get("/fa")
async def fa(c: Annotated[McpMeshTool, MeshTool(Selector("c", expected_type=Open))]) -> str:
    return "x"
"""


def test_routes_expected_schemas_are_checked_at_start_up_too(app_dir: Path) -> None:
    name = write_app(app_dir, "schema_app_routes", ROUTES)
    with pytest.raises(WiringError) as refused:
        MeshApplication.load(name, environ={})
    (problem,) = refused.value.problems  # a type without a schema; the lossy ones only log
    assert (
        "route GET /handle: dependency 0 ('c'): expected_type: type schema_app_routes.Handle has no"
        in problem
    )
    with pytest.raises(WiringError) as strict:
        MeshApplication.load(name, environ={"MCP_MESH_SCHEMA_STRICT": "true"})
    problems = strict.value.problems
    assert len(problems) == 3
    assert any(
        "route GET /open: dependency 0 ('c'): expected_type: schema verdict WARN (tools" in p
        for p in problems
    )
    assert any(
        p.startswith(
            "schema_app_routes.api: route /fa: dependency 0 ('c'): expected_type: schema verdict WARN"
        )
        for p in problems
    )


def test_a_tool_s_canonical_output_schema_is_made_once_for_its_check_and_every_registration() -> None:
    """Made when the agent loads (its verdict checked), read again by each heartbeat payload: the same
    canonical form, not generated from the type again; a type without a JSON schema stays without one."""
    from pydantic import BaseModel, TypeAdapter

    from mesh_framework.schemas.wire import tool_schema_fields, tool_schemas

    class Reply(BaseModel):
        text: str
        count: int = 0

    adapter = TypeAdapter(Reply)
    checked = tool_schemas({"type": "object"}, adapter)["output"]
    assert tool_schemas({"type": "object"}, adapter)["output"] is checked
    fields = tool_schema_fields({"type": "object"}, adapter)
    assert fields["outputSchemaCanonical"] is checked.canonical
    assert fields["outputSchemaHash"] == checked.hash == normalize_schema(adapter.json_schema()).hash
    described: TypeAdapter[Any] = TypeAdapter(Callable[[], int])  # validated, but no JSON schema
    assert "output" not in tool_schemas(None, described) and "output" not in tool_schemas(None, described)
