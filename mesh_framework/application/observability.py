"""Health, metrics and the console hooked into a built agent: indicators collected, instruments handed to
the endpoint, the proxies, the heartbeat and the LLM agents. Runs after every build (it replaces, never
appends). With both metrics and the console on, the console reads the metrics' counters of the calls
served, and the other hooks call both (decided here, not per call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..console import TrafficRecorder
from ..di.scan import ScanResult
from ..di.wiring import BeanCatalog
from ..health.indicator import collect_indicators
from ..specs import AgentSpec

__all__ = ["wire_observability"]


class _Both:
    """The proxies' observer when metrics and the console both watch."""

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second

    def proxy_call(self, capability: str, endpoint: str, outcome: str, seconds: float) -> None:
        self.first.proxy_call(capability, endpoint, outcome, seconds)
        self.second.proxy_call(capability, endpoint, outcome, seconds)

    def proxy_failover(self, capability: str, endpoint: str) -> None:
        self.first.proxy_failover(capability, endpoint)
        self.second.proxy_failover(capability, endpoint)


Hook = Callable[..., None]


def _both(first: Hook | None, second: Hook | None) -> Hook | None:
    if first is None or second is None:
        return first or second

    def both(*args: Any) -> None:
        first(*args)
        second(*args)

    return both


def wire_observability(container: Any, catalog: BeanCatalog, agent: AgentSpec, scan: ScanResult) -> None:
    monitor = container.health_monitor()
    components = [
        getattr(container, bean.name)()
        for bean in catalog.components
        if bean.scope == "singleton" and not bean.lazy  # a lazy bean is not made to look for indicators
    ]
    monitor.indicators = collect_indicators(scan.modules, components, agent.health_check)
    runtime = container.mesh_runtime()
    runtime.health = monitor
    settings = container.settings()
    # the console gathers traffic whenever the agent joins a registry (console/; off again on a 404)
    console = TrafficRecorder() if settings.registry.enabled else None
    runtime.console = console
    metrics = container.metrics() if settings.metrics.enabled else None
    if metrics is None and console is None:
        return
    if metrics is not None:
        metrics.watch(container.tools(), monitor)
        runtime.registry_observer = metrics.registry_request
    endpoint = container.mcp_endpoint()
    if metrics is not None:  # the console reads the metrics' counters of served calls (console/recorder.py)
        endpoint.on_tool_call = metrics.calls.tool_call
        if console is not None:
            console.follow(metrics.calls.tools, metrics.calls.bounds)
    else:
        endpoint.on_tool_call = console.tool_call if console else None
    factory = container.proxy_factory()
    factory.observer = _Both(metrics, console) if metrics and console else (metrics or console)
    factory.on_tool_call = endpoint.on_tool_call  # a call to this agent's own tool is a call served
    on_usage = _both(metrics.llm_usage if metrics else None, console.llm_usage if console else None)
    llm_agents = container.bean_lookup().get("llm_agents")  # the LLM feature's, when the app uses an LLM
    for llm_agent in llm_agents.values() if llm_agents is not None else ():
        if hasattr(llm_agent, "on_usage"):
            llm_agent.on_usage = on_usage
