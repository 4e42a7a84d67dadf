"""`MeshContainer`: the dependency-injector container that owns every long-lived object of an agent.

Framework beans are declared here; the application adds the scanned user components to the instance
(`container.greeting_service`, ...). Tests override any provider on the instance:
`with app.container.override_providers(greeting_service=FakeGreeter()): ...`.
"""

from __future__ import annotations

import sys
from collections.abc import ItemsView, Iterator, Mapping, Sequence
from typing import Any

from dependency_injector import providers

from ..config.loader import LoadedSettings
from ..config.settings import MeshSettings
from ..events import ApplicationEventPublisher
from ..extension import (
    BeanLookup,
    EndpointExtension,
    HttpSurface,
    RouteSlots,
    ScannedApp,
    ToolSource,
)
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..mesh.runtime import MeshRuntime
from ..propagation import HeaderAllowlist
from ..protocol.asgi import AgentState, build_asgi_app, no_lifespan
from ..protocol.features import FeatureHandlers
from ..protocol.guard import LOOPBACK_HOSTS, LOOPBACK_ORIGINS, HostGuard
from ..protocol.mcp_server import McpEndpoint
from ..protocol.request_state import RequestStateSigner
from ..tools.builder import ToolPlan, build_wrappers
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .lazy_integrations import containers

__all__ = ["FRAMEWORK_BEANS", "REPLACEABLE", "MeshContainer"]


def build_guard(settings: MeshSettings) -> HostGuard | None:
    server = settings.server
    enabled = server.host_check
    if enabled is None:
        from ..config.network import is_loopback

        enabled = is_loopback(server.host)
    if not enabled:
        return None
    return HostGuard(server.allowed_hosts or LOOPBACK_HOSTS, server.allowed_origins or LOOPBACK_ORIGINS)


def build_endpoint(
    settings: MeshSettings, registry: MeshToolWrapperRegistry, features: FeatureHandlers | None = None
) -> McpEndpoint:
    key = settings.server.request_state_key
    return McpEndpoint(
        registry,
        server_name=settings.agent.name,
        server_version=settings.agent.version,
        instructions=settings.server.instructions,
        max_body_bytes=settings.server.max_body_bytes,
        body_timeout=settings.server.body_timeout,
        guard=build_guard(settings),
        state_signer=RequestStateSigner(key.get_secret_value().encode() if key else None),
        propagation=HeaderAllowlist(settings.mesh.propagate_headers),
        features=features,
    )


def build_tools(
    plans: list[ToolPlan],
    registry: MeshToolWrapperRegistry,
    container: Any,
    proxy_factory: McpMeshToolProxyFactory,
    *,
    settings: MeshSettings | None = None,
    beans: Any = None,
    sources: list[ToolSource] = (),  # type: ignore[assignment]
) -> MeshToolWrapperRegistry:
    build_wrappers(
        plans,
        registry,
        lambda name: getattr(container, name)(),
        proxy_factory.initial_proxy,
        mask_errors=settings is not None and settings.tools.mask_error_details,
        scopes=beans.scopes if beans is not None else None,  # di/lifecycle.BeanLifecycle
    )
    for source in sources:  # the features' tools (extension.ToolSource)
        source.add_tools(registry)
    return registry


def web_routes(surfaces: list[HttpSurface]) -> list[Any]:
    """The features' routes by their surfaces' order: the probes, `/metrics` and `/status` below zero,
    A2A's at zero, then the app's web routes (a static folder mounted at / last among them)."""
    return [r for s in sorted(surfaces, key=lambda surface: surface.order) for r in s.routes]


def web_middleware(surfaces: list[HttpSurface]) -> list[Any]:
    return [m for s in sorted(surfaces, key=lambda surface: surface.order) for m in s.middleware]


def route_registry(slots: list[RouteSlots]) -> MeshToolWrapperRegistry:
    """The web routes whose dependency slots the mesh runtime keeps current (extension.RouteSlots)."""
    if len(slots) == 1:
        return slots[0].registry
    joined = MeshToolWrapperRegistry()
    for each in slots:
        for wrapper in each.registry:
            joined.add(wrapper)
    return joined


def endpoint_features(
    handlers: list[FeatureHandlers], extensions: Sequence[EndpointExtension] = ()
) -> FeatureHandlers:
    """The endpoint's prompts and resources: a feature's FeatureHandlers bean (prompts/beans.py), else none
    (empty lists, unknown names); with the MCP extensions' beans (extension.EndpointExtension)."""
    return (handlers[0] if handlers else FeatureHandlers()).extended(extensions)


