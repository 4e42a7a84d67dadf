"""`McpMeshToolProxyFactory`: the one place that turns a resolved dependency into an `McpMeshTool`.

The proxies, their MCP transport and the outbound credentials are imported when the first one is needed
(a dependency resolved, a feature calling out), not with this module: an agent is built and serves
without them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import httpx2

from ..config.settings import MeshSettings  # at run time: a subclass's constructor is wired by it
from ..security.tls import client_verify, mesh_https

if TYPE_CHECKING:
    from ..injectables import McpMeshTool
    from ..security.outbound import OutboundCredentials
    from ..specs import DependencySpec
    from ..tools.wrapper_registry import MeshToolWrapperRegistry
    from .proxy import DownEndpoints, Provider
    from .transport import McpTransport

__all__ = ["McpMeshToolProxyFactory"]

ProxyKey = tuple[str, str]  # (endpoint, function name)


class McpMeshToolProxyFactory:
    """Hands out the proxies dependency slots hold, cached by (endpoint, function name).

    Until the registry names a provider, a slot is unresolved (`None`): a call that needs it answers at
    once with an error naming the capability, and an optional one receives None. All remote proxies share
    one pooled HTTP client (keep-alive, TCP_NODELAY), created on first use. A dependency this agent serves
    itself is called in process.
    """

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings
        self._down: DownEndpoints | None = None
        self.on_unreachable: Callable[[str], None] = lambda _endpoint: None
        self.observer: Any = None  # metrics of outbound calls (MeshMetrics), given to every proxy
        # the endpoint's hook for calls served: an in-process call is one (InProcessMcpMeshTool)
        self.on_tool_call: Callable[[str, bool, float], None] | None = None
        self.local_registry: MeshToolWrapperRegistry | None = None
        self.local_features: Any = None  # this agent's prompts and resources, for in-process proxies
        self.job_submitter: Any = None  # JobService.submit once the agent joined a registry (jobs/)
        self._proxies: dict[ProxyKey, McpMeshTool] = {}
        self._http: httpx2.AsyncClient | None = None
        self._credentials: OutboundCredentials | None = None
        self._transport: McpTransport | None = None

    @property
    def down(self) -> DownEndpoints:
        """The endpoints seen refusing connections, shared by every remote proxy."""
        if self._down is None:
            from .proxy import DownEndpoints

            self._down = DownEndpoints(ttl=2 * self.settings.registry.heartbeat_interval)
        return self._down

    @property
    def credentials(self) -> OutboundCredentials:
        """The agent's outbound identities (auth.*): features calling out (A2A, catalog servers) ask it
        too."""
        if self._credentials is None:
            from ..security.outbound import OutboundCredentials

            self._credentials = OutboundCredentials(self.settings.auth, lambda: self.http)
        return self._credentials

    def initial_proxy(self, dependency: DependencySpec) -> McpMeshTool | None:
        """The proxy a slot starts with, before any registry answer: unresolved."""
        return None

    @property
    def http(self) -> httpx2.AsyncClient:
        """The process's one pooled HTTP client (proxies and the heartbeat share it)."""
        if self._http is None:
            from .http_pool import build_http_client  # first used by the mesh's join or a first call out

            self._http = build_http_client(
                keepalive_expiry=self.settings.client.keepalive_expiry,  # below the peers' keep-alive
                verify=client_verify(self.settings.tls),  # security/tls.py: CA bundle, mutual TLS
            )
        return self._http

    @property
    def transport(self) -> McpTransport:
        if self._transport is None:
            from .direct_http import DirectHttp
            from .transport import McpTransport

            agent = self.settings.agent
            self._transport = McpTransport(
                self.http,
                client_name=agent.name,
                client_version=agent.version,
                timeout=self.settings.tools.timeout,
                https=mesh_https(self.settings.tls),
                direct=DirectHttp(keepalive_expiry=self.settings.client.keepalive_expiry),
            )
        return self._transport

    def proxy_for(
        self, capability: str, provider: Provider, alternates: Sequence[Provider] = ()
    ) -> McpMeshTool:
        """The proxy calling `provider` (cached); alternates are refreshed on the cached proxy."""
        from ..security.credentials import credential_headers
        from .authenticated import AuthenticatedTransport
        from .proxy import InProcessMcpMeshTool, McpMeshToolProxy

        key = (provider.endpoint, provider.function_name)
        proxy = self._proxies.get(key)
        if isinstance(proxy, McpMeshToolProxy):
            proxy.alternates = tuple(alternates)
            return proxy
        if proxy is not None:
            return proxy
        if self.local_registry is not None and provider.agent_id == self.settings.agent.id:
            proxy = InProcessMcpMeshTool(
                capability=capability,
                function_name=provider.function_name,
                registry=self.local_registry,
                agent_id=provider.agent_id,
                endpoint=provider.endpoint,
                features=self.local_features,
            )
            proxy.on_tool_call = self.on_tool_call
        else:
            transport = self.transport
            credential = self.credentials.for_dependency(capability)
            if credential is not None and credential.renewable:  # an OAuth client's tokens
                # the proxy uses `request` and `stream` only, which the authenticated transport has
                transport = cast("McpTransport", AuthenticatedTransport(transport, credential))
            proxy = McpMeshToolProxy(
                transport,
                capability=capability,
                provider=provider,
                alternates=alternates,
                down=self.down,
                on_unreachable=self.on_unreachable,
                timeout=self.settings.tools.timeout,
                headers=credential_headers(self.settings.auth, capability),
            )
        proxy.observer = self.observer
        proxy.job_submitter = self.job_submitter
        self._proxies[key] = proxy
        return proxy

    def invalidate(self, keep: Iterable[ProxyKey]) -> None:
        """Drop every cached proxy the topology no longer uses."""
        keep = set(keep)
        for key in [k for k in self._proxies if k not in keep]:
            del self._proxies[key]

    def cached(self) -> dict[ProxyKey, Any]:
        return dict(self._proxies)

    async def aclose(self) -> None:
        if self._transport is not None and self._transport.direct is not None:
            self._transport.direct.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None
            self._transport = None
