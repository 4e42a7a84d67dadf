"""`MeshApplication`: assembles settings, scan, container and server; the auto-configuration.

Loading finds every configuration and wiring problem and reports them together, before anything is
built; building instantiates the components eagerly; serving binds the port.

Usage::

    app = MeshApplication.load("starter_app", profiles=["dev"])
    app.run()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dependency_injector import providers
from pydantic import BaseModel

from .config.loader import LoadedSettings, find_config_dir, load_settings
from .config.settings import MeshSettings
from .di.assembly import assemble_container, bean_name_for
from .di.container import FRAMEWORK_BEANS
from .di.scan import ScanResult, find_agent, scan_packages
from .di.wiring import BeanCatalog, describe_location
from .errors import ConfigError, MeshError, WiringError
from .serving import UvicornServer, bind_socket
from .specs import AgentSpec

__all__ = ["MeshApplication"]

logger = logging.getLogger("mesh_framework")


class MeshApplication:
    """One agent: its settings (with origins), its scanned parts and its container."""

    def __init__(
        self,
        agent: AgentSpec,
        loaded: LoadedSettings,
        scan: ScanResult,
        container: Any,
        catalog: BeanCatalog,
    ) -> None:
        self.agent = agent
        self.loaded = loaded
        self.scan = scan
        self.container = container
        self.catalog = catalog
        self.bound_port: int | None = None
        self._server: Any = None
        self._prepared = False

    @property
    def settings(self) -> MeshSettings:
        return self.loaded.settings

    # -- loading -----------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        app: str,
        *,
        cli: Mapping[str, Any] | None = None,
        profiles: Sequence[str] | None = None,
        config: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> MeshApplication:
        """Import the module `app`, load its settings, scan its packages and check all wiring.

        Raises ConfigError or WiringError listing every problem found. Nothing is instantiated yet.
        """
        environ = os.environ if environ is None else environ
        agent = find_agent(app)
        config_dir = _config_dir(agent, config, environ)
        loaded = load_settings(
            code=agent.params, cli=cli, profiles=profiles, config_dir=config_dir, environ=environ
        )
        settings = loaded.settings
        servers = _server_catalog(loaded, config_dir, environ)
        packages = settings.scan.packages or list(agent.scan) or [_package_of(agent.module)]
        exclude = [*agent.exclude, *settings.scan.exclude]
        scan = scan_packages(packages, exclude)
        catalog = BeanCatalog(scan.components, scan.config_properties, FRAMEWORK_BEANS)
        container = assemble_container(loaded, scan, catalog, servers)
        return cls(agent, loaded, scan, container, catalog)

    # -- building and serving ----------------------------------------------------------------------

    def build(self) -> Any:
        """Instantiate every component (eagerly, like Spring singletons) and return the ASGI app."""
        if not self.container.lifespan.overridden:  # build() may run again (tests); override once
            self.container.lifespan.override(providers.Object(self._lifespan))
        failures = []
        for bean in self.catalog.components:
            try:
                getattr(self.container, bean.name)()
            except MeshError:
                raise
            except Exception as exc:
                failures.append(
                    f"{describe_location(bean.type)}: component {bean.type.__qualname__} failed to "
                    f"start: {type(exc).__name__}: {exc}"
                )
        if failures:
            raise WiringError(failures)
        self._register_listeners()
        asgi = self.container.asgi_app()
        try:
            self.container.llm_agents()
        except MeshError as exc:
            raise WiringError([str(exc)]) from None
        gateway = self.container.gateway()
        if gateway is not None:
            endpoint, runtime = self.container.mcp_endpoint(), self.container.mesh_runtime()
            gateway.on_change = lambda: (endpoint.refresh_tools(), runtime.tools_changed())
        return asgi

    def _register_listeners(self) -> None:
        """Subscribe every `@event_listener` method of the components (once per build)."""
        publisher = self.container.event_publisher()
        problems = []
        for bean in self.catalog.components:
            try:
                publisher.register(getattr(self.container, bean.name)())
            except TypeError as exc:
                problems.append(f"{describe_location(bean.type)}: {exc}")
        if problems:
            raise WiringError(problems)

    async def prepare(self) -> None:
        """What must happen before serving, once: with `mcp.fail_fast`, reach every catalog server (all
        failures listed in one ConfigError); discover the gateway's servers and serve their tools."""
        if self._prepared:
            return
        fail_fast = self.settings.mcp.fail_fast
        callbacks = self.container.mcp_tool_callbacks()
        if fail_fast and callbacks.connections:
            await callbacks.start(fail_fast=True)
        gateway = self.container.gateway()
        if gateway is not None:
            await gateway.start()
            if fail_fast and gateway.provider.errors:
                await gateway.aclose()
                raise ConfigError(
                    [f"mcp.gateway: MCP server '{n}': {r}" for n, r in gateway.provider.errors.items()]
                )
        self._prepared = True

    async def _release(self) -> None:
        """Stop catalog server processes and close their sessions."""
        self._prepared = False
        gateway = self.container.gateway()
        if gateway is not None:
            await gateway.aclose()
        for agent in self.container.llm_agents().values():
            await agent.aclose()
        await self.container.llm_provider_service().aclose()
        await self.container.mcp_tool_callbacks().aclose()
        await self.container.event_publisher().drain()

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Any) -> AsyncIterator[None]:
        """Marks the agent ready; when it serves on a socket (not in-process tests), joins the mesh."""
        state = self.container.agent_state()
        await self.prepare()
        runtime: Any = None
        joining: asyncio.Task[None] | None = None
        if self.bound_port is not None:
            settings = self.settings
            logger.info(
                "agent '%s' (%s) serving http://%s:%d%s with %d tool(s)",
                settings.agent.name,
                settings.agent.id,
                settings.server.host,
                self.bound_port,
                settings.server.path,
                len(self.container.tools()),
            )
            runtime = self.container.mesh_runtime()
            # Joining the mesh must not hold up serving: it runs beside the server, which is already
            # listening (the socket was bound before the lifespan started).
            joining = asyncio.get_running_loop().create_task(self._join(runtime, self.bound_port))
        state.ready = True
        try:
            yield
        finally:
            state.ready = False
            if runtime is not None and joining is not None:
                if not joining.done():
                    joining.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await joining
                await runtime.stop()
            await self._release()

    @staticmethod
    async def _join(runtime: Any, port: int) -> None:
        try:
            await runtime.start(port)
        except Exception:
            logger.exception("could not join the mesh; serving without it")

    def bind(self) -> socket.socket:
        """Bind the listening socket (port 0 picks a free one); `bound_port` tells which."""
        server = self.settings.server
        assert server.host is not None
        try:
            sock = bind_socket(server.host, server.port)
        except OSError as exc:
            origin = self.loaded.origin_of("server.port")
            raise ConfigError(
                [
                    f"server.port = {server.port} (from {origin}): cannot listen on "
                    f"{server.host}:{server.port} ({exc.strerror}); choose another port"
                ]
            ) from None
        self.bound_port = sock.getsockname()[1]
        return sock

    async def serve(self) -> None:
        """Build, bind and serve until stopped (SIGINT/SIGTERM)."""
        import signal

        import uvicorn

        app = self.build()
        try:
            await self.prepare()
            sock = self.bind()
        except BaseException:
            await self._release()
            raise
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="on",
            log_level=self.settings.logging.level.lower(),
            timeout_graceful_shutdown=5,
        )
        self._server = UvicornServer(config)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.stop)
        try:
            await self._server.serve(sockets=[sock])
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)

    def run(self) -> None:
        asyncio.run(self.serve())

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True

    @contextlib.contextmanager
    def override(self, target: type | str, value: Any) -> Iterator[None]:
        """Replace a component or framework bean (by type or provider name) while the block runs."""
        name = target if isinstance(target, str) else bean_name_for(self.catalog, target)
        self.container.reset_singletons()
        with getattr(self.container, name).override(value):
            yield
        self.container.reset_singletons()

    def section(self, model: type[BaseModel]) -> BaseModel:
        """The validated `@config_properties` section of type `model`."""
        return self.container.providers[self.catalog.config[model].name]()  # type: ignore[no-any-return]


