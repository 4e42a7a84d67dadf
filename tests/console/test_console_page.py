"""The mesh console (`/ui`: traffic, tokens, traces, events, try a tool) in a real browser: Debian's
Chromium, headless, driven by Playwright, against a real `mesh registry` and real `mesh run` agents
making real calls. The screenshots of the operations page (docs/images/console-*.png) are taken here
(see tests/artifacts.py). The tests that neither restart the registry nor fill its trace store share one
registry: each finds its own agents by id and counts what it added to the registry's totals.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.agents import (
    AgentProcess,
    dependency_providers,
    forget_agents,
    loopback,
    registered_id,
    run_agent,
    run_registry,
    stop,
    wait_until,
)
from tests.artifacts import screenshot_path
from tests.browser import chromium, new_page
from tests.llm_fakes import fake_openai, text, tool_call

pytestmark = pytest.mark.timeout(240)

WAIT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with new_page(browser, 1400, 1000) as opened:
        yield opened


@pytest.fixture(scope="module")
def shared() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        yield running


@pytest.fixture
def registry(shared: AgentProcess) -> AgentProcess:
    """The module's registry, offering no agent (one an earlier test killed is taken out as it left)."""
    forget_agents(shared)
    return shared


def registered(registry: AgentProcess, name: str) -> int:
    """How many `register` events of agents called `name` the registry's console lists."""
    events = loopback.get(registry.base_url + "/ui/events", timeout=5).json()["events"]
    return sum(1 for e in events if e["event_type"] == "register" and e["agent_name"] == name)


