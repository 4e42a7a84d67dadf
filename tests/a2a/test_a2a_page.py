"""The mesh page in a real browser (Debian's Chromium, headless, Playwright) shows an agent's A2A skills
and that it calls A2A agents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.agents import loopback, run_agent, run_registry, wait_until

pytestmark = pytest.mark.timeout(90)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def test_the_mesh_page_shows_a2a_skills_and_clients() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-packages.sh (or set CHROMIUM)")
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with run_agent("tests.apps.a2a_app", env=env), sync_playwright() as playwright:
            wait_until(
                lambda: loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"], timeout=30
            )
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                page = browser.new_page()
                page.goto(registry.base_url + "/ui")
                row = page.locator("#agents tbody tr").first
                expect(row.locator(".chip.a2a", has_text="A2A slow-count")).to_have_attribute(
                    "title", "A2A skill at /a2a/slow-count", timeout=10_000
                )
                expect(row.locator(".chip.a2a", has_text="A2A client")).to_be_visible()
            finally:
                browser.close()
