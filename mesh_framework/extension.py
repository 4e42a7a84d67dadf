"""The core's extension points: the types of the beans through which a feature plugs into an agent.

A feature (the framework's own, or an installed package's) is an auto-configuration: `@configuration`
classes whose `@bean` methods return these types, and the core collects every bean of each type (as a
`list[T]`), in `order`:

- `LoadPlan`: made while the app loads, before any other bean, from the `ScannedApp`; its `problems` are
  reported with the app's other wiring problems, before anything is built.
- `ToolSource`: adds tools to the agent's registry once the application's tools are in it.
- `HttpSurface`: routes (and middleware) served on the agent's port, behind the HTTP edge; `/mcp` stays
  the endpoint's.
- `EndpointExtension`: an MCP extension served on the agent's endpoint: its capabilities, its JSON-RPC
  methods and the resources it serves beside the app's.
- `AgentInitializer`: runs once the agent is built (`BuiltAgent`), before it serves: hooks a feature's
  objects to the endpoint, the mesh runtime or the app.
- `ServingLifecycle`: started before the agent is ready, stopped after it stopped serving (Spring's
  `SmartLifecycle`).
- `GracefulStop`: takes part in a graceful stop: refuses new work when the stop begins, and is given
  what is left of the grace once the calls in flight settled.
- `MeshMember`: told when the agent joined the mesh and asked to leave it.
- `HeartbeatFields`: agent-level fields of the agent's registration (MCP Mesh's heartbeat).
- `RouteSlots`: web routes whose dependency slots the mesh runtime keeps current and registers.
- `AgentHealth`: the agent's health verdict, which the mesh runtime registers with and keeps current.
- `CallObserver`: hooks watching the agent's traffic (calls served and made, registry requests, LLM
  usage), joined by the core once when the agent is built.
- `EmbeddedRegistry`: the registry an agent runs in its own process when no registry URL is set.

The core's tracer (`observation.Tracer`, the spans of calls and the trace context they carry) is an
extension point too, in a module of its own since the call path reads it.

Beans are closed by the container at stop (`aclose()`/`close()`), so a feature needs no hook for that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._frozen import frozen
from .errors import WiringError

if TYPE_CHECKING:
    import httpx2

    from .config.loader import LoadedSettings
    from .config.settings import MeshSettings
    from .di.scan import ScanResult
    from .di.wiring import BeanCatalog
    from .specs import AgentSpec
    from .tools.builder import ToolPlan
    from .tools.wrapper_registry import MeshToolWrapperRegistry

__all__ = [
    "AgentHealth",
    "AgentInitializer",
    "BeanLookup",
    "BuiltAgent",
    "CallObserver",
    "EmbeddedRegistry",
    "EndpointExtension",
    "EndpointMethod",
    "GracefulStop",
    "HeartbeatFields",
    "HttpSurface",
    "LoadPlan",
    "MeshMember",
    "RouteSlots",
    "ScannedApp",
    "ServingLifecycle",
    "ToolSource",
    "join_observers",
]


@frozen(slots=False)
class ScannedApp:
    """What loading found, for the features' plans: the settings with their origins, the scan, the
    application's tool plans, the beans that can be injected, the app's folders and the environment its
    settings were read from (`${VAR}` placeholders of files a feature reads; None: the process's)."""

    loaded: LoadedSettings
    scan: ScanResult
    catalog: BeanCatalog
    tool_plans: Sequence[ToolPlan] = ()
    config_dir: Path | None = None
    package_dir: Path | None = None
    environ: Mapping[str, str] | None = None
    agent: AgentSpec | None = None  # the app's `@mesh_agent` (its `health_check`, ...), when loaded from one

    @property
    def settings(self) -> MeshSettings:
        return self.loaded.settings

    def owners(self) -> dict[type, str]:
        """The bean name of each component class (the owner of a marked method)."""
        return {bean.type: bean.name for bean in self.catalog.components}

    def bean_for(self, annotation: Any) -> str:
        """The bean name injected for `annotation`; WiringError if none fits."""
        resolved = self.catalog.resolve(annotation)
        if isinstance(resolved, str):
            raise WiringError([resolved])
        name: str = resolved.name
        return name

    @property
    def folders(self) -> tuple[Path | None, Path | None]:
        return self.config_dir, self.package_dir


class BeanLookup:
    """A bean by its name (Spring's `BeanFactory.getBean(name)`): for a feature that finds the owner of a
    marked method by name at run time."""

    def __init__(self, container: Any) -> None:
        self._container = container

    def __call__(self, name: str) -> Any:
        return getattr(self._container, name)()

    def get(self, name: str) -> Any:
        """The bean `name`, or None when the app defines none of that name (an optional dependency on
        another feature's bean, without importing its module)."""
        return self(name) if name in self._container.providers else None


class LoadPlan:
    """A bean made while the app loads: what a feature found and will build. Its `problems` (text, each
    naming the file and line, the setting or the tool) are reported with every other wiring problem;
    `config_problems` says they are problems of files or settings only (a ConfigError, not a WiringError)."""

    problems: Sequence[str] = ()
    config_problems: bool = False


class ToolSource:
    """A bean that adds tools to the agent (the job tools, click commands as tools, a gateway's)."""

    def add_tools(self, registry: MeshToolWrapperRegistry) -> None:
        raise NotImplementedError


@frozen(slots=False)
class HttpSurface:
    """Routes served on the agent's port behind the HTTP edge, before (lower `order`) or after others';
    `middleware` wraps the agent's web side (never `/mcp`). `app_routes`: the routes are the application's
    own (`@mesh_route`s), counted as its web routes in the "serving" log line. `scopes`: the scopes its
    routes ask of callers, by route (listed in the protected-resource metadata; they need a verifier)."""

    routes: Sequence[Any] = ()
    order: int = 0
    middleware: Sequence[Any] = ()
    app_routes: bool = False
    scopes: Mapping[str, Sequence[str]] | None = None


# One JSON-RPC method of an EndpointExtension: (params, modern) -> the result.
EndpointMethod = Callable[[Mapping[str, Any], bool], Awaitable[dict[str, Any]]]


class EndpointExtension:
    """A bean serving an MCP extension (`capabilities.extensions`, SEP-2133) on the agent's endpoint, in
    both protocol eras, beside its tools, prompts and resources:

    - `capabilities()`: merged into what `initialize` and `server/discover` declare, one level deep
      (`{"extensions": {"io.example/x": {...}}, "resources": {...}}`);
    - `methods()`: its JSON-RPC methods by name, each `handler(params, modern)` answering the result
      (`modern`: the 2026-07-28 era; the endpoint stamps the result). A `FeatureRequestError`
      (protocol/features.py) it raises is the caller's error, -32602 (-32603 when `internal`); a method
      the core or another extension serves already is a start-up problem;
    - `resources()`: resources served beside the app's, or None: an object with `descriptors()` (listed
      by `resources/list`) and `async read(uri)` (the `resources/read` result, or None for a URI it does
      not serve), asked before the app's resources."""

    def capabilities(self) -> Mapping[str, Any]:
        return {}

    def methods(self) -> Mapping[str, EndpointMethod]:
        return {}

    def resources(self) -> Any:
        return None


@frozen(slots=False)
class BuiltAgent:
    """An agent just built: its container and ASGI app, and a bean lookup by name."""

    container: Any
    asgi: Any
    lookup: BeanLookup

    @property
    def settings(self) -> MeshSettings:
        settings: MeshSettings = self.container.settings()
        return settings


class AgentInitializer:
    """A bean run once the agent is built, before it serves."""

    def initialize(self, agent: BuiltAgent) -> None:
        raise NotImplementedError


class ServingLifecycle:
    """A bean started before the agent is ready and stopped after it stopped serving, in `phase` order
    (stopped in reverse)."""

    phase: int = 0

    async def start(self) -> None:
        """Before the agent is ready; an exception stops start-up (a MeshError names the problem)."""

    async def stop(self) -> None:
        """After the agent stopped serving, before its beans are closed."""


class GracefulStop:
    """A bean that takes part in a graceful stop (SIGTERM): it refuses new work when the stop begins and
    finishes (or ends) its work within the seconds left of `server.shutdown_grace`."""

    def stop_accepting(self) -> None:
        """The stop began: refuse new work."""

    def busy(self) -> int:
        """How much work is still running (logged when the stop begins)."""
        return 0

    async def finish(self, seconds: float) -> None:
        """The calls in flight settled: finish or end the remaining work within `seconds`."""


class MeshMember:
    """A bean told when the agent joined the mesh, and asked to leave it before the agent stops."""

    def joined(self, registry_url: Callable[[], str], registered: Any) -> None:
        """Registered: `registry_url()` is the registry in use, `registered` the heartbeat's event."""

    async def leave(self) -> None:
        """The agent leaves the mesh (a stop)."""


class EmbeddedRegistry:
    """A bean running the registry an agent joins when no registry URL is set (127.0.0.1 at
    `registry.embedded_port`): asked for the URL to join once the agent serves, told when the registry
    stopped answering (an agent that ran it stopped) and stopped with the agent. The first bean (by order)
    is the agent's; without one, the agent joins whatever registry answers on that port."""

    async def join(self, http: httpx2.AsyncClient) -> str:
        """The URL of the registry to join: the one answering on the port, else one this process starts
        (`http`: the agent's client, for asking)."""
        raise NotImplementedError

    async def take_over(self, http: httpx2.AsyncClient) -> None:
        """The registry joined stopped answering: run it in this process, unless another answers first."""

    async def stop(self) -> None:
        """The agent stops: stop the registry this process runs, if it runs one."""


class HeartbeatFields:
    """A bean that adds agent-level fields to the agent's registration, each time it is sent (A2A's
    surfaces and flags); nothing returned: nothing added."""

    def fields(self, settings: MeshSettings, tools: MeshToolWrapperRegistry) -> Mapping[str, Any]:
        raise NotImplementedError


@frozen(slots=False)
class RouteSlots:
    """Web routes with dependency slots (their wrappers in `registry`): the mesh runtime keeps the slots
    current and registers the routes as MCP Mesh's route pseudo-tools (`"GET:/path"`) beside the tools."""

    registry: MeshToolWrapperRegistry


class AgentHealth:
    """A bean giving the agent's health verdict as MCP Mesh's heartbeat `status` (`healthy`, `degraded` or
    `unhealthy`): the mesh runtime registers with it and tells the registry when it changes. The first
    bean (by order) is the agent's."""

    async def status(self) -> str:
        """The verdict now (a check bounded by the bean's own timeout)."""
        return "healthy"

    def watch(self, listener: Callable[[str], None]) -> None:
        """The agent joined the mesh: call `listener` with the new status whenever it changes (checked in
        the background from now on)."""

    async def unwatch(self) -> None:
        """The agent left the mesh: stop checking in the background."""


class CallObserver:
    """A bean watching the agent's traffic (metrics, the console). Each hook is None (not watched) or a
    callable the observer sets, usually in its `__init__`:

    - `tool_call(tool, is_error, seconds)`: a call served by this agent;
    - `proxy_call(capability, endpoint, outcome, seconds)`: a call to a dependency (outcome `ok`,
      `error`, `unreachable` or `cancelled`);
    - `proxy_failover(capability, endpoint)`: a call moved on from a provider that could not take it;
    - `llm_usage(tool, usage)`: one run of an LLM tool (its `LlmUsage`);
    - `registry_request(kind, seconds, failed)`: a request to the registry (register, check, ...).

    The core joins every observer's hooks once, when the agent is built (`join_observers`), and hands
    them to the endpoint, the proxies, the heartbeat and the LLM agents: a hook no observer sets costs
    nothing per call, and one only one observer sets is called directly."""

    tool_call: Callable[[str, bool, float], None] | None = None
    proxy_call: Callable[[str, str, str, float], None] | None = None
    proxy_failover: Callable[[str, str], None] | None = None
    llm_usage: Callable[[str, Any], None] | None = None
    registry_request: Callable[[str, float, bool], None] | None = None


_HOOKS = ("tool_call", "proxy_call", "proxy_failover", "llm_usage", "registry_request")


def join_observers(observers: Sequence[CallObserver]) -> CallObserver:
    """One observer whose each hook calls every observer's (in order): None when none sets it, the one
    hook itself when only one does."""
    joined = CallObserver()
    for name in _HOOKS:
        hooks = [hook for observer in observers if (hook := getattr(observer, name, None)) is not None]
        if len(hooks) > 1:
            setattr(joined, name, _fan_out(hooks))
        elif hooks:
            setattr(joined, name, hooks[0])
    return joined


def _fan_out(hooks: Sequence[Callable[..., None]]) -> Callable[..., None]:
    def every(*args: Any) -> None:
        for hook in hooks:
            hook(*args)

    return every
