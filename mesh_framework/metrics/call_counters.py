"""The per-call instruments (tool calls served, calls to other agents) as plain numbers, turned into metric
families at scrape time.

prometheus_client's `Counter.inc` and `Histogram.observe` take a lock per value and walk the buckets one by
one: ~4.5 µs for a served call's three updates, ~5% of what the whole call costs the agent. Here a call
costs a dict lookup, a bisect and a few additions (the hooks run on the event loop, as does a scrape). The
exposition is the one prometheus_client writes for the same counters and histograms, `_created` included.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import cast

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

__all__ = ["CallCounters", "Latency"]

_le = cast(Callable[[float], str], floatToGoString)  # a bucket bound as prometheus_client writes it


class Latency:
    """Count, sum and bucket counts of one labelled histogram child (plus an error count for a tool)."""

    __slots__ = ("buckets", "count", "created", "errors", "total")

    def __init__(self, buckets: int) -> None:
        self.count = 0
        self.errors = 0
        self.total = 0.0
        self.buckets = [0] * (buckets + 1)  # the last: above the highest bound
        self.created = time.time()


class CallCounters(Collector):
    """`mesh_tool_calls_total`, `mesh_tool_errors_total`, `mesh_tool_call_duration_seconds`,
    `mesh_proxy_calls_total` and `mesh_proxy_call_duration_seconds`."""

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = tuple(bounds)
        self.tools: dict[str, Latency] = {}
        self.proxy_calls: dict[tuple[str, str, str], list[float]] = {}  # labels -> [count, created]
        self.proxies: dict[str, Latency] = {}

    def tool_call(self, tool: str, is_error: bool, seconds: float) -> None:
        stats = self.tools.get(tool)
        if stats is None:
            stats = self.tools[tool] = Latency(len(self.bounds))
        stats.count += 1
        if is_error:
            stats.errors += 1
        stats.total += seconds
        stats.buckets[bisect_left(self.bounds, seconds)] += 1

    def proxy_call(self, capability: str, endpoint: str, outcome: str, seconds: float) -> None:
        key = (capability, endpoint, outcome)
        counter = self.proxy_calls.get(key)
        if counter is None:
            counter = self.proxy_calls[key] = [0, time.time()]
        counter[0] += 1
        stats = self.proxies.get(capability)
        if stats is None:
            stats = self.proxies[capability] = Latency(len(self.bounds))
        stats.count += 1
        stats.total += seconds
        stats.buckets[bisect_left(self.bounds, seconds)] += 1

    def describe(self) -> Iterator[Metric]:
        return self._families(snapshot=False)

    def collect(self) -> Iterator[Metric]:
        return self._families(snapshot=True)

    def _families(self, *, snapshot: bool) -> Iterator[Metric]:
        tools = list(self.tools.items()) if snapshot else []
        calls = CounterMetricFamily("mesh_tool_calls", "Tool calls served", labels=["tool"])
        errors = CounterMetricFamily("mesh_tool_errors", "Tool calls answered with isError", labels=["tool"])
        for tool, stats in tools:
            calls.add_metric([tool], stats.count, created=stats.created)
            errors.add_metric([tool], stats.errors, created=stats.created)
        yield calls
        yield errors
        yield self._histogram("mesh_tool_call_duration_seconds", "Time to serve a tool call", "tool", tools)
        proxy_calls = CounterMetricFamily(
            "mesh_proxy_calls",
            "Calls to dependencies' tools, by outcome (ok, error, unreachable, cancelled)",
            labels=["capability", "endpoint", "outcome"],
        )
        for labels, (count, created) in list(self.proxy_calls.items()) if snapshot else []:
            proxy_calls.add_metric(list(labels), count, created=created)
        yield proxy_calls
        yield self._histogram(
            "mesh_proxy_call_duration_seconds",
            "Time of a call to another agent's tool",
            "capability",
            list(self.proxies.items()) if snapshot else [],
        )

    def _histogram(
        self, name: str, documentation: str, label: str, children: list[tuple[str, Latency]]
    ) -> HistogramMetricFamily:
        family = HistogramMetricFamily(name, documentation, labels=[label])
        edges = [_le(bound) for bound in self.bounds] + ["+Inf"]
        for value, stats in children:
            cumulative, running = [], 0
            for edge, count in zip(edges, stats.buckets, strict=True):
                running += count
                cumulative.append((edge, float(running)))
            family.add_metric([value], cumulative, stats.total, timestamp=None)
            family.add_sample(f"{name}_created", {label: value}, stats.created)
        return family