def _server_catalog(loaded: LoadedSettings, config_dir: Path | None, environ: Mapping[str, str]) -> Any:
    """The MCP server catalog of `mcp.servers` and `mcp.catalog`; every server named elsewhere in the
    settings (`mcp.gateway`, `mcp.default_servers`) must be in it."""
    from .catalog.loading import catalog_from_settings

    catalog = catalog_from_settings(loaded, config_dir, environ)
    problems = []
    for key in ("gateway", "default_servers"):
        missing = [name for name in getattr(loaded.settings.mcp, key) if not catalog.contains(name)]
        if missing:
            known = ", ".join(catalog) or "none"
            problems.append(
                f"mcp.{key} = {missing!r} (from {loaded.origin_of('mcp.' + key)}): no such MCP server in "
                f"the catalog (it has: {known}); add it to mcp.servers or a catalog file"
            )
    if problems:
        raise ConfigError(problems)
    return catalog


def _package_of(module: str) -> str:
    loaded = sys.modules[module]
    return module if hasattr(loaded, "__path__") else module.rpartition(".")[0] or module


def _config_dir(agent: AgentSpec, config: str | Path | None, environ: Mapping[str, str]) -> Path | None:
    explicit = config or environ.get("MESH_CONFIG")
    if explicit:
        path = Path(explicit)
        if path.is_file():
            return path.parent
        if not path.is_dir():
            raise ConfigError(
                [
                    f"config = {str(explicit)!r}: no such file or directory; point --config (or "
                    "MESH_CONFIG) at the folder holding application.yaml"
                ]
            )
        return path
    module_file = getattr(sys.modules[agent.module], "__file__", None)
    candidates: list[Path] = []
    if module_file:
        package_dir = Path(module_file).resolve().parent
        candidates += [package_dir / "config", package_dir.parent / "config"]
    candidates.append(Path.cwd() / "config")
    return find_config_dir(candidates)
