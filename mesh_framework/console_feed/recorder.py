"""`TrafficRecorder`: what an agent served and called since its last push, as plain counters.

Per key (a tool served; a capability called at a provider's endpoint, this agent's own included; an LLM
model and tool) it keeps calls, errors, total seconds and a latency histogram over fixed bounds
(`BUCKET_BOUNDS`, so the registry can add histograms of several pushes and read a p99 from them). A call
costs a dict lookup, a bisect and four list updates. `take()` hands the counters over and starts new ones.
A call whose caller left (outcome `cancelled`) is a call, not an error.

When the agent's metrics already count the tools it serves, the recorder `follow`s those counters instead
of counting each call again: `take()` reads what they gained since the last take, each metrics bucket
counted in the console bucket that holds its upper bound (so p99 is read at the metrics' resolution).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
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
        self._followed: Mapping[str, Any] | None = None
        self._slots: list[int] = []  # a followed bucket's index -> the console bucket it is counted in
        self._seen: dict[str, tuple[int, int, float, list[int]]] = {}

    def follow(self, tools: Mapping[str, Any], bounds: Sequence[float]) -> None:
        """Read the served tools from cumulative counters kept elsewhere (per tool: `count`, `errors`,
        `total` and `buckets` over `bounds`, plus one above them); `tool_call` is then not hooked."""
        self._followed = tools
        self._slots = [bisect_left(BUCKET_BOUNDS, bound) for bound in bounds] + [len(BUCKET_BOUNDS)]
        self._seen = {}

    @property
    def following(self) -> bool:
        """The served tools are read from counters kept elsewhere (`follow`), not counted by `tool_call`."""
        return self._followed is not None

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
        if outcome not in ("ok", "cancelled"):  # a caller that left is a call, not an error
            stats[1] += 1
        stats[2] += seconds
        stats[3][bisect_left(BUCKET_BOUNDS, seconds)] += 1

    def proxy_failover(self, capability: str, endpoint: str) -> None:
        """Counted by `proxy_call` already (the unreachable attempt)."""

    def llm_usage(self, tool: str, usage: Any) -> None:
        """One run of an LLM tool, counted once a model answered: a run its caller left before any
        answer (a cancelled stream) names no model and cost nothing known, so it adds no row."""
        if not self.enabled or not getattr(usage, "iterations", 1):
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
        if self._followed is not None and self.enabled:
            tools = self._gained()
        return {
            "tools": [[tool, *_wire(stats)] for tool, stats in tools.items()],
            "edges": [[cap, endpoint, *_wire(stats)] for (cap, endpoint), stats in edges.items()],
            "tokens": [[model, tool, *counts] for (model, tool), counts in tokens.items()],
        }

    def _gained(self) -> dict[str, Stats]:
        """What the followed counters gained since the last take."""
        gained: dict[str, Stats] = {}
        seen, slots = self._seen, self._slots
        for tool, stats in list(self._followed.items()) if self._followed is not None else []:
            count = stats.count
            before = seen.get(tool)
            if before is not None and before[0] == count:
                continue
            buckets = list(stats.buckets)
            if before is None:
                before = (0, 0, 0.0, [0] * len(buckets))
            row = _new()
            row[0], row[1], row[2] = count - before[0], stats.errors - before[1], stats.total - before[2]
            histogram = row[3]
            for index, (now, then) in enumerate(zip(buckets, before[3], strict=True)):
                if now != then:
                    histogram[slots[index]] += now - then
            gained[tool] = row
            seen[tool] = (count, stats.errors, stats.total, buckets)
        return gained


def _wire(stats: Stats) -> list[Any]:
    histogram = {str(i): n for i, n in enumerate(stats[3]) if n}
    return [stats[0], stats[1], round(stats[2], 6), histogram]
