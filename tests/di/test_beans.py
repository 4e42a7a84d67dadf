"""The container's public API: `@configuration`/`@bean`, the beans' lifecycle, collections, conditions,
scopes, auto-configurations from an installed package, and `mesh beans`; in process and through a real
agent."""

from __future__ import annotations

import json
import logging
import os
import textwrap
from pathlib import Path

import pytest

from mesh_framework import MeshApplication, WiringError
from mesh_framework.testing import SyncMeshClient, mesh_client
from mesh_framework.testing.client import build_request
from tests.agents import loopback
from tests.apps.beans_app import parts

from ..agents import ROOT, run_agent, run_cli, stop


def load(environ: dict[str, str] | None = None) -> MeshApplication:
    return MeshApplication.load("tests.apps.beans_app", environ=environ or {})


def defined(app: MeshApplication) -> set[str]:
    assert app.selection is not None
    return {d.name for d in app.selection.beans}


async def test_beans_are_made_in_dependency_order_and_closed_in_reverse(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parts.EVENTS.clear()
    app = load()
    async with mesh_client(app):
        # the async pool was awaited before the app was built; the generator bean ran to its yield
        assert parts.EVENTS == ["make clock", "make pool", "make journal"]
    closing = [e for e in parts.EVENTS if e.startswith("close")]
    assert closing == ["close journal", "close pool", "close clock"]  # dependents first
    failed = [r.getMessage() for r in caplog.records if "closing bean" in r.getMessage()]
    assert failed == ["closing bean 'flaky' failed: RuntimeError: disk gone"]  # one line, the others closed


async def test_a_call_scoped_bean_per_call_closed_after_it() -> None:
    app = load()
    async with mesh_client(app) as client:
        first = await client.call_ok("whoami")
        second = await client.call_ok("whoami")
        assert first["same"] == 1  # one instance within a call, for both parameters
        assert second["session"] == first["session"] + 1
        assert parts.EVENTS[-2:] == [
            f"open session {second['session']}",
            f"close session {second['session']}",
        ]
        assert parts.EVENTS.count(f"close session {first['session']}") == 1


async def test_collections_prototypes_and_third_party_beans() -> None:
    app = load()
    async with mesh_client(app) as client:
        assert await client.call_ok("plugins") == ["first", "lower", "upper"]  # by order, then name
        assert await client.call_ok("zone") == "UTC"
        registry = app.container.registry()
        assert registry.widgets == []  # a collection nothing fills is empty, not an error
        first, second = registry.tickets
        assert first is not second  # a prototype: one instance per injection


async def test_a_route_request_has_its_own_call_scoped_bean() -> None:
    app = load()
    async with mesh_client(app) as client:
        answer = await client.http.get("/session")
        assert answer.status_code == 200
        number = answer.json()["session"]
        assert parts.EVENTS[-2:] == [f"open session {number}", f"close session {number}"]


async def test_a_call_scoped_bean_is_overridden_like_any_other() -> None:
    class FakeSession:
        id = 99

    app = load()
    with app.override(parts.Session, FakeSession()):
        async with mesh_client(app) as client:
            assert await client.call_ok("whoami") == {"session": 99, "same": 1}


def test_the_sync_client_awaits_async_beans_on_the_loop_that_serves() -> None:
    client = SyncMeshClient(load())
    try:
        assert client.call_ok("whoami")["same"] == 1
        assert "make pool" in parts.EVENTS
    finally:
        client.close()


def test_an_async_bean_asked_for_before_the_app_starts_is_a_clear_error() -> None:
    with pytest.raises(WiringError, match=r"bean 'pool' .* is async and is made when the agent starts"):
        load().build()


def test_conditions_read_profiles_and_properties_from_every_layer() -> None:
    plain = load()
    assert {"not_dev", "greeter", "formal_greeter", "clock"} <= defined(plain)
    assert not {"dev_only", "fallback_clock", "widget"} & defined(plain)
    dev = load({"MESH_PROFILES_ACTIVE": "dev", "MESH_GREETER__ENABLED": "false"})
    assert "dev_only" in defined(dev) and "not_dev" not in defined(dev)
    assert "greeter" not in defined(dev)  # the environment says false
    assert "formal_greeter" not in defined(dev)  # application-dev.yaml sets greeter.style: casual
    assert dev.selection is not None
    outcomes = {d.name: d.outcomes for d in dev.selection.candidates}
    assert outcomes["formal_greeter"][0].reason == "greeter.style = casual, not formal"
    assert outcomes["fallback_clock"][0].reason == "found bean 'clock' of type Clock"
    assert outcomes["widget"][0].reason == "module 'no_such_module_for_beans_app' is not installed"


def test_keys_read_by_conditions_are_not_unknown_settings() -> None:
    # under config.strict an unread top-level section is an error; `greeter` is read by two conditions
    app = load({"MESH_CONFIG__STRICT": "true"})
    assert "greeter" in defined(app)


def test_every_bean_problem_is_reported_together_with_its_place() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.beans_bad", environ={})
    problems = caught.value.problems
    where = "tests/apps/beans_bad/__init__.py:"
    assert len(problems) == 4
    assert all(p.startswith(where) for p in problems)
    text = "\n".join(problems)
    assert "Broken.untyped has no return annotation" in text
    assert "bean 'later' is async and prototype-scoped" in text
    assert "singleton bean 'holder' (Holder) asks for call-scoped bean 'conn'" in text
    assert "dependency cycle Broken.left()(right) -> Broken.right()(left) -> Broken.left()" in text


def test_mesh_beans_lists_beans_origins_and_conditions() -> None:
    done = run_cli(["beans", "tests.apps.beans_app", "--json"])
    assert done.returncode == 0, done.stderr
    beans = {b["name"]: b for b in json.loads(done.stdout)["beans"]}
    assert beans["pool"]["origin"] == "configuration tests.apps.beans_app.parts.Infrastructure"
    assert beans["session"]["scope"] == "call" and beans["ticket"]["scope"] == "prototype"
    assert beans["upper_plugin"]["origin"] == "scan"
    assert beans["widget"]["defined"] is False
    assert beans["widget"]["conditions"] == [
        {
            "condition": "@conditional_on_class('no_such_module_for_beans_app')",
            "matched": False,
            "reason": "module 'no_such_module_for_beans_app' is not installed",
        }
    ]
    text = run_cli(["beans", "tests.apps.beans_app"])
    assert "Negative matches:" in text.stdout and "session" in text.stdout
    broken = run_cli(["beans", "tests.apps.beans_bad"])
    assert broken.returncode == 1
    assert "dependency cycle" in broken.stderr and "Traceback" not in broken.stderr


def _installed_auto_configuration(folder: Path) -> Path:
    """A distribution on disk as an installer leaves it: a package and its `.dist-info` with entry points."""
    package = folder / "beans_extra"
    package.mkdir()
    (package / "__init__.py").write_text(
        textwrap.dedent(
            """
            from mesh_framework import bean, conditional_on_missing_bean, configuration
            from tests.apps.beans_app.parts import Clock


            class ExtraService:
                pass


            @configuration
            class ExtraAutoConfiguration:
                @bean
                def extra_service(self) -> ExtraService:
                    return ExtraService()

                @bean
                @conditional_on_missing_bean()
                def auto_clock(self) -> Clock:
                    return Clock("auto")
            """
        )
    )
    info = folder / "beans_extra-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: beans-extra\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[mesh_framework.auto_configuration]\nextra = beans_extra:ExtraAutoConfiguration\n"
    )
    return folder