class MeshContainer(containers.DeclarativeContainer):
    __self__ = providers.Self()

    loaded_settings = providers.Dependency(instance_of=LoadedSettings)
    settings = providers.Dependency(instance_of=MeshSettings)
    tool_plans = providers.Dependency(instance_of=list)
    lifespan = providers.Object(no_lifespan)
    bean_lifecycle: Any = providers.Object(None)  # di/lifecycle.BeanLifecycle, set at assembly

    event_publisher = providers.ThreadSafeSingleton(ApplicationEventPublisher)
    # The model of every LLM tool, when set (tests: `app.override(LlmModel, ScriptedLlm([...]))`, or a
    # mapping of tool name to model); None: each tool's configured provider. A core slot (the LLM's beans
    # read it by name) so that a test overrides it before the LLM's beans exist.
    llm_model: Any = providers.Object(None)

    wrapper_registry = providers.ThreadSafeSingleton(MeshToolWrapperRegistry)
    proxy_factory = providers.ThreadSafeSingleton(McpMeshToolProxyFactory, settings=settings)
    # The features' contributions to the core's extension points (extension.py): the list of every bean
    # of each type, set at assembly.
    scanned_app: Any = providers.Object(None)
    bean_lookup = providers.Singleton(BeanLookup, __self__)
    tool_sources: Any = providers.Object([])
    http_surfaces: Any = providers.Object([])
    initializers: Any = providers.Object([])
    serving_lifecycles: Any = providers.Object([])
    graceful_stops: Any = providers.Object([])
    mesh_members: Any = providers.Object([])
    heartbeat_fields: Any = providers.Object([])
    route_slots: Any = providers.Object([])
    agent_health: Any = providers.Object([])
    call_observers: Any = providers.Object([])
    tracers: Any = providers.Object([])
    embedded_registries: Any = providers.Object([])
    tools = providers.ThreadSafeSingleton(
        build_tools,
        plans=tool_plans,
        registry=wrapper_registry,
        container=__self__,
        proxy_factory=proxy_factory,
        settings=settings,
        beans=bean_lifecycle,
        sources=tool_sources,
    )
    agent_state = providers.ThreadSafeSingleton(AgentState, settings=settings)
    feature_handlers: Any = providers.Object([])
    endpoint_extensions: Any = providers.Object([])
    features = providers.ThreadSafeSingleton(
        endpoint_features, handlers=feature_handlers, extensions=endpoint_extensions
    )
    mcp_endpoint = providers.ThreadSafeSingleton(
        build_endpoint, settings=settings, registry=tools, features=features
    )
    mesh_runtime = providers.ThreadSafeSingleton(
        MeshRuntime,
        settings=settings,
        tools=tools,
        factory=proxy_factory,
        publisher=event_publisher,
        routes=providers.Callable(route_registry, slots=route_slots),
    )
    asgi_app = providers.ThreadSafeSingleton(
        build_asgi_app,
        settings=settings,
        endpoint=mcp_endpoint,
        state=agent_state,
        lifespan=lifespan,
        extra_routes=providers.Callable(web_routes, surfaces=http_surfaces),
        middleware=providers.Callable(web_middleware, surfaces=http_surfaces),
    )


class FrameworkTypes(Mapping[str, type]):
    """Framework beans by provider name, with their types. A feature's type is listed only once its module
    is imported: a component or test that asks for it (or subclasses it) has imported it, so listing the
    others would only load feature packages an app does not use."""

    def __init__(self, loaded: Mapping[str, type], lazy: Mapping[str, tuple[str, str]]) -> None:
        self._loaded = dict(loaded)
        self._lazy = dict(lazy)

    def _present(self) -> dict[str, type]:
        found = dict(self._loaded)
        for name, (module, attribute) in self._lazy.items():
            imported = sys.modules.get(module)
            if imported is not None and hasattr(imported, attribute):
                found[name] = getattr(imported, attribute)
        return found

    def __getitem__(self, name: str) -> type:
        return self._present()[name]

    def items(self) -> ItemsView[str, type]:  # one look at the lazy types, not one per name
        return self._present().items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._present())

    def __len__(self) -> int:
        return len(self._present())


# Framework beans a component may ask for by type, by provider name. A component gets the wrapper
# registry itself (filled when the app is built), not `tools`, so tool-owning components need no cycle.
FRAMEWORK_BEANS: Mapping[str, type] = FrameworkTypes(
    {
        "settings": MeshSettings,
        "loaded_settings": LoadedSettings,
        "wrapper_registry": MeshToolWrapperRegistry,
        "proxy_factory": McpMeshToolProxyFactory,
        "mcp_endpoint": McpEndpoint,
        "agent_state": AgentState,
        "event_publisher": ApplicationEventPublisher,
        "scanned_app": ScannedApp,
        "bean_lookup": BeanLookup,
    },
    {
        "llm_model": ("mesh_framework.llm.model", "LlmModel"),
    },
)
# Framework beans a user component replaces by subclassing their type (Spring's "on missing bean").
REPLACEABLE: dict[str, type] = {
    "wrapper_registry": MeshToolWrapperRegistry,
    "proxy_factory": McpMeshToolProxyFactory,
}
