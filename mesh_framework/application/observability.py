"""Health and metrics hooked into a built agent: indicators collected, instruments handed to the endpoint,
the proxies, the heartbeat and the LLM agents. Runs after every build (it replaces, never appends)."""

from __future__ import annotations

from typing import Any

from ..di.scan import ScanResult
from ..di.wiring import BeanCatalog
from ..health.indicator import collect_indicators
from ..specs import AgentSpec

__all__ = ["wire_observability"]


def wire_observability(container: Any, catalog: BeanCatalog, agent: AgentSpec, scan: ScanResult) -> None:
    monitor = container.health_monitor()
    components = [getattr(container, bean.name)() for bean in catalog.components]
    monitor.indicators = collect_indicators(scan.modules, components, agent.health_check)
    runtime = container.mesh_runtime()
    runtime.health = monitor
    if not container.settings().metrics.enabled:
        return
    metrics = container.metrics()
    tools = container.tools()
    metrics.watch(tools, monitor)
    container.mcp_endpoint().on_tool_call = metrics.tool_call
    container.proxy_factory().observer = metrics
    runtime.registry_observer = metrics.registry_request
    for llm_agent in container.llm_agents().values():
        if hasattr(llm_agent, "on_usage"):
            llm_agent.on_usage = metrics.llm_usage
