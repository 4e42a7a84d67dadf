"""Input asked by a dependency, relayed through the tool that called it (2026-07-28 multi-round calls).

A tool of agent A calls agent B's tool through its `McpMeshTool`, and B answers `input_required` (its
questions and its own signed state). The wrapper serving A's call puts the call's ToolContext where the
proxy finds it (`CURRENT_CALL`); the proxy turns B's answer into `DependencyInputRequired`, which the
wrapper answers as A's own `input_required`: B's questions under keys prefixed with the dependency's key
(`ask_name/who`), and A's signed state holding, per dependency, what to send it on the next round (its
state and the answers given so far). On the next round the wrapper routes the client's answers to their
dependency, and the proxy sends each dependency its answers and state with the call. A's body runs again
from its start, so a dependency that already completed gets the same answers again.

The chain can be as long as it likes: B relays C's questions the same way (`ask_name/c/who`).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from .._frozen import frozen
from ..errors import ToolExecutionError
from ..input_required import REQUEST_CAPABILITIES, InputRequired, input_required_result
from ..protocol.versions import META_CLIENT_CAPABILITIES
from .context import ToolContext

__all__ = [
    "CURRENT_CALL",
    "DependencyCall",
    "DependencyInputRequired",
    "DependencyRounds",
    "dependency_call",
    "dependency_input_result",
    "open_rounds",
    "own_input_result",
    "relayed_answer",
]

# The ToolContext of the tool call being served in this task (set by the wrapper for a tool with
# dependencies), read by the proxies it calls.
CURRENT_CALL: ContextVar[ToolContext | None] = ContextVar("mesh_current_call", default=None)

# A's state once a dependency asked: {STATE_KEY: {dependency key: record}, "state": the tool's own state}.
STATE_KEY = "mesh.dependencies"
# What a relaying agent declares to its dependency: it can relay every kind of input request (whether its
# own caller can answer is checked when the question is relayed, where the error names the caller's tool).
INPUT_CAPABILITIES: dict[str, dict[str, Any]] = {
    capability: {} for capability in REQUEST_CAPABILITIES.values()
}


class DependencyInputRequired(Exception):
    """A dependency answered `input_required`: its `requests` (by its own keys) and `state` (its
    `requestState`, None without), for the dependency `key` of the current call."""

    def __init__(self, key: str, requests: Mapping[str, Any], state: Any, *, tool: str, agent: str) -> None:
        super().__init__(f"tool '{tool}' of agent '{agent}' needs input from the client")
        self.key = key
        self.requests = dict(requests)
        self.state = state


class DependencyRounds:
    """One call's dependencies' rounds: per dependency key, the `inputResponses` and `requestState` to
    send it (`records`), and how many calls to each capability this run of the body made."""

    __slots__ = ("_calls", "records")

    def __init__(self, records: dict[str, dict[str, Any]]) -> None:
        self.records = records
        self._calls: dict[str, int] = {}

    def key(self, capability: str) -> str:
        """The key of the next call to `capability` in this run: the capability, `#2`, `#3`... for the
        following calls to it (a body that runs again makes the same calls in the same order)."""
        base = capability.replace("/", "_")
        count = self._calls[base] = self._calls.get(base, 0) + 1
        return base if count == 1 else f"{base}#{count}"

    def outgoing(self, key: str) -> dict[str, Any]:
        """The request params that carry dependency `key`'s round (none before it asked)."""
        record = self.records.get(key)
        if not record:
            return {}
        extra: dict[str, Any] = {}
        if record.get("inputResponses"):
            extra["inputResponses"] = dict(record["inputResponses"])
        if record.get("requestState") is not None:
            extra["requestState"] = record["requestState"]
        return extra

    def asked(self, key: str, state: Any) -> None:
        """Dependency `key` asked again: its new state, the answers given so far kept."""
        record = self.records.setdefault(key, {})
        record["requestState"] = state


