"""`MeshMetrics`: the Prometheus instruments of one agent, in a registry of its own.

Labels are bounded: tool and capability names come from the code; provider endpoints are capped per
capability (`MAX_ENDPOINTS`, then `other`); no arguments, ids or error texts ever become labels.

Feature packages add their own instruments to `metrics.registry` (names `mesh_<feature>_..._total`,
`..._seconds`); a background-job runner, for example:

    jobs_started = Counter("mesh_jobs_started_total", "Jobs started", ["tool"], registry=metrics.registry)

or register a collector that reads its state at scrape time with `metrics.add_collector(collector)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .call_counters import CallCounters
from .labels import BoundedLabel

__all__ = ["MAX_ENDPOINTS", "MeshMetrics"]

MAX_ENDPOINTS = 32

# Seconds: 0.5 ms (an in-process call) up to 30 s (a slow tool or LLM turn).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

ToolCallObserver = Callable[[str, bool, float], None]


class _StateCollector(Collector):
    """Gauges read at scrape time: dependency slots (resolved, providers) and health."""

    def __init__(self) -> None:
        self.tools: Iterable[Any] = ()
        self.health: Any = None

    def collect(self) -> Iterator[Metric]:
        resolved = GaugeMetricFamily(
            "mesh_dependency_resolved",
            "1 when the dependency slot of a tool has a provider, 0 when it is unresolved",
            labels=["tool", "capability"],
        )
        providers = GaugeMetricFamily(
            "mesh_dependency_providers",
            "Providers the dependency slot of a tool can call: the chosen one and its alternates",
            labels=["tool", "capability"],
        )
        for wrapper in list(self.tools):
            for slot, dependency in enumerate(wrapper.spec.dependencies):
                proxy = wrapper.slots[slot] if slot < len(wrapper.slots) else None
                labels = [wrapper.name, dependency.selector.capability]
                resolved.add_metric(labels, 0.0 if proxy is None else 1.0)
                providers.add_metric(
                    labels, 0.0 if proxy is None else 1.0 + len(getattr(proxy, "alternates", ()))
                )
        yield resolved
        yield providers
        if self.health is not None:
            health = GaugeMetricFamily(
                "mesh_health_status", "1 for the agent's current health status", labels=["status"]
            )
            current = self.health.status.value
            for status in ("UP", "DEGRADED", "DOWN"):
                health.add_metric([status], 1.0 if status == current else 0.0)
            yield health


class MeshMetrics:
    """The agent's instruments. The per-call hooks (`tool_call`, `proxy_call`) update plain numbers."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        r = self.registry
        # served tool calls and calls to other agents: plain numbers read at scrape time (call_counters.py)
        self.calls = CallCounters(LATENCY_BUCKETS)
        r.register(self.calls)
        self.proxy_failovers = Counter(
            "mesh_proxy_failovers_total",
            "Calls moved to an alternate provider, by the endpoint that could not take them",
            ["capability", "endpoint"],
            registry=r,
        )
        self.heartbeat_duration = Histogram(
            "mesh_heartbeat_duration_seconds",
            "Time of a registry request (kind: register, check, unregister)",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.heartbeat_failures = Counter(
            "mesh_heartbeat_failures_total", "Registry requests that failed", ["kind"], registry=r
        )
        self.llm_tokens = Counter(
            "mesh_llm_tokens_total",
            "LLM tokens used by a tool (kind: input, output)",
            ["tool", "kind"],
            registry=r,
        )
        self.llm_requests = Counter("mesh_llm_requests_total", "LLM tool-loop runs", ["tool"], registry=r)
        self._state = _StateCollector()
        r.register(self._state)
        self._endpoints: dict[str, BoundedLabel] = {}

    # -- wiring --------------------------------------------------------------------------------------

    def watch(self, tools: Iterable[Any] = (), health: Any = None) -> None:
        """Report these tools' dependency slots and this health monitor at scrape time."""
        self._state.tools = tools
        self._state.health = health

    def add_collector(self, collector: Collector) -> None:
        """A feature's own collector (read at scrape time)."""
        self.registry.register(collector)

    # -- hooks ---------------------------------------------------------------------------------------

    def tool_call(self, tool: str, is_error: bool, seconds: float) -> None:
        self.calls.tool_call(tool, is_error, seconds)

    def endpoint_label(self, capability: str, endpoint: str) -> str:
        bounded = self._endpoints.get(capability)
        if bounded is None:
            bounded = self._endpoints[capability] = BoundedLabel(MAX_ENDPOINTS)
        return bounded(endpoint)

    def proxy_call(self, capability: str, endpoint: str, outcome: str, seconds: float) -> None:
        self.calls.proxy_call(capability, self.endpoint_label(capability, endpoint), outcome, seconds)

    def proxy_failover(self, capability: str, endpoint: str) -> None:
        self.proxy_failovers.labels(capability, self.endpoint_label(capability, endpoint)).inc()

    def registry_request(self, kind: str, seconds: float, failed: bool) -> None:
        self.heartbeat_duration.labels(kind).observe(seconds)
        if failed:
            self.heartbeat_failures.labels(kind).inc()

    def llm_usage(self, tool: str, usage: Any) -> None:
        self.llm_requests.labels(tool).inc()
        self.llm_tokens.labels(tool, "input").inc(max(0, int(getattr(usage, "input_tokens", 0) or 0)))
        self.llm_tokens.labels(tool, "output").inc(max(0, int(getattr(usage, "output_tokens", 0) or 0)))
