"""GET /schemas and GET /schemas/{hash} on our registry, as MCP Mesh's registry serves them: the same
heartbeats sent to both (real processes) give the same entries, order, limits and 404; the catalog keeps
the first sender of a hash and stays bounded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

from mesh_framework.registry import RegistryStore, build_registry_app
from mesh_framework.registry.payload import parse_registration
from mesh_framework.registry.schema_catalog import SchemaCatalog
from mesh_framework.schemas import canonical_schema
from tests.agents import AgentProcess, run_registry
from tests.interop.mcp_mesh import run_mesh_registry

pytestmark = pytest.mark.timeout(60)

ENTRY_KEYS = ["canonical", "created_at", "hash", "runtime_origin"]


def shape(fields: int) -> tuple[dict[str, Any], str]:
    found = canonical_schema(
        {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(fields)}}
    )
    return found.canonical, found.hash


def tool(name: str, inputs: int, outputs: int) -> dict[str, Any]:
    (ic, ih), (oc, oh) = shape(inputs), shape(outputs)
    return {
        "function_name": name,
        "capability": name,
        "version": "1.0.0",
        "tags": [],
        "inputSchemaCanonical": ic,
        "inputSchemaHash": ih,
        "outputSchemaCanonical": oc,
        "outputSchemaHash": oh,
    }


def heartbeat(agent_id: str, runtime: str, tools: list[dict[str, Any]], port: int) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id[:-2],
        "agent_type": "mcp_agent",
        "runtime": runtime,
        "version": "1.0.0",
        "http_host": "127.0.0.1",
        "http_port": port,
        "namespace": "default",
        "tools": tools,
    }


EXPECTED = shape(20)
CONSUMER = {
    "function_name": "reader",
    "capability": "reader",
    "version": "1.0.0",
    "tags": [],
    "dependencies": [
        {
            "capability": "a",
            "expectedSchemaCanonical": EXPECTED[0],
            "expectedSchemaHash": EXPECTED[1],
            "matchMode": "subset",
        }
    ],
}
BEATS = [
    heartbeat("ts-1", "typescript", [tool("a", 11, 1), tool("b", 12, 2), CONSUMER], 9101),
    heartbeat(
        "py-1", "python", [tool("a", 11, 1), tool("c", 13, 3)], 9102
    ),  # a's pair again: first sender kept
]


def observe(base_url: str) -> dict[str, Any]:
    """What a client sees after BEATS: the listing, limits, one entry and an unknown hash."""
    with httpx2.Client(base_url=base_url, timeout=10, trust_env=False) as client:
        for beat in BEATS:
            assert client.post("/heartbeat", json=beat).status_code == 200
        listing = client.get("/schemas").json()
        one = client.get(f"/schemas/{shape(3)[1]}")
        unknown = client.get("/schemas/sha256:deadbeef")
        return {
            "count": listing["count"],
            "keys": sorted(listing),
            "entry_keys": sorted({k for entry in listing["schemas"] for k in entry}),
            "order": [(e["hash"], e["runtime_origin"]) for e in listing["schemas"]],
            "canonicals": {e["hash"]: e["canonical"] for e in listing["schemas"]},
            "limit_2": [e["hash"] for e in client.get("/schemas", params={"limit": 2}).json()["schemas"]],
            "limit_0": client.get("/schemas", params={"limit": 0}).json()["count"],
            "limit_-3": client.get("/schemas", params={"limit": -3}).json()["count"],
            "limit_5000": client.get("/schemas", params={"limit": 5000}).json()["count"],
            "bad_limit": client.get("/schemas", params={"limit": "many"}).status_code,
            "one": (one.status_code, sorted(one.json()), one.json()["hash"], one.json()["runtime_origin"]),
            "unknown": (unknown.status_code, unknown.json()["error"]),
        }


@pytest.fixture(scope="module")
def ours() -> Iterator[AgentProcess]:
    with run_registry() as running:
        yield running


def test_our_registry_answers_as_mcp_meshs(ours: AgentProcess, tmp_path: Path) -> None:
    with run_mesh_registry(tmp_path) as theirs:
        expected = observe(theirs.url)
    found = observe(ours.base_url)
    # newest first: py-1's `c` after everything ts-1 sent; within a tool the input was seen first
    order = found.pop("order")
    assert order == expected.pop("order")
    assert order[:2] == [(shape(3)[1], "python"), (shape(13)[1], "python")]  # c's output, then its input
    assert found["limit_2"] == [shape(3)[1], shape(13)[1]]
    assert found == expected
    assert found["count"] == 6 and EXPECTED[1] not in found["canonicals"]  # expected schemas are not kept
    assert found["entry_keys"] == ENTRY_KEYS
    assert found["limit_0"] == found["limit_-3"] == 1 and found["limit_5000"] == 6
    assert found["unknown"] == (404, "schema not found: sha256:deadbeef")


def test_the_first_sender_is_kept_and_the_404_explains() -> None:
    store = RegistryStore()
    client = TestClient(build_registry_app(store, sweep=False), base_url="http://127.0.0.1")
    for beat in BEATS:
        client.post("/heartbeat", json=beat)
    entry = client.get(f"/schemas/{shape(1)[1]}").json()
    assert entry["runtime_origin"] == "typescript"  # ts-1 sent it first; py-1's copy changed nothing
    assert entry["created_at"].endswith("Z") and entry["canonical"] == shape(1)[0]
    missing = client.get("/schemas/sha256:0000")
    assert missing.status_code == 404
    assert missing.json()["message"] == "no schema 'sha256:0000' was published here (GET /schemas lists them)"
    bad = client.get("/schemas", params={"limit": "x"})
    assert bad.status_code == 400 and bad.json()["field"] == "limit"


def test_the_catalog_is_bounded() -> None:
    catalog = SchemaCatalog(capacity=3)
    for i in range(1, 6):
        catalog.record(parse_registration(heartbeat(f"a{i}-1", "python", [tool(f"t{i}", 100 + i, i)], 9000)))
    assert len(catalog) == 3
    assert [e["hash"] for e in catalog.newest(10)] == [shape(5)[1], shape(105)[1], shape(4)[1]]
    assert catalog.get(shape(101)[1]) is None


def test_a_canonical_form_that_is_not_an_object_is_not_kept() -> None:
    catalog = SchemaCatalog()
    bad = {**tool("t", 1, 2), "inputSchemaCanonical": "[1, 2", "outputSchemaCanonical": '{"type": "string"}'}
    catalog.record(parse_registration(heartbeat("a-1", "python", [bad], 9000)))
    assert [e["canonical"] for e in catalog.newest(10)] == [{"type": "string"}]
