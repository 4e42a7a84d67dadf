"""The agent's probes: `/health` (the indicators' verdict), `/ready` (serving, not stopping), `/livez` and
`/startupz` (Kubernetes' liveness and start-up probes), read from the agent's state and health monitor."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..protocol.asgi import AgentState
from .monitor import HealthMonitor
from .status import HealthStatus

__all__ = ["probe_routes"]


def probe_routes(state: AgentState, monitor: HealthMonitor, *, details: bool = False) -> list[Route]:
    """The four probes; `details`: `/health` shows each indicator's status and details
    (`health.show_details = "always"`)."""

    async def health(request: Request) -> JSONResponse:
        """UP or DEGRADED: 200; DOWN: 503 (Spring's mapping). Indicators' details only if configured."""
        report = await monitor.check()
        body = {**state.describe(report.status.value), **report.to_json(details=details)}
        return JSONResponse(body, status_code=503 if report.status is HealthStatus.DOWN else 200)

    async def ready(request: Request) -> JSONResponse:
        if state.drain.draining:
            return JSONResponse({**state.describe("shutting_down"), "ready": False}, status_code=503)
        if state.ready:
            return JSONResponse({**state.describe("ready"), "ready": True})
        return JSONResponse({**state.describe("starting"), "ready": False}, status_code=503)

    async def livez(request: Request) -> JSONResponse:
        return JSONResponse({**state.describe("alive"), "alive": True})

    async def startupz(request: Request) -> JSONResponse:
        if state.started:
            return JSONResponse({**state.describe("started"), "started": True})
        return JSONResponse({**state.describe("starting"), "started": False}, status_code=503)

    return [
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/ready", ready, methods=["GET", "HEAD"]),
        Route("/livez", livez, methods=["GET", "HEAD"]),
        Route("/startupz", startupz, methods=["GET", "HEAD"]),
    ]
