"""`StubTool`: an `McpMeshTool` stand-in for a dependency, recording its calls (a Spring `@MockBean`).

`StubbingClient`, the pytest kit's `mesh_client`, puts the stubs in place when the app builds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from ..app import MeshApplication
from ..injectables import McpMeshTool
from ..specs import Selector
from .client import SyncMeshClient

__all__ = ["StubTool", "StubbingClient", "stub_dependency"]

_UNSET: Any = object()


class StubTool(McpMeshTool):
    """Answers calls to `capability` with `returns`, or with `side_effect(**arguments)` (raise from it to
    fail the call); a stub of a streaming tool gives `chunks` to `stream()` one by one (and their joined
    text to a plain call). `calls` records every call's arguments."""

    def __init__(
        self,
        capability: str,
        *,
        returns: Any = _UNSET,
        side_effect: Callable[..., Any] | None = None,
        chunks: Sequence[str] | None = None,
    ) -> None:
        if returns is _UNSET and side_effect is None:
            returns = "".join(chunks) if chunks is not None else None
        self.chunks = None if chunks is None else list(chunks)
        self.capability = capability
        self.function_name = capability
        self.endpoint = "stub://" + capability
        self.agent_id = "stub"
        self.returns = returns
        self.side_effect = side_effect
        self.calls: list[dict[str, Any]] = []

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        arguments = dict(arguments or {})
        self.calls.append(arguments)
        if self.side_effect is not None:
            outcome = self.side_effect(**arguments)
            if hasattr(outcome, "__await__"):
                outcome = await outcome
            return outcome
        return self.returns

    async def stream_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> AsyncIterator[str]:
        if self.chunks is None:
            async for whole in super().stream_tool(name, arguments):
                yield whole
            return
        self.calls.append(dict(arguments or {}))
        for chunk in self.chunks:
            yield chunk

    async def list_tools(self) -> list[dict[str, Any]]:
        return [{"name": self.capability, "description": "stub", "inputSchema": {"type": "object"}}]

    @property
    def called(self) -> bool:
        return bool(self.calls)

    def assert_called_with(self, **arguments: Any) -> None:
        """The last call's arguments were exactly these."""
        if not self.calls:
            raise AssertionError(f"stub '{self.capability}' was not called")
        if self.calls[-1] != arguments:
            raise AssertionError(
                f"stub '{self.capability}' was last called with {self.calls[-1]}, not {arguments}"
            )

    def assert_not_called(self) -> None:
        if self.calls:
            raise AssertionError(
                f"stub '{self.capability}' was called {len(self.calls)} time(s): {self.calls}"
            )


def stub_dependency(app: MeshApplication, stub: StubTool) -> int:
    """Put `stub` into every dependency slot of the (built) app that asks for its capability (tools' and web
    routes'); how many."""
    filled = 0
    for wrapper in [*app.container.tools(), *app.container.mesh_runtime().routes]:
        for dependency in wrapper.spec.dependencies:
            selector: Selector = dependency.selector
            if selector.capability == stub.capability:
                wrapper.update_dependency(dependency.index, stub)
                filled += 1
    return filled


class StubbingClient(SyncMeshClient):
    """The `mesh_client` fixture's client: stubs registered before the first call are put in place when
    the app builds."""

    def __init__(self, app: MeshApplication) -> None:
        super().__init__(app)
        self.stubs: list[StubTool] = []

    @property
    def built(self) -> bool:
        return self._client is not None

    def _http(self) -> Any:
        fresh = self._client is None
        client = super()._http()
        if fresh:
            for stub in self.stubs:
                self._fill(stub)
        return client

    def _fill(self, stub: StubTool) -> None:
        if not stub_dependency(self.app, stub):
            raise AssertionError(
                f"stub_tool('{stub.capability}'): no tool of the app depends on '{stub.capability}'"
            )
