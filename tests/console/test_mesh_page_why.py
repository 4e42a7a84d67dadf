"""The mesh page says why a dependency edge resolved as it did: click an edge (or its label) and the
registry's trace of that slot shows stage by stage. Real registry and agents, Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.agents import AgentProcess, run_agent, run_registry
from tests.console.test_mesh_page import ARTIFACTS, WAIT_MS, agent_id, browser, page  # noqa: F401 - fixtures

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        yield running


def test_clicking_an_edge_shows_why_it_resolved(registry: AgentProcess, page: Page, browser: Browser) -> None:  # noqa: F811
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("tests.apps.schema_caption_app", env=env),
        run_agent("tests.apps.schema_label_app", env=env),
        run_agent("tests.apps.schema_viewer_app", env=env),
    ):
        viewer, label = agent_id(registry, "viewer"), agent_id(registry, "label-provider")
        agent_id(registry, "caption-provider")
        page.goto(registry.base_url + "/ui")
        expect(page.locator(f'tr[data-agent="{viewer}"]')).to_contain_text("3/4 resolved", timeout=WAIT_MS)
        expect(page.locator("#why")).to_be_hidden()

        page.locator(f'#graph text.label.dependency[data-from="{viewer}"][data-tool="show"]').click()
        why = page.locator("#why")
        expect(why).to_be_visible()
        expect(page.locator("#why-slot")).to_have_text("viewer.show → caption")
        expect(page.locator("#why-summary")).to_contain_text("`caption`, schema subset -> caption-provider-")
        evicted = page.locator("#why-stages tbody tr", has_text=f"{label}:label")
        expect(evicted.filter(has_text="SchemaIncompatible")).to_contain_text("missing text")
        expect(page.locator('#why-stages tbody tr[data-stage="tiebreaker"] td.chosen')).to_have_text("chosen")

        page.locator(f'#graph text.label.dependency[data-from="{viewer}"][data-tool="show_rating"]').click()
        expect(page.locator("#why-summary")).to_contain_text(
            "no provider of `caption` with tags -sloppy, schema subset: 1 evicted by tags", timeout=WAIT_MS
        )
        expect(page.locator("#why-stages tbody tr", has_text="ExtraTagDisallowed")).to_contain_text(
            "has excluded tag sloppy"
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "mesh-page-why.png"), full_page=True)
