"""`EndpointExtension` (mesh_framework.extension): an application's or a package's own MCP extension served
on the agent's endpoint in both protocol eras, as the skills extension is: its capabilities merged into
what the agent declares, its methods answered (errors as -32602 with the extension's message), its
resources listed and read beside the app's; a method someone serves already is refused when it builds."""

from __future__ import annotations

import itertools
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication, WiringError
from mesh_framework.testing import mesh_client

pytestmark = pytest.mark.timeout(60)

APP = """
from mesh_framework import bean, configuration, mesh_agent, mesh_resource
from mesh_framework.extension import EndpointExtension
from mesh_framework.protocol.features import FeatureRequestError


@mesh_agent(name="echoes")
class Echoes:
    pass


@mesh_resource("config://app")
def app_config() -> str:
    return "the app's own resource"


class Notes:
    def __len__(self):
        return 1

    def descriptors(self):
        return [{{"uri": "note://one", "name": "one"}}]

    async def read(self, uri):
        if uri != "note://one":
            return None
        return {{"contents": [{{"uri": uri, "mimeType": "text/plain", "text": "first note"}}]}}


class EchoExtension(EndpointExtension):
    def capabilities(self):
        return {{"extensions": {{"io.example/echo": {{"loud": True}}}}}}

    def methods(self):
        return {{"{method}": self.echo}}

    def resources(self):
        return Notes()

    async def echo(self, params, modern):
        if "text" not in params:
            raise FeatureRequestError("echo/say needs params.text")
        return {{"said": params["text"], "modern": modern}}


@configuration
class EchoConfiguration:
    @bean
    def echo_extension(self) -> EndpointExtension:
        return EchoExtension()
"""
_names = itertools.count()


@pytest.fixture
def app_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    loaded: list[str] = []

    def load(method: str) -> MeshApplication:
        name = f"echo_app_{next(_names)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(APP.format(method=method)))
        loaded.append(name)
        return MeshApplication.load(name, environ={})

    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield load
    for name in loaded:
        sys.modules.pop(name, None)


async def test_an_apps_extension_is_served_in_both_eras(app_with: Any) -> None:
    app = app_with("echo/say")
    async with mesh_client(app) as client:
        capabilities = (await client.result("server/discover"))["capabilities"]
        assert capabilities["extensions"]["io.example/echo"] == {"loud": True}
        assert "io.modelcontextprotocol/skills" not in capabilities["extensions"]  # no skill folder
        said = await client.result("echo/say", {"text": "hi"})
        assert (said["said"], said["modern"], said["resultType"]) == ("hi", True, "complete")
        legacy = await client.result("echo/say", {"text": "hi"}, modern=False)
        assert legacy == {"said": "hi", "modern": False}
        initialized = await client.result("initialize", {"protocolVersion": "2025-11-25"}, modern=False)
        assert initialized["capabilities"]["extensions"]["io.example/echo"] == {"loud": True}
        answer = (await client.request("echo/say", {})).json()
        assert answer["error"] == {"code": -32602, "message": "echo/say needs params.text"}
        listed = (await client.result("resources/list"))["resources"]
        assert [r["uri"] for r in listed] == ["config://app", "note://one"]
        note = await client.result("resources/read", {"uri": "note://one"}, name="note://one")
        assert note["contents"][0]["text"] == "first note"
        own = await client.result("resources/read", {"uri": "config://app"}, name="config://app")
        assert own["contents"][0]["text"] == "the app's own resource"


@pytest.mark.parametrize("method", ["tools/call", "resources/read", "tasks/get"])
async def test_an_extension_cannot_take_a_method_the_endpoint_serves(app_with: Any, method: str) -> None:
    app = app_with(method)
    with pytest.raises(
        WiringError, match=f"EchoExtension serves the MCP method '{method}', which the endpoint"
    ):
        app.build()


def test_mapping_typed_capabilities_are_merged_one_level_deep() -> None:
    from mesh_framework.extension import EndpointExtension
    from mesh_framework.protocol.features import FeatureHandlers

    class One(EndpointExtension):
        def capabilities(self) -> Mapping[str, Any]:
            return {"extensions": {"a/one": {}}, "resources": {"listChanged": False}}

    class Two(EndpointExtension):
        def capabilities(self) -> Mapping[str, Any]:
            return {"extensions": {"b/two": {"x": 1}}}

    declared = FeatureHandlers().extended([One(), Two()]).capabilities()
    assert declared == {"extensions": {"a/one": {}, "b/two": {"x": 1}}, "resources": {"listChanged": False}}
