"""Parameter types a feature adds to tool and route signatures, without the core knowing the feature.

A type says how a parameter of its own is filled by carrying an `InjectionRule` as its `__mesh_injection__`
class attribute (as a type carries `__get_pydantic_core_schema__` for pydantic). Signature analysis asks the
annotation's class, once per parameter at start-up: the core imports no feature and loads none, since the
module that names the type in an annotation has imported it already. A third-party package's type plugs in
the same way. The answer, an `Injection`, is one of the core's kinds, which the call path fills from what
it has at hand (a bean, a run of dependency slots, the running job), with no lookup per call.

    class JobContext:
        __mesh_injection__: ClassVar[InjectionRule] = ConstantInjection(Injection("job"))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from .._frozen import frozen
from ..specs import DependencySpec

__all__ = [
    "INJECTION_ATTR",
    "ConstantInjection",
    "Injection",
    "InjectionError",
    "InjectionKind",
    "InjectionRule",
    "SlotGroup",
    "injection_rule",
]

INJECTION_ATTR = "__mesh_injection__"

# "tool": a declared dependency's proxy; "llm": the tool's LLM agent; "context": the call's ToolContext;
# "job": what the job runner puts there when the call runs as a job (None inline); "bean": a bean;
# "service": an object built over a run of dependency slots after the declared ones (a `SlotGroup`);
# "caller": the verified access token of the request served (`AccessToken`, security/caller.py), or None.
InjectionKind = Literal["tool", "llm", "context", "job", "bean", "service", "caller"]


class InjectionError(Exception):
    """A parameter type that cannot be injected as declared; the message says why and how to fix it."""


class SlotGroup(Protocol):
    """A parameter filled from a run of dependency slots that follow the tool's declared dependencies, one
    per member (a service interface's methods). Built once per tool; `implement` once per wrapper."""

    @property
    def name(self) -> str:
        """The group's name in messages (the interface's class name)."""
        ...

    def dependencies(self, offset: int) -> tuple[DependencySpec, ...]:
        """The dependencies the group adds to the tool's, indexed from `offset`."""
        ...

    def implement(self, slots: list[Any], offset: int) -> Any:
        """The object injected: reads `slots` from `offset` on at each call (they are swapped in place)."""
        ...

    def missing(self, slots: Sequence[Any], offset: int) -> list[int]:
        """The slots of required members that hold no provider (empty: the object may be called)."""
        ...

    def member(self, index: int) -> str:
        """The name of the group's `index`-th member (a method's name)."""
        ...


@frozen
class Injection:
    """How one parameter is filled: `kind`, and for a "bean" the type asked for, or (`bean`, `key`) to inject
    the framework bean named `bean` indexed by `key` (`clients["weather"]`); for a "service", its slots."""

    kind: InjectionKind
    bean_type: Any = None
    bean: str | None = None
    key: str | None = None
    slots: SlotGroup | None = None


class InjectionRule(Protocol):
    """What a type's `__mesh_injection__` holds."""

    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection | None:
        """How parameter `parameter`, annotated `annotation` (its `Annotated` extras included), of class
        `cls` is filled; None: not by this rule (an argument, or a bean). InjectionError when it cannot be."""
        ...

    def constructor_refusal(self, cls: type) -> str | None:
        """Why a constructor or bean method cannot take `cls` (it is injected into tools only), or None."""
        ...


@frozen
class ConstantInjection:
    """The rule of a type whose every parameter is filled the same way (`JobContext`: by the job runner)."""

    answer: Injection
    refusal: str | None = None

    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection | None:
        return self.answer

    def constructor_refusal(self, cls: type) -> str | None:
        return self.refusal


def injection_rule(cls: Any) -> InjectionRule | None:
    """The rule a class carries (its own or a base's), else None."""
    if not isinstance(cls, type):
        return None
    rule = getattr(cls, INJECTION_ATTR, None)
    return rule if callable(getattr(rule, "injection", None)) else None
