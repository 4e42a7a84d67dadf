"""The LLM's beans (gated by llm/auto_configuration.py): every `@mesh_llm` tool's settings resolved while
the app loads (a bad provider, prompt, local tool or catalog server stops start-up, every problem listed),
the LLM agents of the tools and `@mesh_llm` routes built with the agent and the vendor SDK clients their
models take from the container by type (llm/vendor_clients.py); the provider service of
`@mesh_llm_provider` tools is llm/provider_beans.py's, for an app that serves a model. The container closes
the agents and the service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..config.settings import MeshSettings
from ..decorators import LLM_ATTR
from ..di.conditions import conditional_on_class, conditional_on_missing_bean
from ..di.configuration import bean, configuration
from ..di.wiring import describe_location
from ..errors import ConfigError, MeshError, WiringError
from ..events import ApplicationEventPublisher
from ..extension import AgentInitializer, BeanLookup, BuiltAgent, LoadPlan, ScannedApp
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from .agent import LlmAgent
from .config import LlmToolConfig, resolve_llm_config
from .local_tools import plan_local_tools
from .vendor_clients import VendorClient, VendorClients
from .vendors import CLIENT_TYPES
from .wiring import build_llm_agents

__all__ = ["LlmAgents", "LlmBeans", "LlmToolPlans", "plan_llm_tools"]


def plan_llm_tools(app: ScannedApp, servers: list[str] | None) -> tuple[dict[str, LlmToolConfig], list[str]]:
    """Every `@mesh_llm` tool's settings resolved now, so a bad provider or prompt stops start-up; the
    catalog servers a tool names must be among `servers` (None: the catalog has problems of its own,
    reported with the others, so they are not checked)."""
    configs: dict[str, LlmToolConfig] = {}
    problems: list[str] = []
    for plan in app.tool_plans:
        function = plan.spec.function
        if getattr(function, LLM_ATTR, None) is None:
            continue  # one that takes a MeshLlmAgent anyway: llm/auto_configuration.LlmParameters
        where = f"{describe_location(function)}: tool '{plan.name}'"
        if not any(p.kind == "llm" for p in plan.signature.injected):
            problems.append(f"{where} has @mesh_llm but no parameter typed MeshLlmAgent to receive it")
            continue
        try:
            config = resolve_llm_config(
                plan.name,
                function,
                app.loaded,
                return_type=plan.signature.return_type,
                streams=plan.signature.streams,
            )
        except ConfigError as exc:
            problems.extend(f"{where}: {p}" for p in exc.problems)
            continue
        config, local_problems = plan_local_tools(
            config, can_inject=app.catalog.can_inject, bean_for=app.bean_for, planned=app.tool_plans
        )
        problems.extend(f"{where}: {p}" for p in local_problems)
        missing = [s for s in config.catalog_servers if servers is not None and s not in servers]
        if missing:
            problems.append(
                f"{where}: tools={missing!r} (from {config.origins.get('tools', 'code')}) name no MCP server "
                f"of the catalog (it has: {', '.join(servers or ()) or 'none'})"
            )
            continue
        configs[plan.name] = config
    return configs, problems


class LlmToolPlans(LoadPlan):
    """The `@mesh_llm` tools' settings (`configs`, by tool name), or the problems with them."""

    def __init__(self, app: ScannedApp, lookup: BeanLookup) -> None:
        catalog = lookup.get("mcp_catalog_plan")  # an app that names no MCP server has none: empty
        servers = [] if catalog is None else None if catalog.problems else list(catalog.catalog)
        self.configs, self.problems = plan_llm_tools(app, servers)


