"""`MeshToolWrapper`: one per tool, built once at start-up; the hot call path lives here."""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

from ..deadline import Expired, within
from ..errors import ToolExecutionError
from ..failures import exception_text, log_failure
from ..injectables import McpMeshTool, MeshLlmAgent
from ..input_required import InputNotPossible, InputRequired
from ..specs import DependencySpec, ToolSpec
from .context import ToolContext
from .injected import Unfilled, fill_injected
from .relayed_input import (
    CURRENT_CALL,
    DependencyInputRequired,
    dependency_input_result,
    open_rounds,
    own_input_result,
)
from .signature import InjectedParam, ToolSignature
from .streaming import joined

__all__ = ["MeshToolWrapper", "error_result"]

logger = logging.getLogger("mesh_framework.tools")

UnresolvedListener = Callable[["MeshToolWrapper", DependencySpec], None]
# Runs a background/task tool's call instead of the inline path (set by the job runner at start-up).
JobHook = Callable[["MeshToolWrapper", dict[str, Any], ToolContext | None], Awaitable[dict[str, Any]]]

# Keys MCP Mesh's proxies put inside a tool call's arguments (propagated headers, trace context); its
# servers strip them before validating, and so do we. They are kept on the call's ToolContext entries.
MESH_ARGUMENT_KEYS = frozenset({"_mesh_headers", "_trace_id", "_parent_span"})


def _first_sync_call(function: Callable[..., Any], kwargs: Mapping[str, Any]) -> asyncio.Future[Any]:
    """The first sync body run: loads the worker threads (tools/threads.py) and puts their hand-off in
    `_in_worker_thread`'s place, which later calls reach directly."""
    global _in_worker_thread  # noqa: PLW0603 - rebound once, so that later calls pay no check
    from .threads import in_worker_thread

    _in_worker_thread = in_worker_thread
    return in_worker_thread(function, kwargs)


# Runs a sync body in a worker thread: an agent without sync tools, or before its first sync call, has no
# thread pool's module loaded.
_in_worker_thread: Callable[[Callable[..., Any], Mapping[str, Any]], asyncio.Future[Any]] = _first_sync_call


def error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _format_validation_error(tool: str, exc: ValidationError | PydanticSerializationError) -> str:
    if isinstance(exc, PydanticSerializationError):  # an in-process caller's object that is no JSON value
        return f"Invalid arguments for tool '{tool}': not JSON values ({exc})"
    problems = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(p) for p in error["loc"]) or "(arguments)"
        if error["type"] == "missing":
            problems.append(f"{field}: required argument is missing")
        elif error["type"] == "extra_forbidden":
            problems.append(f"{field}: unexpected argument")
        else:
            problems.append(f"{field}: {error['msg']} (got {error['input']!r})")
    return f"Invalid arguments for tool '{tool}': " + "; ".join(problems)


