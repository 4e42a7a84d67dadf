"""Serving the embedded registry: `RegistryServer` inside a running event loop, `serve_registry` standalone.

`mesh run` can embed the registry in its own process (`async with RegistryServer(port=0) as registry:`
then point the agents at `registry.url`), or start `python -m mesh_framework.registry` as a subprocess and
wait for its `registry serving http://HOST:PORT` log line. `mesh registry` calls `serve_registry`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from pathlib import Path
from types import TracebackType

import uvicorn

from ..protocol.http_protocol import agent_http_protocol
from ..security.tls import ServerTls
from ..serving import KEEP_ALIVE_TIMEOUT, UvicornServer, bind_socket
from .audit import DEFAULT_HISTORY
from .auth import check_bind
from .registry_app import build_registry_app
from .store import DEFAULT_TIMEOUT, RegistryStore

__all__ = ["RegistryServer", "serve_registry", "start_registry"]

logger = logging.getLogger("mesh_framework.registry")

START_TIMEOUT = 10.0
HEADER_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0


def _bind(host: str, port: int) -> socket.socket:
    try:
        return bind_socket(host, port)
    except OSError as exc:
        raise OSError(exc.errno, f"registry cannot listen on {host}:{port} ({exc.strerror})") from None


class RegistryServer:
    """The embedded registry on a real socket, served by uvicorn inside the current event loop.

    Usage:

        async with RegistryServer("127.0.0.1", 0, database="registry.db") as registry:
            print(registry.url)          # http://127.0.0.1:PORT
            await registry.wait()        # until stop() (or leave the block to stop)
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        database: str | Path | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        check_interval: float | None = None,
        store: RegistryStore | None = None,
        token: str | None = None,
        ssl: ServerTls | None = None,
        audit_history: int = DEFAULT_HISTORY,
    ) -> None:
        check_bind(host, token)
        self.host = host
        self.tls = ssl
        self.requested_port = port
        self._owns_store = store is None
        if store is None:
            store = RegistryStore(database, timeout=timeout, audit_history=audit_history)
        self.store = store
        # the guarded edge, then the token on every route but /health (registry/auth.py)
        self.app = build_registry_app(self.store, check_interval=check_interval, token=token, host=host)
        self.port: int | None = None
        self._server: UvicornServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("The registry is not serving yet; await start() first")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    async def start(self) -> str:
        """Bind, serve in a background task, and return the URL once the registry answers."""
        sock = _bind(self.host, self.requested_port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=2,
            **(self.tls.uvicorn_options() if self.tls else {}),
        )
        config.timeout_keep_alive = KEEP_ALIVE_TIMEOUT  # see serving.py
        config.http = agent_http_protocol(HEADER_TIMEOUT)  # slow-loris senders: 408, see protocol/
        self._server = UvicornServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="mesh-registry")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT
        while not self._server.started and loop.time() < deadline:
            if self._task.done():
                break
            await asyncio.sleep(0.005)
        if not self._server.started:
            await self.stop()
            sock.close()
            raise RuntimeError(f"The registry did not start on {self.host}:{self.port}")
        logger.info("registry serving %s", self.url)
        return self.url

    async def wait(self) -> None:
        """Until the server stops."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Stop serving (graceful, then forced after a few seconds) and close an owned store."""
        if self._server is not None and self._task is not None:
            self.app.state.push.close()  # end the push streams, or uvicorn waits for them
            self._server.should_exit = True
            try:
                await asyncio.wait_for(asyncio.shield(self._task), STOP_TIMEOUT)
            except TimeoutError:
                self._server.force_exit = True
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            except Exception:
                logger.exception("registry server failed")
            self._task = None
        if self._owns_store:
            await asyncio.to_thread(self.store.close)  # its database writes what is queued, off the loop

    async def __aenter__(self) -> RegistryServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


async def start_registry(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    database: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    check_interval: float | None = None,
    token: str | None = None,
    ssl: ServerTls | None = None,
    audit_history: int = DEFAULT_HISTORY,
) -> RegistryServer:
    """Start a registry in the running event loop; `await registry.stop()` ends it.

    Raises OSError when the port is taken, ValueError when a non-loopback host has no `token`.
    """
    server = RegistryServer(
        host,
        port,
        database=database,
        timeout=timeout,
        check_interval=check_interval,
        token=token,
        ssl=ssl,
        audit_history=audit_history,
    )
    try:
        await server.start()
    except BaseException:
        server.store.close()
        raise
    return server


async def serve_registry(
    host: str = "127.0.0.1",
    port: int = 8000,
    database: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    check_interval: float | None = None,
    *,
    token: str | None = None,
    ssl: ServerTls | None = None,
    audit_history: int = DEFAULT_HISTORY,
) -> None:
    """Serve the embedded registry until SIGINT/SIGTERM (logs `registry serving http://HOST:PORT`)."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    handled: list[signal.Signals] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stopping.set)
            handled.append(signum)
        except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
            pass
    server: RegistryServer | None = None
    try:
        server = await start_registry(
            host,
            port,
            database=database,
            timeout=timeout,
            check_interval=check_interval,
            token=token,
            ssl=ssl,
            audit_history=audit_history,
        )
        waiter = asyncio.create_task(server.wait())
        stopper = asyncio.create_task(stopping.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        waiter.cancel()
    finally:
        if server is not None:
            await server.stop()
        for signum in handled:
            loop.remove_signal_handler(signum)
