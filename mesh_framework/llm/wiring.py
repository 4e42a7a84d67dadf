"""Builds the `LlmAgent` of every `@mesh_llm` tool and puts it in the tool's wrapper.

A `"vendor/model"` provider gets the vendor's adapter; a selector gets a `MeshProviderModel` whose
provider follows the topology (`llm_provider_available` / `_unavailable` events). The tools offered are
the registry's `llm_tools` for the tool (when it has a filter), the catalog servers it names, and its
local callbacks.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..callbacks.mcp import McpToolCallbackProvider
from ..callbacks.provider import ToolCallbackProvider
from ..config.settings import MeshSettings
from ..di.call_scope import CallScopes
from ..events import ApplicationEventPublisher
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..specs import Selector
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .agent import LlmAgent
from .config import LlmToolConfig
from .local_tools import local_callbacks
from .model import LlmError, LlmModel, LlmProviderError

if TYPE_CHECKING:  # the mesh's providers and tools: loaded for an agent whose model or tools the mesh gives
    from ..mesh.topology import TopologyEvent
    from .mesh_provider import MeshProviderModel
    from .types import LlmTurn
    from .vendors import ClientOf

__all__ = ["build_llm_agents", "direct_model"]

logger = logging.getLogger("mesh_framework.llm")

PROVIDER_TIMEOUT = 300.0  # seconds one call of a provider agent may take, as mcp-mesh consumers allow


def direct_model(config: LlmToolConfig, settings: MeshSettings, clients: ClientOf | None = None) -> LlmModel:
    """The vendor adapter for a `"vendor/model"` provider (a model override replaces the model), over the
    agent's client bean of the vendor (`clients`, llm/vendor_clients.py).

    An unknown vendor or a missing SDK stops start-up; the client itself is made on first use, so an agent
    starts without an API key and a call without one answers with an error saying where to set it.
    """
    assert isinstance(config.provider, str)
    spec = config.provider
    vendor = spec.split("/", 1)[0]
    if config.model:
        spec = config.model if "/" in config.model else f"{vendor}/{config.model}"
    check_vendor(spec)
    return _LazyModel(spec, settings, clients)


def check_vendor(spec: str) -> None:
    """LlmError when `spec` names no known vendor, or one whose SDK (extra) is not installed."""
    from .vendors import KNOWN_VENDORS

    vendor = spec.split("/", 1)[0]
    if vendor not in KNOWN_VENDORS:
        known = ", ".join(sorted(KNOWN_VENDORS))
        raise LlmError(f"Unknown LLM vendor '{vendor}' in '{spec}'. Known vendors: {known}.")
    if importlib.util.find_spec(vendor) is None:
        raise LlmError(
            f"LLM provider '{spec}' needs the {vendor} SDK: pip install 'mesh-framework[{vendor}]'"
        )


class _LazyModel(LlmModel):
    """A vendor model whose client is created on the first request."""

    def __init__(self, spec: str, settings: MeshSettings, clients: ClientOf | None = None) -> None:
        self.name = spec
        self._settings = settings
        self._clients = clients
        self._model: LlmModel | None = None

    async def complete(self, messages: Any, **options: Any) -> LlmTurn:
        return await self._created().complete(messages, **options)

    async def stream(self, messages: Any, **options: Any) -> AsyncGenerator[str | LlmTurn]:
        async with contextlib.aclosing(self._created().stream(messages, **options)) as events:
            async for event in events:
                yield event

    def _created(self) -> LlmModel:
        if self._model is None:
            from .vendors import create_model

            try:
                vendor = self._settings.llm.vendor(self.name.split("/", 1)[0])
                self._model = create_model(self.name, vendor, client=self._clients)
            except LlmError as exc:
                raise LlmProviderError(str(exc)) from None
        return self._model

    async def aclose(self) -> None:
        if self._model is not None:
            await self._model.aclose()


class _ProviderFollower:
    """Points a `MeshProviderModel` at the provider the registry names for its tool."""

    def __init__(self, model: MeshProviderModel, factory: McpMeshToolProxyFactory) -> None:
        self.model = model
        self.factory = factory

    def on_event(self, event: TopologyEvent) -> None:
        from ..mesh.proxy import McpMeshToolProxy, Provider

        if event.key != self.model.tool or not event.kind.startswith("llm_provider"):
            return
        data = event.data if isinstance(event.data, Mapping) else None
        if event.kind == "llm_provider_unavailable" or not data or not data.get("endpoint"):
            self.model.proxy = None
            logger.info("LLM tool '%s': no provider any more", self.model.tool)
            return
        provider = Provider.from_listing(data)
        alternates = [
            p for p in (Provider.from_listing(a) for a in data.get("alternates") or []) if p is not None
        ]
        if provider is None:
            return
        proxy = self.factory.proxy_for(str(data.get("capability") or "llm"), provider, alternates)
        if isinstance(proxy, McpMeshToolProxy):  # a model turn may take minutes, not a tool's 30 s
            proxy.timeout = max(proxy.timeout or 0.0, PROVIDER_TIMEOUT)
        self.model.proxy = proxy
        logger.info(
            "LLM tool '%s': provider %s at %s (tool %s)",
            self.model.tool,
            provider.agent_id,
            provider.endpoint,
            provider.function_name,
        )


def build_llm_agents(
    configs: Mapping[str, LlmToolConfig],
    tools: MeshToolWrapperRegistry,
    *,
    settings: MeshSettings,
    factory: McpMeshToolProxyFactory,
    publisher: ApplicationEventPublisher,
    catalog_callbacks: McpToolCallbackProvider | None,
    model_override: LlmModel | Mapping[str, LlmModel] | None = None,
    provide: Callable[[str], Any] | None = None,
    scopes: CallScopes | None = None,
    clients: ClientOf | None = None,
) -> dict[str, LlmAgent]:
    """One agent per LLM tool (by tool name), each set into its wrapper's `llm_agent`. `model_override`
    replaces the configured model (of every tool, or of the tools a mapping names); `provide` gives the
    beans local tools take (a bean's provider name -> the bean), `scopes` opens the call scope of a local
    tool that takes a call-scoped bean, per call the model makes; `clients` the vendor SDK clients of the
    agent, by type (`VendorClients.client`)."""
    agents: dict[str, LlmAgent] = {}
    for name, config in configs.items():
        model: LlmModel
        override = model_override.get(name) if isinstance(model_override, Mapping) else model_override
        if override is not None:
            model = override
        elif isinstance(config.provider, Selector):
            from ..mesh.topology import TopologyEvent
            from .mesh_provider import MeshProviderModel

            model = MeshProviderModel(
                config.provider, tool=name, caller=settings.agent.id or "", model=config.model
            )
            publisher.subscribe(TopologyEvent, _ProviderFollower(model, factory).on_event)
        else:
            model = direct_model(config, settings, clients)
        providers: list[ToolCallbackProvider] = []
        if config.filter:
            from ..callbacks.mesh import MeshToolCallbackProvider

            providers.append(MeshToolCallbackProvider(name, factory=factory, publisher=publisher))
        if config.catalog_servers:
            if catalog_callbacks is None:  # a route's servers: checked against the catalog only here
                raise LlmError(
                    f"LLM tool '{name}': tools={list(config.catalog_servers)!r} name MCP servers, but the "
                    "settings name none; add them to mcp.servers or a catalog file (mcp.catalog)"
                )
            connections = [catalog_callbacks.connection(server) for server in config.catalog_servers]
            providers.append(McpToolCallbackProvider(connections, publisher=publisher))
        agent = LlmAgent(config, model, providers, local_callbacks(config.callbacks, provide, scopes))
        wrapper = tools.get(name)
        if wrapper is not None:
            wrapper.llm_agent = agent
        agents[name] = agent
    return agents
