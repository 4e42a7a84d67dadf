"""The console's beans (gated by console/auto_configuration.py): the traffic recorder, watching the agent's
calls (extension.CallObserver; with metrics on it reads their counters of the calls served rather than
counting each call again), the span buffer, filled while the agent serves (extension.ServingLifecycle),
and their push to the registry while the agent is in the mesh (extension.MeshMember)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..extension import BeanLookup, CallObserver, MeshMember, ServingLifecycle
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..tracing.sampling import TraceBudget
from ..tracing.state import SpanRecord
from ..tracing.state import state as trace_state
from .recorder import SPAN_BUFFER, TrafficRecorder

if TYPE_CHECKING:  # loaded when the agent joins a registry
    from .push import ConsolePush

__all__ = ["ConsoleBeans", "ConsoleObserver", "ConsoleSpans", "ConsoleTraffic"]


class ConsoleObserver(CallObserver):
    """The recorder's hooks; no `tool_call` when it follows the metrics' counters of the calls served."""

    def __init__(self, recorder: TrafficRecorder) -> None:
        self.tool_call = None if recorder.following else recorder.tool_call
        self.proxy_call = recorder.proxy_call
        self.llm_usage = recorder.llm_usage


class ConsoleSpans(ServingLifecycle):
    """The span buffer, kept from the moment the agent serves: a call served before the agent joined the
    mesh (the join runs beside the server once it listens) is in the first push, as its counters are."""

    def __init__(self, traffic: ConsoleTraffic) -> None:
        self.traffic = traffic

    async def start(self) -> None:
        trace_state.budget = TraceBudget(self.traffic.settings.tracing.console_traces_per_second)
        trace_state.spans = self.traffic.spans

    async def stop(self) -> None:
        if trace_state.spans is self.traffic.spans:
            trace_state.spans = None
        self.traffic.spans.clear()


class ConsoleTraffic(MeshMember):
    """Once the agent joined the mesh, the counters and the spans buffered since it serves go to the
    registry every second (console/push.py); leaving sends what is pending once more and turns both off."""

    def __init__(
        self, recorder: TrafficRecorder, settings: MeshSettings, factory: McpMeshToolProxyFactory
    ) -> None:
        self.recorder = recorder
        self.settings = settings
        self.factory = factory
        self.spans: deque[SpanRecord] = deque(maxlen=SPAN_BUFFER)
        self.push: ConsolePush | None = None

    def joined(self, registry_url: Callable[[], str], registered: Any) -> None:
        settings = self.settings
        token = settings.registry.token
        from .push import ConsolePush

        self.push = ConsolePush(
            self.factory.http,
            registry_url,
            str(settings.agent.id),  # the id it registered with (mesh/registration.py)
            self.recorder,
            self.spans,
            headers={"Authorization": f"Bearer {token.get_secret_value()}"} if token else None,
            after=registered,
        )
        self.push.start()

    async def leave(self) -> None:
        push, self.push = self.push, None
        if push is not None:
            await push.stop()
            push.off()


@configuration
class ConsoleBeans:
    @bean
    def traffic_recorder(self, settings: MeshSettings, lookup: BeanLookup) -> TrafficRecorder:
        recorder = TrafficRecorder()
        metrics = lookup.get("metrics") if settings.metrics.enabled else None
        if metrics is not None:  # the metrics count the calls served already (console/recorder.py)
            recorder.follow(metrics.calls.tools, metrics.calls.bounds)
        return recorder

    @bean
    def console_observer(self, recorder: TrafficRecorder) -> CallObserver:
        return ConsoleObserver(recorder)

    @bean
    def console_traffic(
        self, recorder: TrafficRecorder, settings: MeshSettings, factory: McpMeshToolProxyFactory
    ) -> MeshMember:
        return ConsoleTraffic(recorder, settings, factory)

    @bean
    def console_spans(self, lookup: BeanLookup) -> ServingLifecycle:
        return ConsoleSpans(lookup("console_traffic"))