def open_rounds(context: ToolContext) -> DependencyRounds:
    """Split the round a call brought: the dependencies' records out of the state the wrapper signed and
    their answers out of the client's `inputResponses` (keys `dependency/key`), leaving the tool its own
    state and answers on `context`; the rounds are kept on `context.dependency_rounds`."""
    state = context.request_state
    records: dict[str, dict[str, Any]] = {}
    if (
        isinstance(state, dict)
        and state.keys() == {STATE_KEY, "state"}
        and isinstance(state[STATE_KEY], dict)
    ):
        records = {k: dict(v) for k, v in state[STATE_KEY].items() if isinstance(v, dict)}
        context.request_state = state["state"]
    if records and context.input_responses:
        own: dict[str, Any] = {}
        for name, answer in context.input_responses.items():
            key, _, rest = name.partition("/")
            if rest and key in records:
                given = records[key].setdefault("inputResponses", {})
                given[rest] = answer
            else:
                own[name] = answer
        context.input_responses = own
    rounds = DependencyRounds(records)
    context.dependency_rounds = rounds
    return rounds


@frozen
class DependencyCall:
    """A call to a dependency made while a tool call is served: the dependency's `key`, the client
    capabilities to declare to it (the caller's, and every kind of input request, which is relayed) and
    the request `params` carrying its round (`inputResponses`, `requestState`)."""

    key: str
    capabilities: dict[str, Any]
    params: dict[str, Any]

    @property
    def meta(self) -> dict[str, Any]:
        return {META_CLIENT_CAPABILITIES: self.capabilities}


def dependency_call(capability: str) -> DependencyCall | None:
    """For a proxy about to call `capability`: what the call carries while a tool call is served; None
    when none is (nothing can relay a question)."""
    context = CURRENT_CALL.get()
    if context is None or context.dependency_rounds is None:
        return None
    rounds: DependencyRounds = context.dependency_rounds
    key = rounds.key(capability)
    return DependencyCall(key, {**context.client_capabilities, **INPUT_CAPABILITIES}, rounds.outgoing(key))


def relayed_answer(result: Mapping[str, Any], key: str | None, *, tool: str, agent: str) -> None:
    """Raise for a dependency's `input_required` answer: DependencyInputRequired for the call being
    served, ToolExecutionError (saying why) when no tool call is served (`key` None)."""
    if result.get("resultType") != "input_required":
        return
    requests = result.get("inputRequests")
    if not isinstance(requests, Mapping) or not requests:
        raise ToolExecutionError(
            "the tool answered input_required without inputRequests", tool=tool, agent=agent
        )
    unknown = sorted(
        str(name)
        for name, request in requests.items()
        if not isinstance(request, Mapping) or request.get("method") not in REQUEST_CAPABILITIES
    )
    if unknown:
        raise ToolExecutionError(
            f"the tool asked for input this agent cannot relay (input requests {', '.join(unknown)}: "
            f"not one of {', '.join(REQUEST_CAPABILITIES)})",
            tool=tool,
            agent=agent,
        )
    if key is None:
        raise ToolExecutionError(
            "the tool needs input from the client, which cannot be relayed: it was not called while "
            "serving a tool call",
            tool=tool,
            agent=agent,
        )
    raise DependencyInputRequired(key, requests, result.get("requestState"), tool=tool, agent=agent)


def _signed_state(rounds: DependencyRounds, own: Any) -> Any:
    return {STATE_KEY: rounds.records, "state": own} if rounds.records else own


def dependency_input_result(
    what: str, asked: DependencyInputRequired, context: ToolContext
) -> dict[str, Any]:
    """The caller's `input_required` answer relaying a dependency's questions (InputNotPossible when the
    caller cannot answer them: an older protocol, a capability it did not declare)."""
    rounds: DependencyRounds = context.dependency_rounds
    rounds.asked(asked.key, asked.state)
    requests = {f"{asked.key}/{name}": request for name, request in asked.requests.items()}
    return input_required_result(what, InputRequired(requests, _signed_state(rounds, None)), context)


def own_input_result(what: str, value: InputRequired, context: ToolContext | None) -> dict[str, Any]:
    """A tool's own `InputRequired`, its state carrying its dependencies' rounds when any asked."""
    rounds = context.dependency_rounds if context is not None else None
    if rounds is not None and rounds.records:
        value = InputRequired(value.requests, _signed_state(rounds, value.state))
    return input_required_result(what, value, context)
