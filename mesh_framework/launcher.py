"""Local runs in child processes: `mesh run app_a app_b ...` (a registry plus one process per agent) and
`mesh run APP --reload` (the agent(s) restarted whenever a source file changes).

Each agent's log lines come out prefixed with its module name (when there are several); a `Progress`
hears when each one serves. Ctrl-C (or SIGTERM) stops every agent gracefully (each unregisters itself),
then the registry.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from .errors import MeshError, display_path

__all__ = ["PlainProgress", "Progress", "RegistryPortTaken", "run_agents"]

logger = logging.getLogger("mesh_framework")

# A stopping agent is killed this long after its own grace (`server.shutdown_grace`, which it says in the
# line it logs when it starts stopping; the setting's default until it says it): time for the streams it
# ended at the end of the grace to write their last event, and for it to close.
STOP_MARGIN = 2.0
STOPPING = re.compile(r"stopping: leaving the mesh, .*up to ([\d.]+)s")
DEPENDENCY_POLL = 0.2
UNLISTED_GRACE = 15.0
# Once an agent failed, how long the agents still starting get to serve or fail before the stop, so the
# failure line names every agent that could not start, not only the first.
STARTING_GRACE = 15.0
# An agent's log lines: it serves (`agent 'x' (ID) serving URL`; not the registry's `registry serving`),
# and the registry it joined (`joining the mesh at URL[, URL...] as ID`).
SERVING = re.compile(r"\((\S+)\) serving (https?://\S+)")
JOINING = re.compile(r"joining the mesh at ([^,\s]+)")
# What --reload watches in the folders it is given: Python sources and settings/catalog files.
WATCHED_EXTENSIONS = (".yaml", ".yml", ".json")


class RegistryPortTaken(MeshError):
    """The registry's port is held by something that is not a registry."""


class Progress(Protocol):
    """Hears how the agents come up: `starting` (again after each restart), then `ready` (serving),
    `waiting` while some dependencies have no provider, `resolved`; or `exited`."""

    def starting(self, apps: Sequence[str]) -> None: ...
    def ready(self, app: str, url: str) -> None: ...
    def waiting(self, app: str, missing: Sequence[str]) -> None: ...
    def resolved(self, app: str) -> None: ...
    def exited(self, app: str, code: int) -> None: ...
    def restarting(self, changed: Sequence[str]) -> None: ...
    def close(self) -> None: ...


