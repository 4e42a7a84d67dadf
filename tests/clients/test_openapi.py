"""OpenAPI services as tools (`mcp.openapi`): a real FastAPI service on a loopback ephemeral port (its own
OpenAPI 3.1 document, fetched by URL) and a static OpenAPI 3.0 file describing more of its routes, called
through an agent with the project's test kit. Bad arguments, a service that is down and error answers are
tool errors; a document that cannot be read, a bad entry or a name clash is a start-up problem."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.errors import ConfigError, MeshError
from mesh_framework.testing import mesh_client

from ..agents import ROOT
from ..mcp_servers import free_port, serve

pytestmark = pytest.mark.timeout(60)

SHOP = ROOT / "tests" / "servers" / "openapi" / "shop.yaml"


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    """The FastAPI service's base URL (started once for the module, stopped by PID)."""
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.openapi_service", str(port)], port):
        yield f"http://127.0.0.1:{port}"


def load(service: str, **env: str) -> MeshApplication:
    return MeshApplication.load(
        "tests.apps.openapi_app", environ={"PETS_URL": service, "SHOP_SPEC": str(SHOP), **env}
    )


def configured(tmp_path: Path, yaml_text: str, **env: str) -> MeshApplication:
    """The test app with `application.yaml` replaced by `yaml_text` (in tmp_path)."""
    (tmp_path / "application.yaml").write_text("server:\n  port: 0\n" + yaml_text)
    return MeshApplication.load("tests.apps.openapi_app", config=tmp_path, environ=env)


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def test_a_fastapi_services_own_31_document_makes_tools(service: str) -> None:
    async with mesh_client(load(service)) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert {"get_pet", "list_pets", "create_pet", "delete_pet", "greeting", "whoami"} <= tools.keys()
        assert "explode" not in tools  # exclude_tags: [admin]
        assert "local_echo" in tools  # the app's own tool beside them
        assert tools["get_pet"]["description"] == "One pet by its id"
        # summary and description (FastAPI writes a summary of its own from the function's name)
        assert tools["list_pets"]["description"] == "List Pets\n\nEvery pet, at most `limit`."
        schema = tools["get_pet"]["inputSchema"]
        assert schema["properties"]["pet_id"]["type"] == "integer"
        assert schema["required"] == ["pet_id"] and schema["additionalProperties"] is False
        # The request body's properties are arguments of their own (the body's schema is a $ref).
        create = tools["create_pet"]["inputSchema"]
        assert set(create["properties"]) == {"name", "kind"} and create["required"] == ["name"]

        pet = await client.call_tool("get_pet", {"pet_id": 1})
        assert pet["isError"] is False
        assert pet["structuredContent"] == {"id": 1, "name": "Rex", "kind": "dog"}
        assert json.loads(text(pet)) == pet["structuredContent"]
        # A JSON array answer is structured content under "result".
        dogs = await client.call_tool("list_pets", {"kind": ["dog"], "limit": 5})
        assert dogs["structuredContent"] == {"result": [{"id": 1, "name": "Rex", "kind": "dog"}]}
        none = await client.call_tool("list_pets", {"kind": ["fish"]})
        assert none["structuredContent"] == {"result": []}

        made = await client.call_tool("create_pet", {"name": "Tom"})
        assert made["isError"] is False and made["structuredContent"]["kind"] == "cat"
        new_id = made["structuredContent"]["id"]
        gone = await client.call_tool("delete_pet", {"pet_id": new_id})
        assert gone == {**gone, "isError": False} and text(gone) == "HTTP 204 No Content"
        missing = await client.call_tool("get_pet", {"pet_id": new_id})
        assert missing["isError"] is True

        # A text answer is text, not structured content; a text/plain body is the argument `body`.
        hello = await client.call_tool("greeting", {"name": "mesh"})
        assert text(hello) == "hello mesh" and "structuredContent" not in hello
        note = await client.call_tool("add_note", {"body": "remember the milk"})
        assert note["structuredContent"] == {"note": "remember the milk"}


