"""`MeshGateway`: every healthy tool of the mesh served at one MCP endpoint, kept live from the registry.

The endpoint is the agents' own (`protocol/mcp_server.py`: both protocol eras, stateless, the Host/Origin
guard, `tools/list_changed` on a `GET` stream and on `subscriptions/listen`), behind the guarded edge for
every other path (`/health`, `/ready`, ...). The tool list follows the registry (`follower.py`): each new
listing is planned into served tools (`catalog.py`), the endpoint's list is rendered again and listening
clients are told, when anything they see changed. With `discovery="search"` the endpoint serves
`search_tools`, `describe_tool` and `call_tool` over those tools instead (`search.py`).

A call reaches the agents through the mesh's proxies (`mesh/proxy_factory.py`, the gateway's settings:
`tools.timeout`, TLS, credentials). The headers of `mesh.propagate_headers` travel on, and so does the
caller's `Authorization`: an agent that checks tokens checks the client's, as it would if called directly.

The gateway traces as an agent does (`tracing.*`): while it serves, its tracer is the process's
(`observation.install`), so each call is a server span continuing the caller's trace and its call to the
agent a client span whose context travels on; the spans are exported as an agent's are.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from .. import observation
from .._version import __version__
from ..config.settings import MeshSettings
from ..edge import EdgePolicy
from ..health.monitor import HealthMonitor
from ..health.probes import probe_routes
from ..mesh.proxy import DEFAULT_STREAM_TIMEOUT, McpMeshToolProxy, Provider
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..propagation import HeaderAllowlist
from ..protocol.asgi import AgentApp, AgentState, build_asgi_app
from ..protocol.mcp_server import McpEndpoint
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .follower import RegistryFollower
from .offers import GatewayFilter, Offer, ServedTool, offers_of, plan_tools
from .search import ToolSearch, discovery_tools
from .tools import MeshGatewayTool, PassThroughState

__all__ = ["Discovery", "MeshGateway"]

logger = logging.getLogger("mesh_framework.mesh_gateway")

Discovery = Literal["all", "search"]

INSTRUCTIONS = {
    "all": "The tools of an MCP mesh: each tool runs on the agent that serves it.",
    "search": "The tools of an MCP mesh, found on demand: search_tools finds tools by what they do, "
    "describe_tool gives one's input schema, call_tool calls it.",
}


def _tracer(settings: MeshSettings) -> observation.Tracer:
    """The tracer an agent with these settings would have: the tracing feature's while `tracing.enabled`
    or logs are JSON (they name each call), else the core's no-op."""
    json_logs = settings.logging.format == "json"
    if not (settings.tracing.enabled or json_logs):
        return observation.Tracer()
    from ..tracing.tracer import SpanTracer

    return SpanTracer(settings.tracing, agent=settings.agent.name, json_logs=json_logs)


def _provider(offer: Offer) -> Provider:
    timeout = offer.kwargs.get("stream_timeout")
    return Provider(
        agent_id=offer.agent_id,
        endpoint=offer.endpoint,
        function_name=offer.function_name,
        idempotent=offer.kwargs.get("idempotent") is True,
        stream_timeout=float(timeout) if isinstance(timeout, int | float) else DEFAULT_STREAM_TIMEOUT,
    )


