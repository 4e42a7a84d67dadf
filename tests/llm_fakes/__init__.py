"""Fake LLM vendor APIs for tests: scripted turns over the real wire formats, every request recorded.

from tests.llm_fakes import fake_openai, text, tool_call

with fake_openai([tool_call("add", {"a": 1, "b": 2}), text("3")]) as server:
    ...  # point the SDK (or `LlmVendorSettings.base_url`) at server.base_url
    assert server.requests[0]["tools"][0]["function"]["name"] == "add"
"""

from .server import FakeLlmServer, fake_anthropic, fake_openai
from .turns import (
    Call,
    Received,
    Script,
    Turn,
    delayed,
    http_error,
    json_answer,
    parallel,
    streamed,
    text,
    tool_call,
)
from .wire import ANTHROPIC, OPENAI, Wire

__all__ = [
    "ANTHROPIC",
    "OPENAI",
    "Call",
    "FakeLlmServer",
    "Received",
    "Script",
    "Turn",
    "Wire",
    "delayed",
    "fake_anthropic",
    "fake_openai",
    "http_error",
    "json_answer",
    "parallel",
    "streamed",
    "text",
    "tool_call",
]
