"""A hostile page in a real browser (Chromium): a site the developer opens posts to the local registry, an
agent's route, its A2A endpoint and the console's tool form, and a rebinding host reads them. The guarded
edge refuses all of it: nothing registers, nothing runs, nothing is read."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import sync_playwright

from tests.agents import loopback

from ..agents import AgentProcess, run_agent, run_registry, wait_until
from ..browser import CHROMIUM, FLAGS

pytestmark = pytest.mark.timeout(120)

HOSTILE_HOST = "127.0.0.2"  # loopback, and another origin than the agents' pages
REBIND = "rebind.test"

EVIL_HEARTBEAT = {
    "agent_id": "evil-0001",
    "name": "evil",
    "agent_type": "mcp_agent",
    "runtime": "python",
    "version": "9.9.9",
    "http_host": "127.0.0.2",
    "http_port": 9,
    "tools": [{"function_name": "echo", "capability": "echo", "version": "9.9.9", "tags": []}],
}

PAGE = """<!doctype html><html><body>
<form id="order" method="POST" action="{agent}/api/orders" enctype="text/plain" target="sink">
<input name='{{"item":"form","quantity":1,"pad":"' value='"}}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
const simple = (body) => ({{method: "POST", mode: "no-cors",
  headers: {{"Content-Type": "text/plain"}}, body}});
const form = (body) => ({{method: "POST", mode: "no-cors",
  body: new URLSearchParams({{x: JSON.stringify(body)}})}});
async function attack() {{
  const shots = [
    ["{registry}/heartbeat", {heartbeat}],
    ["{agent}/api/orders", {{item: "fetch", quantity: 1}}],
    ["{agent}/a2a", {{jsonrpc: "2.0", id: 1, method: "message/send", params: {{message: {{role: "user",
      messageId: "m1", parts: [{{kind: "text", text: "pwned"}}]}}}}}}],
    ["{registry}/ui/call", {{agent_id: "{agent_id}", tool: "echo", arguments: {{text: "pwned"}}}}],
  ];
  for (const [url, body] of shots) {{
    try {{ await fetch(url, simple(JSON.stringify(body))); }} catch (e) {{}}
    try {{ await fetch(url, form(body)); }} catch (e) {{}}
  }}
  document.getElementById("sink").onload = () => {{ window.attackDone = true; }};
  document.getElementById("order").submit();
}}
attack();
</script></body></html>"""


@contextmanager
def _hostile_site(page: str) -> Iterator[str]:
    body = page.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer((HOSTILE_HOST, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{HOSTILE_HOST}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def mesh() -> Iterator[tuple[AgentProcess, AgentProcess]]:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.5"}
        with run_agent("tests.apps.edge_app", env=env) as agent:
            wait_until(lambda: _agent_ids(registry), 20)
            yield registry, agent


def _agent_ids(registry: AgentProcess) -> list[str]:
    agents = loopback.get(registry.base_url + "/agents", timeout=10).json()["agents"]
    return [a["id"] for a in agents]


def _calls(agent: AgentProcess) -> dict[str, int]:
    return loopback.get(agent.base_url + "/api/calls", timeout=10).json()  # type: ignore[no-any-return]


def test_a_page_of_another_site_takes_over_nothing(mesh: tuple[AgentProcess, AgentProcess]) -> None:
    registry, agent = mesh
    [agent_id] = _agent_ids(registry)
    page = PAGE.format(
        registry=registry.base_url,
        agent=agent.base_url,
        heartbeat=json.dumps(EVIL_HEARTBEAT),
        agent_id=agent_id,
    )
    with _hostile_site(page) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            tab = browser.new_page()
            tab.goto(url)
            tab.wait_for_function("window.attackDone === true", timeout=30_000)
        finally:
            browser.close()
    assert _agent_ids(registry) == [agent_id]  # the page registered no provider
    assert _calls(agent) == {"echo": 0, "orders": 0}  # no order placed, no skill or tool run


def test_a_rebinding_host_reads_nothing(mesh: tuple[AgentProcess, AgentProcess]) -> None:
    """DNS rebinding: the attacker's name now resolves to 127.0.0.1, so its page reads the local servers as
    its own origin; they see the attacker's Host and refuse."""
    registry, agent = mesh
    flags = [*FLAGS, f"--host-resolver-rules=MAP {REBIND} 127.0.0.1"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=flags)
        try:
            tab = browser.new_page()
            for base, path in [
                (registry, "/agents"),
                (registry, "/ui/state"),
                (registry, "/ui"),
                (agent, "/api/calls"),
                (agent, "/.well-known/agent-card.json"),
            ]:
                answer = tab.goto(f"http://{REBIND}:{base.port}{path}")
                assert answer is not None and answer.status == 421, (path, answer and answer.status)
                assert "evil" not in tab.content() and agent_id_free(tab.content())
        finally:
            browser.close()


def agent_id_free(text: str) -> bool:
    return "edge-agent-" not in text