class MeshGateway:
    """Serves the mesh's tools; `app` is the ASGI app (its lifespan follows the registry).

    Usage: `gateway = MeshGateway(settings, registry_url=url)`, then serve `gateway.app` (`serve_gateway`
    does both), or `await gateway.start()` / `await gateway.stop()` around in-process use."""

    def __init__(
        self,
        settings: MeshSettings,
        *,
        registry_url: str,
        only: GatewayFilter | None = None,
        discovery: Discovery = "all",
        tracer: observation.Tracer | None = None,
    ) -> None:
        self.settings = settings
        self.tracer = tracer or _tracer(settings)
        self._replaced: observation.Tracer | None = None  # the process's tracer while this one serves
        self.only = only or GatewayFilter()
        self.discovery = discovery
        self.proxies = McpMeshToolProxyFactory(settings)
        self.tools = MeshToolWrapperRegistry()  # the mesh's tools, as served (or searched)
        self.search = ToolSearch(self.tools)
        self.agents = 0  # healthy agents whose tools are served
        state = AgentState(settings)
        self.state = state
        listed = self.tools if discovery == "all" else discovery_tools(self.search)
        self.endpoint = McpEndpoint(
            listed,
            server_name="mesh-gateway",
            server_version=__version__,
            instructions=INSTRUCTIONS[discovery],
            max_body_bytes=settings.server.max_body_bytes,
            body_timeout=settings.server.body_timeout,
            guard=EdgePolicy.of_agent(settings).guard,  # the Host/Origin guard agents' endpoints have
            state_signer=PassThroughState(),
            propagation=HeaderAllowlist([*settings.mesh.propagate_headers, "authorization"]),
        )
        if discovery == "all":
            self.endpoint.announce_tool_changes()
        probes = probe_routes(state, HealthMonitor())  # /health, /ready, /livez, /startupz, as an agent's
        self.asgi: AgentApp = build_asgi_app(
            settings, self.endpoint, state, self._lifespan, extra_routes=probes
        )
        self.url = ""  # where it serves, once bound (logged when the first listing is in)
        token = settings.registry.token
        self.follower = RegistryFollower(
            self.proxies.http,
            registry_url,
            on_listing=self.apply,
            headers={"authorization": f"Bearer {token.get_secret_value()}"} if token else None,
            interval=settings.registry.heartbeat_interval,
        )
        self.proxies.on_unreachable = lambda _endpoint: self.follower.wake()

    @property
    def app(self) -> Any:
        """The ASGI app: behind MCP authorization when `auth.tokens` or `auth.jwks_url` is set."""
        from ..security.authorization import protect_agent

        return protect_agent(self.settings, self.tools, self.asgi)

    async def start(self) -> None:
        self.tracer.start()
        self._replaced = observation.install(self.tracer)
        await self.follower.start()
        self.state.ready = self.state.started = True
        if self.url:
            logger.info(
                "gateway serving %s with %d tool(s) of %d agent(s)%s",
                self.url,
                len(self.tools),
                self.agents,
                "; search mode: search_tools, describe_tool, call_tool" if self.discovery == "search" else "",
            )

    async def stop(self) -> None:
        self.state.drain.draining = True
        self.endpoint.close_streams()
        await self.follower.stop()
        await self.proxies.aclose()
        if self._replaced is not None:
            observation.install(self._replaced)
            self._replaced = None

    @contextlib.asynccontextmanager
    async def _lifespan(self, _app: Any) -> AsyncIterator[None]:
        await self.start()
        try:
            yield
        finally:
            await self.stop()

    async def apply(self, agents: list[Any]) -> None:
        """Serve what a registry listing offers: tools added, changed and gone; clients told of a change."""
        planned = {t.name: t for t in plan_tools(offers_of(agents), self.only)}
        before, self.agents = self.agents, len({p.agent_id for t in planned.values() for p in t.providers})
        changed = False
        for name in [w.name for w in self.tools if w.name not in planned]:
            self.tools.remove(name)
            changed = True
        for name, served in planned.items():
            current = self.tools.get(name)
            if isinstance(current, MeshGatewayTool) and current.served == served:
                continue
            proxy = self._proxy(served)
            if isinstance(current, MeshGatewayTool) and current.descriptor == served.descriptor:
                current.served, current.proxy = served, proxy  # other agents, same tool: no news for clients
                continue
            if current is not None:
                self.tools.remove(name)
            self.tools.add(MeshGatewayTool(served, proxy))
            changed = True
        self.proxies.invalidate(
            (w.proxy.provider.endpoint, w.proxy.provider.function_name)
            for w in self.tools
            if isinstance(w, MeshGatewayTool)
        )
        if changed:
            self.search.reindex()
            if self.discovery == "all":
                self.endpoint.tools_changed()
        if changed or before != self.agents:
            logger.info("gateway serves %d tool(s) of %d agent(s)", len(self.tools), self.agents)

    def _proxy(self, served: ServedTool) -> McpMeshToolProxy:
        first, *others = [_provider(o) for o in served.providers]
        proxy = self.proxies.proxy_for(served.capability, first, others)
        if not isinstance(proxy, McpMeshToolProxy):  # pragma: no cover - the gateway is no agent of its own
            raise TypeError(f"expected a remote proxy for {served.name}, got {type(proxy).__name__}")
        return proxy

    def served(self) -> Mapping[str, ServedTool]:
        return {w.name: w.served for w in self.tools if isinstance(w, MeshGatewayTool)}
