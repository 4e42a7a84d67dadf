"""Building an agent: every component instantiated (eagerly, like Spring singletons), `@event_listener`
methods subscribed, the app and its mesh runtime built, then the features' initializers run
(extension.AgentInitializer: the LLM agents, the catalog gateway's tool changes, ...)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from dependency_injector import providers

from ..di.wiring import BeanCatalog, describe_location
from ..errors import MeshError, WiringError
from ..extension import BuiltAgent
from ..observation import Tracer, install

__all__ = ["build_agent"]

Lifespan = Callable[[Any], AbstractAsyncContextManager[None]]


def build_agent(container: Any, catalog: BeanCatalog, lifespan: Lifespan) -> Any:
    """Instantiate everything the container holds for one agent and return its ASGI app.

    Raises WiringError listing every component that failed to start."""
    if not container.lifespan.overridden:  # build may run again (tests); override once
        container.lifespan.override(providers.Object(lifespan))
    tracers = container.tracers()  # observation.Tracer: the tracing feature's or the app's, else the no-op
    tracer = tracers[0] if tracers else Tracer()
    tracer.start()
    install(tracer)
    _instantiate_components(container, catalog)
    _register_listeners(container, catalog)
    asgi = container.asgi_app()
    runtime = container.mesh_runtime()
    runtime.heartbeat_fields = tuple(container.heartbeat_fields())  # extension.HeartbeatFields
    container.proxy_factory().local_features = container.features()  # for in-process dependencies
    built = BuiltAgent(container, asgi, container.bean_lookup())
    runtime.members = tuple(container.mesh_members())
    registries = container.embedded_registries()  # extension.EmbeddedRegistry: the registry feature's
    runtime.embedded_registry = registries[0] if registries else None
    for initializer in container.initializers():  # the features' hooks (extension.AgentInitializer)
        initializer.initialize(built)
    return _authorized(container, catalog, asgi)


def _authorized(container: Any, catalog: BeanCatalog, asgi: Any) -> Any:
    """The app behind MCP authorization when a verifier is configured or declared (security/). An app
    with no auth settings, no scoped tool and no verifier component loads no authorization module (a
    verifier component subclasses TokenVerifier, so that module is imported already if there is one)."""
    settings, tools = container.settings(), container.tools()
    verifiers = sys.modules.get("mesh_framework.security.verifiers")
    declared = (
        [b for b in catalog.components if issubclass(b.type, verifiers.TokenVerifier)]
        if verifiers is not None
        else []
    )
    configured = settings.auth.tokens or settings.auth.jwks_url
    features = container.features()  # scoped prompts and resources; scoped routes by surface (identity)
    routes = {k: v for s in container.http_surfaces() for k, v in (s.scopes or {}).items()}
    scoped = any(getattr(w.spec, "scopes", ()) for w in tools) or routes or features.declared_scopes()
    if not declared and not configured and not scoped:
        return asgi
    from ..security.authorization import protect_agent, verifier_from_settings

    try:
        verifier = getattr(container, declared[0].name)() if declared else verifier_from_settings(settings)
        if verifier is not None and getattr(asgi, "edge", None) is not None:
            asgi.edge.identity = verifier.verify  # the caller of routes, A2A and uploads, verified once
        return protect_agent(settings, tools, asgi, verifier, features=features, route_scopes=routes)
    except (ValueError, ImportError) as exc:
        raise WiringError([str(exc)]) from None


def _instantiate_components(container: Any, catalog: BeanCatalog) -> None:
    failures = []
    for bean in catalog.components:
        if bean.scope != "singleton" or bean.lazy:  # prototypes are made where injected, call-scoped ones
            continue  # per call, lazy singletons on first use
        try:
            getattr(container, bean.name)()
        except MeshError:
            raise
        except Exception as exc:
            failures.append(
                f"{describe_location(bean.type)}: component {bean.type.__qualname__} failed to "
                f"start: {type(exc).__name__}: {exc}"
            )
    if failures:
        raise WiringError(failures)


def _register_listeners(container: Any, catalog: BeanCatalog) -> None:
    """Subscribe every `@event_listener` method of the components (once per build)."""
    publisher = container.event_publisher()
    problems = []
    for bean in catalog.components:
        if bean.scope != "singleton" or bean.lazy:
            continue
        try:
            publisher.register(getattr(container, bean.name)())
        except TypeError as exc:
            problems.append(f"{describe_location(bean.type)}: {exc}")
    if problems:
        raise WiringError(problems)