async def test_a_static_30_document_with_refs_and_every_parameter_kind(service: str) -> None:
    async with mesh_client(load(service)) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        # include_tags: [orders] leaves resetShop (admin) out; the POST without operationId is named from
        # its method and path.
        assert {"getOrder", "searchOrders", "post_shop_orders"} <= tools.keys()
        assert "resetShop" not in tools
        order = tools["getOrder"]
        assert order["description"] == "One order\n\nThe order, as the shop has it."
        props = order["inputSchema"]["properties"]
        # The path parameter comes from a $ref on the path item; the header's description is kept.
        assert props["orderId"]["type"] == "integer" and props["X-Tenant"]["description"] == "Whose shop"
        assert order["inputSchema"]["required"] == ["orderId", "X-Tenant"]
        placed = tools["post_shop_orders"]["inputSchema"]
        # $ref'd request body and schemas: a recursive one stays a reference into $defs; 3.0's nullable
        # becomes a null type.
        assert placed["required"] == ["item", "quantity"]
        assert placed["properties"]["note"]["type"] == ["string", "null"]
        assert placed["properties"]["lines"]["items"] == {"$ref": "#/$defs/Line"}
        assert placed["$defs"]["Line"]["properties"]["next"] == {"$ref": "#/$defs/Line"}
        search = tools["searchOrders"]["inputSchema"]
        assert search["properties"]["status"]["items"] == {"$ref": "#/$defs/Status"}
        assert search["$defs"]["Status"]["enum"] == ["open", "shipped"]

        got = await client.call_tool("getOrder", {"orderId": 7, "X-Tenant": "acme", "fields": ["id", "item"]})
        assert got["isError"] is False, text(got)
        seen = got["structuredContent"]
        # path, header, and a form array not exploded (one comma-separated value)
        assert seen["id"] == 7 and seen["tenant"] == "acme" and seen["query"] == "fields=id%2Citem"

        found = await client.call_tool(
            "searchOrders", {"status": ["open", "shipped"], "filter": {"min": 2}, "session": "s-1"}
        )
        seen = found["structuredContent"]
        # form exploded array, deepObject object, cookie
        assert seen["query"] == "status=open&status=shipped&filter%5Bmin%5D=2" and seen["session"] == "s-1"

        sent = await client.call_tool("post_shop_orders", {"item": "tea", "quantity": 2, "note": None})
        assert sent["structuredContent"] == {
            "received": {"item": "tea", "quantity": 2, "note": None},
            "content_type": "application/json",
        }


async def test_bad_arguments_are_tool_errors_naming_them(service: str) -> None:
    async with mesh_client(load(service)) as client:
        unknown = await client.call_tool("get_pet", {"pet_id": 1, "colour": "red"})
        assert unknown["isError"] is True
        assert text(unknown) == (
            "Invalid arguments for tool 'get_pet': colour: unexpected argument (known: pet_id)"
        )
        missing = await client.call_tool("getOrder", {"orderId": 1})
        assert (
            text(missing) == "Invalid arguments for tool 'getOrder': X-Tenant: required argument is missing"
        )
        wrong = await client.call_tool("post_shop_orders", {"item": "tea", "quantity": 0})
        assert wrong["isError"] is True
        assert text(wrong).startswith(
            "Invalid arguments for tool 'post_shop_orders': quantity: 0 is less than"
        )
        bad_enum = await client.call_tool("searchOrders", {"status": ["lost"]})
        assert "status.0: 'lost' is not one of ['open', 'shipped']" in text(bad_enum)


async def test_error_answers_are_tool_errors_naming_the_status(service: str, tmp_path: Path) -> None:
    app = configured(tmp_path, f"mcp:\n  openapi:\n    - name: pets\n      spec: {service}/openapi.json\n")
    async with mesh_client(app) as client:
        lost = await client.call_tool("get_pet", {"pet_id": 404})
        assert lost["isError"] is True
        assert text(lost) == (
            f"pets: GET {service}/pets/404 answered HTTP 404 Not Found: " + '{"detail":"no pet 404"}'
        )
        broken = await client.call_tool("explode", {})
        assert broken["isError"] is True
        assert text(broken) == (
            f"pets: POST {service}/explode answered HTTP 500 Internal Server Error: Internal Server Error"
        )
        invalid = await client.call_tool("get_pet", {"pet_id": 1.5})
        assert invalid["isError"] is True and "1.5 is not of type 'integer'" in text(invalid)


