"""The console's agent side: traffic and token counters, and the span buffer, pushed to the registry.

`TrafficRecorder` counts per tool served, per dependency edge called and per LLM model and tool (a few
counter updates per call); `ConsolePush` sends what changed to the registry every second
(`POST /console/push`), with the spans finished since (`tracing.state.spans`). A registry without the
console (MCP Mesh's answers 404) turns both off: the call path is back to no cost. Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .push import ConsolePush
    from .recorder import BUCKET_BOUNDS, SPAN_BUFFER, TrafficRecorder, percentile

__all__ = ["BUCKET_BOUNDS", "SPAN_BUFFER", "ConsolePush", "TrafficRecorder", "percentile"]

_HOMES = {
    "BUCKET_BOUNDS": ".recorder",
    "SPAN_BUFFER": ".recorder",
    "ConsolePush": ".push",
    "TrafficRecorder": ".recorder",
    "percentile": ".recorder",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
