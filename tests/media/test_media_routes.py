"""Media across real agent processes: uploads to a web route (multipart/form-data) straight into the store,
with the size limit and MIME checks; the S3 store on a real S3 server; and media through the mesh's LLM
provider (our consumer and provider, the fake OpenAI server behind the official SDK)."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.llm_fakes import fake_openai, text, tool_call
from tests.media_files import PDF, png
from tests.s3_server import S3_ENV, s3_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def media_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="module")
def agent(media_folder: Path) -> Iterator[AgentProcess]:
    env = {"MCP_MESH_MEDIA_STORAGE_PATH": str(media_folder), "MESH_MEDIA__MAX_UPLOAD_BYTES": "20000"}
    with run_agent("tests.apps.media_app", env=env) as running:
        yield running


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """`tools/call` over MCP HTTP (a client of the handshake era, answered statelessly)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    headers = {"accept": "application/json, text/event-stream"}
    answer = loopback.post(agent.mcp_url, json=body, headers=headers, timeout=30)
    text = answer.text
    if text.startswith(("event:", "data:")):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    result: dict[str, Any] = json.loads(text)["result"]
    return result


def upload(agent: AgentProcess, name: str, data: bytes, mime_type: str) -> httpx2.Response:
    files = {"file": (name, data, mime_type)}
    return loopback.post(agent.base_url + "/api/upload", files=files, timeout=10)


def test_an_upload_is_stored_and_readable_by_a_tool(agent: AgentProcess, media_folder: Path) -> None:
    image = png(5000)
    answer = upload(agent, "receipt.png", image, "image/png")
    assert answer.status_code == 200, answer.text
    uri = answer.json()["uri"]
    assert re.fullmatch(rf"file://{re.escape(str(media_folder))}/media/receipt-[0-9a-f]{{12}}\.png", uri), uri
    assert Path(uri.removeprefix("file://")).read_bytes() == image
    assert call(agent, "measure", {"image": uri})["structuredContent"] == {
        "size": len(image),
        "mime": "image/png",
    }
    assert upload(agent, "doc.pdf", PDF, "application/pdf").status_code == 200


def test_an_upload_over_the_limit_is_413_and_nothing_is_stored(
    agent: AgentProcess, media_folder: Path
) -> None:
    answer = upload(agent, "huge.png", png(30_000), "image/png")
    assert answer.status_code == 413
    assert answer.json()["detail"] == (
        "'huge.png' is larger than 20000 bytes (media.max_upload_bytes); nothing was stored"
    )
    assert not list((media_folder / "media").glob("huge*"))


@pytest.mark.parametrize(
    ("name", "data", "declared", "said"),
    [
        ("fake.png", PDF, "image/png", "'fake.png' is declared image/png but its bytes are application/pdf"),
        (
            "fake.pdf",
            b"MZ\x90\x00 not a pdf",
            "application/pdf",
            "is declared application/pdf but its bytes are not",
        ),
        (
            "notes.txt",
            b"hello",
            "text/plain",
            "'notes.txt' is text/plain; this route accepts image/*,application/pdf",
        ),
        ("x.exe", PDF, "image/jpeg", "'x.exe' is declared image/jpeg but its bytes are application/pdf"),
    ],
)
def test_a_lying_or_refused_mime_type_is_415(
    agent: AgentProcess, media_folder: Path, name: str, data: bytes, declared: str, said: str
) -> None:
    answer = upload(agent, name, data, declared)
    assert answer.status_code == 415
    assert said in answer.json()["detail"]
    assert not list((media_folder / "media").glob(name.split(".", maxsplit=1)[0] + "*"))


def test_a_generic_type_is_taken_from_the_bytes(agent: AgentProcess, media_folder: Path) -> None:
    answer = upload(agent, "blob.png", png(300), "application/octet-stream")
    assert answer.status_code == 200
    assert call(agent, "measure", {"image": answer.json()["uri"]})["structuredContent"]["mime"] == "image/png"


def test_a_traversing_file_name_stays_in_the_store(agent: AgentProcess, media_folder: Path) -> None:
    answer = upload(agent, "../escape.png", png(300), "image/png")
    assert answer.status_code == 200  # the sent name is only the stored name's stem
    assert answer.json()["uri"].startswith(f"file://{media_folder}/media/escape-")
    assert not (media_folder / "escape.png").exists()
    files = {"file": ("../escape.png", png(300), "image/png")}
    kept = loopback.post(agent.base_url + "/api/replace", files=files, timeout=10)
    assert kept.status_code == 400  # a route that keeps the sent name refuses a path
    assert "path traversal" in kept.json()["detail"]
    assert not (media_folder / "escape.png").exists()


