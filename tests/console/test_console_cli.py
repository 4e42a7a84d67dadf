"""`mesh console --registry-url URL`: the mesh page served by the CLI, for our registry and for MCP Mesh's
(its Go registry, installed by `scripts/install-mcp-mesh.sh`), in Debian's Chromium through Playwright."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.agents import dependency_providers, run_agent, run_mesh, run_registry, stop, wait_until
from tests.cli_in_process import run_cli_in_process
from tests.console.test_console_page import browser, call, choose  # noqa: F401  (browser: a fixture)
from tests.console.test_mesh_page import agent_id
from tests.interop.mcp_mesh import missing_tools, run_mesh_registry

pytestmark = pytest.mark.timeout(240)
WAIT_MS = 15_000


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def mcp_mesh_registry(tmp_path: Path) -> Iterator[str]:
    missing = missing_tools()
    assert not missing, f"run scripts/install-mcp-mesh.sh first (missing: {', '.join(missing)})"
    with run_mesh_registry(tmp_path / "registry") as running:
        yield running.url


def test_the_console_served_by_the_cli_for_our_registry_shows_its_traffic(page: Page) -> None:
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with (
            run_agent("tests.apps.console_app.sleeper", env=env),
            run_agent("tests.apps.console_app.caller", env=env) as caller,
            run_mesh(["console", "--registry-url", registry.base_url]) as console,
        ):
            wait_until(lambda: dependency_providers(caller, "sleepy", "nap") == 1, timeout=30)
            for _ in range(3):
                assert call(caller.mcp_url, "sleepy", {"seconds": 0})["isError"] is False
            page.goto(console.base_url + "/ui")
            caller_id = agent_id(registry, "console-caller")
            edge = page.locator(f'#traffic-edges tr[data-from="{caller_id}"][data-capability="nap"] td.total')
            expect(edge).to_have_text("3", timeout=WAIT_MS)
            expect(page.locator("#traces tr.trace", has_text="tools/call sleepy")).to_have_count(3)
            expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
            choose(page, agent_id(registry, "console-sleeper"), "greet")
            page.fill('#call-fields input[name="name"]', "Di")
            page.click("#call-run")
            expect(page.locator("#call-result")).to_contain_text("hello Di", timeout=WAIT_MS)
            # the open page holds the console's change stream: Ctrl-C stops it all the same, at once
            assert stop(console.process, sig=signal.SIGINT) == 0, console.text()


def test_the_console_for_mcp_mesh_s_registry_shows_what_it_serves(page: Page, mcp_mesh_registry: str) -> None:
    env = {"MCP_MESH_REGISTRY_URL": mcp_mesh_registry, "MCP_MESH_HEALTH_INTERVAL": "1"}
    with (
        run_agent("tests.apps.console_app.sleeper", env=env) as sleeper,
        run_mesh(["console", "--registry-url", mcp_mesh_registry]) as console,
    ):
        call(sleeper.mcp_url, "nap", {})  # the agent pushes once, is told 404, and stops gathering
        wait_until(lambda: "the registry has no console" in sleeper.text(), timeout=15)
        page.goto(console.base_url + "/ui")
        row = page.locator("#agents tr", has_text="console-sleeper")
        expect(row).to_contain_text("greet", timeout=WAIT_MS)
        expect(page.locator("#console-status")).to_contain_text(
            "gathers no traffic or traces", timeout=WAIT_MS
        )
        sleeper_id = row.get_attribute("data-agent")
        choose(page, str(sleeper_id), "greet")
        page.fill("#call-json", '{"name": "Eve"}')  # its listing has no input schemas: raw JSON
        page.click("#call-run")
        expect(page.locator("#call-result")).to_contain_text("hello Eve", timeout=WAIT_MS)
        assert stop(console.process, sig=signal.SIGINT) == 0, console.text()  # the page still open


def test_the_console_refuses_to_listen_beyond_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_cli_in_process(["console", "--host", "0.0.0.0"], monkeypatch)
    assert result.returncode == 2
    assert result.stderr.startswith("mesh console: the page calls tools for whoever opens it")
