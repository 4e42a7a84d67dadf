"""`mesh list` and `mesh status` show what a registry says with its control characters escaped: an agent
registered with ANSI escapes, carriage returns and line breaks in its name, tools, tags and version can
neither clear the terminal nor forge rows."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.agents import loopback

from ..agents import AgentProcess, run_cli, run_registry
from .test_cli_terminal import on_terminal

pytestmark = pytest.mark.timeout(90)

EVIL = "evil\x1b[2J\x1b]0;pwned\x07\rforged  healthy\nrow\x9b31m"
SHOWN = "evil\\x1b[2J\\x1b]0;pwned\\x07\\x0dforged  healthy\\x0arow\\x9b31m"
RAW = ("\x1b[2J", "\x1b]0;", "\x07", "\x9b", "\rforged", "\nrow")
HOSTILE = {
    "agent_id": "evil-0000000c",
    "name": EVIL,
    "version": "1.0\x1b[8m",
    "http_host": "127.0.0.1",
    "http_port": 9103,
    "tools": [{"function_name": "tool\x1b[5m", "capability": "cap\rfake", "tags": ["t\x1b[31m"]}],
}


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:
        answer = loopback.post(running.base_url + "/heartbeat", json=HOSTILE, timeout=5)
        assert answer.status_code == 200, answer.text
        yield running


def assert_escaped(output: str) -> None:
    for raw in RAW:
        assert raw not in output
    assert SHOWN in output


def test_list_escapes_what_the_registry_says(registry: AgentProcess) -> None:
    result = run_cli(["list", "--registry-url", registry.base_url])
    assert result.returncode == 0, result.stderr
    assert_escaped(result.stdout)
    assert "tool\\x1b[5m" in result.stdout
    assert len(result.stdout.splitlines()) == 2  # the header and the one agent: no forged row


def test_status_escapes_what_the_registry_says(registry: AgentProcess) -> None:
    result = run_cli(["status", "--registry-url", registry.base_url])
    assert result.returncode == 0, result.stderr
    assert_escaped(result.stdout)
    assert "cap\\x0dfake [t\\x1b[31m]" in result.stdout
    assert "\x1b[" not in result.stdout


def test_the_terminal_tables_escape_it_too(registry: AgentProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    for command in ("list", "status"):
        code, raw = on_terminal(
            [command, "--registry-url", registry.base_url], monkeypatch, {"NO_COLOR": "1"}
        )
        assert code == 0, raw
        for unsafe in ("\x1b[2J", "\x1b]0;", "\x07", "\x9b", "\x1b[5m", "\x1b[8m", "\x1b[31m"):
            assert unsafe not in raw, (command, raw)
        assert "\\x1b[2J" in raw


def test_json_keeps_the_text_and_escapes_it_as_json(registry: AgentProcess) -> None:
    result = run_cli(["list", "--registry-url", registry.base_url, "--json"])
    assert result.returncode == 0, result.stderr
    assert not any(char in result.stdout for char in "\x1b\x07\r\x9b")
    (agent,) = json.loads(result.stdout)["agents"]
    assert agent["name"] == EVIL and agent["tools"] == ["tool\x1b[5m"]
