"""The provider service's bean (gated by llm/auto_configuration.py on the app serving a model): the
service `@mesh_llm_provider` tools answer with, made on their first request and closed with the agent. An
app that serves no model loads neither this module nor llm/provider.py."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import BeanLookup
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from .provider import LlmProviderService
from .vendor_clients import VendorClients

__all__ = ["LlmProviderBeans"]


@configuration
class LlmProviderBeans:
    @bean(lazy=True)  # made on the first request to a `@mesh_llm_provider` tool
    def llm_provider_service(
        self,
        settings: MeshSettings,
        factory: McpMeshToolProxyFactory,
        clients: VendorClients,
        lookup: BeanLookup,
    ) -> LlmProviderService:
        override = lookup("llm_model")
        return LlmProviderService(settings, factory=factory, override=override, clients=clients.client)
