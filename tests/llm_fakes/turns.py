"""Scripted model turns, independent of the wire format that serves them.

text("It is 3.")                                  a final answer
tool_call("add", {"a": 1, "b": 2})                one tool call (arguments as a dict)
tool_call("add", '{"a": 1,')                      arguments sent verbatim (malformed JSON)
parallel(tool_call("add", {...}), tool_call("mul", {...}))
json_answer({"city": "Oslo"})                     a structured answer (JSON text)
http_error(429)                                   an error status (429 retried at once by the SDKs)
delayed(5.0, text("late"))                        answered after a delay
streamed("Hel", "lo")                             a final answer streamed in these deltas (to stream=True)
streamed("Hel", "lo", fail_after=1, fail="drop")  the stream breaks after one delta (or "error" event)
streamed("Hel", hold=True)                        the stream stays open after its deltas
streamed("Hel", "lo", pause_after=1, resume=event)  "Hel", then "lo" once the test sets `event`
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "Call",
    "Received",
    "Script",
    "Turn",
    "delayed",
    "http_error",
    "json_answer",
    "parallel",
    "streamed",
    "text",
    "tool_call",
]


@dataclass(frozen=True)
class Call:
    """A tool call; `arguments` as a string are sent verbatim (so they may be malformed)."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    @property
    def raw(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Turn:
    """One scripted answer. `status` other than 200 answers the vendor's error body with `error`."""

    text: str | None = None
    calls: tuple[Call, ...] = ()
    input_tokens: int = 11
    output_tokens: int = 7
    stop_reason: str | None = None
    model: str | None = None
    status: int = 200
    error: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # Streaming (a request with stream=True): the text deltas, and how the stream breaks (streaming.py).
    chunks: tuple[str, ...] = ()
    fail_after: int | None = None
    fail: str = "error"
    hold: bool = False
    pause_after: int | None = None  # after this many deltas the stream waits for `resume` to be set
    resume: threading.Event | None = None


@dataclass(frozen=True)
class Received:
    """One request the fake got."""

    path: str
    headers: Mapping[str, str]
    body: dict[str, Any]

    @property
    def api_key(self) -> str | None:
        """The key the client sent (`Authorization: Bearer` or `x-api-key`)."""
        bearer = self.headers.get("authorization", "")
        return bearer.removeprefix("Bearer ") if bearer else self.headers.get("x-api-key")


Script = Turn | Callable[[Received], Turn]
"""A turn, or a function that makes one from the request (to echo what the client sent)."""


def text(
    content: str, *, input_tokens: int = 11, output_tokens: int = 7, stop_reason: str | None = None
) -> Turn:
    return Turn(text=content, input_tokens=input_tokens, output_tokens=output_tokens, stop_reason=stop_reason)


def tool_call(
    name: str,
    arguments: Mapping[str, Any] | str | None = None,
    *,
    id: str | None = None,
    text: str | None = None,
) -> Turn:
    return Turn(text=text, calls=(Call(name, {} if arguments is None else arguments, id),))


def parallel(*turns: Turn) -> Turn:
    """One turn with the calls of all `turns` (made with `tool_call`)."""
    return Turn(calls=tuple(call for turn in turns for call in turn.calls))


def json_answer(value: Any) -> Turn:
    return text(json.dumps(value))


def http_error(status: int, message: str = "", *, retry_after_ms: int = 1) -> Turn:
    """An error answer; `retry-after-ms` keeps the SDKs' retries of 408/409/429/5xx fast."""
    headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms else {}
    return Turn(status=status, error=message or f"fake error {status}", headers=headers)


def delayed(seconds: float, turn: Turn | None = None) -> Turn:
    return replace(turn or text("late"), delay=seconds)


def streamed(
    *chunks: str,
    fail_after: int | None = None,
    fail: str = "error",
    hold: bool = False,
    pause_after: int | None = None,
    resume: threading.Event | None = None,
    **options: Any,
) -> Turn:
    """A final answer whose text is sent (to a streaming request) as these deltas; with `pause_after`,
    the stream stops after that many deltas until `resume` is set (so a test sees the first ones alone)."""
    if (pause_after is None) != (resume is None):
        raise ValueError("streamed(): pause_after and resume go together")
    return Turn(
        text="".join(chunks),
        chunks=chunks,
        fail_after=fail_after,
        fail=fail,
        hold=hold,
        pause_after=pause_after,
        resume=resume,
        **options,
    )
