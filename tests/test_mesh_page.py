"""The mesh page (`/ui`) in a real browser: Debian's Chromium, headless, driven by Playwright.

The registry is a real `mesh registry` process; agents join it with real heartbeats. The page must
change without a reload when an agent registers or leaves. A screenshot is kept in
build/test-artifacts/ (git-ignored). `scripts/install-system-packages.sh` installs Chromium.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.agents import ROOT, AgentProcess, run_registry

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "build" / "test-artifacts"
WAIT_MS = 10_000


def agent(agent_id: str, port: int, *tools: dict[str, Any]) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": list(tools),
    }


CALC = agent(
    "calc-0000000a",
    9101,
    {"function_name": "calc", "capability": "calc", "dependencies": [{"capability": "add"}]},
    {
        "function_name": "ask",
        "capability": "ask",
        "llm_filter": {"filter": [{"capability": "add"}]},
        "llm_provider": {"capability": "llm", "tags": ["claude"]},
    },
)
ADDER = agent(
    "adder-0000000b",
    9102,
    {
        "function_name": "add",
        "capability": "add",
        "tags": ["math"],
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
    },
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-packages.sh (or set CHROMIUM)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


def heartbeat(registry: AgentProcess, payload: dict[str, Any]) -> None:
    httpx2.post(registry.base_url + "/heartbeat", json=payload, timeout=5).raise_for_status()


def test_the_page_follows_the_mesh_live(registry: AgentProcess, page: Page) -> None:
    heartbeat(registry, CALC)
    page.goto(registry.base_url + "/ui")
    calc_row = page.locator('tr[data-agent="calc-0000000a"]')
    expect(calc_row).to_contain_text("healthy", timeout=WAIT_MS)
    expect(calc_row).to_contain_text("0/1 resolved")
    expect(page.locator('#graph g.node.missing[data-node="missing:add"]')).to_have_count(1)
    expect(page.locator("#live")).to_have_text("live", timeout=WAIT_MS)
    page.evaluate("window.__same_page = true")  # gone if the page reloaded

    heartbeat(registry, ADDER)  # an agent appears: no reload, the stream redraws the page
    adder_row = page.locator('tr[data-agent="adder-0000000b"]')
    expect(adder_row).to_contain_text("adder", timeout=WAIT_MS)
    expect(adder_row).to_contain_text("add [math]")
    expect(calc_row).to_contain_text("1/1 resolved")
    edge = page.locator('#graph path.edge.dependency[data-from="calc-0000000a"][data-to="adder-0000000b"]')
    expect(edge).to_have_count(1)
    expect(page.locator("#graph g.node.missing")).to_have_count(1)  # the LLM provider nobody serves
    llm = page.locator("#llm tbody")
    expect(llm).to_contain_text("filter")
    expect(llm).to_contain_text('"capability":"llm"')
    expect(llm.locator("tr", has_text="filter")).to_contain_text("add")
    expect(llm.locator("tr", has_text="provider")).to_contain_text("UNRESOLVED")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "mesh-page.png"), full_page=True)

    httpx2.delete(registry.base_url + "/agents/adder-0000000b", timeout=5).raise_for_status()
    expect(adder_row.locator("td.status")).to_have_text("unhealthy", timeout=WAIT_MS)
    expect(calc_row).to_contain_text("0/1 resolved")
    assert page.evaluate("window.__same_page") is True
