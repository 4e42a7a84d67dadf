"""Media with the real MCP Mesh 3.8, both ways, on its Go registry and one shared store (a local folder, then
S3 on a real S3 API server): a chart an mcp-mesh agent stores (`mesh.MediaResult`) is read by our tool, an
upload to our route is read by its `mesh.MediaParam` tool, and its tool calls our `render` through the mesh
and reads our `resource_link`.

The tests on the local folder share the module's registry, one folder and one of our media agents
(`folder_mesh`); the S3 test runs its own (its agents would offer a second `render` to the mesh)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshRegistry,
    call_mesh_tool,
    run_mesh_python_agent,
    run_mesh_registry,
)
from tests.llm_fakes import fake_openai, text, tool_call
from tests.media_files import png
from tests.s3_server import S3_ENV, s3_server

pytestmark = pytest.mark.timeout(150)

MESH_PROVIDER = Path(__file__).resolve().parent.parent / "interop" / "llm_provider.py"  # mcp-mesh provider


def result_of(message: dict[str, Any]) -> dict[str, Any]:
    assert "result" in message, message
    result: dict[str, Any] = message["result"]
    return result


def structured(message: dict[str, Any]) -> Any:
    result = result_of(message)
    assert not result.get("isError"), result
    return result.get("structuredContent") or json.loads(result["content"][0]["text"])


def media_agent_env(registry: MeshRegistry, shared: dict[str, str]) -> dict[str, str]:
    """The environment of our media agent in `registry`'s mesh, on the store `shared` configures."""
    return {
        **shared,
        "MCP_MESH_REGISTRY_URL": registry.url,
        "MCP_MESH_HEALTH_INTERVAL": "1",
        "MESH_REGISTRY__ENABLED": "true",
    }


@dataclass
class FolderMesh:
    """The module's registry, a local folder as the store, and our media agent on both."""

    registry: MeshRegistry
    store: Path
    shared: dict[str, str]  # the store's settings, for every agent
    ours: AgentProcess


@pytest.fixture(scope="module")
def folder_mesh(
    shared_registry: MeshRegistry, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FolderMesh]:
    store = tmp_path_factory.mktemp("store")
    shared = {"MCP_MESH_MEDIA_STORAGE_PATH": str(store)}
    with run_agent("tests.apps.media_app", env=media_agent_env(shared_registry, shared)) as ours:
        yield FolderMesh(shared_registry, store, shared, ours)


def exchange(
    registry: MeshRegistry,
    ours: AgentProcess,
    shared: dict[str, str],
    base: str,
    stored: Callable[[str], bytes],
) -> None:
    """mcp-mesh's media agent beside `ours`, on the store `shared` configures; `base` is where its URIs
    start, `stored(name)` the bytes the store holds under `name`."""
    with run_mesh_python_agent(AGENTS_DIR / "media_chart.py", registry, env=shared) as theirs:
        # theirs -> ours: mcp-mesh's MediaResult link, read by our MediaParam tool
        [link] = result_of(call_mesh_tool(theirs.endpoint, "mesh_chart", {}))["content"]
        assert link["type"] == "resource_link"
        assert link["uri"] == f"{base}mesh-chart.png"
        size = len(stored("mesh-chart.png"))
        assert link["size"] == size
        measured = structured(call_mesh_tool(ours.base_url, "measure", {"image": link["uri"]}))
        assert measured == {"size": size, "mime": "image/png"}

        # ours -> theirs: an upload to our route, read by mcp-mesh's MediaParam tool
        image = png(4000)
        files = {"file": ("upload.png", image, "image/png")}
        uploaded = loopback.post(ours.base_url + "/api/upload", files=files, timeout=10)
        uri = uploaded.json()["uri"]
        assert uri.startswith(f"{base}upload-") and uri.endswith(".png")  # a name of its own
        inspected = structured(call_mesh_tool(theirs.endpoint, "mesh_inspect", {"image": uri}))
        assert inspected == {"size": len(image), "mime": "image/png"}

        # theirs calls our render through the mesh and reads the resource_link it answers
        answer: Any = None

        def read_ours() -> bool:
            nonlocal answer
            answer = result_of(call_mesh_tool(theirs.endpoint, "mesh_render_inspect", {"size": 40_000}))
            return not answer.get("isError") and "uri" in (answer.get("structuredContent") or {})

        assert wait_for(read_ours, timeout=40), (answer, theirs.output()[-3000:])
        written = len(stored("for-mesh.png"))
        assert answer["structuredContent"] == {
            "uri": f"{base}for-mesh.png",
            "size": written,
            "mime": "image/png",
            "link_size": written,
        }


