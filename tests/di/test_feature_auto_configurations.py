"""The framework's jobs, A2A, click commands and media are auto-configurations, wired through the core's
extension points: an app's own `MediaStore` replaces the framework's (and is the one the media helpers
use), a `HeartbeatFields` bean adds to the agent's registration, the job service serves job tools only to
an app that runs jobs, and each feature's beans are listed with why they are defined or not."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.cli.beans_command import bean_report
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.testing.client import SyncMeshClient

pytestmark = pytest.mark.timeout(60)

OWN_STORE = """
from mesh_framework import bean, component, configuration, mesh_agent, mesh_tool
from mesh_framework.extension import HeartbeatFields
from mesh_framework.media import LocalMediaStore, MediaStore, current_media


@mesh_agent(name="own-media")
class OwnMedia:
    pass


@component
class FolderStore(LocalMediaStore):
    def __init__(self) -> None:
        super().__init__({folder!r})


@mesh_tool(capability="where")
def where(store: MediaStore) -> dict:
    return {{"injected": type(store).__name__, "helpers": type(current_media().store).__name__}}


class Zone(HeartbeatFields):
    def fields(self, settings, tools):
        return {{"zone": "eu-1", "tools_seen": len(tools)}}


@configuration
class Registration:
    @bean
    def zone_fields(self) -> HeartbeatFields:
        return Zone()
"""


@pytest.fixture
def own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MeshApplication]:
    (tmp_path / "own_media_app.py").write_text(textwrap.dedent(OWN_STORE.format(folder=str(tmp_path / "m"))))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield MeshApplication.load("own_media_app", cli={"registry.enabled": False}, environ={})
    sys.modules.pop("own_media_app", None)


def test_an_app_s_media_store_replaces_the_framework_s(own_store: MeshApplication) -> None:
    report = {b["name"]: b for b in bean_report(own_store)["beans"]}
    framework = report["media_store"]
    assert framework["defined"] is False
    assert framework["conditions"][0]["reason"] == "found bean 'folder_store' of type MediaStore"
    client = SyncMeshClient(own_store)
    try:
        # the tool is injected with the app's store, and the media helpers (MediaRef.read, media_result)
        # use it too
        assert client.call_ok("where") == {"injected": "FolderStore", "helpers": "FolderStore"}
    finally:
        client.close()


def test_a_heartbeat_fields_bean_adds_to_the_registration(own_store: MeshApplication) -> None:
    own_store.build()
    runtime = own_store.container.mesh_runtime()
    payload = heartbeat_payload(own_store.settings, own_store.container.tools(), 9, runtime.heartbeat_fields)
    assert (payload["zone"], payload["tools_seen"]) == ("eu-1", 1)
    assert "a2a_producer" not in payload  # no skill and no A2aClient: A2A adds nothing


def tool_names(app: MeshApplication) -> set[str]:
    client = SyncMeshClient(app)
    try:
        return {tool["name"] for tool in client.list_tools()}
    finally:
        client.close()


def test_inline_commands_alone_serve_no_job_tools() -> None:
    inline = {"registry.enabled": False, "commands.background": False}
    app = MeshApplication.load("tests.apps.click_app", cli=inline, environ={})
    names = tool_names(app)
    assert "count_lines" in names
    assert not {n for n in names if n.startswith("__mesh_job_")}
    assert app.container.job_service().used is False  # commands may run as jobs; none of these does
    background = MeshApplication.load("tests.apps.click_app", cli={"registry.enabled": False}, environ={})
    assert {"count_lines", "__mesh_job_status", "__mesh_job_cancel"} <= tool_names(background)


def test_an_app_without_jobs_has_no_job_service() -> None:
    app = MeshApplication.load("tests.apps.stream_app", cli={"registry.enabled": False}, environ={})
    report = {b["name"]: b for b in bean_report(app)["beans"]}
    gate = report["jobs_auto_configuration"]
    assert gate["defined"] is False
    assert gate["conditions"][0]["reason"].startswith("no background or task tool, no click command")
    assert not hasattr(app.container, "job_service")
    assert report["a2a_no_skill_surface"]["defined"] is True