def test_uploads_go_to_s3_and_a_store_that_is_down_is_503(tmp_path: Path) -> None:
    with s3_server("uploads") as s3:
        env = {
            **S3_ENV,
            "MCP_MESH_MEDIA_STORAGE": "s3",
            "MCP_MESH_MEDIA_STORAGE_BUCKET": "uploads",
            "MCP_MESH_MEDIA_STORAGE_ENDPOINT": s3.endpoint,
        }
        with run_agent("tests.apps.media_app", env=env) as running:
            image = png(2000)
            answer = upload(running, "photo.png", image, "image/png")
            uri = answer.json()["uri"]
            assert re.fullmatch(r"s3://uploads/media/photo-[0-9a-f]{12}\.png", uri), uri
            stored = s3.client().get_object(Bucket="uploads", Key=uri.removeprefix("s3://uploads/"))
            assert stored["ContentType"] == "image/png" and stored["Body"].read() == image
            measured = call(running, "measure", {"image": uri})
            assert measured["structuredContent"] == {"size": len(image), "mime": "image/png"}
            os.kill(s3.pid, signal.SIGTERM)  # the store goes down
            down: Any = None

            def refused() -> bool:
                nonlocal down
                down = upload(running, "late.png", image, "image/png")
                return down.status_code != 200

            assert wait_until(refused, timeout=20)
            assert down.status_code == 503
            assert "cannot be reached" in down.json()["detail"]


def test_media_through_the_mesh_llm_provider_in_mcp_mesh_shape(tmp_path: Path) -> None:
    image = png(3000)
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "photo.png").write_bytes(image)
    uri = f"file://{tmp_path}/media/photo.png"
    script = [tool_call("render", {"size": 30_000}, id="call_1"), text("A photo and a chart.")]
    with fake_openai(script) as model, run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_REGISTRY__ENABLED": "true"}
        provider_env = {
            **env,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        media_env = {**env, "MCP_MESH_MEDIA_STORAGE_PATH": str(tmp_path)}
        with (
            run_agent("tests.apps.llm_provider_app", env=provider_env),
            run_agent("tests.apps.media_app", env=media_env) as consumer,
        ):
            answer: Any = None

            def answered() -> bool:
                nonlocal answer
                arguments = {"question": "What is this?", "image": uri}
                answer = call(consumer, "describe_mesh", arguments)
                return not answer["isError"]

            assert wait_until(answered, timeout=30), (answer, consumer.text()[-3000:])
            assert answer["content"][0]["text"] == "A photo and a chart."
    first, second = model.requests
    said, picture = first["messages"][-1]["content"]
    assert said == {"type": "text", "text": "What is this?"}
    assert base64.b64decode(picture["image_url"]["url"].split(",", 1)[1]) == image
    *_, tool_message, images = second["messages"]
    assert tool_message == {"role": "tool", "tool_call_id": "call_1", "content": "[Image from tool result]"}
    chart = (tmp_path / "media" / "chart.png").read_bytes()
    assert base64.b64decode(images["content"][1]["image_url"]["url"].split(",", 1)[1]) == chart


def test_media_a_dependency_answers_is_read_through_media_refs(tmp_path: Path) -> None:
    with run_registry() as registry:
        env = {
            "MCP_MESH_REGISTRY_URL": registry.base_url,
            "MESH_REGISTRY__ENABLED": "true",
            "MCP_MESH_HEALTH_INTERVAL": "1",
            "MCP_MESH_MEDIA_STORAGE_PATH": str(tmp_path),
        }
        with run_agent("tests.apps.media_app", env=env) as running:
            answer: Any = None

            def forwarded() -> bool:
                nonlocal answer
                answer = call(running, "forward", {"size": 30_000})
                return not answer["isError"]

            assert wait_until(forwarded, timeout=20), answer
    written = (tmp_path / "media" / "forwarded.png").stat().st_size
    assert answer["structuredContent"] == {
        "uri": f"file://{tmp_path}/media/forwarded.png",
        "size": written,
        "mime": "image/png",
    }
