"""The features' call observers (extension.CallObserver: metrics, the console) hooked into a built agent,
joined once (extension.join_observers): the endpoint's calls served, the proxies' calls and failovers, the
heartbeat's registry requests and the LLM agents' usage; and the agent's health verdict
(extension.AgentHealth) handed to the mesh runtime. Runs after every build (it replaces, never appends)."""

from __future__ import annotations

from typing import Any

from ..extension import join_observers

__all__ = ["wire_observability"]


def _ignored(*args: Any) -> None:
    """A proxy hook no observer sets, when another is set (a proxy calls both)."""


def wire_observability(container: Any) -> None:
    runtime = container.mesh_runtime()
    verdicts = container.agent_health()
    runtime.health = verdicts[0] if verdicts else None
    observed = join_observers(container.call_observers())
    runtime.registry_observer = observed.registry_request
    endpoint = container.mcp_endpoint()
    endpoint.on_tool_call = observed.tool_call
    factory = container.proxy_factory()
    factory.on_tool_call = observed.tool_call  # a call to this agent's own tool is a call served
    if observed.proxy_call is None and observed.proxy_failover is None:
        factory.observer = None
    else:
        observed.proxy_call = observed.proxy_call or _ignored
        observed.proxy_failover = observed.proxy_failover or _ignored
        factory.observer = observed
    llm_agents = container.bean_lookup().get("llm_agents")  # the LLM feature's, when the app uses an LLM
    for llm_agent in llm_agents.values() if llm_agents is not None else ():
        if hasattr(llm_agent, "on_usage"):
            llm_agent.on_usage = observed.llm_usage
