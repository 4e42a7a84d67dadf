"""Service interfaces in process: what the heartbeat says, what a service parameter receives, and every
way a call can fail (no provider, below the floor, an answer of the wrong shape, a class that cannot be
implemented). Providers are the pytest kit's stub tools, put into the slots the mesh runtime fills."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication, Selector, ServiceUnavailable, mesh_service, selector
from mesh_framework.errors import WiringError
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.testing import StubTool, SyncMeshClient
from tests.apps import services_app

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def mesh_app_name() -> str:
    return "tests.apps.services_app"


def _text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []))


def _dependencies(app: MeshApplication, tool: str) -> list[dict[str, Any]]:
    payload = heartbeat_payload(app.settings, app.container.tools(), 0)
    (entry,) = [t for t in payload["tools"] if t["function_name"] == tool]
    return [{k: v for k, v in d.items() if k != "namespace"} for d in entry["dependencies"]]


def test_on_the_wire_a_service_is_ordinary_dependencies_after_the_declared_ones(
    mesh_client: SyncMeshClient, mesh_app: MeshApplication
) -> None:
    """As MCP Mesh's registration of the same tool: declared dependencies first, then the service's
    methods sorted by name; the duplicate capability is not merged; no view name or min_available."""
    mesh_client.list_tools()
    assert _dependencies(mesh_app, "process_media") == [
        {"capability": "media.caption"},
        {"capability": "media.caption", "tags": ["+fast"], "required": True},
        {"capability": "media.thumbnail"},
        {"capability": "media.transcribe"},
    ]
    assert _dependencies(mesh_app, "thumbnail") == [
        {"capability": "media.thumbnail"},
        {"capability": "media.transcribe"},
    ]
    schema = {t["name"]: t["inputSchema"] for t in mesh_client.list_tools()}["process_media"]
    assert list(schema["properties"]) == ["text"]  # the service parameter is injected, not an argument


def test_match_mode_sends_the_return_annotation_as_the_expected_schema(
    mesh_client: SyncMeshClient, mesh_app: MeshApplication
) -> None:
    """As MCP Mesh: with match_mode, a structured return type is the expected schema (the canonical form
    and hash MCP Mesh sent for the same Caption); a scalar one constrains nothing and is not sent; without
    match_mode nothing is sent."""
    mesh_client.list_tools()
    caption, thumbnail = _dependencies(mesh_app, "matched_caption")
    assert caption.pop("expectedSchemaHash").startswith("sha256:b477ba42")
    assert caption == {
        "capability": "media.caption",
        "expectedSchemaCanonical": {
            "properties": {"confidence": {"type": "number"}, "text": {"type": "string"}},
            "required": ["confidence", "text"],
            "type": "object",
        },
        "matchMode": "subset",
    }
    assert thumbnail == {"capability": "media.thumbnail"}
    assert all("matchMode" not in d for d in _dependencies(mesh_app, "inspect_service"))


def test_the_service_parameter_is_an_instance_of_the_declared_type_with_typed_results(
    mesh_client: SyncMeshClient, stub_tool: Any
) -> None:
    caption = stub_tool("media.caption", returns={"text": "a cat", "confidence": 0.5})
    assert mesh_client.call_ok("inspect_service") == {
        "is_media_service": True,
        "caption_type": "Caption",
        "confidence": 0.5,
    }
    caption.assert_called_with(text="positional")  # a positional argument is sent by its name
    answer = mesh_client.call_ok("process_media", {"text": "cat"})
    assert answer == {"caption": "a cat", "confidence": 0.5, "plain": "a cat"}


def test_a_component_method_tool_takes_a_service_too(mesh_client: SyncMeshClient, stub_tool: Any) -> None:
    stub_tool("media.caption", returns={"text": "a cat", "confidence": 0.5})
    assert mesh_client.call_ok("describe_with", {"text": "cat"}) == "Described: a cat"


def test_a_required_method_without_provider_refuses_the_tool_before_its_body_runs(
    mesh_client: SyncMeshClient,
) -> None:
    services_app.BODY_RUNS.clear()
    result = mesh_client.call_tool("inspect_service")
    assert result["isError"]
    assert _text(result) == (
        "Tool 'inspect_service' cannot run: its dependency 'media.caption' (dependency 0) is not resolved; "
        "no agent currently provides it (required by MediaService.caption, parameter 'media')"
    )
    assert services_app.BODY_RUNS == []


def test_job_claims_wait_for_a_service_s_required_methods(mesh_app: MeshApplication) -> None:
    """MCP Mesh claims a job only while the tool's required dependencies have providers; a service's
    required methods are among them, its optional ones are not."""
    from mesh_framework.jobs.service import _dependencies_resolved

    mesh_app.build()
    wrapper = mesh_app.container.tools().get("transcribe")  # MediaService: caption required
    assert wrapper is not None and _dependencies_resolved(wrapper) is False
    wrapper.update_dependency(0, StubTool("media.caption"))
    assert _dependencies_resolved(wrapper) is True  # thumbnail and transcribe are optional


def test_several_required_methods_without_provider_are_all_named(
    mesh_client: SyncMeshClient, stub_tool: Any
) -> None:
    assert _text(mesh_client.call_tool("both_required", {"text": "x"})) == (
        "Tool 'both_required' cannot run: its dependencies 'media.caption' (dependency 0), "
        "'media.transcribe' (dependency 1) are not resolved; no agent currently provides them (required by "
        "Required.caption, Required.transcribe, parameter 'needs')"
    )
    stub_tool("media.transcribe", returns="words")
    assert "its dependency 'media.caption' (dependency 0) is not resolved" in _text(
        mesh_client.call_tool("both_required", {"text": "x"})
    )


def test_an_optional_method_without_provider_raises_when_called_naming_its_capability(
    mesh_client: SyncMeshClient, stub_tool: Any, caplog: pytest.LogCaptureFixture
) -> None:
    stub_tool("media.caption", returns={"text": "a cat", "confidence": 0.5})
    with caplog.at_level(logging.WARNING, "mesh_framework"):
        result = mesh_client.call_tool("transcribe", {"text": "cat"})
    assert result["isError"]
    assert _text(result) == (
        "ServiceUnavailable: MediaService.transcribe cannot be called: no agent currently provides "
        "'media.transcribe' (optional method)"
    )
    failures = [r for r in caplog.records if "transcribe" in r.getMessage()]
    assert failures and all(r.exc_info is None for r in failures)  # one line, no traceback


def test_methods_follow_providers_as_they_come_and_go(
    mesh_client: SyncMeshClient, mesh_app: MeshApplication, stub_tool: Any
) -> None:
    stub_tool("media.caption", returns={"text": "a cat", "confidence": 0.5})
    assert mesh_client.call_tool("transcribe", {"text": "cat"})["isError"]
    stub_tool("media.transcribe", returns="meow")
    assert mesh_client.call_ok("transcribe", {"text": "cat"}) == "meow"
    (wrapper,) = [w for w in mesh_app.container.tools() if w.name == "transcribe"]
    wrapper.update_dependency(2, None)  # the provider went away: the same object sees it at once
    assert "no agent currently provides 'media.transcribe'" in _text(
        mesh_client.call_tool("transcribe", {"text": "cat"})
    )


def test_below_min_available_every_method_raises_service_unavailable(
    mesh_client: SyncMeshClient, stub_tool: Any
) -> None:
    stub_tool("media.thumbnail", returns="T")
    result = mesh_client.call_tool("thumbnail", {"text": "cat"})
    assert _text(result) == (
        "ServiceUnavailable: Thumbnails is unavailable: 1/2 method(s) resolved, below its min_available=2; "
        "no agent provides 'media.transcribe'"
    )
    stub_tool("media.transcribe", returns="meow")
    assert mesh_client.call_ok("thumbnail", {"text": "cat"}) == "T"


def test_an_answer_that_does_not_match_the_return_type_is_an_error_naming_the_field(
    mesh_client: SyncMeshClient, stub_tool: Any, caplog: pytest.LogCaptureFixture
) -> None:
    stub_tool("media.caption", returns={"text": 3})
    with caplog.at_level(logging.WARNING, "mesh_framework"):
        result = mesh_client.call_tool("inspect_service")
    assert result["isError"]
    assert _text(result) == (
        "media.caption@stub: MediaService.caption: the answer of 'media.caption' does not match Caption: "
        "text: Input should be a valid string; confidence: Field required"
    )
    assert "Traceback" not in _text(result)
    assert all(r.exc_info is None for r in caplog.records)


def test_an_answer_sent_as_json_text_is_validated_too(mesh_client: SyncMeshClient, stub_tool: Any) -> None:
    """Providers that answer a model as JSON text without structuredContent (older SDKs) still fit."""
    stub_tool("media.caption", returns='{"text": "a cat", "confidence": 1}')
    assert mesh_client.call_ok("inspect_service")["caption_type"] == "Caption"


def test_a_service_that_cannot_be_implemented_stops_start_up_naming_class_and_method() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.services_bad", environ={})
    problems = "\n".join(caught.value.problems)
    assert len(caught.value.problems) == 4, problems
    assert (
        "tool 'tests.apps.services_bad.uses_unmarked': parameter 'service': Unmarked.helper "
        "(tests/apps/services_bad/__init__.py:20) has no @selector" in problems
    )
    assert "parameter 'service': Blocking.caption (tests/apps/services_bad/__init__.py:25) is not async" in (
        problems
    )
    assert (
        "BadName.caption (tests/apps/services_bad/__init__.py:32): capability 'media..caption' is not a "
        in (problems)
    )
    assert "TooFew: min_available=3 is more than its 1 method(s)" in problems


COMPONENT_APP = """
from typing import Protocol
from mesh_framework import component, mesh_agent, mesh_service, mesh_tool, selector