def call(url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One real `tools/call` to an agent's MCP endpoint; its result."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = loopback.post(url, json=request, timeout=30).json()
    return dict(answer["result"])


def choose(page: Page, agent: str, tool: str) -> None:
    page.select_option("#call-tool", value=f"{agent} {tool}")


def test_the_console_shows_traffic_traces_and_calls_tools(registry: AgentProcess, page: Page) -> None:
    # what earlier tests left in the registry's totals and events (nothing when this test runs first)
    before = loopback.get(registry.base_url + "/ui/console", timeout=5).json()["totals"]
    sleepers_before = registered(registry, "console-sleeper")
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("tests.apps.tracing_app.back", env=env) as back,
        run_agent("tests.apps.tracing_app.middle", env=env) as middle,
        run_agent("tests.apps.tracing_app.front", env=env) as front,
        run_agent("tests.apps.console_app.sleeper", env=env) as sleeper,
    ):
        wait_until(lambda: dependency_providers(middle, "middle", "back") == 1, timeout=30)
        wait_until(lambda: dependency_providers(front, "front", "middle") == 1, timeout=30)
        front_id, sleeper_id = registered_id(registry, front), registered_id(registry, sleeper)
        middle_id, back_id = registered_id(registry, middle), registered_id(registry, back)
        for i in range(5):
            assert call(front.mcp_url, "front", {"text": str(i)})["isError"] is False
        for _ in range(2):
            assert call(sleeper.mcp_url, "explode", {})["isError"] is True

        refused: list[str] = []  # what the page's Content-Security-Policy refused (none: all of it runs)
        page.on("console", lambda m: refused.append(m.text) if "Security Policy" in m.text else None)
        page.goto(registry.base_url + "/ui")
        # traffic: the numbers are the calls made
        edge = page.locator(f'#traffic-edges tr[data-from="{front_id}"][data-capability="middle"]')
        expect(edge.locator("td.total")).to_have_text("5", timeout=WAIT_MS)
        expect(edge).to_contain_text("trace-middle")
        expect(
            page.locator(f'#traffic-edges tr[data-from="{middle_id}"][data-to="{back_id}"] td.total')
        ).to_have_text("5")
        for tool, agent in (("front", front_id), ("middle", middle_id), ("back", back_id)):
            row = page.locator(f'#traffic-tools tr[data-agent="{agent}"][data-tool="{tool}"]')
            expect(row.locator("td.calls")).to_have_text("5", timeout=WAIT_MS)
            expect(row.locator("td.errors")).to_have_text("0")
        explode = page.locator(f'#traffic-tools tr[data-agent="{sleeper_id}"][data-tool="explode"]')
        expect(explode.locator("td.errors")).to_have_text("2", timeout=WAIT_MS)
        expect(explode).to_contain_text("100.0 %")
        # 5 calls each of front, middle and back, 2 of explode
        expect(page.locator("#traffic-totals")).to_contain_text(
            f"{before['calls'] + 17} call(s), {before['errors'] + 2} error(s)"
        )
        expect(page.locator("#traffic-tools svg.spark").first).to_be_visible()

        # traces: each front call is one trace of five spans over three agents
        traces = page.locator("#traces tr.trace", has_text="tools/call front")
        expect(traces).to_have_count(5, timeout=WAIT_MS)
        first = traces.first
        expect(first.locator("td.spans")).to_have_text("5", timeout=WAIT_MS)
        expect(first).to_contain_text("trace-front, trace-middle, trace-back")
        first.click()
        waterfall = page.locator("tr.waterfall tr.span")
        expect(waterfall).to_have_count(5)
        # a bar's place and width are styles, set through the CSSOM (the policy refuses style attributes)
        assert page.locator("tr.waterfall div.bar").first.evaluate("bar => bar.style.width").endswith("%")
        for agent in (front_id, middle_id, back_id):
            expect(page.locator(f'tr.waterfall tr.span[data-agent="{agent}"]')).to_have_count(
                2 if agent != back_id else 1
            )
        failed = page.locator("#traces tr.trace.failed", has_text="tools/call explode")
        expect(failed).to_have_count(2)
        page.locator("#traffic-totals").scroll_into_view_if_needed()
        page.locator(".layout").screenshot(path=str(screenshot_path("console-traffic.png", docs=True)))
        page.locator("#traces").screenshot(path=str(screenshot_path("console-trace.png", docs=True)))

        # events: the registrations
        expect(page.locator('#events li[data-type="register"]', has_text="console-sleeper")).to_have_count(
            sleepers_before + 1
        )

        # framework tools are hidden until the toggle shows them
        sleeper_row = page.locator(f'#agents tr[data-agent="{sleeper_id}"]')
        expect(sleeper_row).to_contain_text("greet")
        expect(sleeper_row).not_to_contain_text("__mesh_job_status")
        expect(page.locator("#call-tool option", has_text="__mesh_job_status")).to_have_count(0)
        page.check("#show-framework")
        expect(sleeper_row).to_contain_text("__mesh_job_status")
        expect(page.locator("#call-tool option", has_text="__mesh_job_status").first).to_be_attached(
            timeout=WAIT_MS
        )
        page.uncheck("#show-framework")

        # try a tool: a form from a flat schema
        choose(page, sleeper_id, "greet")
        page.fill('#call-fields input[name="name"]', "Ada")
        page.fill('#call-fields input[name="times"]', "2")
        page.select_option('#call-fields select[name="mood"]', "happy")
        page.click("#call-run")
        expect(page.locator("#call-result")).to_contain_text(
            "hello Ada (happy) hello Ada (happy)", timeout=WAIT_MS
        )
        page.locator("#try").screenshot(path=str(screenshot_path("console-try.png", docs=True)))

        # a call that fails: its error shows, and the next call works
        choose(page, sleeper_id, "explode")
        page.click("#call-run")
        expect(page.locator("#call-status")).to_have_text("the tool failed", timeout=WAIT_MS)
        expect(page.locator("#call-result.bad")).to_contain_text("exploded on purpose")
        choose(page, sleeper_id, "greet")
        page.fill('#call-fields input[name="name"]', "Bo")
        page.click("#call-run")
        expect(page.locator("#call-result")).to_contain_text("hello Bo (calm)", timeout=WAIT_MS)

        # a streamed tool: its chunks
        choose(page, sleeper_id, "words")
        page.fill('#call-fields input[name="count"]', "4")
        page.click("#call-run")
        expect(page.locator("#call-chunks")).to_have_text("word1 word2 word3 word4 ", timeout=WAIT_MS)
        expect(page.locator("#call-status")).to_have_text("done")

        # a background job: followed to its end
        choose(page, sleeper_id, "count_to")
        page.fill('#call-fields input[name="n"]', "3")
        page.click("#call-run")
        expect(page.locator("#call-status")).to_contain_text("completed", timeout=WAIT_MS)
        expect(page.locator("#call-result")).to_contain_text('"counted": 3')

        # a nested schema: raw JSON, and a bad JSON says so without calling
        choose(page, sleeper_id, "route_length")
        expect(page.locator("#call-raw-note")).to_be_visible()
        page.fill("#call-json", "{not json")
        page.click("#call-run")
        expect(page.locator("#call-result.bad")).to_contain_text("invalid arguments")
        page.fill("#call-json", '{"route": {"name": "r", "points": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}}')
        page.click("#call-run")
        expect(page.locator("#call-result")).to_have_text("2", timeout=WAIT_MS)

        # a call to an agent that left: the error shows, the page goes on
        choose(page, sleeper_id, "greet")
        stop(sleeper.process)
        page.fill('#call-fields input[name="name"]', "Cy")
        page.click("#call-run")
        expect(page.locator("#call-status")).to_have_text("error", timeout=WAIT_MS)
        expect(page.locator("#call-result.bad")).not_to_be_empty()
        expect(page.locator("#live")).to_have_text("live")
        assert refused == []


