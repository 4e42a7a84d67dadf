"""Graceful stop on SIGTERM/SIGINT: withdraw from the mesh, refuse new calls (503 with `Retry-After`, which
mesh consumers take as "try another provider") and new jobs, let the calls in flight and the running jobs
finish within `server.shutdown_grace` (streams too: streamed tool calls and route event streams), end the
streams still open with an error saying the agent stopped (one log line each), end the jobs still running
`failed` ("agent stopped", one log line each, reported to the registry for registry jobs), and only then
close the socket. While it drains, the agent still answers job polls (`__mesh_job_*`, `tasks/*` on
2026-07-28), so a waiting client reads how its job ends. A second signal stops at once (open streams and
running jobs end the same way)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

__all__ = ["DRAIN_QUIET", "STREAM_ENDING", "GracefulStop"]

logger = logging.getLogger("mesh_framework")

# Seconds without a new call after which a draining agent closes its socket early: its consumers have
# moved to other providers (they are told by the registry, or by a 503, whichever comes first).
DRAIN_QUIET = 0.5
# Seconds the streams ended at the end of the grace get to write their last event.
STREAM_ENDING = 1.0


class GracefulStop:
    """Stops one served agent: `request()` from a signal handler, on the serving loop."""

    def __init__(self, server: Any, container: Any) -> None:
        self.server = server
        self.container = container
        self.task: asyncio.Task[None] | None = None

    def request(self) -> None:
        if self.task is not None or self.server.should_exit:
            logger.info("stopping now")
            self._end_streams()  # their clients get the error ending rather than a cut connection
            self.server.should_exit = True
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not called on the serving loop: nothing to wait for
            self.server.should_exit = True
            return
        self.task = loop.create_task(self._drain(), name="graceful stop")

    async def _drain(self) -> None:
        state = self.container.agent_state()
        grace = self.container.settings().server.shutdown_grace
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        drain = state.drain
        drain.begin()
        state.ready = False
        self.container.mcp_endpoint().close_streams()  # notification streams end now, not at the grace
        participants = self.container.graceful_stops()  # the features' (extension.GracefulStop)
        for participant in participants:
            participant.stop_accepting()
        logger.info(
            "stopping: leaving the mesh, %d call(s) in flight, %d job(s) running, up to %ss",
            drain.busy,
            sum(p.busy() for p in participants),
            grace,
        )
        try:
            # the registry stops offering this agent; a join still under way ends without registering
            await self.container.mesh_runtime().leave()
            if not await drain.settle(grace, min(DRAIN_QUIET, grace)):
                # streams may never end: their clients get an error ending now (each stream logs one
                # line), not a connection cut when the server gives up on it
                ended = self._end_streams()
                if drain.busy > ended:
                    logger.warning(
                        "%d call(s) still in flight after %ss; stopping anyway", drain.busy - ended, grace
                    )
                if ended:
                    await drain.settle(STREAM_ENDING, 0.0)
            for participant in participants:
                await participant.finish(max(0.0, deadline - loop.time()))
        except Exception:
            logger.exception("graceful stop failed; stopping now")
        finally:
            self.server.should_exit = True

    def _end_streams(self) -> int:
        """End the streams still open (streamed tool calls and route streams); how many."""
        ended: int = self.container.mcp_endpoint().open_streams.end_all()
        return ended + int(self.container.agent_state().drain.streams.end_all())
