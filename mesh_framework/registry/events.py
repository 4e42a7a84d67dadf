"""Store events: what changed in a `RegistryStore`, for whoever reacts at once (the push stream, the page).

The store emits synchronously, from its own methods, on its event loop; a listener must be short and
must not call back into the store (schedule the work instead, as `TopologyPush` does).

Kinds:

- `registered`: a new agent, or one that came back (healthy again).
- `updated`: an agent's payload changed (tools, dependencies, endpoint).
- `unhealthy`: an agent was unregistered, timed out, or reported itself DOWN.
- `purged`: an unhealthy agent was forgotten.
- `providers`: providers of some capabilities changed; `consumers` are the agents whose answers may change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from .._frozen import frozen

__all__ = ["StoreEvent", "StoreEventKind", "StoreEvents", "StoreListener"]

logger = logging.getLogger("mesh_framework.registry")

StoreEventKind = Literal["registered", "updated", "unhealthy", "purged", "providers"]


@frozen
class StoreEvent:
    kind: StoreEventKind
    agent_id: str | None = None
    consumers: frozenset[str] = frozenset()


StoreListener = Callable[[StoreEvent], None]


class StoreEvents:
    """Listeners of one store. A listener that raises is logged and kept."""

    def __init__(self) -> None:
        self._listeners: list[StoreListener] = []

    def subscribe(self, listener: StoreListener) -> Callable[[], None]:
        """Add `listener`; returns the function that removes it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: StoreEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception:
                logger.exception("store event listener failed on %s", event.kind)
