"""The per-call instruments kept as plain numbers (metrics/call_counters.py) expose exactly what
prometheus_client's own Counter and Histogram expose for the same calls."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from mesh_framework.metrics import MeshMetrics
from mesh_framework.metrics.mesh_metrics import LATENCY_BUCKETS

CALLS = [("add", False, 0.0003), ("add", True, 0.0005), ("add", False, 0.2), ("echo", False, 31.0)]
PROXY_CALLS = [
    ("add", "http://a:1", "ok", 0.001),
    ("add", "http://a:1", "error", 0.03),
    ("sum", "http://b:2", "ok", 5.0),
]


def _samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(generate_latest(registry).decode()):
        for sample in family.samples:
            if not sample.name.endswith("_created") and sample.name.startswith(
                ("mesh_tool", "mesh_proxy_call")
            ):
                found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def _reference() -> CollectorRegistry:
    """The same instruments as prometheus_client objects."""
    r = CollectorRegistry()
    calls = Counter("mesh_tool_calls_total", "Tool calls served", ["tool"], registry=r)
    errors = Counter("mesh_tool_errors_total", "Tool calls answered with isError", ["tool"], registry=r)
    duration = Histogram(
        "mesh_tool_call_duration_seconds", "d", ["tool"], buckets=LATENCY_BUCKETS, registry=r
    )
    proxy = Counter("mesh_proxy_calls_total", "p", ["capability", "endpoint", "outcome"], registry=r)
    proxy_duration = Histogram(
        "mesh_proxy_call_duration_seconds", "d", ["capability"], buckets=LATENCY_BUCKETS, registry=r
    )
    for tool, is_error, seconds in CALLS:
        calls.labels(tool).inc()
        errors.labels(tool).inc(1 if is_error else 0)
        duration.labels(tool).observe(seconds)
    for capability, endpoint, outcome, seconds in PROXY_CALLS:
        proxy.labels(capability, endpoint, outcome).inc()
        proxy_duration.labels(capability).observe(seconds)
    return r


def test_exposition_matches_prometheus_client() -> None:
    metrics = MeshMetrics()
    for call in CALLS:
        metrics.tool_call(*call)
    for proxy_call in PROXY_CALLS:
        metrics.proxy_call(*proxy_call)
    ours, reference = _samples(metrics.registry), _samples(_reference())
    assert ours == reference
    assert ours[("mesh_tool_call_duration_seconds_bucket", (("le", "0.0005"), ("tool", "add")))] == 2.0
    text = generate_latest(metrics.registry).decode()
    assert 'mesh_tool_calls_created{tool="add"}' in text  # as prometheus_client writes a counter
    assert "# TYPE mesh_tool_call_duration_seconds histogram" in text


def test_no_calls_no_samples() -> None:
    assert _samples(MeshMetrics().registry) == {}
