"""`LlmModel`: one call to a model, whatever serves it (a vendor API, a mesh provider agent, a script)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import CapabilityUnavailable, MeshError

if TYPE_CHECKING:  # loaded by the models that make turns (llm/vendors, llm/loop.py)
    from .types import LlmTurn, Message

__all__ = [
    "LlmError",
    "LlmIterationLimit",
    "LlmModel",
    "LlmOutputError",
    "LlmProviderError",
    "LlmProviderUnavailable",
]


class LlmError(MeshError):
    """An LLM run failed; the message says what, where and what to do."""


class LlmProviderError(LlmError):
    """The model (vendor API or provider agent) could not be reached or refused the request."""


class LlmProviderUnavailable(LlmProviderError, CapabilityUnavailable):
    """No provider agent of the mesh serves the model right now: a missing dependency (a route answers
    503 for it), not a failure of the model."""

    def __init__(self, message: str, *, capability: str) -> None:
        super().__init__(message)
        self.capability = capability


class LlmIterationLimit(LlmError):
    """The tool loop reached `max_iterations` without a final answer."""


class LlmOutputError(LlmError):
    """The model's answer did not validate against the expected output type, even after a repair turn."""

    def __init__(self, message: str, *, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw


class LlmModel(ABC):
    """Answers one turn of a conversation.

    `tools` are in OpenAI's function format (`tool_spec`); `params` are model parameters (`temperature`,
    `max_tokens`, ...); `response_schema`, when given, is the JSON schema the final answer must follow (the
    vendor's structured-output mode where it has one); `parallel_tool_calls` lets the model ask for several
    tools in one turn.
    """

    name: str = ""

    @abstractmethod
    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> LlmTurn:
        """The model's next turn. Raises LlmProviderError when no answer could be had."""

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> AsyncGenerator[str | LlmTurn]:
        """The model's next turn as it is produced: each text delta (`str`) as the vendor sends it, until
        the model starts a tool call, then the whole turn (`LlmTurn`) last. Leaving early closes the
        vendor's stream. This default, for models that cannot stream, gives the text of a turn without
        tool calls in one piece."""
        turn = await self.complete(
            messages,
            tools=tools,
            params=params,
            response_schema=response_schema,
            parallel_tool_calls=parallel_tool_calls,
        )
        if turn.content and not turn.tool_calls:
            yield turn.content
        yield turn

    def unavailable(self) -> str | None:
        """The capability of the provider agent this model needs and the mesh has not resolved; None
        when it has one or needs none (a vendor's API, a script)."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - stateless models have nothing to release
        """Release clients."""