class LlmAgents:
    """The LLM agents of the tools and routes, by tool name (a route's: `METHOD:/path`); closed with the
    agent."""

    def __init__(self, agents: dict[str, LlmAgent]) -> None:
        self._agents = agents

    def __getitem__(self, name: str) -> LlmAgent:
        return self._agents[name]

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    def __iter__(self) -> Iterator[str]:
        return iter(self._agents)

    def __len__(self) -> int:
        return len(self._agents)

    def get(self, name: str) -> LlmAgent | None:
        return self._agents.get(name)

    def values(self) -> list[LlmAgent]:
        return list(self._agents.values())

    def items(self) -> list[tuple[str, LlmAgent]]:
        return list(self._agents.items())

    async def aclose(self) -> None:
        for agent in self._agents.values():
            await agent.aclose()


def build_agents(
    configs: dict[str, LlmToolConfig],
    settings: MeshSettings,
    factory: McpMeshToolProxyFactory,
    publisher: ApplicationEventPublisher,
    lookup: BeanLookup,
) -> dict[str, LlmAgent]:
    """The agents of the tools' `configs` and of the web routes' (`web_app.llm_configs`, when the app
    serves routes). Catalog callbacks are made only for an agent that names catalog servers."""
    web = lookup.get("web_app")
    routes: dict[str, Any] = dict(getattr(web, "llm_configs", None) or {})
    if not configs and not routes:
        return {}
    named = any(c.catalog_servers for c in (*configs.values(), *routes.values()))
    beans = lookup("bean_lifecycle")  # the local tools' call-scoped beans: a scope per call the model makes
    kwargs: dict[str, Any] = {
        "settings": settings,
        "factory": factory,
        "publisher": publisher,
        "catalog_callbacks": lookup.get("mcp_tool_callbacks") if named else None,
        "model_override": lookup("llm_model"),
        "provide": lookup,  # the beans `@mesh_llm(tools=[...])` local tools take
        "scopes": beans.scopes if beans is not None else None,
        "clients": lookup("llm_vendor_clients").client,
    }
    agents = build_llm_agents(configs, lookup("tools"), **kwargs)
    if routes:
        agents.update(build_llm_agents(routes, web.registry, **kwargs))
    return agents


class _BuildAgents(AgentInitializer):
    """The agents are built with the agent, once its tools and routes are: a provider that cannot be used
    stops the build."""

    def __init__(self, lookup: BeanLookup) -> None:
        self.lookup = lookup

    def initialize(self, agent: BuiltAgent) -> None:
        try:
            self.lookup("llm_agents")
        except MeshError as exc:
            raise WiringError([str(exc)]) from None


@configuration
class LlmBeans:
    @bean
    def llm_configs(self, app: ScannedApp, lookup: BeanLookup) -> LlmToolPlans:
        return LlmToolPlans(app, lookup)

    @bean(lazy=True)  # made with the agent (llm_agent_build), once every tool and route is in place
    def llm_agents(
        self,
        plans: LlmToolPlans,
        settings: MeshSettings,
        factory: McpMeshToolProxyFactory,
        publisher: ApplicationEventPublisher,
        lookup: BeanLookup,
    ) -> LlmAgents:
        return LlmAgents(build_agents(plans.configs, settings, factory, publisher, lookup))

    @bean
    def llm_agent_build(self, lookup: BeanLookup) -> AgentInitializer:
        return _BuildAgents(lookup)

    @bean
    def llm_vendor_clients(
        self, app: ScannedApp, lookup: BeanLookup, defaults: list[VendorClient]
    ) -> VendorClients:
        return VendorClients(app, lookup, defaults)

    # The vendors' SDK clients, made on first use (llm/vendor_clients.py); an app's own bean of the SDK's
    # class wins, named by its dotted name so that the check imports no SDK.
    @bean
    @conditional_on_class("openai")
    @conditional_on_missing_bean(CLIENT_TYPES["openai"])
    def openai_client(self, settings: MeshSettings) -> VendorClient:
        return VendorClient("openai", settings.llm.vendor("openai"))

    @bean
    @conditional_on_class("anthropic")
    @conditional_on_missing_bean(CLIENT_TYPES["anthropic"])
    def anthropic_client(self, settings: MeshSettings) -> VendorClient:
        return VendorClient("anthropic", settings.llm.vendor("anthropic"))
