"""Signed `requestState` for multi-round-trip calls: the client carries it, we verify it came from us."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any

from pydantic_core import from_json, to_json

__all__ = ["RequestStateSigner", "TamperedStateError"]


class TamperedStateError(ValueError):
    """The requestState was not issued by this agent for this tool (or was altered)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class RequestStateSigner:
    """HMAC-SHA256 over the tool name and the state. Agents behind one load balancer need the same key
    (`server.request_state_key`); without one, each process draws a random key."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def _mac(self, tool: str, payload: bytes) -> str:
        return _b64(hmac.new(self._key, tool.encode() + b"\0" + payload, hashlib.sha256).digest())

    def encode(self, tool: str, state: Any) -> str:
        payload = to_json(state)
        return f"{_b64(payload)}.{self._mac(tool, payload)}"

    def decode(self, tool: str, token: Any) -> Any:
        if not isinstance(token, str) or token.count(".") != 1:
            raise TamperedStateError("requestState is not a state this agent issued")
        encoded, mac = token.split(".")
        try:
            payload = _unb64(encoded)
        except ValueError:
            raise TamperedStateError("requestState is not a state this agent issued") from None
        if not hmac.compare_digest(mac, self._mac(tool, payload)):
            raise TamperedStateError(
                f"requestState failed verification for tool '{tool}' (altered, or issued "
                "by another agent or for another tool)"
            )
        return from_json(payload)
