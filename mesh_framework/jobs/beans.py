"""The job service's beans (gated by jobs/auto_configuration.py): the service; its runner and job tools
installed once every other tool is in the registry; its cancel route, MCP tasks and `X-Mesh-Job-Id`
dispatch once the agent is built; its part in a graceful stop and in the mesh (claims, reports, submit).
The container closes the service when the agent stops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import (
    AgentInitializer,
    BeanLookup,
    BuiltAgent,
    GracefulStop,
    MeshMember,
    ToolSource,
)
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .service import JobService

__all__ = ["JOB_TOOLS_ORDER", "JobsBeans"]

# The job tools' source comes after the others': it runs the background tools they add (click commands).
JOB_TOOLS_ORDER = 1000


class _Install(ToolSource):
    def __init__(self, service: JobService) -> None:
        self.service = service

    def add_tools(self, registry: MeshToolWrapperRegistry) -> None:
        self.service.install()


class _Attach(AgentInitializer):
    def __init__(self, service: JobService) -> None:
        self.service = service

    def initialize(self, agent: BuiltAgent) -> None:
        self.service.attach(agent.asgi)


class _Drain(GracefulStop):
    """New jobs are refused when the stop begins; running ones get what is left of the grace, then end
    `failed` ("agent stopped")."""

    def __init__(self, service: JobService) -> None:
        self.service = service

    def stop_accepting(self) -> None:
        self.service.stop_accepting()

    def busy(self) -> int:
        return self.service.runner.running

    async def finish(self, seconds: float) -> None:
        await self.service.stop(seconds)


class _Member(MeshMember):
    def __init__(self, service: JobService) -> None:
        self.service = service

    def joined(self, registry_url: Callable[[], str], registered: Any) -> None:
        self.service.joined(registry_url, registered)

    async def leave(self) -> None:
        await self.service.leave()


@configuration
class JobsBeans:
    @bean
    def job_service(
        self,
        settings: MeshSettings,
        tools: MeshToolWrapperRegistry,
        factory: McpMeshToolProxyFactory,
        lookup: BeanLookup,
    ) -> JobService:
        return JobService(settings, tools, factory, lookup.get("web_plan"))

    @bean(order=JOB_TOOLS_ORDER)
    def job_tools(self, service: JobService) -> ToolSource:
        return _Install(service)

    @bean
    def job_routes(self, service: JobService) -> AgentInitializer:
        return _Attach(service)

    @bean
    def job_drain(self, service: JobService) -> GracefulStop:
        return _Drain(service)

    @bean
    def job_registry(self, service: JobService) -> MeshMember:
        return _Member(service)
