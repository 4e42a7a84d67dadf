"""`MeshRuntime`: joins the mesh once the agent serves, and keeps its dependency slots current.

The joining machinery (heartbeat, push subscription, topology, registration payload, unresolved reasons)
is imported when the agent joins, not with this module: an agent is built, and answers its first
request, without it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..config.environment import embedded_registry_url
from ..security.redaction import redact_url
from ..tools.wrapper_registry import MeshToolWrapperRegistry

if TYPE_CHECKING:
    from ..config.settings import MeshSettings
    from ..events import ApplicationEventPublisher
    from ..extension import AgentHealth, EmbeddedRegistry, HeartbeatFields, MeshMember
    from .dispatcher import TopologyDispatcher
    from .heartbeat import Heartbeat
    from .proxy_factory import McpMeshToolProxyFactory
    from .subscription import TopologySubscription
    from .topology import ToolSlots
    from .unresolved import UnresolvedReasons

__all__ = ["MeshRuntime"]

logger = logging.getLogger("mesh_framework.mesh")

FRAMEWORK_KEY_PREFIX = "mesh_framework."  # keys of the tools the framework adds (the job tools)


class MeshRuntime:
    """Heartbeat, topology and proxies of one agent. Started by the app's lifespan, after binding."""

    # Set when the app is built: the health verdict the heartbeat reports (extension.AgentHealth), and a
    # timer of registry calls (the observers' `registry_request`, extension.CallObserver).
    health: AgentHealth | None = None
    registry_observer: Callable[[str, float, bool], None] | None = None
    project: str = ""  # the app's top-level package (mesh/projects.py), sent in the heartbeat
    heartbeat_fields: tuple[HeartbeatFields, ...] = ()  # features' agent-level fields (extension.py)
    members: tuple[MeshMember, ...] = ()  # features told of joining and leaving (extension.MeshMember)
    embedded_registry: EmbeddedRegistry | None = None  # run when no registry URL is set (the registry's)

    def __init__(
        self,
        settings: MeshSettings,
        tools: MeshToolWrapperRegistry,
        factory: McpMeshToolProxyFactory,
        publisher: ApplicationEventPublisher | None = None,
        routes: MeshToolWrapperRegistry | None = None,
    ) -> None:
        self.settings = settings
        self.tools = tools
        self.routes = routes if routes is not None else MeshToolWrapperRegistry()  # web routes' slots
        self.factory = factory
        self.publisher = publisher
        self._dispatcher: TopologyDispatcher | None = None
        self.heartbeat: Heartbeat | None = None
        self.subscription: TopologySubscription | None = None
        self.reasons: UnresolvedReasons | None = None
        self.port: int | None = None
        self.leaving = False  # a graceful stop began (`leave`): a join still under way registers nothing
        self._tool_slots: dict[str, ToolSlots] | None = None
        self._projects: asyncio.Task[None] | None = None

    @property
    def dispatcher(self) -> TopologyDispatcher:
        """The topology and the slots it fills: made on first use (the first registry answer)."""
        if self._dispatcher is None:
            from .dispatcher import TopologyDispatcher

            self._dispatcher = TopologyDispatcher(
                self.tools, self.factory, self.publisher, routes=self.routes
            )
        return self._dispatcher

    @property
    def _slots(self) -> dict[str, ToolSlots]:
        """The tools' and routes' dependency slots, for reading answers (again after `tools_changed`)."""
        if self._tool_slots is None:
            from .registration import tool_slots
            from .route_registration import route_slots

            self._tool_slots = {**tool_slots(self.tools), **route_slots(self.routes)}
        return self._tool_slots

    async def start(self, port: int) -> None:
        settings = self.settings
        if not settings.registry.enabled:
            return
        from .heartbeat import Heartbeat, RegistryClient
        from .unresolved import UnresolvedReasons

        urls = settings.registry.endpoints()
        token = settings.registry.token.get_secret_value() if settings.registry.token else None
        embedded = self.embedded_registry if not urls else None
        if not urls:  # the embedded registry: joined, or started in this process (extension.EmbeddedRegistry)
            port_url = embedded_registry_url(settings.registry.embedded_port)
            urls = [await embedded.join(self.factory.http) if embedded is not None else port_url]
        self.factory.local_registry = self.tools
        self.port = port
        client = RegistryClient(self.factory.http, urls, settings.registry.timeout, token=token)
        payload = self._payload(port)
        health = self.health
        if health is not None:  # registered with its verdict (bounded by health.timeout)
            payload["status"] = await health.status()
        if self.leaving:  # the agent began to stop while it joined: it never appears in the registry
            logger.info("stopping before the mesh was joined: not registering")
            return
        self.heartbeat = heartbeat = Heartbeat(
            client, payload, interval=settings.registry.heartbeat_interval, on_answer=self._on_answer
        )
        self.factory.on_unreachable = lambda _endpoint: heartbeat.wake()
        self.reasons = reasons = UnresolvedReasons(  # why slots are unresolved: mesh/unresolved.py
            self.factory.http,
            lambda: client.url,
            heartbeat.agent_id,
            lambda: self._slots,
            interval=settings.registry.heartbeat_interval,
            timeout=settings.registry.timeout,
            token=token,
        )

        def refused(_wrapper: Any, _dependency: Any) -> None:
            heartbeat.wake()
            reasons.refused()

        heartbeat.on_round = reasons.heartbeat_round
        for wrapper in [*self.tools, *self.routes]:
            wrapper.unresolved_listener = refused
            wrapper.unresolved_reasons = reasons.reasons
        heartbeat.observer = self.registry_observer
        heartbeat.holds = self._drops_resolved
        if embedded is not None and settings.registry.embedded_port != 0:
            # the registry on embedded_port is whoever's runs it: take it over when it stops
            heartbeat.on_failure = lambda: embedded.take_over(self.factory.http)
        if health is not None:
            health.watch(self._on_health)
        heartbeat.start()
        for member in self.members:
            member.joined(lambda: client.url, heartbeat.registered)
        if settings.registry.push:  # the embedded registry's push stream (mesh/subscription.py)
            from .subscription import TopologySubscription

            self.subscription = TopologySubscription(
                self.factory.http,
                lambda: client.url,
                heartbeat.agent_id,
                on_answer=self._on_pushed,
                on_unknown=heartbeat.forgotten,  # register again now
                headers={"Authorization": f"Bearer {token}"} if token else None,
                after=heartbeat.registered,
            )
            self.subscription.start()
        if self.project:  # one line once registered, if the registry holds other projects' agents
            from .projects import notice_other_projects

            self._projects = asyncio.create_task(
                notice_other_projects(
                    self.factory.http,
                    lambda: client.url,
                    self.project,
                    heartbeat.registered,
                    headers={"Authorization": f"Bearer {token}"} if token else None,
                ),
                name="mesh-projects",
            )
        logger.info("joining the mesh at %s as %s", ", ".join(map(redact_url, urls)), settings.agent.id)

    def tools_changed(self) -> None:
        """The agent's tools changed (gateway servers came or went): tell the registry at once."""
        self._tool_slots = None  # read again
        if self.heartbeat is not None and self.port is not None:
            self.heartbeat.update_payload(self._payload(self.port))

    def _payload(self, port: int) -> dict[str, Any]:
        """The registration: the tools, then the web routes as MCP Mesh's pseudo-tools `"METHOD:/path"`;
        an agent with routes and no tools of its own (the framework's job tools aside) registers as `api`,
        as MCP Mesh's route agents do."""
        from .projects import PROJECT_FIELD
        from .registration import heartbeat_payload
        from .route_registration import route_entries

        payload = heartbeat_payload(self.settings, self.tools, port, self.heartbeat_fields)
        if self.project:
            payload[PROJECT_FIELD] = self.project
        if len(self.routes):
            payload["tools"] += route_entries(self.routes, self.settings.agent.namespace)
            if all(w.key.startswith(FRAMEWORK_KEY_PREFIX) for w in self.tools):
                payload["agent_type"] = "api"
        return payload

    def _on_health(self, status: str) -> None:
        if self.heartbeat is not None:
            self.heartbeat.set_health(status)

    def _drops_resolved(self, answer: dict[str, Any]) -> bool:
        """True when `answer` leaves unresolved a dependency the topology has resolved now."""
        from .topology import parse_answer

        held = self.dispatcher.topology.dependencies
        new = parse_answer(answer, self._slots).dependencies
        return any(resolution is not None and new.get(key) is None for key, resolution in held.items())

    def _on_pushed(self, answer: dict[str, Any]) -> None:
        """An answer the topology stream pushed: not applied while the heartbeat keeps the topology held
        after registering again and it would drop some of it (Heartbeat.holds)."""
        heartbeat = self.heartbeat
        if heartbeat is not None and heartbeat.rejoining and self._drops_resolved(answer):
            return
        self._on_answer(answer)

    def _on_answer(self, answer: dict[str, Any]) -> None:
        if self.subscription is not None and self.subscription.outdated(answer):
            return  # a heartbeat answer older than the last pushed one
        from .topology import parse_answer

        self.dispatcher.apply(parse_answer(answer, self._slots))
        # Once the agent is leaving, a provider leaving too (agents stopped together) is no news to log.
        if self.reasons is not None and not self.leaving:
            self.reasons.update(self.dispatcher.topology)

    async def leave(self) -> None:
        """A graceful stop begins: the registry stops offering this agent now, and a join still under way
        ends without registering (everything else stops with `stop`, once serving ends)."""
        self.leaving = True
        heartbeat, self.heartbeat = self.heartbeat, None
        if heartbeat is not None:
            await heartbeat.stop(unregister=True)

    async def stop(self) -> None:
        if self._projects is not None:
            self._projects.cancel()
            await asyncio.gather(self._projects, return_exceptions=True)
            self._projects = None
        for member in self.members:
            await member.leave()
        if self.health is not None:
            await self.health.unwatch()
        if self.subscription is not None:
            await self.subscription.stop()
            self.subscription = None
        if self.reasons is not None:
            await self.reasons.stop()
        if self.heartbeat is not None:
            await self.heartbeat.stop(unregister=True)
            self.heartbeat = None
        await self.factory.aclose()
        if self.embedded_registry is not None:
            await self.embedded_registry.stop()
        self.leaving = False  # served again (the same app, in one process): it joins again
