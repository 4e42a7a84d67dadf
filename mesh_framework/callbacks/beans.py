"""The catalog callbacks' beans (gated by callbacks/auto_configuration.py): the callbacks over the
catalog's servers, made on first use (closed by the container); with `mcp.fail_fast` every server reached
before the agent serves, every failure in one ConfigError."""

from __future__ import annotations

from typing import Any

from ..catalog.server_catalog import McpServerCatalog
from ..config.settings import MeshSettings
from ..di.conditions import ConditionContext, conditional
from ..di.configuration import bean, configuration
from ..events import ApplicationEventPublisher
from ..extension import BeanLookup, ServingLifecycle
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from .mcp import McpToolCallbackProvider

__all__ = ["FAIL_FAST_PHASE", "CallbackBeans", "build_tool_callbacks"]

# Before the features' other lifecycles (and the gateway's, callbacks/catalog_gateway_beans.py): the
# catalog is reached before anything else starts.
FAIL_FAST_PHASE = -200


def build_tool_callbacks(
    settings: MeshSettings,
    catalog: McpServerCatalog,
    publisher: ApplicationEventPublisher,
    names: list[str] | None = None,
    proxy_factory: McpMeshToolProxyFactory | None = None,
) -> McpToolCallbackProvider:
    """Callbacks over the catalog's servers (`names`, default all), connected lazily; a server named in
    `auth.dependency_clients` is sent that OAuth client's tokens (the proxy factory's credentials), any
    other HTTP server without an Authorization header the user's sign-in to it (`mesh catalog login`)
    when there is one."""
    mcp = settings.mcp
    auth: dict[str, Any] = {}
    if proxy_factory is not None:
        for name in settings.auth.dependency_clients:
            credential = proxy_factory.credentials.for_named(name)
            if credential is not None:
                auth[name] = credential.auth()
        auth |= _user_logins(catalog, settings, proxy_factory, skip=set(auth))
    return McpToolCallbackProvider.from_catalog(
        catalog,
        names,
        client_info={"name": settings.agent.name, "version": settings.agent.version},
        connect_timeout=mcp.connect_timeout,
        call_timeout=mcp.call_timeout if mcp.call_timeout is not None else settings.tools.timeout,
        publisher=publisher,
        headers=auth,
    )


def _user_logins(
    catalog: McpServerCatalog, settings: MeshSettings, factory: McpMeshToolProxyFactory, skip: set[str]
) -> dict[str, Any]:
    """The user's sign-ins as auth flows, for the HTTP servers given no identity by the settings or their
    own headers (each looked up on every request: no sign-in, nothing sent)."""
    found: dict[str, Any] = {}
    for name, definition in catalog.get_all().items():
        url = getattr(definition, "url", None)
        headers = {h.lower() for h in getattr(definition, "headers", {})}
        if (
            url is None
            or name in skip
            or name in settings.auth.dependency_tokens
            or "authorization" in headers
        ):
            continue
        from ..catalog.user_auth import UserLoginAuth  # an HTTP server's: a stdio one signs no user in

        found[name] = UserLoginAuth(name, url, http=lambda: factory.http)
    return found


class _FailFast(ServingLifecycle):
    """`mcp.fail_fast`: every catalog server reached before the agent serves."""

    phase = FAIL_FAST_PHASE

    def __init__(self, lookup: BeanLookup) -> None:
        self.lookup = lookup

    async def start(self) -> None:
        callbacks = self.lookup("mcp_tool_callbacks")
        if callbacks.connections:
            await callbacks.start(fail_fast=True)


def _fail_fast(context: ConditionContext) -> tuple[bool, str]:
    if context.settings.mcp.fail_fast:
        return True, "mcp.fail_fast is set"
    return False, "mcp.fail_fast is off"


@configuration
class CallbackBeans:
    @bean(lazy=True, primary=True)  # made on first use; the one a `ToolCallbackProvider` parameter gets
    def mcp_tool_callbacks(
        self,
        settings: MeshSettings,
        catalog: McpServerCatalog,
        publisher: ApplicationEventPublisher,
        factory: McpMeshToolProxyFactory,
    ) -> McpToolCallbackProvider:
        return build_tool_callbacks(settings, catalog, publisher, proxy_factory=factory)

    @bean(order=FAIL_FAST_PHASE)
    @conditional(_fail_fast, "mcp.fail_fast is set")
    def mcp_fail_fast(self, lookup: BeanLookup) -> ServingLifecycle:
        return _FailFast(lookup)