class PlainProgress:
    """Plain lines on stdout: where each agent serves once it does, what it still waits for, and when
    every one is ready (serving, its dependencies resolved)."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def starting(self, apps: Sequence[str]) -> None:
        self.pending = list(apps)

    def ready(self, app: str, url: str) -> None:
        self._say(f"{app} is ready at {url}")

    def waiting(self, app: str, missing: Sequence[str]) -> None:
        self._say(f"{app} waits for a provider of {', '.join(missing)}")

    def resolved(self, app: str) -> None:
        if app in self.pending:
            self.pending.remove(app)
            if not self.pending:
                self._say("every agent is ready; Ctrl-C stops them")

    def exited(self, app: str, code: int) -> None:
        if app in self.pending:
            self.pending.remove(app)
        self._say(f"{app} exited with code {code}")

    def restarting(self, changed: Sequence[str]) -> None:
        self._say(f"changed: {', '.join(changed)}; restarting")

    def close(self) -> None:
        self.pending = []

    @staticmethod
    def _say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class _Agents:
    """The child processes of one generation, and the tasks copying their output."""

    def __init__(
        self, apps: Sequence[str], args: Sequence[str], env: Mapping[str, str], progress: Progress
    ) -> None:
        self.apps, self.args, self.env, self.progress = list(apps), list(args), dict(env), progress
        # Where to follow the agents' dependencies: the registry given to them, else the one each says
        # it joins; nowhere when they stay out of the mesh.
        self.joins = self.env.get("MESH_REGISTRY__ENABLED", "true").lower() not in ("false", "0", "no", "off")
        first_registry = self.env.get("MCP_MESH_REGISTRY_URL", "").split(",")[0].rstrip("/")
        self.registry_url = first_registry if self.joins else ""
        self.joined: dict[str, str] = {}
        self.children: dict[str, asyncio.subprocess.Process] = {}
        self.pumps: list[asyncio.Task[None]] = []
        self.followers: list[asyncio.Task[None]] = []
        self.reported: set[str] = set()
        self.graces: dict[str, float] = {}  # what each stopping agent said its grace is
        self.grace_said = asyncio.Event()
        self.serving: set[str] = set()  # the apps that said they serve
        self.served = asyncio.Event()

    async def start(self) -> None:
        self.progress.starting(self.apps)
        self.reported.clear()
        self.graces.clear()
        self.serving.clear()
        width = max(len(a) for a in self.apps)
        for app in self.apps:
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "mesh_framework.cli",
                "run",
                app,
                *self.args,
                env=self.env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,  # signals reach children only through us, so the stop order holds
            )
            self.children[app] = child
            assert child.stdout is not None
            prefix = f"[{app:<{width}}] " if len(self.apps) > 1 else ""
            self.pumps.append(asyncio.create_task(self._pump(app, child.stdout, prefix)))

    async def _pump(self, app: str, stream: asyncio.StreamReader, prefix: str) -> None:
        """Copy an agent's log lines to stderr; tell the progress where it serves once it does."""
        while line := await stream.readline():
            text = line.decode(errors="replace")
            sys.stderr.write(prefix + text)
            sys.stderr.flush()
            ready = SERVING.search(text)
            if ready:
                self.serving.add(app)
                self.served.set()
                self.progress.ready(app, ready.group(2))
                if self.joins:
                    follow = self._follow_dependencies(app, ready.group(1))
                    self.followers.append(asyncio.create_task(follow))
                else:
                    self.progress.resolved(app)
            stopping = STOPPING.search(text)
            if stopping:
                self.graces[app] = float(stopping.group(1))
                self.grace_said.set()
            joined = JOINING.search(text)
            if joined and not self.registry_url:  # an agent minding its own (embedded) registry
                self.joined[app] = joined.group(1)
        child = self.children.get(app)
        if child is not None:  # its output ended: it exited, and its code is known from now on
            await child.wait()

    async def _follow_dependencies(self, app: str, agent_id: str) -> None:
        """Tell the progress what the agent still waits for, until the registry lists every dependency of
        it resolved (or the agent exits: this task is cancelled with the others). The registry is ours,
        or the one the agent said it joins."""
        import httpx2

        said: list[str] | None = None
        listed_by = time.monotonic() + UNLISTED_GRACE
        async with httpx2.AsyncClient(timeout=5.0) as http:
            while self.children.get(app) is not None and self.children[app].returncode is None:
                registry = self.registry_url or self.joined.get(app)
                missing = await _unresolved(http, registry, agent_id) if registry else None
                if missing is None and said is None and time.monotonic() > listed_by:
                    missing = []  # never listed: the agent stays out of the mesh (registry.enabled false)
                if missing is not None and not missing:
                    self.progress.resolved(app)
                    return
                if missing and not self._settled():  # its provider may be an agent still starting
                    missing = said
                if missing and self._failed():  # or one that failed: say nothing misleading
                    return
                if missing and missing != said:
                    self.progress.waiting(app, missing)
                    said = missing
                await asyncio.sleep(DEPENDENCY_POLL)

    def _settled(self) -> bool:
        """Every agent serves or has exited."""
        return all(app in self.serving or c.returncode is not None for app, c in self.children.items())

    def _failed(self) -> list[str]:
        """The apps whose process exited with an error on its own (not killed by our stop's signal)."""
        ours = (-signal.SIGTERM, -signal.SIGKILL)
        return [app for app, c in self.children.items() if c.returncode not in (None, 0, *ours)]

    async def next_exit(self) -> tuple[str, int]:
        """Wait until a child not yet reported exits; its app and exit code."""
        waiting = {
            asyncio.create_task(child.wait()): app
            for app, child in self.children.items()
            if app not in self.reported
        }
        if not waiting:
            await asyncio.Event().wait()  # nothing left to exit: wait to be cancelled
        try:
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiting:
                task.cancel()
        app = waiting[next(iter(done))]
        self.reported.add(app)
        return app, self.children[app].returncode or 0

    async def stop(self) -> list[str]:
        """SIGTERM every child, SIGKILL one still running STOP_MARGIN seconds after its grace; the apps that
        had exited with an error."""
        if self._failed():
            await self._let_starting_agents_finish()
        alive = [c for c in self.children.values() if c.returncode is None]
        if alive:
            logger.info("stopping %d agent(s)", len(alive))
        for child in alive:
            child.send_signal(signal.SIGTERM)
        await self._wait_or_kill(asyncio.get_running_loop().time())
        failed = self._failed()  # after the wait: another agent may be failing at start too
        for follower in self.followers:
            follower.cancel()
        await asyncio.gather(*self.pumps, *self.followers, return_exceptions=True)
        self.children, self.pumps, self.followers = {}, [], []
        return failed

    async def _let_starting_agents_finish(self) -> None:
        """Wait (at most STARTING_GRACE) until every agent still starting serves or exits."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STARTING_GRACE
        while True:
            self.served.clear()  # before looking: an agent serving after this sets it again
            starting = [
                c for app, c in self.children.items() if c.returncode is None and app not in self.serving
            ]
            if not starting or loop.time() >= deadline:
                return
            waits = {asyncio.ensure_future(c.wait()) for c in starting}
            served = asyncio.ensure_future(self.served.wait())
            try:
                await asyncio.wait(
                    {*waits, served}, timeout=deadline - loop.time(), return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for task in (*waits, served):
                    task.cancel()

    async def _wait_or_kill(self, signalled: float) -> None:
        """Wait for the children signalled at `signalled` (loop time) to exit; kill each one still running
        STOP_MARGIN seconds after its grace (the one it said, else the setting's default)."""
        from .config.settings import ServerSettings

        default = float(ServerSettings.model_fields["shutdown_grace"].default)
        loop = asyncio.get_running_loop()
        while running := {app: c for app, c in self.children.items() if c.returncode is None}:
            deadlines = {app: signalled + self.graces.get(app, default) + STOP_MARGIN for app in running}
            for app, deadline in deadlines.items():
                if deadline <= loop.time():
                    running[app].kill()
            self.grace_said.clear()
            waits = {asyncio.ensure_future(c.wait()) for c in running.values()}
            said = asyncio.ensure_future(self.grace_said.wait())
            try:
                timeout = max(0.0, min(deadlines.values()) - loop.time())
                await asyncio.wait({*waits, said}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (*waits, said):
                    task.cancel()


async def run_agents(
    apps: Sequence[str],
    extra_args: Sequence[str],
    *,
    registry_port: int = 0,
    external_registry: str | None = None,
    start_registry: bool = True,
    watch: Sequence[Path] = (),
    progress: Progress | None = None,
) -> int:
    """Run each app in a child process until Ctrl-C. With `start_registry`, an embedded registry runs in
    this process (unless `external_registry` is given) and the children join it. Without `watch`, the
    first agent to exit stops the others; with it, a change below those paths restarts every agent, and an
    agent that exits waits for the next change."""
    progress = progress or PlainProgress()
    registry = None
    if start_registry and not external_registry:
        external_registry = await _running_registry(registry_port)
        if external_registry is None:
            registry = await _start_registry(registry_port)
    env = dict(os.environ)
    if start_registry:
        env["MCP_MESH_REGISTRY_URL"] = external_registry or registry.url  # type: ignore[union-attr]
    agents = _Agents(apps, extra_args, env, progress)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    changes: asyncio.Queue[list[str]] = asyncio.Queue()
    watcher = asyncio.create_task(_watch(watch, changes, stop)) if watch else None
    failed: list[str] = []
    try:
        await agents.start()
        while not stop.is_set():
            event = await _next_event(agents, stop, changes, watcher)
            if isinstance(event, list):
                progress.restarting(event)
                await agents.stop()
                await agents.start()
            elif isinstance(event, tuple):
                progress.exited(*event)
                if watcher is None:
                    break
    finally:
        progress.close()
        failed = await agents.stop()
        if watcher is not None:
            stop.set()
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        if registry is not None:
            await registry.stop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    if failed:
        logger.error("agent(s) exited with an error: %s", ", ".join(failed))
        return 1
    return 0


async def _running_registry(port: int) -> str | None:
    """The URL of a registry already answering on 127.0.0.1:`port` (`mesh registry`, or the agents of
    another `mesh run`), which the agents then join; None when there is none (or `port` is 0)."""
    import httpx2

    from .mesh.embedded_lookup import embedded_registry_url, registry_answers

    if not port:
        return None
    url = embedded_registry_url(port)
    async with httpx2.AsyncClient(trust_env=False) as http:
        if not await registry_answers(http, url):
            return None
    logger.info("joining the registry already running at %s", url)
    return url


async def _start_registry(port: int) -> Any:
    from .registry import start_registry

    try:
        # The children read registry.token from the same environment: with one, the registry checks it.
        return await start_registry("127.0.0.1", port, token=os.environ.get("MESH_REGISTRY__TOKEN") or None)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise RegistryPortTaken(
            f"the registry's port 127.0.0.1:{port} is taken by something that is not a registry "
            f"({reason}); pick another with --registry-port PORT (0: any free port), or join a registry "
            "with --registry-url"
        ) from None


async def _unresolved(http: Any, registry_url: str, agent_id: str) -> list[str] | None:
    """The capabilities the agent's dependencies still lack (by name where the registry lists the slot),
    or None when the registry cannot say yet (unreachable, or the agent not registered)."""
    try:
        listing = (await http.get(f"{registry_url}/agents")).json()
    except Exception:  # the registry is starting, restarting or gone: ask again later
        return None
    for agent in listing.get("agents") or [] if isinstance(listing, dict) else []:
        if isinstance(agent, dict) and agent.get("id") == agent_id:
            rows = [r for r in agent.get("dependency_resolutions") or [] if isinstance(r, dict)]
            missing = sorted({str(r.get("capability")) for r in rows if r.get("status") != "available"})
            total, resolved = agent.get("total_dependencies"), agent.get("dependencies_resolved")
            if not missing and isinstance(total, int) and isinstance(resolved, int) and resolved < total:
                missing = [f"{total - resolved} dependencies"]
            return missing
    return None


async def _next_event(
    agents: _Agents,
    stop: asyncio.Event,
    changes: asyncio.Queue[list[str]],
    watcher: asyncio.Task[None] | None,
) -> list[str] | tuple[str, int] | None:
    """The next thing to act on: changed files (a list), an agent's exit (app, code), or None (stop)."""
    stopper = asyncio.create_task(stop.wait())
    exited = asyncio.create_task(agents.next_exit())
    changed = asyncio.create_task(changes.get())
    tasks: set[asyncio.Task[Any]] = {stopper, exited, changed}
    if watcher is not None:
        tasks.add(watcher)
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (stopper, exited, changed):
            task.cancel()
    if watcher is not None and watcher in done and (exc := watcher.exception()) is not None:
        raise MeshError(f"--reload cannot watch the source files ({type(exc).__name__}: {exc})")
    if changed in done and not changed.cancelled():
        return changed.result()
    if exited in done and not exited.cancelled():
        return exited.result()
    return None


async def _watch(paths: Sequence[Path], changes: asyncio.Queue[list[str]], stop: asyncio.Event) -> None:
    from watchfiles import PythonFilter, awatch

    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # we say what changed ourselves
    watched = PythonFilter(extra_extensions=WATCHED_EXTENSIONS)
    async for batch in awatch(*paths, watch_filter=watched, stop_event=stop, debounce=1600, step=100):
        changes.put_nowait(sorted({display_path(path) for _, path in batch}))