@mesh_service
class Media(Protocol):
    @selector("media.caption")
    async def caption(self, text: str) -> str: ...

@mesh_agent(name="component-services")
class App:
    pass

@component
class Captions:
    def __init__(self, media: Media) -> None:
        self.media = media

    @mesh_tool()
    async def cap(self, text: str, media: Media) -> str:
        return await media.caption(text=text)
"""


def test_a_component_constructor_taking_a_service_is_told_where_services_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A component's tool method takes the service; its constructor cannot (no tool's slots to read)."""
    (tmp_path / "component_services.py").write_text(COMPONENT_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("component_services", environ={})
    (problem,) = caught.value.problems
    assert problem.endswith(
        "parameter 'media' of Captions: Media is a service interface (@mesh_service): it is injected into "
        "tools and routes, not into constructors; take it as a parameter of the @mesh_tool or @mesh_route "
        "method that calls it"
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: selector("media.caption", tags="fast"), "tags is a list, e.g. tags=['fast']"),
        (lambda: selector("media.caption", match_mode="loose"), "must be 'subset' or 'strict'"),  # type: ignore[arg-type]
        (lambda: selector(3), "capability must be a string"),  # type: ignore[arg-type]
        (lambda: mesh_service(min_available=-1), "must be an integer >= 0"),
        (lambda: mesh_service(lambda: None), "decorates a class"),  # type: ignore[type-var]
    ],
)
def test_bad_decorator_arguments_are_refused_at_once(make: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        make()


async def test_positional_arguments_bind_to_the_stub_s_parameters_once() -> None:
    from mesh_framework.services import analyze_service, implement
    from tests.apps.services_app import MediaService

    caption = StubTool("media.caption", returns={"text": "t", "confidence": 1})
    thumbnail = StubTool("media.thumbnail", returns="T")
    media: MediaService = implement(analyze_service(MediaService), [caption, thumbnail, None], 0)
    assert await media.thumbnail("cat", 8) == "T"
    thumbnail.assert_called_with(text="cat", size=8)
    with pytest.raises(TypeError, match=r"MediaService.thumbnail\(\) takes 2 positional argument"):
        await media.thumbnail("cat", 8, 9)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="each given once"):
        await media.thumbnail("cat", text="dog")  # type: ignore[misc]
    with pytest.raises(ServiceUnavailable, match="'media.transcribe' \\(optional method\\)"):
        await media.transcribe(text="x")


def test_service_unavailable_carries_the_missing_capabilities() -> None:
    error = ServiceUnavailable("x", service="S", capabilities=["a.b"])
    assert error.capabilities == ("a.b",) and error.service == "S"
    assert Selector("a.b").to_wire() == {"capability": "a.b"}
