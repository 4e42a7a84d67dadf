"""`OpenApiTool`: the wrapper serving one OpenAPI operation. A call's arguments are checked against the
operation's input schema, written into an HTTP request (path, query, headers, cookies, body), and sent
with the agent's pooled client; a 2xx JSON answer is the result's structured content (text otherwise),
any other answer, or none, an error result naming the request and the HTTP status or the failure."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx2
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from ..deadline import Expired, within
from ..errors import MeshError
from ..specs import ToolSpec
from ..tools.context import ToolContext
from ..tools.forwarding import forwarding_signature
from ..tools.wrapper import MESH_ARGUMENT_KEYS, MeshToolWrapper, error_result
from .encoding import cookie_value, header_value, path_value, query_pairs, scalar
from .operations import FORM, Operation

__all__ = ["OpenApiTool", "ServiceTarget", "short_body"]

logger = logging.getLogger("mesh_framework.openapi")

MAX_BODY_TEXT = 300  # characters of an error answer's body quoted in the tool's error


def _call() -> None:  # the spec's function: an OpenAPI tool has no Python body
    """An operation of an HTTP service, served as a tool."""


@dataclass(frozen=True)
class ServiceTarget:
    """Where a service's calls go and what they carry: its base URL, the static headers of its `auth`,
    the httpx2 auth flow of its credential (an OAuth client's tokens), the seconds a call may take."""

    service: str
    base_url: str
    client: Callable[[], httpx2.AsyncClient]
    timeout: float | None
    headers: Mapping[str, str] | None = None
    auth: httpx2.Auth | None = None


def short_body(response: httpx2.Response) -> str:
    """An answer's body in one short line (whitespace collapsed, cut at MAX_BODY_TEXT characters)."""
    text = " ".join(response.text.split())
    if len(text) > MAX_BODY_TEXT:
        text = text[:MAX_BODY_TEXT] + "..."
    return text or "(empty body)"


class OpenApiTool(MeshToolWrapper):
    """Serves one operation of an OpenAPI service."""

    __slots__ = ("operation", "target", "validator")

    def __init__(self, operation: Operation, target: ServiceTarget) -> None:
        signature = forwarding_signature(operation.input_schema)
        spec = ToolSpec(
            function=_call,
            name=operation.name,
            capability=operation.name,
            description=operation.description,
            tags=("openapi", f"openapi:{target.service}", *operation.tags),
            kwargs={"openapi": target.service, "operation": operation.label},
        )
        super().__init__(
            key=f"openapi.{target.service}.{operation.name}",
            name=operation.name,
            spec=spec,
            signature=signature,
            target=_call,
            description=operation.description,
            timeout=target.timeout,
        )
        self.operation = operation
        self.target = target
        self.validator = Draft202012Validator(operation.input_schema)

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        values = {k: v for k, v in (arguments or {}).items() if k not in MESH_ARGUMENT_KEYS}
        problems = self._problems(values)
        if problems:
            return error_result(f"Invalid arguments for tool '{self.name}': " + "; ".join(problems))
        request = self._request(values)
        timeout = self.timeout
        if deadline is not None:
            left = deadline - time.monotonic()
            if timeout is None or left < timeout:
                if left <= 0:
                    return self._budget_spent(0.0)
                timeout = left
        try:
            sending = self._send(request)
            response = await (sending if timeout is None else within(timeout, sending))
        except Expired:
            if timeout != self.timeout:
                return self._budget_spent(timeout)  # type: ignore[arg-type]
            return self._failed(request, f"no answer within {self.timeout:g}s")
        except httpx2.TransportError as exc:
            return self._failed(request, _transport_problem(exc))
        except MeshError as exc:  # the OAuth client's token endpoint failed (TokenEndpointError)
            return self._failed(request, str(exc))
        return self._answer(request, response)

    def _problems(self, values: Mapping[str, Any]) -> list[str]:
        schema = self.operation.input_schema
        known = schema["properties"]
        problems = [
            f"{name}: required argument is missing"
            for name in schema.get("required", ())
            if name not in values
        ]
        unknown = [name for name in values if name not in known]
        if unknown:
            problems.append(
                f"{', '.join(unknown)}: unexpected argument (known: {', '.join(known) or 'none'})"
            )
        for error in sorted(self.validator.iter_errors(values), key=lambda e: list(e.absolute_path)):
            where = ".".join(str(p) for p in error.absolute_path)
            if not where and error.validator in ("required", "additionalProperties"):
                continue  # said above, by name
            problems.append(f"{where or '(arguments)'}: {error.message}")
        return problems

    def _request(self, values: Mapping[str, Any]) -> httpx2.Request:
        operation = self.operation
        path = operation.path
        query: list[tuple[str, str]] = []
        headers: dict[str, str] = dict(self.target.headers or {})
        cookies: list[str] = []
        for parameter in operation.parameters:
            value = values.get(parameter.argument)
            if value is None:  # not given, or null: the parameter is left out
                continue
            if parameter.as_json:
                value = scalar(value) if not isinstance(value, str) else value
            if parameter.location == "path":
                written = path_value(parameter.name, value, parameter.style, parameter.explode)
                path = path.replace("{" + parameter.name + "}", written)
            elif parameter.location == "query":
                query.extend(query_pairs(parameter.name, value, parameter.style, parameter.explode))
            elif parameter.location == "header":
                headers[parameter.name] = header_value(value, parameter.explode)
            else:
                cookies.append(f"{parameter.name}={cookie_value(value)}")
        if cookies:
            headers["cookie"] = "; ".join(cookies)
        body = operation.body
        content: dict[str, Any] = {}
        if body is not None:
            if body.argument is not None:
                payload = values.get(body.argument)
                present = body.argument in values
            else:
                payload = {name: values[name] for name in body.properties if name in values}
                present = bool(payload) or body.required
            if present:
                headers["content-type"] = body.media_type
                if body.media_type == FORM and isinstance(payload, dict):
                    content["data"] = {
                        k: [scalar(i) for i in v] if isinstance(v, list) else scalar(v)
                        for k, v in payload.items()
                    }
                elif body.media_type == "text/plain":
                    content["content"] = scalar(payload)
                else:
                    content["json"] = payload
        url = self.target.base_url.rstrip("/") + path
        return self.target.client().build_request(
            operation.method.upper(),
            url,
            params=tuple(query) if query else None,
            headers=headers,
            **content,
        )

    async def _send(self, request: httpx2.Request) -> httpx2.Response:
        return await self.target.client().send(request, auth=self.target.auth or httpx2.USE_CLIENT_DEFAULT)

    def _failed(self, request: httpx2.Request, problem: str) -> dict[str, Any]:
        text = f"{self.target.service}: {request.method} {_shown(request)} failed: {problem}"
        logger.warning("openapi tool '%s': %s", self.name, text)
        return error_result(text)

    def _answer(self, request: httpx2.Request, response: httpx2.Response) -> dict[str, Any]:
        status = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        if not 200 <= response.status_code < 300:
            text = f"{self.target.service}: {request.method} {_shown(request)} answered {status}: "
            text += short_body(response)
            logger.warning("openapi tool '%s': %s", self.name, text)
            return error_result(text)
        if not response.content:
            return {"content": [{"type": "text", "text": status}], "isError": False}
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            try:
                value = response.json()
            except ValueError:
                pass  # not JSON after all: its text
            else:
                structured = value if isinstance(value, dict) else {"result": value}
                return {
                    "content": [{"type": "text", "text": response.text}],
                    "structuredContent": structured,
                    "isError": False,
                }
        return {"content": [{"type": "text", "text": response.text}], "isError": False}


def _shown(request: httpx2.Request) -> str:
    """The request's URL without its query (which may carry what the caller sent, secrets included)."""
    return str(request.url.copy_with(query=None))


def _transport_problem(exc: httpx2.TransportError) -> str:
    if isinstance(exc, httpx2.ConnectError):
        return f"cannot connect ({exc or 'connection refused'}); is the service running?"
    if isinstance(exc, httpx2.TimeoutException):
        return "timed out"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
