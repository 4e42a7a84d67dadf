"""The starter's chat page in a real browser: Debian's Chromium, headless, driven by Playwright.

A real registry and a real `mesh run starter_app` process; the `ask` tool's model is the fake OpenAI server
speaking the streaming wire. The fake sends the first delta and then waits for the test, so the page must
show that delta on its own before the rest exists; without a provider of `ask` the page shows the route's
503. The screenshot is docs/images/starter-chat.png (see tests/artifacts.py).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from ..agents import AgentProcess, run_agent, run_starter_with_model
from ..artifacts import screenshot_path
from ..browser import chromium, new_page
from ..console.test_mesh_page import WAIT_MS
from ..llm_fakes import FakeLlmServer, fake_openai, streamed


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with new_page(browser, 900, 320) as opened:
        yield opened


@pytest.fixture
def model() -> Iterator[FakeLlmServer]:
    with fake_openai() as server:
        yield server


@pytest.fixture
def starter(model: FakeLlmServer) -> Iterator[AgentProcess]:
    """The starter agent in a mesh of its own, once its chat route has found `ask` (its own tool)."""
    with run_starter_with_model(model.base_url) as (_registry, running):
        yield running


def ask(page: Page, question: str) -> None:
    page.fill("#question", question)
    page.click("#send")


def test_the_answer_appears_as_the_model_writes_it(
    starter: AgentProcess, model: FakeLlmServer, page: Page
) -> None:
    resume = threading.Event()
    model.add(streamed("Hello", " from", " the", " mesh!", pause_after=1, resume=resume))
    page.goto(starter.base_url + "/chat")
    ask(page, "Say hello")
    answer = page.locator(".answer").last
    expect(answer).to_have_text("Hello", timeout=WAIT_MS)  # the rest is still held by the model
    expect(answer).to_have_class(re.compile(r"\bstreaming\b"))
    expect(page.locator("#send")).to_be_disabled()
    resume.set()
    expect(answer).to_have_text("Hello from the mesh!", timeout=WAIT_MS)
    expect(answer).not_to_have_class(re.compile(r"\bstreaming\b"), timeout=WAIT_MS)
    expect(page.locator("#send")).to_be_enabled()
    request = model.requests[0]
    assert request["stream"] is True
    assert request["messages"][-1] == {"role": "user", "content": "Say hello"}

    # the model breaks off mid-answer: what came stays, the error follows it
    model.add(streamed("Par", "tial", fail_after=1))
    ask(page, "And now?")
    failed = page.locator(".answer").last
    expect(failed).to_have_class(re.compile(r"\bfailed\b"), timeout=WAIT_MS)
    expect(failed).to_contain_text("Par")
    expect(failed).to_contain_text("Error: ")
    expect(page.locator(".question")).to_have_text(["Say hello", "And now?"])
    hello = [
        {"role": "user", "content": "Say hello"},
        {"role": "assistant", "content": "Hello from the mesh!"},
    ]
    assert model.requests[1]["messages"][1:] == [*hello, {"role": "user", "content": "And now?"}]

    # the conversation goes on without the failed exchange; "New chat" forgets it
    model.add(streamed("Still", " here."))
    ask(page, "Still there?")
    expect(page.locator(".answer").last).to_have_text("Still here.", timeout=WAIT_MS)
    expect(page.locator("#send")).to_be_enabled()
    assert model.requests[2]["messages"][1:] == [*hello, {"role": "user", "content": "Still there?"}]
    page.click("#restart")
    expect(page.locator(".turn")).to_have_count(0)

    # the screenshot for the docs: one finished answer
    page.goto(starter.base_url + "/chat")
    model.add(streamed("2 + 3", " = 5.", " Anything", " else?"))
    ask(page, "What is 2 + 3?")
    expect(page.locator(".answer")).to_have_text("2 + 3 = 5. Anything else?", timeout=WAIT_MS)
    expect(page.locator(".answer")).not_to_have_class(re.compile(r"\bstreaming\b"), timeout=WAIT_MS)
    assert model.requests[3]["messages"][1:] == [{"role": "user", "content": "What is 2 + 3?"}]
    page.screenshot(path=str(screenshot_path("starter-chat.png", docs=True)))


def test_without_a_provider_of_ask_the_page_says_so(page: Page) -> None:
    with run_agent("starter_app") as alone:  # no registry: the route's dependency stays unresolved
        page.goto(alone.base_url + "/chat")
        ask(page, "Anyone there?")
        answer = page.locator(".answer")
        expect(answer).to_have_class(re.compile(r"\bfailed\b"), timeout=WAIT_MS)
        expect(answer).to_have_text("Error: 503: no agent provides 'ask' yet")
        expect(page.locator("#send")).to_be_enabled()
