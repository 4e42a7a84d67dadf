"""The pytest kit as users meet it: sync fixtures, overrides by marker, stubs, scripted models, clusters
(this project's pytest options name `starter_app` as the application)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from mesh_framework.testing import MeshCluster, ScriptedLlm, SyncMeshClient
from starter_app.greeting import GreetingService


class FakeGreetingService:
    greeted = 0

    def greet(self, name: str) -> str:
        return f"fake {name}"

    def part_of_day(self) -> str:
        return "morning"


def test_mesh_client_calls_tools_in_process(mesh_client: SyncMeshClient) -> None:
    assert mesh_client.call_ok("add", {"a": 1, "b": 2}) == 3
    assert "greet" in [t["name"] for t in mesh_client.list_tools()]


@pytest.mark.mesh_override(GreetingService, FakeGreetingService())
def test_override_by_marker(mesh_client: SyncMeshClient) -> None:
    assert mesh_client.call_ok("greet", {"name": "Ada"})["text"] == "fake Ada"


@pytest.mark.mesh_settings(**{"greeting.template": "Howdy, {name}"})
def test_settings_by_marker(mesh_client: SyncMeshClient, mesh_app: Any) -> None:
    assert mesh_client.call_ok("greet", {"name": "Ada"})["text"] == "Howdy, Ada"
    assert mesh_app.loaded.origin_of("greeting.template") == "command line (--template)"


def test_a_failing_call_names_tool_arguments_and_error(mesh_client: SyncMeshClient) -> None:
    with pytest.raises(AssertionError) as caught:
        mesh_client.call_ok("add", {"a": "x", "b": 2})
    message = str(caught.value)
    assert message.startswith('tool \'add\' called with {"a": "x", "b": 2} failed: Invalid arguments')
    assert "Traceback" not in message


def test_stub_llm_scripts_the_model(mesh_client: SyncMeshClient, stub_llm: Any) -> None:
    model: ScriptedLlm = stub_llm([ScriptedLlm.call("add", a=2, b=3), "5"])
    assert mesh_client.call_ok("ask", {"question": "2+3?"}) == "5"
    assert model.called_tools == ["add"] and model.requests[1].tool_results() == ["5"]


class TestTheCalculatorWithAStub:
    @pytest.fixture
    def mesh_app_name(self) -> str:
        return "starter_app.calculator"

    def test_stub_tool_fills_the_dependency_and_records(
        self, mesh_client: SyncMeshClient, stub_tool: Any
    ) -> None:
        add = stub_tool("add", side_effect=lambda a, b: a + b + 1000)
        assert mesh_client.call_ok("sum_of_squares", {"a": 3, "b": 4}) == 1025
        add.assert_called_with(a=9, b=16)
        with pytest.raises(AssertionError, match="was last called with"):
            add.assert_called_with(a=1, b=1)

    def test_stub_tool_after_the_first_call(self, mesh_client: SyncMeshClient, stub_tool: Any) -> None:
        unresolved = mesh_client.call_tool("sum_of_squares", {"a": 1, "b": 1})
        assert unresolved["isError"]  # no provider of `add` in process
        stub_tool("add", returns=7)
        assert mesh_client.call_ok("sum_of_squares", {"a": 1, "b": 1}) == 7


def test_mesh_cluster_runs_real_agents_and_survives_a_restart(mesh_cluster: Any) -> None:
    mesh: MeshCluster = mesh_cluster(["starter_app", "starter_app.calculator"])
    assert mesh.call("sum_of_squares", {"a": 3, "b": 4}) == 25
    mesh.stop("starter_app")
    with pytest.raises(AssertionError, match="sum_of_squares"):
        mesh.call("sum_of_squares", {"a": 3, "b": 4})
    mesh.start_agent("starter_app")
    assert mesh.call("sum_of_squares", {"a": 1, "b": 2}) == 5


@pytest.mark.timeout(45)  # a wait for three heartbeats would take 60 s
def test_a_cluster_is_ready_when_its_agents_hold_their_providers_not_after_heartbeats() -> None:
    """Agents follow the registry's push stream: with a long heartbeat the cluster is still ready as soon
    as the calculator holds its provider (a wait for heartbeats would take 3 x 20 s here). The readiness
    wait's polls and the calls go through one HTTP client of the cluster's, closed with it."""
    with MeshCluster(
        ["starter_app", "starter_app.calculator"], env={"MESH_REGISTRY__HEARTBEAT_INTERVAL": "20"}
    ) as mesh:
        polled_with = mesh._http
        assert mesh.call("sum_of_squares", {"a": 3, "b": 4}) == 25
        assert polled_with is not None and mesh._http is polled_with
    assert polled_with.is_closed and mesh._http is None


def test_a_cluster_without_metrics_says_why_it_cannot_wait() -> None:
    with (
        pytest.raises(RuntimeError, match=r"serves no /metrics .*leave metrics on"),
        MeshCluster(["starter_app"], env={"MESH_METRICS__ENABLED": "false"}),
    ):
        pass


def test_without_an_app_name_the_kit_says_how_to_set_it(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile("def test_it(mesh_client):\n    pass\n")
    result = pytester.runpytest_inprocess()
    result.stdout.fnmatch_lines(["*name your application*mesh_app*tool.pytest.ini_options*"])


def test_pytest_loading_the_plugin_loads_none_of_the_framework() -> None:
    """pytest imports the plugin at the start of every run wherever mesh_framework is installed (~0.3
    CPU-s when it imported the framework); the kit loads it with the first fixture or name used."""
    code = (
        "import json, sys\n"
        "import mesh_framework.testing.plugin\n"
        "before = sorted(m for m in sys.modules if m.startswith('mesh_framework'))\n"
        "from mesh_framework.testing import SyncMeshClient\n"
        "print(json.dumps([before, 'mesh_framework.app' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    before, app_loaded_by_a_name = json.loads(done.stdout)
    assert before == [
        "mesh_framework",
        "mesh_framework._lazy",
        "mesh_framework.testing",
        "mesh_framework.testing.plugin",
    ]
    assert app_loaded_by_a_name
