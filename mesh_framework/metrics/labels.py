"""`BoundedLabel`: label values kept to a fixed number of distinct ones, so cardinality stays bounded."""

from __future__ import annotations

import threading

__all__ = ["OTHER", "BoundedLabel"]

OTHER = "other"


class BoundedLabel:
    """The first `limit` distinct values pass through; later new ones are reported as `other`."""

    __slots__ = ("_lock", "_seen", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        if value in self._seen:
            return value
        with self._lock:
            if len(self._seen) < self.limit:
                self._seen.add(value)
                return value
        return OTHER
