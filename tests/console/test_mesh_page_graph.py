"""The mesh page's graph in a real browser (Debian's Chromium through Playwright): a self-dependency (the
starter's chat route calling its own agent's `ask`) is a visible loop out of and back into the agent's
box, and every edge label sits on a background of its own, off its line and clear of the boxes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.agents import AgentProcess, run_agent, run_registry
from tests.browser import chromium, new_page
from tests.console.test_mesh_page import WAIT_MS, agent_id


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with new_page(browser, 1280, 900) as opened:
        yield opened


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        yield running


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_a_self_dependency_is_a_loop_and_labels_are_readable(registry: AgentProcess, page: Page) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env):
        starter, calc = agent_id(registry, "starter"), agent_id(registry, "calculator")
        page.goto(registry.base_url + "/ui")
        loop = page.locator(f'#graph path.edge.dependency[data-from="{starter}"][data-to="{starter}"]')
        expect(loop).to_have_count(1, timeout=WAIT_MS)
        expect(page.locator(f'#graph path.edge[data-from="{calc}"][data-to="{starter}"]')).to_have_count(1)
        node = box(page, f'#graph g.node[data-node="{starter}"] rect')
        arc = box(page, f'#graph path.edge[data-from="{starter}"][data-to="{starter}"]')
        assert arc["y"] < node["y"] - 15  # it rises out of the box: not drawn behind it
        assert node["x"] <= arc["x"] and arc["x"] + arc["width"] <= node["x"] + node["width"] + 2
        labels = page.locator("#graph text.label.dependency")
        expect(labels).to_have_count(2)
        rects = [box(page, f'#graph g.node[data-node="{n}"] rect') for n in (starter, calc)]
        for index in range(labels.count()):
            label = labels.nth(index)
            background = label.evaluate("t => t.previousElementSibling.getAttribute('class')")
            assert background == "label-bg"
            found = label.bounding_box()
            assert found is not None
            assert not any(overlap(found, r) for r in rects), label.text_content()
        loop_label = page.locator(f'#graph text.label[data-from="{starter}"][data-tool="POST:/api/chat"]')
        expect(loop_label).to_have_text("POST:/api/chat: ask")
        page.screenshot(path="build/test-artifacts/mesh-page-loop.png")