async def test_a_service_that_is_down_is_a_tool_error_naming_the_endpoint(tmp_path: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    app = configured(
        tmp_path, f"mcp:\n  openapi:\n    - name: shop\n      spec: {SHOP}\n      base_url: {down}/api\n"
    )
    async with mesh_client(app) as client:
        result = await client.call_tool("getOrder", {"orderId": 3, "X-Tenant": "t", "fields": ["x"]})
        assert result["isError"] is True
        message = text(result)
        assert message.startswith(f"shop: GET {down}/api/shop/orders/3 failed: cannot connect")
        assert message.endswith("is the service running?") and "fields" not in message  # no query shown


async def test_static_auth_and_dependency_tokens_are_sent(service: str, tmp_path: Path) -> None:
    spec = f"{service}/openapi.json"
    app = configured(
        tmp_path,
        f"""mcp:
  openapi:
    - name: bearer
      spec: {spec}
      include_tags: [misc]
      prefix: b_
      auth:
        bearer: ${{PETS_TOKEN}}
    - name: keyed
      spec: {spec}
      include_tags: [misc]
      prefix: k_
      auth:
        header: X-API-Key
        value: key-123
    - name: named
      spec: {spec}
      include_tags: [misc]
      prefix: n_
    - name: plain
      spec: {spec}
      include_tags: [misc]
      prefix: p_
auth:
  dependency_tokens:
    named: from-dependency-tokens
""",
        PETS_TOKEN="s3cret",
    )
    async with mesh_client(app) as client:
        assert (await client.call_tool("b_whoami", {}))["structuredContent"] == {
            "authorization": "Bearer s3cret",
            "x-api-key": None,
        }
        assert (await client.call_tool("k_whoami", {}))["structuredContent"] == {
            "authorization": None,
            "x-api-key": "key-123",
        }
        named = await client.call_tool("n_whoami", {})
        assert named["structuredContent"]["authorization"] == "Bearer from-dependency-tokens"
        plain = await client.call_tool("p_whoami", {})  # nothing named for it: nothing sent
        assert plain["structuredContent"] == {"authorization": None, "x-api-key": None}


def test_the_services_http_client_is_one_bean_closed_at_stop(service: str) -> None:
    import asyncio

    async def run() -> tuple[object, object, bool]:
        app = load(service)
        async with mesh_client(app) as client:
            await client.call_tool("get_pet", {"pet_id": 1})
            http = app.container.openapi_http()
            pooled = http._client
            await client.call_tool("greeting", {"name": "again"})
            same = http._client
        assert pooled is not None
        return pooled, same, pooled.is_closed

    pooled, same, closed = asyncio.run(run())
    assert pooled is same and closed


def problems_of(tmp_path: Path, yaml_text: str, **env: str) -> str:
    with pytest.raises(MeshError) as caught:
        configured(tmp_path, yaml_text, **env)
    return str(caught.value)


def test_a_malformed_document_is_a_start_up_problem_naming_the_setting(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("openapi: 3.0.3\ninfo:\n  title: Bad\npaths:\n  /x:\n    get:\n      responses: 5\n")
    message = problems_of(tmp_path, "mcp:\n  openapi:\n    - name: bad\n      spec: bad.yaml\n")
    origin = f"{tmp_path / 'application.yaml'}:5"
    assert (
        f"mcp.openapi[0] 'bad' (from {origin}): spec 'bad.yaml': {bad} is not a valid OpenAPI 3.0" in message
    )
    assert "info.version: Field required" in message and "paths./x.get.responses" in message
    assert "Traceback" not in message


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("swagger: '2.0'\n", "has no 'openapi' version field (a Swagger 2.0 document: convert it"),
        ("openapi: 4.0.0\n", "is OpenAPI 4.0.0; only 3.0 and 3.1 documents are read"),
        ("openapi: [3.0\n", "is not valid YAML at line 2: expected ',' or ']'"),
        ('{"openapi": "3.1.0",', "is not valid JSON"),
    ],
)
def test_documents_that_are_no_openapi_30_or_31_are_refused(
    tmp_path: Path, content: str, problem: str
) -> None:
    (tmp_path / "spec.yaml").write_text(content)
    message = problems_of(tmp_path, "mcp:\n  openapi:\n    - name: s\n      spec: spec.yaml\n")
    assert problem in message and "mcp.openapi[0] 's'" in message


def test_an_unreachable_or_missing_document_is_a_start_up_problem(tmp_path: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}/openapi.json"
    message = problems_of(
        tmp_path,
        f"mcp:\n  openapi:\n    - name: a\n      spec: {down}\n    - name: b\n      spec: nowhere.json\n",
    )
    assert "mcp.openapi[0] 'a'" in message and f"cannot fetch {down}" in message
    assert "is the service running?" in message
    assert "mcp.openapi[1] 'b'" in message and f"cannot read {tmp_path / 'nowhere.json'}" in message


