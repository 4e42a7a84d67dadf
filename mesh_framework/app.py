"""`MeshApplication`: assembles settings, scan, container and server; the auto-configuration.

Loading finds every configuration and wiring problem and reports them together, before anything is
built; building instantiates the components eagerly; serving binds the port. Each step lives in its own
module of `application/`; this class holds one agent's state and runs the steps in order.

Usage::

    app = MeshApplication.load("starter_app", profiles=["dev"])
    app.run()
"""

from __future__ import annotations

import asyncio
import gc
import socket
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .application.agent_server import bind_agent_socket, serve_until_stopped, uvicorn_server
from .application.beans import overriding, section_of
from .application.building import build_agent
from .application.lifespan import AgentLifecycle
from .application.loading import load_application
from .application.observability import wire_observability
from .config.loader import LoadedSettings
from .config.settings import MeshSettings
from .di.definitions import Selection
from .di.scan import ScanResult
from .di.wiring import BeanCatalog
from .specs import AgentSpec

if TYPE_CHECKING:  # loaded by the first stop()
    from .application.shutdown import GracefulStop

__all__ = ["MeshApplication"]


class MeshApplication:
    """One agent: its settings (with origins), its scanned parts and its container."""

    def __init__(
        self,
        agent: AgentSpec,
        loaded: LoadedSettings,
        scan: ScanResult,
        container: Any,
        catalog: BeanCatalog,
        *,
        selection: Selection | None = None,
    ) -> None:
        self.agent = agent
        self.loaded = loaded
        self.scan = scan
        self.container = container
        self.catalog = catalog
        self.selection = selection  # every bean considered and its conditions' outcomes (`mesh beans`)
        self.bound_port: int | None = None
        self._server: Any = None
        self._stopping: GracefulStop | None = None
        self._lifecycle = AgentLifecycle(container, loaded)

    @property
    def settings(self) -> MeshSettings:
        return self.loaded.settings

    @classmethod
    def load(
        cls,
        app: str,
        *,
        cli: Mapping[str, Any] | None = None,
        profiles: Sequence[str] | None = None,
        config: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
        report_unread: bool = False,
    ) -> MeshApplication:
        """Import the module `app`, load its settings, scan its packages and check all wiring.

        Raises ConfigError or WiringError listing every problem found. Nothing is instantiated yet.
        `report_unread` keeps settings nothing reads in `loaded.unread` rather than stopping (`mesh config`).
        """
        loaded = load_application(
            app, cli=cli, profiles=profiles, config=config, environ=environ, report_unread=report_unread
        )
        return cls(*loaded[:5], selection=loaded.selection)

    async def start_beans(self) -> None:
        """Make every singleton bean in dependency order, awaiting the `async def` ones, on the loop that will
        serve (`serve()` and `mesh_client` do it before building; `build()` alone makes the sync ones)."""
        await self.container.bean_lifecycle().start()

    def build(self) -> Any:
        """Instantiate every component (eagerly, like Spring singletons) and return the ASGI app."""
        asgi = build_agent(self.container, self.catalog, self._lifespan)
        wire_observability(self.container)
        from .mesh.projects import project_of

        self.container.mesh_runtime().project = project_of(self.agent.module)
        return asgi

    async def prepare(self) -> None:
        """What must happen before serving, once: the features' serving lifecycles started (with
        `mcp.fail_fast`, every catalog server reached, all failures listed in one ConfigError; the
        gateway's servers discovered and their tools served)."""
        await self._lifecycle.prepare()

    def _lifespan(self, app: Any) -> AbstractAsyncContextManager[None]:
        """Marks the agent ready; when it serves on a socket (not in-process tests), joins the mesh."""
        server = self._server
        return self._lifecycle.running(self.bound_port, server.listening.wait if server is not None else None)

    def bind(self) -> socket.socket:
        """Bind the listening socket (port 0 picks a free one); `bound_port` tells which."""
        sock = bind_agent_socket(self.loaded)
        self.bound_port = sock.getsockname()[1]
        return sock

    async def serve(self) -> None:
        """Build, bind and serve until stopped (SIGINT/SIGTERM).

        This call owns the process: once start-up is done it freezes the garbage collector's heap
        (`gc.freeze()`), so the objects start-up built are not walked by later collections.
        """
        await self.start_beans()
        try:
            app = self.build()
        except BaseException:
            await self.container.bean_lifecycle().close()
            raise
        try:
            await self.prepare()
            sock = self.bind()
        except BaseException:
            await self._lifecycle.release()
            raise
        self._server = uvicorn_server(app, self.settings)
        gc.freeze()
        try:
            await serve_until_stopped(self._server, sock, self.stop)
        except SystemExit:  # uvicorn's exit when the lifespan failed to start: say why, on one line
            if self._lifecycle.failure is not None:
                raise self._lifecycle.failure from None
            raise

    def run(self) -> None:
        asyncio.run(self.serve())

    def stop(self) -> None:
        """Stop serving gracefully (see `application/shutdown.py`); called again, stop at once."""
        if self._server is not None:
            if self._stopping is None:
                from .application.shutdown import GracefulStop

                self._stopping = GracefulStop(self._server, self.container)
            self._stopping.request()

    @contextmanager
    def override(self, target: type | str, value: Any) -> Iterator[None]:
        """Replace a component or framework bean (by type or provider name) while the block runs."""
        with overriding(self.container, self.catalog, target, value):
            yield

    def section(self, model: type[BaseModel]) -> BaseModel:
        """The validated `@config_properties` section of type `model`."""
        return section_of(self.container, self.catalog, model)