def _split_mesh_keys(arguments: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    kept: dict[str, Any] = {}
    carried: dict[str, Any] = {}
    for key, value in arguments.items():
        (carried if key in MESH_ARGUMENT_KEYS else kept)[key] = value
    return kept, carried


class MeshToolWrapper:
    """Serves one tool: validates arguments, fills injected parameters from its slots, calls, maps results.

    Dependency slots are indexed in declaration order and swapped in place by `update_dependency`; a call
    reads whatever the slots hold at that moment.
    """

    __slots__ = (
        "_beans",
        "_call_target",
        "_injected",
        "_validate",
        "descriptor",
        "job_hook",
        "key",
        "llm_agent",
        "mask_errors",
        "name",
        "services",
        "signature",
        "slots",
        "spec",
        "timeout",
        "unresolved_listener",
        "unresolved_reasons",
    )

    def __init__(
        self,
        *,
        key: str,
        name: str,
        spec: ToolSpec,
        signature: ToolSignature,
        target: Callable[..., Any],
        description: str,
        timeout: float | None,
        mask_errors: bool = False,
    ) -> None:
        self.key = key
        self.name = name
        self.spec = spec
        self.signature = signature
        self.timeout = timeout
        self.mask_errors = mask_errors  # tools.mask_error_details
        self.slots: list[McpMeshTool | None] = [None] * len(spec.dependencies)
        self.llm_agent: MeshLlmAgent | None = None
        self.unresolved_listener: UnresolvedListener | None = None
        # Slot key -> why the registry left it unresolved (mesh/unresolved.py), shared by the agent's tools.
        self.unresolved_reasons: Mapping[str, str] = {}
        self.job_hook: JobHook | None = None
        self._beans: dict[str, Any] = {}
        # One implementation per service parameter, reading this wrapper's slots (swapped in place).
        self.services: dict[str, Any] = {
            p.name: p.service.implement(self.slots, p.slot)
            for p in signature.injected
            if p.service is not None
        }
        # A Stream[str] body runs to its end and answers the chunks joined (tools/streaming.py).
        self._call_target = joined(target, name) if signature.streams else target
        self._injected = signature.injected
        self._validate = signature.arguments_model.__pydantic_validator__.validate_json
        descriptor: dict[str, Any] = {
            "name": name,
            "description": description,
            "inputSchema": signature.input_schema,
        }
        if signature.output_schema is not None:
            descriptor["outputSchema"] = signature.output_schema
        self.descriptor = descriptor

    @property
    def capability(self) -> str:
        return self.spec.capability or self.name

    def update_dependency(self, index: int, proxy: McpMeshTool | None) -> None:
        """Swap the proxy in dependency slot `index` (None marks it unresolved)."""
        if not 0 <= index < len(self.slots):
            raise IndexError(
                f"tool '{self.name}' has {len(self.slots)} dependency slot(s), not index {index}"
            )
        self.slots[index] = proxy

    def bind_beans(self, beans: Mapping[str, Any]) -> None:
        self._beans = dict(beans)

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """Run the tool; always returns a `CallToolResult` as a wire dict, never raises for tool failures.

        `deadline` (monotonic time, from the caller's `X-Mesh-Timeout`) bounds the run when it comes before
        the tool's own timeout."""
        if arguments and not MESH_ARGUMENT_KEYS.isdisjoint(arguments):
            arguments, carried = _split_mesh_keys(arguments)
            if context is not None:
                context.entries.update(carried)
        try:
            # Validated as the advertised JSON Schema reads them: JSON's types, strictly (a boolean or a
            # numeric string is no integer), which lax validation of the Python objects would accept.
            # Strict JSON mode still takes a date from its string, an enum from its value, an array as a
            # tuple or set. Re-encoding costs less than a microsecond; decided here, not per type.
            kwargs = self._validate(to_json(arguments or {}), strict=True).__dict__.copy()
        except (ValidationError, PydanticSerializationError) as exc:
            return error_result(_format_validation_error(self.name, exc))
        if self._injected:
            unfilled = fill_injected(self._injected, self, kwargs, context, self._beans)
            if unfilled is not None:
                return self._refusal(unfilled)
        if self.job_hook is not None:
            return await self.job_hook(self, kwargs, context)
        timeout = self.timeout
        if deadline is not None:
            left = deadline - time.monotonic()
            if timeout is None or left < timeout:
                if left <= 0:
                    return self._budget_spent(0.0)
                timeout = left
        relaying = None
        if context is not None and self.slots:  # its dependencies' questions are relayed to its caller
            open_rounds(context)
            relaying = CURRENT_CALL.set(context)
        try:
            if self.signature.is_async:
                running = self._call_target(**kwargs)
            else:
                running = _in_worker_thread(self._call_target, kwargs)
            value = await (running if timeout is None else within(timeout, running))
        except Expired:
            if timeout != self.timeout:
                return self._budget_spent(timeout)  # type: ignore[arg-type]
            logger.warning("tool '%s' timed out after %ss", self.name, self.timeout)
            return error_result(f"Tool '{self.name}' timed out after {self.timeout}s")
        except DependencyInputRequired as asked:
            if context is None:
                raise  # a dependency called in process: relayed by the tool call that called it
            return self._dependency_input(asked, context)
        except ToolExecutionError as exc:
            logger.warning("tool '%s' failed: %s", self.name, exc)
            return error_result(self.error_text(exc))
        except Exception as exc:
            log_failure(logger, f"tool '{self.name}'", exc)
            return error_result(self.error_text(exc))
        finally:
            if relaying is not None:
                CURRENT_CALL.reset(relaying)
        try:
            if isinstance(value, InputRequired):
                return self._input_required(value, context)
            return self._to_result(value)
        except Exception as exc:
            logger.exception("tool '%s' returned a value that cannot be serialized", self.name)
            return error_result(
                f"Tool '{self.name}' returned a value that does not match its return type: {exc}"
            )

    async def invoke(self, kwargs: dict[str, Any]) -> Any:
        """Run the body with prepared arguments (no timeout, exceptions propagate): the job runner's path.
        A sync body runs on asyncio's default executor, not the tool threads: a long job must not hold
        a thread the tool calls need."""
        if self.signature.is_async:
            return await self._call_target(**kwargs)
        return await asyncio.to_thread(functools.partial(self._call_target, **kwargs))

    def error_text(self, exc: BaseException) -> str:
        """What a remote caller is told of an exception of the body: its own words (`Type: message`, a
        ToolExecutionError's message), never a traceback. With `tools.mask_error_details`, only that the
        tool failed and an error id, logged here with those words (the caller logs the exception)."""
        text = str(exc) if isinstance(exc, ToolExecutionError) else exception_text(exc)
        if not self.mask_errors:
            return text
        error_id = secrets.token_hex(6)
        logger.warning("tool '%s' failed, error id %s: %s", self.name, error_id, " ".join(text.split()))
        return f"Tool '{self.name}' failed (error id {error_id})"

    def to_result(self, value: Any) -> dict[str, Any]:
        """A body's return value as this tool's `CallToolResult` wire dict."""
        return self._to_result(value)

    async def _within_budget(
        self, running: Awaitable[dict[str, Any]], deadline: float | None
    ) -> dict[str, Any]:
        """`running`'s result, bounded only by what is left of the caller's budget (`deadline`, monotonic
        time): for the tools that forward a call and have no timeout of their own."""
        if deadline is None:
            return await running
        left = max(deadline - time.monotonic(), 0.0)
        try:
            return await within(left, running)
        except Expired:
            return self._budget_spent(left)

    def _budget_spent(self, after: float) -> dict[str, Any]:
        logger.warning("tool '%s' ran out of its caller's time budget after %.3gs", self.name, after)
        return error_result(
            f"Tool '{self.name}' timed out after {after:.3g}s: the caller's time budget (X-Mesh-Timeout) "
            "ran out"
        )

    def _refusal(self, unfilled: Unfilled) -> dict[str, Any]:
        """The error result of a call whose injected parameter has nothing to be filled with."""
        if unfilled.param.kind == "service":
            return self._service_refusal(unfilled.param, unfilled.slots)
        if unfilled.param.kind == "llm":
            return error_result(f"Tool '{self.name}' needs an LLM agent, but no LLM provider is resolved")
        return self._unresolved(unfilled.slots[0])

    def _unresolved(self, slot: int) -> dict[str, Any]:
        dependency = self.spec.dependencies[slot]
        if self.unresolved_listener is not None:
            self.unresolved_listener(self, dependency)
        reason = self.unresolved_reasons.get(f"{self.key}:dep_{slot}")
        return error_result(
            f"Tool '{self.name}' cannot run: its dependency '{dependency.selector.capability}' "
            f"(dependency {slot}) is not resolved"
            + (f": {reason}" if reason else "; no agent currently provides it")
        )

    def service_missing(self, param: InjectedParam) -> list[int]:
        """The slots of a service parameter's required methods that hold no provider."""
        service = param.service
        return [] if service is None else service.missing(self.slots, param.slot)

    def _service_refusal(self, param: InjectedParam, missing: tuple[int, ...]) -> dict[str, Any]:
        """The refusal of a service parameter whose required methods (their `missing` slots) have no
        provider."""
        service = param.service
        assert service is not None  # a "service" parameter carries its slots
        dependencies = [self.spec.dependencies[slot] for slot in missing]
        if self.unresolved_listener is not None:
            for dependency in dependencies:
                self.unresolved_listener(self, dependency)
        names = ", ".join(f"'{d.selector.capability}' (dependency {d.index})" for d in dependencies)
        methods = ", ".join(f"{service.name}.{service.member(slot - param.slot)}" for slot in missing)
        one = len(missing) == 1
        return error_result(
            f"Tool '{self.name}' cannot run: its dependenc{'y' if one else 'ies'} {names} "
            f"{'is' if one else 'are'} not resolved; no agent currently provides {'it' if one else 'them'} "
            f"(required by {methods}, parameter '{param.name}')"
        )

    def _input_required(self, value: InputRequired, context: ToolContext | None) -> dict[str, Any]:
        try:
            return own_input_result(f"Tool '{self.name}'", value, context)
        except InputNotPossible as exc:
            return error_result(str(exc))

    def _dependency_input(self, asked: DependencyInputRequired, context: ToolContext) -> dict[str, Any]:
        """A dependency's questions as this tool's `input_required` answer (tools/relayed_input.py)."""
        try:
            return dependency_input_result(f"Tool '{self.name}'", asked, context)
        except InputNotPossible as exc:
            logger.warning("tool '%s': %s", self.name, exc)
            return error_result(f"{exc} (asked by its dependency '{asked.key}')")

    def _to_result(self, value: Any) -> dict[str, Any]:
        content = sys.modules.get("mesh_framework.content")  # a body returning its types has loaded it
        if content is not None:
            if isinstance(value, content.ToolResult):
                return value.to_wire()  # type: ignore[no-any-return]
            if isinstance(value, content.CONTENT_TYPES):
                return {"content": [value.to_wire()], "isError": False}
            if isinstance(value, list) and value and all(isinstance(v, content.CONTENT_TYPES) for v in value):
                return {"content": [v.to_wire() for v in value], "isError": False}
        adapter = self.signature.output_adapter
        if adapter is not None:
            structured = adapter.dump_python(value, mode="json", warnings="error")
            text = value if isinstance(value, str) else to_json(structured).decode()
            if self.signature.wraps_result:
                structured = {"result": structured}
            return {
                "content": [{"type": "text", "text": text}],
                "structuredContent": structured,
                "isError": False,
            }
        if value is None:
            return {"content": [], "isError": False}
        if isinstance(value, str):
            return {"content": [{"type": "text", "text": value}], "isError": False}
        text = to_json(value, fallback=str).decode()
        if isinstance(value, dict):
            return {"content": [{"type": "text", "text": text}], "structuredContent": value, "isError": False}
        return {"content": [{"type": "text", "text": text}], "isError": False}
