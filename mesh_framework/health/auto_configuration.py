"""Health as an auto-configuration: the agent's health monitor over its indicators (`@health_indicator`
functions and methods, components with `health()`, `@mesh_agent(health_check=...)`), the probes
(`/health`, `/ready`, `/livez`, `/startupz`) and the verdict the mesh runtime registers with and keeps the
registry told of."""

from __future__ import annotations

from collections.abc import Callable

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import AgentHealth, AgentInitializer, BuiltAgent, HttpSurface, ScannedApp
from ..protocol.asgi import AgentState
from .indicator import collect_indicators
from .monitor import HealthMonitor
from .probes import probe_routes
from .status import HealthStatus

__all__ = ["HEALTH_ORDER", "HealthAutoConfiguration", "MonitoredHealth"]

HEALTH_ORDER = -300  # the probes come first among the agent's routes

Listener = Callable[[str], None]


class MonitoredHealth(AgentHealth):
    """The monitor's verdict as MCP Mesh's heartbeat status; its background checks run while the agent is in
    the mesh."""

    def __init__(self, monitor: HealthMonitor) -> None:
        self.monitor = monitor
        self.listeners: list[Listener] = []
        monitor.add_listener(self._changed)

    async def status(self) -> str:
        return (await self.monitor.check()).status.mesh_status

    def watch(self, listener: Listener) -> None:
        if listener not in self.listeners:
            self.listeners.append(listener)
        self.monitor.start()

    async def unwatch(self) -> None:
        self.listeners.clear()
        await self.monitor.stop()

    def _changed(self, status: HealthStatus) -> None:
        for listener in list(self.listeners):
            listener(status.mesh_status)


class _Indicators(AgentInitializer):
    """The indicators are collected once the agent is built (its components made); each build replaces
    them."""

    def __init__(self, monitor: HealthMonitor, app: ScannedApp) -> None:
        self.monitor = monitor
        self.app = app

    def initialize(self, agent: BuiltAgent) -> None:
        components = [
            agent.lookup(bean.name)
            for bean in self.app.catalog.components
            if bean.scope == "singleton" and not bean.lazy  # a lazy bean is not made to look for indicators
        ]
        check = self.app.agent.health_check if self.app.agent is not None else None
        self.monitor.indicators = collect_indicators(self.app.scan.modules, components, check)


@configuration
class HealthAutoConfiguration:
    @bean
    def health_monitor(self, settings: MeshSettings) -> HealthMonitor:
        return HealthMonitor(cache_ttl=settings.health.cache_ttl, timeout=settings.health.timeout)

    @bean(order=HEALTH_ORDER)
    def health_probes(self, state: AgentState, monitor: HealthMonitor, settings: MeshSettings) -> HttpSurface:
        details = settings.health.show_details == "always"
        return HttpSurface(probe_routes(state, monitor, details=details), order=HEALTH_ORDER)

    @bean
    def health_indicators(self, monitor: HealthMonitor, app: ScannedApp) -> AgentInitializer:
        return _Indicators(monitor, app)

    @bean
    def health_verdict(self, monitor: HealthMonitor) -> AgentHealth:
        return MonitoredHealth(monitor)
