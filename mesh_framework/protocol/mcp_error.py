"""`McpError`: a JSON-RPC error answer of the MCP endpoint, with the HTTP status it takes on the modern
path; raised anywhere a request is checked (the endpoint, a `tools/call`'s reading, the task handlers)."""

from __future__ import annotations

from typing import Any

__all__ = ["McpError"]


class McpError(Exception):
    """A JSON-RPC error answer, with the HTTP status it takes on the modern path."""

    def __init__(self, code: int, message: str, *, data: Any = None, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.status = status

    def to_wire(self, request_id: Any) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": request_id, "error": error}
