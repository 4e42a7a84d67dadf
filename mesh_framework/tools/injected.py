"""The one loop that fills a call's injected parameters, shared by tools (`MeshToolWrapper.call`) and routes
(`routes/handler.py`, which imports it; nothing here knows routes).

Each kind (tools/injection.py) is filled from what the call has at hand: the wrapper's dependency slots,
services and LLM agent, the beans (a call-scoped one read from the open call scope: `ScopedBeans`), the
call's `ToolContext` and its verified caller, and values the caller names (a route's starlette `Request`).
A parameter that cannot be filled stops the loop with an `Unfilled` saying which and why; each caller
answers it in its own shape (a tool's error result, a route's 503).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .._frozen import frozen
from ..security.caller import current_access_token
from .context import ToolContext
from .signature import InjectedParam

__all__ = ["Injectable", "Unfilled", "caller_of", "fill_injected"]


@frozen
class Unfilled:
    """Why a call cannot run: parameter `param` has nothing to be filled with.

    `slots`: the dependency slots holding no provider (a "tool" parameter's one, a "service" parameter's
    required members'); `llm`: for an "llm" parameter, the LLM provider's capability no agent serves, or
    "" when there is no LLM agent at all."""

    param: InjectedParam
    slots: tuple[int, ...] = ()
    llm: str | None = None


class Injectable(Protocol):
    """What the loop reads of a wrapper (`MeshToolWrapper`): the values swapped in place at run time."""

    name: str
    slots: list[Any]
    services: dict[str, Any]
    llm_agent: Any


def caller_of(context: ToolContext | None) -> Any:
    """The verified access token of the call's caller (security/caller.py), or None."""
    return context.access_token if context is not None else current_access_token()


def fill_injected(
    injected: Sequence[InjectedParam],
    wrapper: Injectable,
    kwargs: dict[str, Any],
    context: ToolContext | None,
    beans: Mapping[str, Any],
    *,
    named: Mapping[str, Any] | None = None,
    llm_ready: bool = False,
) -> Unfilled | None:
    """Puts each of `injected` into `kwargs`; the first parameter that cannot be filled, else None.

    `context` None: a "context" parameter gets a fresh `ToolContext`. `named`: values of "bean" parameters
    by name that are not beans (a route's `Request`). `llm_ready`: an LLM agent whose provider has no agent
    right now is refused before the call (a route), instead of failing inside it (a tool)."""
    for param in injected:
        kind = param.kind
        if kind == "tool":
            proxy = wrapper.slots[param.slot]
            if proxy is None and not param.optional:
                return Unfilled(param, slots=(param.slot,))
            kwargs[param.name] = proxy
        elif kind == "bean":
            name = param.name
            kwargs[name] = named[name] if named is not None and name in named else beans[name]
        elif kind == "context":
            kwargs[param.name] = context if context is not None else ToolContext(wrapper.name)
        elif kind == "caller":
            kwargs[param.name] = caller_of(context)
        elif kind == "job":
            kwargs[param.name] = None  # the job runner puts the JobContext here when it runs a job
        elif kind == "service":
            service = param.service
            missing = () if service is None else tuple(service.missing(wrapper.slots, param.slot))
            if missing:
                return Unfilled(param, slots=missing)
            kwargs[param.name] = wrapper.services[param.name]
        else:  # "llm"
            agent = wrapper.llm_agent
            if agent is None and not param.optional:
                return Unfilled(param, llm="")
            if llm_ready and agent is not None and (capability := agent.unavailable()) is not None:
                return Unfilled(param, llm=capability)
            kwargs[param.name] = agent
    return None
