"""The canonical schemas agents published, by hash: MCP Mesh's `GET /schemas` and `GET /schemas/{hash}`.

Every tool's `inputSchemaCanonical`/`inputSchemaHash` and `outputSchemaCanonical`/`outputSchemaHash` pair is
kept under the hash the agent sent (not checked, as MCP Mesh does not check it) with the time it was first
seen and the runtime of the agent that first sent it; a later agent sending the same hash changes nothing.
Expected schemas of dependencies are not kept (nor are they by MCP Mesh). At most `capacity` entries are
kept, the oldest going first; an agent still publishing an evicted schema adds it again when its
registration next changes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .audit import timestamp
from .payload import PayloadError, Registration, read_canonical

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "SchemaCatalog"]

DEFAULT_LIMIT = 100  # MCP Mesh's registry: limit defaults to 100 and is clamped to 1..1000
MAX_LIMIT = 1000
DEFAULT_CAPACITY = 10_000
_PAIRS = (("inputSchemaCanonical", "inputSchemaHash"), ("outputSchemaCanonical", "outputSchemaHash"))


class SchemaCatalog:
    """Published canonical schemas, oldest first, bounded by `capacity`."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity <= 0:
            raise ValueError(f"capacity must be positive, not {capacity!r}")
        self.capacity = capacity
        self._entries: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, registration: Registration) -> None:
        """Keep the schemas of a registration (call when it is new or changed)."""
        tools = registration.raw.get("tools") if isinstance(registration.raw, dict) else None
        for tool in tools if isinstance(tools, list) else ():
            if not isinstance(tool, dict):
                continue
            for canonical_key, hash_key in _PAIRS:
                digest = tool.get(hash_key)
                if not isinstance(digest, str) or not digest or digest in self._entries:
                    continue
                try:
                    canonical = read_canonical(tool.get(canonical_key), canonical_key)
                except PayloadError:
                    continue  # an input form the registry does not read otherwise; not kept
                if canonical is None:
                    continue
                self._entries[digest] = {
                    "canonical": canonical,
                    "created_at": timestamp(),
                    "hash": digest,
                    "runtime_origin": registration.runtime,
                }
                if len(self._entries) > self.capacity:
                    self._entries.popitem(last=False)

    def get(self, digest: str) -> dict[str, Any] | None:
        return self._entries.get(digest)

    def newest(self, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` entries (clamped to 1..MAX_LIMIT), newest first."""
        limit = min(max(limit, 1), MAX_LIMIT)
        found: list[dict[str, Any]] = []
        for entry in reversed(self._entries.values()):
            if len(found) == limit:
                break
            found.append(entry)
        return found
