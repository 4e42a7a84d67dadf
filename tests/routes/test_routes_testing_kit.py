"""The pytest kit reaches web routes: `mesh_client.http` calls them in process, `stub_tool` fills their
dependency slots as it fills tools'."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def mesh_app_name() -> str:
    return "tests.apps.routes_app"


def test_routes_through_the_kit_client(mesh_client: Any) -> None:
    assert mesh_client.http.get("/api/hello/kit?times=2").json() == {"greeting": "Hello kit! Hello kit!"}
    answer = mesh_client.http.get("/api/shout?text=hi")
    assert answer.status_code == 503 and answer.json()["capability"] == "upper"


def test_a_stub_tool_fills_a_route_dependency(mesh_client: Any, stub_tool: Any) -> None:
    upper = stub_tool("upper", returns="STUBBED")
    assert mesh_client.http.get("/api/shout?text=hi").json() == {"text": "STUBBED"}
    upper.assert_called_with(text="hi")
