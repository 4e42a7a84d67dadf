"""The mesh page (`/ui`) in a real browser: Debian's Chromium, headless, driven by Playwright.

The registry is a real `mesh registry` process; agents (the starter's two and an LLM asker) are real
`mesh run` processes that join it with their heartbeats. The page must change without a reload when an
agent registers or leaves. A screenshot is kept in
build/test-artifacts/ (git-ignored). `scripts/install-system-packages.sh` installs Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.agents import ROOT, AgentProcess, loopback, run_agent, run_registry, stop, wait_until
from tests.browser import chromium, new_page

ARTIFACTS = ROOT / "build" / "test-artifacts"
WAIT_MS = 10_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with new_page(browser, 1280, 900) as opened:
        yield opened


def agent_id(registry: AgentProcess, name: str) -> str:
    """The id the registry lists for the agent called `name` (once it registered)."""

    def listed() -> str | None:
        agents = loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]
        return next((str(a["id"]) for a in agents if a.get("name") == name), None)

    return str(wait_until(listed, timeout=30))


def test_the_page_follows_the_mesh_live(registry: AgentProcess, page: Page) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("starter_app.calculator", env=env),
        run_agent("tests.apps.llm_mesh_app", env=env),
    ):
        calc, asker = agent_id(registry, "calculator"), agent_id(registry, "asker")
        page.goto(registry.base_url + "/ui")
        calc_row = page.locator(f'tr[data-agent="{calc}"]')
        expect(calc_row).to_contain_text("healthy", timeout=WAIT_MS)
        expect(calc_row).to_contain_text("0/1 resolved")
        expect(page.locator(f'tr[data-agent="{asker}"]')).to_contain_text("healthy", timeout=WAIT_MS)
        expect(page.locator('#graph g.node.missing[data-node="missing:add"]')).to_have_count(1)
        llm = page.locator("#llm tbody tr", has_text="ask_mesh")
        expect(llm.filter(has_text="filter")).to_contain_text("no tools")
        expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
        page.evaluate("window.__same_page = true")  # gone if the page reloaded

        with run_agent("starter_app", env=env) as starter:  # an agent appears: the stream redraws the page
            adder = agent_id(registry, "starter")
            adder_row = page.locator(f'tr[data-agent="{adder}"]')
            expect(adder_row).to_contain_text("starter", timeout=WAIT_MS)
            expect(adder_row).to_contain_text("add [math]")
            expect(calc_row).to_contain_text("1/1 resolved", timeout=WAIT_MS)
            edge = page.locator(f'#graph path.edge.dependency[data-from="{calc}"][data-to="{adder}"]')
            expect(edge).to_have_count(1)
            expect(page.locator('#graph g.node.missing[data-node="missing:add"]')).to_have_count(0)
            # the asker's LLM provider nobody serves
            expect(page.locator('#graph g.node.missing[data-node="missing:llm"]')).to_have_count(1)
            expect(llm.filter(has_text="filter")).to_contain_text("add", timeout=WAIT_MS)
            expect(llm.filter(has_text="provider")).to_contain_text('"capability":"llm"')
            expect(llm.filter(has_text="provider")).to_contain_text("UNRESOLVED")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "mesh-page.png"), full_page=True)
            stop(starter.process)  # a graceful stop: the agent unregisters itself

        expect(adder_row.locator("td.status")).to_have_text("unhealthy", timeout=WAIT_MS)
        expect(calc_row).to_contain_text("0/1 resolved", timeout=WAIT_MS)
        assert page.evaluate("window.__same_page") is True
