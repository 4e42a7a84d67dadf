"""`TrafficRecorder`: what an agent served and called since its last push, as plain counters.

Per key (a tool served; a capability called at a provider's endpoint; an LLM model and tool) it keeps
calls, errors, total seconds and a latency histogram over fixed bounds (`BUCKET_BOUNDS`, so the registry
can add histograms of several pushes and read a p99 from them). A call costs a dict lookup, a bisect and
four list updates. `take()` hands the counters over and starts new ones.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

__all__ = ["BUCKET_BOUNDS", "SPAN_BUFFER", "TrafficRecorder", "percentile"]

# Upper bounds in seconds, 0.1 ms to 60 s growing by ~1.5; one more bucket holds everything slower.
BUCKET_BOUNDS: tuple[float, ...] = tuple(round(0.0001 * 1.5**i, 7) for i in range(33))
SPAN_BUFFER = 4096  # spans an agent holds between two pushes (the oldest go first)

Stats = list[Any]  # [calls, errors, seconds, histogram: list[int]]


def _new() -> Stats:
    return [0, 0, 0.0, [0] * (len(BUCKET_BOUNDS) + 1)]


def percentile(histogram: Sequence[int], fraction: float) -> float:
    """The upper bound (seconds) of the bucket holding the `fraction` quantile; 0.0 for no calls."""
    total = sum(histogram)
    if total == 0:
        return 0.0
    wanted, seen = fraction * total, 0
    for index, count in enumerate(histogram):
        seen += count
        if seen >= wanted:
            return BUCKET_BOUNDS[min(index, len(BUCKET_BOUNDS) - 1)]
    return BUCKET_BOUNDS[-1]


class TrafficRecorder:
    """The counters of one agent. Its hooks have the shapes `MeshMetrics`' have: the endpoint's
    `on_tool_call`, the proxies' observer and the LLM agents' `on_usage`."""

    def __init__(self) -> None:
        self.enabled = True
        self.tools: dict[str, Stats] = {}
        self.edges: dict[tuple[str, str], Stats] = {}
        self.tokens: dict[tuple[str, str], list[int]] = {}  # (model, tool) -> [input, output, requests]

    def tool_call(self, tool: str, is_error: bool, seconds: float) -> None:
        if not self.enabled:
            return
        stats = self.tools.get(tool)
        if stats is None:
            stats = self.tools[tool] = _new()
        stats[0] += 1
        if is_error:
            stats[1] += 1
        stats[2] += seconds
        stats[3][bisect_left(BUCKET_BOUNDS, seconds)] += 1

    def proxy_call(self, capability: str, endpoint: str, outcome: str, seconds: float) -> None:
        if not self.enabled:
            return
        key = (capability, endpoint)
        stats = self.edges.get(key)
        if stats is None:
            stats = self.edges[key] = _new()
        stats[0] += 1
        if outcome != "ok":
            stats[1] += 1
        stats[2] += seconds
        stats[3][bisect_left(BUCKET_BOUNDS, seconds)] += 1

    def proxy_failover(self, capability: str, endpoint: str) -> None:
        """Counted by `proxy_call` already (the unreachable attempt)."""

    def llm_usage(self, tool: str, usage: Any) -> None:
        if not self.enabled:
            return
        key = (str(getattr(usage, "model", "") or "unknown"), tool)
        counts = self.tokens.get(key)
        if counts is None:
            counts = self.tokens[key] = [0, 0, 0]
        counts[0] += max(0, int(getattr(usage, "input_tokens", 0) or 0))
        counts[1] += max(0, int(getattr(usage, "output_tokens", 0) or 0))
        counts[2] += 1

    def take(self) -> dict[str, Any]:
        """The counters since the last `take` as JSON-ready lists (histograms sparse), and new ones."""
        tools, edges, tokens = self.tools, self.edges, self.tokens
        self.tools, self.edges, self.tokens = {}, {}, {}
        return {
            "tools": [[tool, *_wire(stats)] for tool, stats in tools.items()],
            "edges": [[cap, endpoint, *_wire(stats)] for (cap, endpoint), stats in edges.items()],
            "tokens": [[model, tool, *counts] for (model, tool), counts in tokens.items()],
        }


def _wire(stats: Stats) -> list[Any]:
    histogram = {str(i): n for i, n in enumerate(stats[3]) if n}
    return [stats[0], stats[1], round(stats[2], 6), histogram]