def test_an_agent_that_dies_mid_trace_leaves_the_spans_it_did_not_finish_out(
    registry: AgentProcess, page: Page
) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("tests.apps.console_app.sleeper", env=env) as sleeper,
        run_agent("tests.apps.console_app.caller", env=env) as caller,
    ):
        wait_until(lambda: dependency_providers(caller, "sleepy", "nap") == 1, timeout=30)
        page.goto(registry.base_url + "/ui")
        answers: list[dict[str, Any]] = []
        calling = threading.Thread(
            target=lambda: answers.append(call(caller.mcp_url, "sleepy", {"seconds": 30}))
        )
        calling.start()
        wait_until(lambda: "napping" in sleeper.text(), timeout=15)  # inside nap now
        stop(sleeper.process, sig=9)  # killed: its server span is never finished nor pushed
        calling.join(timeout=30)
        assert answers and answers[0]["isError"] is True
        trace = page.locator("#traces tr.trace", has_text="tools/call sleepy")
        expect(trace).to_have_count(1, timeout=WAIT_MS)
        expect(trace.locator("td.spans")).to_have_text("2")  # the caller's two; the sleeper's is gone
        expect(trace).to_contain_text("error(s)")
        trace.click()
        expect(page.locator("tr.waterfall tr.span-error").first).to_contain_text("nap")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_page_stays_open_across_a_registry_restart(page: Page) -> None:
    port = _free_port()
    with run_registry(port, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with run_agent("tests.apps.console_app.sleeper", env=env) as sleeper:
            page.goto(registry.base_url + "/ui")
            call(sleeper.mcp_url, "nap", {})
            nap_total = page.locator('#traffic-tools tr[data-tool="nap"] td.total')
            expect(nap_total).to_have_text("1", timeout=WAIT_MS)
            page.evaluate("window.__same_page = true")
            stop(registry.process)
            expect(page.locator("#console-status")).to_contain_text("registry unreachable", timeout=WAIT_MS)
            with run_registry(port, "--timeout", "120"):
                expect(page.locator("#console-status")).to_have_text("", timeout=WAIT_MS)
                expect(
                    page.locator(f'#agents tr[data-agent="{registered_id(registry, sleeper)}"]')
                ).to_contain_text("healthy", timeout=WAIT_MS)
                call(sleeper.mcp_url, "nap", {})
                call(sleeper.mcp_url, "nap", {})
                # the new registry counts from zero; the page follows its new numbering
                expect(nap_total).to_have_text("2", timeout=WAIT_MS)
                expect(page.locator("#traces tr.trace", has_text="tools/call nap")).to_have_count(3)
                assert page.evaluate("window.__same_page") is True


def test_ten_thousand_traces_keep_the_bound_and_the_page_responsive(page: Page) -> None:
    with run_registry(0, "--timeout", "120") as registry:
        url = registry.base_url
        page.goto(url + "/ui")
        expect(page.locator("#traces")).to_contain_text("no traces yet", timeout=WAIT_MS)
        with httpx2.Client(trust_env=False, timeout=30) as http:
            for batch in range(20):  # 10,000 traces of three spans, as an agent pushes them
                spans = []
                for i in range(500):
                    trace = f"{batch * 500 + i + 1:032x}"
                    spans += [
                        [trace, "a" * 16, "", "tools/call front", "SERVER", "front", 1.0e9, 0.003, ""],
                        [
                            trace,
                            "b" * 16,
                            "a" * 16,
                            "tools/call middle",
                            "CLIENT",
                            "front: middle",
                            1.0e9,
                            0.002,
                            "",
                        ],
                        [
                            trace,
                            "c" * 16,
                            "b" * 16,
                            "tools/call middle",
                            "SERVER",
                            "middle",
                            1.0e9,
                            0.001,
                            "",
                        ],
                    ]
                response = http.post(url + "/console/push", json={"agent_id": "load-1", "spans": spans})
                assert response.status_code == 204
            view = http.get(url + "/ui/console").json()
        assert view["retained_traces"] == view["max_traces"] == 2000
        assert view["evicted_traces"] == 8000
        # the page polls each second: one poll during the pushes adds the newest of that moment (the page
        # shows up to 200), so what one first poll brings is counted on a page opened after them
        page.reload()
        rows = page.locator("#traces tr.trace")
        expect(rows).to_have_count(100, timeout=WAIT_MS)  # the newest the registry hands over at once
        rows.first.click()
        expect(page.locator("tr.waterfall tr.span")).to_have_count(3)  # Playwright's 5 s: the page answers
        expect(page.locator("#traces-kept")).to_contain_text("2000 kept by the registry (at most 2000; 8000")


def test_llm_tokens_by_model_and_tool_and_the_llm_iterations_in_the_trace(
    registry: AgentProcess, page: Page
) -> None:
    """The starter's direct-mode `ask` against a fake OpenAI server (through the official SDK): two model
    turns of 11 tokens in and 7 out each, and the `add` it asks for served by the same agent. The call is
    made as soon as the agent serves, most often before it joined the mesh: traced all the same."""
    script = [tool_call("add", {"a": 2, "b": 3}), text("2 + 3 = 5")]
    with fake_openai(script) as model:
        env = {
            "MCP_MESH_REGISTRY_URL": registry.base_url,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        with run_agent("starter_app", env=env) as starter:
            assert "2 + 3 = 5" in str(call(starter.mcp_url, "ask", {"question": "what is 2+3?"})["content"])
            page.goto(registry.base_url + "/ui")
            row = page.locator('#tokens tr[data-tool="ask"]')
            expect(row).to_have_count(1, timeout=WAIT_MS)
            expect(row.locator("td.num")).to_have_text(["22", "14", "1"])
            expect(page.locator("#tokens tr.model-total")).to_contain_text("gpt-4o-mini")
            expect(page.locator("#llm tbody tr", has_text="ask")).to_contain_text("openai/gpt-4o-mini")
            # the call's span ends after its tokens are counted: it may reach the registry a push (1 s) later
            trace = page.locator("#traces tr.trace", has_text="tools/call ask")
            expect(trace).to_have_count(1, timeout=WAIT_MS)
            trace.click()
            expect(page.locator("tr.waterfall tr.span", has_text="llm iteration")).to_have_count(
                2, timeout=WAIT_MS
            )


# What a control looks like on this page (the page's font, its border colour `--line`, one radius), read
# from the computed style: a browser's default control has its own font, size and border.
CONTROL_STYLE = """element => {
  const style = getComputedStyle(element), body = getComputedStyle(document.body);
  return {
    font: style.fontFamily === body.fontFamily, size: style.fontSize, radius: style.borderTopLeftRadius,
    border: style.borderTopColor, padding: style.paddingLeft,
  };
}"""


def test_the_try_a_tool_form_is_styled_as_the_page(registry: AgentProcess, page: Page) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with run_agent("tests.apps.console_app.sleeper", env=env) as sleeper:
        sleeper_id = registered_id(registry, sleeper)
        page.goto(registry.base_url + "/ui")
        expect(page.locator(f'#call-tool option[value="{sleeper_id} greet"]')).to_be_attached(timeout=WAIT_MS)
        choose(page, sleeper_id, "greet")
        controls = {
            "the tool list": "#call-tool",
            "a text field": '#call-fields input[name="name"]',
            "a number field": '#call-fields input[name="times"]',
            "a choice": '#call-fields select[name="mood"]',
            "the call button": "#call-run",
        }
        page_style = {"font": True, "size": "14px", "radius": "6px", "border": "rgb(208, 215, 222)"}
        for what, selector in controls.items():
            style = page.locator(selector).evaluate(CONTROL_STYLE)
            assert {key: style[key] for key in page_style} == page_style, what
            assert style["padding"] != "0px", what
        # the raw JSON box of a nested schema, in the page's monospace
        choose(page, sleeper_id, "route_length")
        area = page.locator("#call-json").evaluate(CONTROL_STYLE)
        assert (area["radius"], area["border"]) == ("6px", "rgb(208, 215, 222)")
