"""A stdio MCP server that misbehaves on purpose, written without the SDK so every byte is ours.

Modes (first argument):
  crash      exits at once with status 3, a message on stderr
  hang       reads requests and never answers (initialize times out)
  odd        answers properly: a good tool, a tool that answers `isError`, one that returns its `_meta`
  badschema  like odd, but also lists a tool whose input schema is not an object schema
  linger     like hang, but when its stdin closes it writes its pid to the file named by the second
             argument and stays alive until it is killed (the client's shutdown takes seconds)

Every mode that answers also answers a call of the unlisted tool `interpreter` with its `sys.executable`.
"""

from __future__ import annotations

import json
import os
import sys
import time

TOOLS = [
    {
        "name": "good",
        "description": "Echo text",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {"name": "bad-schema", "description": "Schema is not an object", "inputSchema": {"type": "string"}},
    {"name": "fails", "description": "Always fails", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "meta", "description": "Returns the _meta it received", "inputSchema": {"type": "object"}},
    {"name": "die", "description": "Exits the process", "inputSchema": {"type": "object"}},
]


def answer(message_id: object, result: object = None, error: object = None) -> None:
    body: dict[str, object] = {"jsonrpc": "2.0", "id": message_id}
    body.update({"error": error} if error is not None else {"result": result})
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def serve_odd(tools: list[dict[str, object]]) -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            answer(
                message_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "odd-fixture", "version": "9.9.9"},
                },
            )
        elif method == "tools/list":
            answer(message_id, {"tools": tools})
        elif method == "tools/call" and params.get("name") == "good":
            text = (params.get("arguments") or {}).get("text", "")
            answer(message_id, {"content": [{"type": "text", "text": f"good: {text}"}]})
        elif method == "tools/call" and params.get("name") == "fails":
            answer(
                message_id, {"content": [{"type": "text", "text": "disk quota exceeded"}], "isError": True}
            )
        elif method == "tools/call" and params.get("name") == "meta":
            answer(message_id, {"content": [], "structuredContent": {"meta": params.get("_meta") or {}}})
        elif method == "tools/call" and params.get("name") == "interpreter":
            answer(message_id, {"content": [{"type": "text", "text": sys.executable}]})
        elif method == "tools/call" and params.get("name") == "die":
            sys.exit(4)
        elif method == "ping":
            answer(message_id, {})
        else:
            answer(message_id, error={"code": -32601, "message": f"Method not found: {method}"})


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "odd"
    if mode == "crash":
        sys.stderr.write("fixture: crashing on purpose\n")
        sys.exit(3)
    if mode == "hang":
        for _line in sys.stdin:
            time.sleep(0.01)
        sys.exit(0)
    if mode == "linger":
        for _line in sys.stdin:
            pass
        with open(sys.argv[2], "w") as marker:
            marker.write(str(os.getpid()))
        time.sleep(60)  # bounded: the client's shutdown terminates it long before
        sys.exit(0)
    serve_odd(TOOLS if mode == "badschema" else [t for t in TOOLS if t["name"] != "bad-schema"])
