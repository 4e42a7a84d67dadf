"""Header propagation: which headers of an incoming tool call travel on to the calls it makes.

MCP Mesh's rule (`MCP_MESH_PROPAGATE_HEADERS`): an allowlist of header names, each exact or a prefix
ending in `*`, matched case-insensitively. The mesh's own infrastructure headers (the call budget and
the calling job's identity) always travel; the job-dispatch headers never do, since forwarding them
would make a nested call pose as the caller's job. Nothing else is forwarded, `Authorization`
included, unless the allowlist names it.

The endpoint captures the allowed headers of a call (from the HTTP request, and from the
`_mesh_headers` argument MCP Mesh's proxies may send; HTTP wins) into a context variable for the
duration of the call; the mesh transport adds them to every request the call makes.

The call budget (`X-Mesh-Timeout`, seconds) is a deadline, not a value passed on: the endpoint turns it
into the moment it runs out (`budget_deadline`), which bounds the tool, and each call the tool makes
sends what is left of it (`budget_left`), so the budget shrinks by the time spent at every hop.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "ALWAYS_PROPAGATED",
    "NEVER_PROPAGATED",
    "HeaderAllowlist",
    "budget_deadline",
    "budget_left",
    "call_deadline",
    "propagated_headers",
    "propagating",
]

ALWAYS_PROPAGATED = ("x-mesh-timeout", "x-mesh-calling-job-id", "x-mesh-calling-claim-epoch")
NEVER_PROPAGATED = frozenset({"x-mesh-job-id", "x-mesh-claim-epoch", "x-mesh-recv-cursor"})

_current: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "mesh_propagated_headers", default=MappingProxyType({})
)
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("mesh_call_deadline", default=None)


class HeaderAllowlist:
    """Header names (exact, or `prefix*`) that an agent forwards; the infrastructure headers always."""

    __slots__ = ("_exact", "_exact_raw", "_prefixes", "_prefixes_raw", "patterns")

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        cleaned = [p.strip().lower() for p in patterns if p.strip()]
        self.patterns = tuple(dict.fromkeys([*cleaned, *ALWAYS_PROPAGATED]))
        self._exact = frozenset(p for p in self.patterns if not p.endswith("*")) - NEVER_PROPAGATED
        self._prefixes = tuple(p[:-1] for p in self.patterns if p.endswith("*"))
        # The same as bytes: ASGI header names arrive lowercased, so the call path compares raw bytes.
        self._exact_raw = frozenset(p.encode("latin-1") for p in self._exact)
        self._prefixes_raw = tuple(p.encode("latin-1") for p in self._prefixes)

    def allows(self, name: str) -> bool:
        name = name.lower()
        if name in NEVER_PROPAGATED:
            return False
        return name in self._exact or name.startswith(self._prefixes)

    def capture(self, raw_headers: Iterable[tuple[bytes, bytes]], mesh_headers: Any = None) -> dict[str, str]:
        """The allowed headers of one call (ASGI's lowercased raw headers) over the allowed values of a
        `_mesh_headers` argument."""
        captured: dict[str, str] = {}
        if mesh_headers and isinstance(mesh_headers, Mapping):
            for key, value in mesh_headers.items():
                if isinstance(key, str) and isinstance(value, str) and self.allows(key):
                    captured[key.lower()] = value
        exact, prefixes = self._exact_raw, self._prefixes_raw
        for key, value in raw_headers:
            if key in exact or (prefixes and key.startswith(prefixes) and self.allows(key.decode("latin-1"))):
                captured[key.decode("latin-1")] = value.decode("latin-1")
        return captured


def propagated_headers() -> Mapping[str, str]:
    """The headers the current tool call forwards (empty outside a call)."""
    return _current.get()


def budget_deadline(value: str | None) -> float | None:
    """When a budget of `value` seconds (an `X-Mesh-Timeout` received now) runs out, on the monotonic
    clock; None when there is none or it is not a positive number."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    if not (seconds > 0 and math.isfinite(seconds)):
        return None
    return time.monotonic() + seconds


def call_deadline() -> float | None:
    """When the current call's budget runs out (monotonic clock); None without a budget."""
    return _deadline.get()


def budget_left() -> float | None:
    """Seconds left of the current call's budget (zero or less once spent); None without a budget."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


class propagating:
    """`with propagating(headers, deadline):` makes `headers` the current call's forwarded headers and
    `deadline` (from `budget_deadline`) the end of its budget."""

    __slots__ = ("_deadline", "_deadline_token", "_headers", "_token")

    def __init__(self, headers: Mapping[str, str], deadline: float | None = None) -> None:
        self._headers = headers
        self._deadline = deadline
        self._token: contextvars.Token[Mapping[str, str]] | None = None
        self._deadline_token: contextvars.Token[float | None] | None = None

    def __enter__(self) -> None:
        if self._headers:  # a call that forwards nothing leaves the (empty) default in place
            self._token = _current.set(self._headers)
        if self._deadline is not None:
            self._deadline_token = _deadline.set(self._deadline)

    def __exit__(self, *exc_info: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
        if self._deadline_token is not None:
            _deadline.reset(self._deadline_token)
