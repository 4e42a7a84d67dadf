"""The MCP client of the mesh benchmark: `tools/call` of `a + b` over one keep-alive HTTP/1.1 connection,
each answer classified (ok, unavailable, error, wrong, transport, timeout) with its latency."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

from _common import HOST

ACCEPT = "application/json, text/event-stream"


class Outcome:
    __slots__ = ("kind", "latency", "t", "text")

    def __init__(self, kind: str, text: str, latency: float, t: float) -> None:
        self.kind = kind  # ok | unavailable | error | wrong | transport | timeout
        self.text = text
        self.latency = latency
        self.t = t


class McpClient:
    """tools/call over one keep-alive HTTP/1.1 connection (reconnects after a transport error)."""

    def __init__(self, port: int, tool: str, timeout: float = 30.0) -> None:
        self.port = port
        self.tool = tool
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.next_id = 0
        self.headers = {"Content-Type": "application/json", "Accept": ACCEPT}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, a: int, b: int, timeout: float | None = None) -> Outcome:
        self.next_id += 1
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": self.tool, "arguments": {"a": a, "b": b}},
            }
        ).encode()
        started = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout or self.timeout)
            elif timeout is not None and self.conn.sock is not None:
                self.conn.sock.settimeout(timeout)
            self.conn.request("POST", "/mcp", body=body, headers=self.headers)
            response = self.conn.getresponse()
            payload = response.read()
            ctype = response.getheader("Content-Type", "")
            status = response.status
        except TimeoutError:
            self.close()
            return Outcome(
                "timeout", "no answer within the client timeout", time.perf_counter() - started, started
            )
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return Outcome(
                "transport", f"{type(exc).__name__}: {exc}", time.perf_counter() - started, started
            )
        latency = time.perf_counter() - started
        kind, text = classify(status, ctype, payload, a + b)
        return Outcome(kind, text, latency, started)


def parse_message(ctype: str, payload: bytes) -> dict[str, Any] | None:
    text = payload.decode(errors="replace")
    if "text/event-stream" in ctype:
        for block in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
            if data:
                return dict(json.loads(data))
        return None
    return dict(json.loads(text)) if text.strip() else None


def classify(status: int, ctype: str, payload: bytes, expected: int) -> tuple[str, str]:
    try:
        message = parse_message(ctype, payload)
    except ValueError:
        message = None
    if status != 200 or message is None:
        return "error", f"HTTP {status}: {payload[:200].decode(errors='replace')}"
    if "error" in message:
        return "error", f"JSON-RPC error: {json.dumps(message['error'])[:300]}"
    result = message.get("result") or {}
    texts = " ".join(c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text")
    if result.get("isError"):
        kind = "unavailable" if "not resolved" in texts else "error"
        return kind, texts[:300]
    structured = result.get("structuredContent")
    value = structured.get("result") if isinstance(structured, dict) and "result" in structured else texts
    if value == expected or str(value) == str(expected):
        return "ok", str(value)
    if value == "add unavailable":
        return "unavailable", str(value)
    return "wrong", str(value)[:300]