def test_an_installed_package_contributes_beans_and_the_app_s_own_win(tmp_path: Path) -> None:
    path = f"{_installed_auto_configuration(tmp_path)}{os.pathsep}{ROOT}"
    done = run_cli(["beans", "tests.apps.beans_app", "--json"], env={"PYTHONPATH": path})
    assert done.returncode == 0, done.stderr
    beans = {b["name"]: b for b in json.loads(done.stdout)["beans"]}
    assert beans["extra_service"]["defined"] is True
    assert beans["extra_service"]["origin"] == (
        "auto-configuration extra (ExtraAutoConfiguration, package beans-extra)"
    )
    assert beans["auto_clock"]["defined"] is False  # the application's Clock wins
    assert beans["auto_clock"]["conditions"][0]["reason"] == "found bean 'clock' of type Clock"
    excluded = run_cli(
        ["beans", "tests.apps.beans_app", "--json"],
        env={"PYTHONPATH": path, "MESH_AUTO_CONFIGURATION__EXCLUDE": '["extra"]'},
    )
    assert excluded.returncode == 0, excluded.stderr
    assert "extra_service" not in {b["name"] for b in json.loads(excluded.stdout)["beans"]}


def _call(agent_url: str, tool: str) -> dict[str, object]:
    body, headers = build_request("tools/call", {"name": tool, "arguments": {}}, modern=True, name=tool)
    answer = loopback.post(agent_url, json=body, headers=headers, timeout=10)
    result: dict[str, object] = answer.json()["result"]["structuredContent"]
    return result


@pytest.mark.timeout(60)
def test_a_real_agent_awaits_beans_before_serving_scopes_calls_and_closes_at_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "beans.log"
    with run_agent("tests.apps.beans_app", env={"BEANS_LOG": str(log)}) as agent:
        assert log.read_text().splitlines() == ["make clock", "make pool", "make journal"]  # before serving
        first = _call(agent.mcp_url, "whoami")
        second = _call(agent.mcp_url, "whoami")
        assert log.read_text().splitlines()[3:] == [
            f"open session {first['session']}",
            f"close session {first['session']}",
            f"open session {second['session']}",
            f"close session {second['session']}",
        ]
        assert stop(agent.process) == 0
    events = log.read_text().splitlines()
    assert events[-3:] == ["close journal", "close pool", "close clock"]
    assert "closing bean 'flaky' failed: RuntimeError: disk gone" in agent.text()


def test_logging_is_quiet_for_a_clean_close(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    client = SyncMeshClient(MeshApplication.load("starter_app", environ={}))
    try:
        client.list_tools()
    finally:
        client.close()
    assert not [r for r in caplog.records if "closing bean" in r.getMessage()]
