"""Types that tool parameters declare to receive mesh objects instead of client arguments.

A parameter annotated `McpMeshTool` (or `McpMeshTool | None`, `Optional[McpMeshTool]`,
`Annotated[McpMeshTool, ...]`) receives a proxy for one declared dependency; `MeshLlmAgent` receives an LLM
client. Such parameters never appear in the tool's input schema.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from typing import Any

from .errors import ToolExecutionError
from .remote_features import RemoteFeatures

__all__ = ["McpMeshTool", "MeshLlmAgent", "stream_text"]


class McpMeshTool(RemoteFeatures, ABC):
    """A callable handle on a tool of another agent (or of this one), resolved by the registry.

    Usage::

        @mesh_tool(dependencies=["add"])
        async def calc(a: int, b: int, add: McpMeshTool) -> int:
            return await add(a=a, b=b)
    """

    capability: str
    function_name: str
    endpoint: str
    agent_id: str
    # Submits a job through the registry (set by the proxy factory once the agent joined one).
    job_submitter: Any = None

    async def __call__(self, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Any:
        """Call the tool with keyword arguments or one dict; returns the unwrapped result."""
        merged = {**(arguments or {}), **kwargs}
        return await self.call_tool(self.function_name, merged)

    @abstractmethod
    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call any tool of the provider agent by name."""

    @abstractmethod
    async def list_tools(self) -> list[dict[str, Any]]:
        """List the provider agent's tools."""

    async def call_result(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The tool's `CallToolResult` as a wire dict (`isError` included, not raised).

        Proxies answer with what the provider sent; this default (for stand-ins that implement only
        `call_tool`) wraps the value the way a tool's result is served.
        """
        from pydantic_core import to_json

        value = await self.call_tool(name, arguments)
        text = value if isinstance(value, str) else to_json(value, fallback=str).decode()
        content = [{"type": "text", "text": text}]
        return {"content": content, "structuredContent": {"result": value}, "isError": False}

    def stream(self, arguments: Mapping[str, Any] | None = None, /, **kwargs: Any) -> AsyncIterator[str]:
        """Call the tool and iterate over its answer as the provider produces it, one chunk per `yield` of
        a `Stream[str]` tool (a tool that does not stream gives its whole text once).

        Usage::

            async for chunk in chat.stream(prompt="hi"):
                ...

        An error result raises ToolExecutionError after the chunks that came before it. Leaving the loop
        early (`break`, `aclose()`) cancels the call."""
        return self.stream_tool(self.function_name, {**(arguments or {}), **kwargs})

    async def stream_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> AsyncIterator[str]:
        """`stream()` of any tool of the provider agent, by name. Proxies stream; this default (for
        stand-ins that implement only `call_tool`) yields the buffered answer once."""
        result = await self.call_result(name, arguments)
        yield stream_text(result, tool=name, agent=getattr(self, "agent_id", ""))

    async def submit(
        self,
        arguments: Mapping[str, Any] | None = None,
        /,
        *,
        max_duration: int | None = None,
        max_retries: int = 1,
        **kwargs: Any,
    ) -> Any:
        """Submit a job to this capability through the registry and return its `JobHandle` at once
        (`status()`, `result()`, `cancel()`, `events()`). The provider runs it as a job: a `task=True` or
        `background=True` tool of ours, or an mcp-mesh `@mesh.tool(task=True)`."""
        submitter = self.job_submitter
        if submitter is None:
            from .errors import ToolExecutionError

            raise ToolExecutionError(
                f"cannot submit a job to '{self.capability}': jobs go through the registry, and this agent "
                "has not joined one (is it serving, with registry.enabled?)",
                tool=self.capability,
            )
        options = {"max_retries": max_retries}
        if max_duration is not None:
            options["max_duration"] = max_duration
        return await submitter(self.capability, {**(arguments or {}), **kwargs}, **options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.capability} -> {self.function_name} at {self.endpoint}>"


def stream_text(result: Mapping[str, Any], *, tool: str, agent: str) -> str:
    """The text a stream gives for a whole `CallToolResult`: its text blocks joined; ToolExecutionError
    when it is an error."""
    texts = [c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text"]
    if result.get("isError"):
        message = "; ".join(t for t in texts if t) or "the tool reported an error"
        raise ToolExecutionError(message, tool=tool, agent=agent, result=result)
    return "".join(texts)


class MeshLlmAgent(ABC):
    """An LLM client whose tools are the mesh tools matching a selector (served by a later feature)."""

    @abstractmethod
    async def __call__(self, message: str | list[dict[str, Any]], **options: Any) -> Any:
        """Run the tool loop for one user message and return the final answer."""

    async def stream(self, message: str | list[dict[str, Any]], **options: Any) -> AsyncIterator[str]:
        """Run the tool loop and iterate over the final answer's text as the model produces it. This
        default (for stand-ins that implement only `__call__`) gives the whole answer once."""
        yield str(await self(message, **options))

    def unavailable(self) -> str | None:
        """The capability of the provider agent this agent's model needs and the mesh has not resolved
        (a route answers 503 for it before running); None when it has one or needs none."""
        return None
