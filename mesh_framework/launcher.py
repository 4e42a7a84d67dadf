"""Local multi-agent runs: `mesh run app_a app_b ...` starts a registry and one process per agent.

Each agent's log lines come out prefixed with its module name; Ctrl-C (or SIGTERM) stops every agent
gracefully (each unregisters itself), then the registry.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sys
from collections.abc import Sequence

__all__ = ["run_agents"]

logger = logging.getLogger("mesh_framework")

STOP_GRACE = 10.0


SERVING = re.compile(r"serving (http://\S+)")


async def _pump(name: str, stream: asyncio.StreamReader, width: int) -> None:
    """Copy an agent's log lines, prefixed; say plainly on stdout where it serves once it does."""
    prefix = f"[{name:<{width}}] "
    while line := await stream.readline():
        text = line.decode(errors="replace")
        sys.stderr.write(prefix + text)
        sys.stderr.flush()
        ready = SERVING.search(text)
        if ready:
            sys.stdout.write(f"{name} is ready at {ready.group(1)}\n")
            sys.stdout.flush()


async def run_agents(
    apps: Sequence[str],
    extra_args: Sequence[str],
    *,
    registry_port: int = 0,
    external_registry: str | None = None,
) -> int:
    """Start the embedded registry in this process (unless `external_registry` is given) and each app in a
    child process; wait for Ctrl-C or for an agent to exit."""
    from .registry import start_registry

    registry = None if external_registry else await start_registry("127.0.0.1", registry_port)
    url = external_registry or registry.url  # type: ignore[union-attr]
    env = {**os.environ, "MCP_MESH_REGISTRY_URL": url}
    width = max(len(a) for a in apps)
    children: list[asyncio.subprocess.Process] = []
    pumps: list[asyncio.Task[None]] = []
    for app in apps:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "mesh_framework.cli",
            "run",
            app,
            *extra_args,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # signals reach children only through us, so the stop order holds
        )
        children.append(child)
        assert child.stdout is not None
        pumps.append(asyncio.create_task(_pump(app, child.stdout, width)))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    waiters = [asyncio.create_task(c.wait()) for c in children]
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait([stopper, *waiters], return_when=asyncio.FIRST_COMPLETED)
    failed = [app for app, c in zip(apps, children, strict=True) if c.returncode not in (None, 0)]
    logger.info("stopping %d agent(s)", sum(1 for c in children if c.returncode is None))
    for child in children:
        if child.returncode is None:
            child.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.gather(*waiters), timeout=STOP_GRACE)
    except TimeoutError:
        for child in children:
            if child.returncode is None:
                child.kill()
        await asyncio.gather(*waiters)
    await asyncio.gather(*pumps, return_exceptions=True)
    stopper.cancel()
    if registry is not None:
        await registry.stop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.remove_signal_handler(signum)
    if failed:
        logger.error("agent(s) exited with an error: %s", ", ".join(failed))
        return 1
    return 0