def test_media_on_a_shared_folder_written_by_one_is_read_by_the_other(folder_mesh: FolderMesh) -> None:
    store = folder_mesh.store
    exchange(
        folder_mesh.registry,
        folder_mesh.ours,
        folder_mesh.shared,
        f"file://{store}/media/",
        lambda name: (store / "media" / name).read_bytes(),
    )


def test_media_on_a_shared_s3_bucket_written_by_one_is_read_by_the_other(tmp_path: Path) -> None:
    with s3_server("shared-media") as s3:
        shared = {
            **S3_ENV,
            "MCP_MESH_MEDIA_STORAGE": "s3",
            "MCP_MESH_MEDIA_STORAGE_BUCKET": "shared-media",
            "MCP_MESH_MEDIA_STORAGE_ENDPOINT": s3.endpoint,
        }
        client = s3.client()

        def stored(name: str) -> bytes:
            data: bytes = client.get_object(Bucket="shared-media", Key=f"media/{name}")["Body"].read()
            return data

        with (
            run_mesh_registry(tmp_path / "registry") as registry,
            run_agent("tests.apps.media_app", env=media_agent_env(registry, shared)) as ours,
        ):
            exchange(registry, ours, shared, "s3://shared-media/media/", stored)


def data_url_bytes(part: dict[str, Any]) -> bytes:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,"), url[:60]
    return base64.b64decode(url.split(",", 1)[1])


def test_mcp_mesh_consumer_sends_media_to_our_provider_whose_tool_image_reaches_the_model(
    folder_mesh: FolderMesh,
) -> None:
    """mcp-mesh's `llm(question, media=[uri])` through our provider, which runs the loop: our `render`
    answers a resource_link that the provider reads from the shared store (MCP Mesh's shape to OpenAI)."""
    store, shared, registry = folder_mesh.store, folder_mesh.shared, folder_mesh.registry
    image = png(3000)
    (store / "media").mkdir(parents=True, exist_ok=True)
    (store / "media" / "photo.png").write_bytes(image)
    script = [tool_call("render", {"size": 30_000}, id="call_1"), text("A photo and a chart.")]
    with fake_openai(script) as model:
        ours = {**shared, "MCP_MESH_REGISTRY_URL": registry.url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        provider_env = {
            **ours,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        with (
            run_agent("tests.apps.llm_provider_app", env=provider_env),
            run_mesh_python_agent(AGENTS_DIR / "media_asker.py", registry, env=shared) as asker,
        ):
            answer: Any = None
            arguments = {"question": "What is this?", "image": f"file://{store}/media/photo.png"}

            def answered() -> bool:
                nonlocal answer
                answer = result_of(call_mesh_tool(asker.endpoint, "mesh_describe", arguments))
                return not answer.get("isError")

            assert wait_for(answered, timeout=60), (answer, asker.output()[-3000:])
            assert answer["content"][0]["text"] == "A photo and a chart."
    first, second = model.requests
    said, picture = first["messages"][-1]["content"]
    assert said["text"] == "What is this?"
    assert data_url_bytes(picture) == image  # mcp-mesh's consumer read the store
    *_, tool_message, images = second["messages"]
    assert tool_message == {"role": "tool", "tool_call_id": "call_1", "content": "[Image from tool result]"}
    assert images["content"][0] == {
        "type": "text",
        "text": "Here are the images from the tool results above:",
    }
    assert data_url_bytes(images["content"][1]) == (store / "media" / "chart.png").read_bytes()


def test_our_consumer_sends_media_to_an_mcp_mesh_provider(folder_mesh: FolderMesh) -> None:
    store, consumer = folder_mesh.store, folder_mesh.ours
    image = png(2000)
    (store / "media").mkdir(parents=True, exist_ok=True)
    (store / "media" / "grey-photo.png").write_bytes(image)
    with fake_openai([text("A grey photo.")]) as model:
        provider_env = {"FAKE_OPENAI_BASE_URL": model.base_url, "FAKE_OPENAI_API_KEY": "sk-test"}
        with run_mesh_python_agent(MESH_PROVIDER, folder_mesh.registry, env=provider_env):
            answer: Any = None
            arguments = {"question": "What is this?", "image": f"file://{store}/media/grey-photo.png"}

            def answered() -> bool:
                nonlocal answer
                answer = result_of(call_mesh_tool(consumer.base_url, "describe_mesh", arguments))
                return not answer.get("isError")

            assert wait_for(answered, timeout=60), (answer, consumer.text()[-3000:])
            assert answer["content"][0]["text"] == "A grey photo."
    said, picture = model.requests[0]["messages"][-1]["content"]
    assert said == {"type": "text", "text": "What is this?"}
    assert data_url_bytes(picture) == image
