"""The console's agent side: traffic and token counters, and the span buffer, pushed to the registry.

`TrafficRecorder` counts per tool served, per dependency edge called and per LLM model and tool (a few
counter updates per call); `ConsolePush` sends what changed to the registry every second
(`POST /console/push`), with the spans finished since (`tracing.state.spans`). A registry without the
console (MCP Mesh's answers 404) turns both off: the call path is back to no cost.
"""

from .push import ConsolePush
from .recorder import BUCKET_BOUNDS, SPAN_BUFFER, TrafficRecorder, percentile

__all__ = ["BUCKET_BOUNDS", "SPAN_BUFFER", "ConsolePush", "TrafficRecorder", "percentile"]
