"""The starter's chat page and its stream route in process, without a mesh (the browser test is
test_starter_chat_page.py): the page is served as HTML (a route annotated with a Starlette response),
the route refuses an empty question and answers 503 while no agent provides `ask`."""

from __future__ import annotations

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client


async def test_the_page_and_its_route_without_a_mesh() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        served = await client.http.get("/chat")
        assert served.headers["content-type"] == "text/html; charset=utf-8"
        assert "<script>" in served.text and "http" not in served.text.split("<script>")[1]  # nothing fetched
        unavailable = await client.http.get("/api/chat?question=hi")
        assert unavailable.status_code == 503
        assert unavailable.json() == {"error": "dependency_unavailable", "capability": "ask"}
        empty = await client.http.get("/api/chat?question=")
        assert empty.status_code == 422
        assert empty.json()["detail"][0]["loc"] == ["query", "question"]
