"""A2A's beans (gated by a2a/auto_configuration.py): the skills' routes, served on the agent's port with
the job service's runner when the app runs jobs (an optional dependency) and guarded by the app's
`TokenVerifier` component when it declares one, and the peers' clients."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import BeanLookup, HttpSurface
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..security.verifiers import TokenVerifier
from .auto_configuration import A2A_ORDER
from .clients import A2aClients
from .routes import a2a_routes

__all__ = ["A2aClientBeans", "A2aSkillBeans"]


@configuration
class A2aSkillBeans:
    @bean(order=A2A_ORDER, lazy=True)  # made with the agent's app, once every tool is in the registry
    def a2a_surface(
        self, settings: MeshSettings, lookup: BeanLookup, verifiers: list[TokenVerifier]
    ) -> HttpSurface:
        tools = lookup("tools")
        jobs = lookup.get("job_service")  # runs the background skills, when the app runs jobs
        used = jobs if jobs is not None and jobs.used else None
        # the app's own TokenVerifier component guards the skills as it does /mcp (else auth.* settings)
        verifier = verifiers[0] if verifiers else None
        return HttpSurface(a2a_routes(settings, tools, used, verifier), order=A2A_ORDER)


@configuration
class A2aClientBeans:
    @bean(lazy=True)
    def a2a_clients(self, settings: MeshSettings, factory: McpMeshToolProxyFactory) -> A2aClients:
        """The `A2aClient` of each peer a tool names (a tool takes `a2a_clients[peer]`, a2a/a2a_marks.py)."""
        return A2aClients(settings, factory)
