"""A `@mesh_llm` route whose provider agent is missing answers 503 `dependency_unavailable` naming the
provider's capability, as a route whose mesh tool is missing does (not a 500 internal error), buffered or
streamed; in process through the testing kit's HTTP client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mesh_framework.app import MeshApplication
from mesh_framework.testing import SyncMeshClient


@pytest.fixture(scope="module")
def client() -> Iterator[SyncMeshClient]:
    running = SyncMeshClient(MeshApplication.load("tests.apps.routes_llm_missing_app", environ={}))
    try:
        yield running
    finally:
        running.close()


def test_a_missing_tool_answers_503_naming_it(client: SyncMeshClient) -> None:
    answer = client.http.get("/api/sum", params={"a": 1, "b": 2})
    assert answer.status_code == 503
    assert answer.json() == {"error": "dependency_unavailable", "capability": "add"}


@pytest.mark.parametrize("path", ["/api/ask", "/api/chat"])
def test_a_missing_llm_provider_answers_503_in_the_same_shape(
    client: SyncMeshClient, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer = client.http.get(path, params={"question": "hello?"})
    assert answer.status_code == 503
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {"error": "dependency_unavailable", "capability": "llm"}
    logged = [r.getMessage() for r in caplog.records if "(503)" in r.getMessage()]
    assert logged == [f"route GET {path}: LLM provider 'llm' has no agent (503)"]
    assert not [r for r in caplog.records if r.exc_info]
