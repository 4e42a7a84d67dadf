"""The catalog gateway's beans (gated by callbacks/auto_configuration.py on `mcp.gateway`): the gateway
over its servers, sharing the catalog callbacks' connections, made once the agent is built (every other
tool is in the registry then); its tool changes followed by the endpoint and the agent's registration;
its servers discovered, and their tools served, before the agent serves. The container closes it."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..errors import ConfigError
from ..events import ApplicationEventPublisher
from ..extension import AgentInitializer, BeanLookup, BuiltAgent, ServingLifecycle
from .beans import FAIL_FAST_PHASE
from .catalog_gateway import CatalogGateway
from .mcp import McpToolCallbackProvider

__all__ = ["GATEWAY_PHASE", "GatewayBeans"]

# After the catalog's fail-fast check, before the features' other lifecycles.
GATEWAY_PHASE = FAIL_FAST_PHASE + 10


class _GatewayTools(AgentInitializer):
    """The gateway's servers' tools come and go: the endpoint announces `tools.listChanged` and follows,
    and so does the agent's registration."""

    def __init__(self, lookup: BeanLookup) -> None:
        self.lookup = lookup

    def initialize(self, agent: BuiltAgent) -> None:
        gateway = self.lookup("gateway")  # made now: every other tool is in the registry
        endpoint, runtime = agent.container.mcp_endpoint(), agent.container.mesh_runtime()
        endpoint.announce_tool_changes()
        gateway.on_change = lambda: (endpoint.tools_changed(), runtime.tools_changed())


class _GatewayStart(ServingLifecycle):
    """The gateway's servers discovered, and their tools served, before the agent serves; with
    `mcp.fail_fast` a server that is down stops start-up."""

    phase = GATEWAY_PHASE

    def __init__(self, lookup: BeanLookup, fail_fast: bool) -> None:
        self.lookup = lookup
        self.fail_fast = fail_fast

    async def start(self) -> None:
        gateway: CatalogGateway = self.lookup("gateway")
        await gateway.start()
        if self.fail_fast and gateway.provider.errors:
            await gateway.aclose()
            raise ConfigError(
                [f"mcp.gateway: MCP server '{n}': {r}" for n, r in gateway.provider.errors.items()]
            )


@configuration
class GatewayBeans:
    @bean(lazy=True)  # made once the agent is built, when every other tool is in the registry
    def gateway(
        self, settings: MeshSettings, publisher: ApplicationEventPublisher, lookup: BeanLookup
    ) -> CatalogGateway:
        """The gateway over `mcp.gateway`'s servers, sharing the catalog callbacks' connections."""
        shared = lookup("mcp_tool_callbacks")
        provider = McpToolCallbackProvider([shared.connection(name) for name in settings.mcp.gateway])
        return CatalogGateway(
            provider, lookup("tools"), publisher=publisher, retry_interval=settings.mcp.retry_interval
        )

    @bean
    def gateway_tool_changes(self, lookup: BeanLookup) -> AgentInitializer:
        return _GatewayTools(lookup)

    @bean(order=GATEWAY_PHASE)
    def gateway_start(self, settings: MeshSettings, lookup: BeanLookup) -> ServingLifecycle:
        return _GatewayStart(lookup, settings.mcp.fail_fast)