def test_a_document_answered_with_an_error_status_is_a_start_up_problem(service: str, tmp_path: Path) -> None:
    message = problems_of(tmp_path, f"mcp:\n  openapi:\n    - name: a\n      spec: {service}/nothing.json\n")
    assert f"{service}/nothing.json answered HTTP 404, not the document" in message


def test_tool_name_clashes_are_refused_with_the_settings_file_and_line(service: str, tmp_path: Path) -> None:
    message = problems_of(
        tmp_path,
        f"""mcp:
  openapi:
    - name: one
      spec: {service}/openapi.json
      include_tags: [misc]
    - name: two
      spec: {service}/openapi.json
      include_tags: [misc]
""",
    )
    origin = f"{tmp_path / 'application.yaml'}:5"
    assert (
        f"mcp.openapi[1] 'two' (from {origin}): tool name 'greeting' of GET /greeting is already the tool "
        "of GET /greeting of service 'one'; set a prefix on the service"
    ) in message


def test_a_clash_with_the_apps_own_tool_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "echo.yaml"
    spec.write_text(
        "openapi: 3.1.0\ninfo: {title: E, version: '1'}\nservers: [{url: 'http://127.0.0.1:9'}]\n"
        "paths:\n  /echo:\n    get:\n      operationId: local_echo\n"
        "      responses: {'200': {description: ok}}\n"
    )
    message = problems_of(tmp_path, "mcp:\n  openapi:\n    - name: e\n      spec: echo.yaml\n")
    assert (
        "tool name 'local_echo' of GET /echo is already tool 'tests.apps.openapi_app.local_echo'" in message
    )


def test_bad_entries_are_start_up_problems(tmp_path: Path) -> None:
    message = problems_of(
        tmp_path,
        f"""mcp:
  openapi:
    - name: nobody
      spec: {SHOP}
      base_url: http://127.0.0.1:9
      auth:
        client: nobody
""",
    )
    assert "mcp.openapi[0] 'nobody'" in message
    assert "auth.client names 'nobody', which is no auth.dependency_clients entry (none is set)" in message
    with pytest.raises(ConfigError) as caught:
        configured(
            tmp_path, "mcp:\n  openapi:\n    - name: x\n      spec: a.yaml\n      auth: {header: X-Key}\n"
        )
    assert "header and value go together" in str(caught.value)
    with pytest.raises(ConfigError) as caught:
        configured(
            tmp_path, "mcp:\n  openapi:\n    - {name: x, spec: a.yaml}\n    - {name: x, spec: b.yaml}\n"
        )
    assert "service name(s) x used more than once" in str(caught.value)


def test_a_relative_server_url_in_a_file_needs_base_url(tmp_path: Path) -> None:
    (tmp_path / "rel.yaml").write_text(
        "openapi: 3.1.0\ninfo: {title: R, version: '1'}\nservers: [{url: /api}]\npaths: {}\n"
    )
    message = problems_of(tmp_path, "mcp:\n  openapi:\n    - name: rel\n      spec: rel.yaml\n")
    assert (
        "mcp.openapi[0] 'rel'" in message
        and "the document names no absolute server URL; set base_url" in message
    )


def test_a_missing_extra_is_a_start_up_problem_naming_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in [m for m in sys.modules if m.startswith("mesh_framework.openapi.") and "beans" not in m]:
        monkeypatch.delitem(sys.modules, module)
    for module in [m for m in sys.modules if m.partition(".")[0] == "openapi_pydantic"] or [
        "openapi_pydantic"
    ]:
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    message = problems_of(tmp_path, f"mcp:\n  openapi:\n    - name: shop\n      spec: {SHOP}\n")
    assert (
        "needs the openapi extra (openapi_pydantic is not installed): pip install 'mesh-framework[openapi]'"
        in (message)
    )


def test_an_app_without_services_loads_no_openapi_module() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from mesh_framework import MeshApplication\n"
        "MeshApplication.load('tests.apps.openapi_app', environ={'MESH_MCP__OPENAPI': '[]'})\n"
        "names = ('mesh_framework.openapi', 'openapi_pydantic')\n"
        "print(sorted(m for m in sys.modules if m.startswith(names)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['mesh_framework.openapi', 'mesh_framework.openapi.auto_configuration']"
