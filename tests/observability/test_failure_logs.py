"""A failing tool, prompt or resource body: an expected failure (a MeshError, such as a vendor without an
API key) is one log line, its traceback at DEBUG only; a bug (any other exception) keeps its traceback."""

from __future__ import annotations

import logging

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client


def records_about(caplog: pytest.LogCaptureFixture, subject: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith(subject)]


async def test_expected_failures_are_one_line_and_bugs_keep_their_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="mesh_framework")
    app = MeshApplication.load("tests.apps.failing_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        no_key = await client.call_tool("no_key")
        no_key_task = await client.call_tool("no_key_task")
        bug = await client.call_tool("bug")
        prompt = await client.request("prompts/get", {"name": "briefing", "arguments": {}}, name="briefing")
        resource = await client.request("resources/read", {"uri": "config://secret"}, name="config://secret")
        complete = {
            "ref": {"type": "ref/prompt", "name": "review"},
            "argument": {"name": "language", "value": "p"},
        }
        completion = await client.request("completion/complete", complete)
    assert no_key["isError"] and "LlmProviderError: no API key for openai" in no_key["content"][0]["text"]
    assert no_key_task["isError"] and "no API key for gemini" in no_key_task["content"][0]["text"]
    assert bug["isError"] and "KeyError" in bug["content"][0]["text"]
    assert "error" in prompt.json() and "error" in resource.json() and "error" in completion.json()

    for subject, message in [
        (
            "tool 'no_key'",
            "tool 'no_key' failed: LlmProviderError: no API key for openai: set OPENAI_API_KEY",
        ),
        ("tool 'no_key_task'", "tool 'no_key_task' failed: LlmProviderError: no API key for gemini"),
        ("prompt 'briefing'", "prompt 'briefing' failed: LlmProviderError: no API key for anthropic"),
        (
            "completer of prompt 'review' argument 'language'",
            "completer of prompt 'review' argument 'language' failed: LlmProviderError: no API key for the "
            "language model",
        ),
        (
            "resource 'config://secret'",
            "resource 'config://secret' failed: LlmProviderError: the vault is sealed",
        ),
    ]:
        shown, debug = records_about(caplog, subject)
        assert (shown.levelname, shown.getMessage(), shown.exc_info) == ("WARNING", message, None)
        assert debug.levelname == "DEBUG" and debug.exc_info is not None  # the traceback, for DEBUG only

    [raised] = records_about(caplog, "tool 'bug'")
    assert raised.levelname == "ERROR" and raised.exc_info is not None
    assert raised.exc_info[0] is KeyError
