"""The endpoint's prompts, resources and completion methods, and the MCP extensions' methods
(`extension.EndpointExtension`), for both protocol eras.

`McpEndpoint` hands every method of `FEATURE_METHODS` here and stamps the result for 2026-07-28; errors
come back as `FeatureError` with their JSON-RPC code. A missing prompt argument, an unknown prompt or a
URI nothing serves is -32602 (SEP-2164: `data.uri` names the URI); a failing prompt or resource function
is -32603 with a one-line reason (the traceback goes to the agent's log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import MeshError, WiringError
from ..tools.context import ToolContext
from .request_state import RequestStateSigner, TamperedStateError
from .versions import INTERNAL_ERROR, INVALID_PARAMS, META_CLIENT_CAPABILITIES

__all__ = ["FEATURE_METHODS", "FeatureError", "FeatureHandlers", "FeatureRequestError"]

FEATURE_METHODS = frozenset(
    {
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
    }
)
# SEP-2549 hints on list and read results of 2026-07-28 (the lists are fixed, but private to the agent).
_CACHE_HINTS = {"ttlMs": 0, "cacheScope": "private"}
_CACHEABLE = {"prompts/list", "resources/list", "resources/templates/list", "resources/read"}
# Methods the endpoint itself answers, which no extension may take over.
_CORE_METHODS = frozenset(
    {
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
        "tools/list",
        "tools/call",
    }
)


class FeatureError(Exception):
    """A request of a feature method that cannot be answered, with its JSON-RPC code."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class FeatureRequestError(MeshError, ValueError):
    """A prompt, resource or completion request that cannot be answered (what a catalog raises): -32602,
    or -32603 when `internal` (the prompt or resource itself failed); `uri` names the resource asked for."""

    def __init__(self, message: str, *, uri: str | None = None, internal: bool = False) -> None:
        super().__init__(message)
        self.uri = uri
        self.internal = internal


class _NoPrompts:
    """The prompts of an agent that serves none (the prompts feature is not used)."""

    def __len__(self) -> int:
        return 0

    def descriptors(self) -> list[dict[str, Any]]:
        return []

    async def render(self, name: Any, arguments: Any, context: ToolContext | None = None) -> dict[str, Any]:
        raise FeatureRequestError(f"Unknown prompt '{name}'. Available prompts: none")

    async def complete(self, name: Any, argument: str, value: str, filled: Mapping[str, str]) -> Any:
        raise FeatureRequestError(f"Unknown prompt '{name}'. Available prompts: none")


class _NoResources:
    """The resources of an agent that serves none."""

    template_count = 0

    def __len__(self) -> int:
        return 0

    def descriptors(self) -> list[dict[str, Any]]:
        return []

    def template_descriptors(self) -> list[dict[str, Any]]:
        return []

    async def read(self, uri: Any) -> dict[str, Any]:
        if not isinstance(uri, str) or not uri:
            raise FeatureRequestError("resources/read needs params.uri, the URI of the resource to read")
        raise FeatureRequestError(
            f"Resource not found: '{uri}' is no resource of this agent and matches none of its URI "
            "templates; resources/list and resources/templates/list show what it serves",
            uri=uri,
        )

    async def complete(self, template_uri: Any, argument: str, value: str, filled: Mapping[str, str]) -> Any:
        raise FeatureRequestError(f"Unknown resource template '{template_uri}'. Templates: none")


class FeatureHandlers:
    """Serves prompts, resources and completion from the agent's catalogs (the prompts and resources
    feature's, `prompts/planning.py`); an agent without them answers empty lists and unknown names. The
    MCP extensions' beans (`extension.EndpointExtension`, `extensions`) add their capabilities, methods
    and resources."""

    def __init__(self, prompts: Any = None, resources: Any = None, extensions: Sequence[Any] = ()) -> None:
        self._prompts = prompts or None
        self._resources = resources or None
        self._parts = (prompts, resources)
        self._extensions = tuple(extensions)
        self._methods = _extension_methods(self._extensions)
        more = [found for e in self._extensions if (found := e.resources()) is not None]
        if more:
            self._resources = _JoinedResources(self._resources, more)

    def extended(self, extensions: Sequence[Any]) -> FeatureHandlers:
        """These handlers with the MCP extensions' beans (`extension.EndpointExtension`) added."""
        return FeatureHandlers(*self._parts, (*self._extensions, *extensions)) if extensions else self

    def declared_scopes(self) -> dict[str, tuple[str, ...]]:
        """The scopes each scoped prompt and resource asks of callers (`prompt NAME`, `resource URI`)."""
        declared: dict[str, tuple[str, ...]] = {}
        for part in self._parts:
            scopes_of = getattr(part, "declared_scopes", None)
            declared.update(scopes_of() if scopes_of is not None else {})
        return declared

    def scopes_needed(self, method: str, params: Mapping[str, Any]) -> tuple[str, ...]:
        """The scopes one request asks of the caller: a prompts/get's prompt's, a resources/read's
        resource's (MCP authorization, security/authorization.py)."""
        prompts, resources = self._parts
        part, key = (prompts, "name") if method == "prompts/get" else (resources, "uri")
        scopes_of = getattr(part, "scopes_of", None) if method in ("prompts/get", "resources/read") else None
        return tuple(scopes_of(params.get(key))) if scopes_of is not None else ()

    def serves(self, method: str) -> bool:
        """True for the methods answered here: prompts, resources, completion and the extensions'."""
        return method in FEATURE_METHODS or method in self._methods

    @property
    def prompts(self) -> Any:
        return self._prompts if self._prompts is not None else _NoPrompts()

    @property
    def resources(self) -> Any:
        return self._resources if self._resources is not None else _NoResources()

    def capabilities(self) -> dict[str, Any]:
        """What `initialize` and `server/discover` declare: only the features this agent has."""
        declared: dict[str, Any] = {}
        prompts = len(self._prompts) if self._prompts is not None else 0
        if prompts:
            declared["prompts"] = {"listChanged": False}
        if self._resources is not None and len(self._resources):
            declared["resources"] = {"listChanged": False, "subscribe": False}
        if prompts or (self._resources is not None and self._resources.template_count):
            declared["completions"] = {}
        for extension in self._extensions:  # merged one level deep: `extensions`, `resources`, ...
            for key, value in extension.capabilities().items():
                mergeable = isinstance(value, Mapping) and isinstance(declared.get(key), Mapping)
                declared[key] = {**declared[key], **value} if mergeable else value
        return declared

    async def handle(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        modern: bool,
        signer: RequestStateSigner | None = None,
    ) -> dict[str, Any]:
        try:
            result = await self._handle(method, params, modern, signer)
        except FeatureRequestError as exc:
            data = {"uri": exc.uri} if exc.uri is not None else None
            raise FeatureError(INTERNAL_ERROR if exc.internal else INVALID_PARAMS, str(exc), data) from None
        if modern and method in _CACHEABLE:
            return {**result, **_CACHE_HINTS}
        return result

    async def _handle(
        self, method: str, params: Mapping[str, Any], modern: bool, signer: RequestStateSigner | None
    ) -> dict[str, Any]:
        extended = self._methods.get(method)
        if extended is not None:
            answered: dict[str, Any] = await extended(params, modern)
            return answered
        if method == "prompts/list":
            return {"prompts": self.prompts.descriptors()}
        if method == "prompts/get":
            context = _prompt_context(params, modern, signer)
            rendered: dict[str, Any] = await self.prompts.render(
                params.get("name"), params.get("arguments"), context
            )
            return rendered
        if method == "resources/list":
            return {"resources": self.resources.descriptors()}
        if method == "resources/templates/list":
            return {"resourceTemplates": self.resources.template_descriptors()}
        if method == "resources/read":
            read: dict[str, Any] = await self.resources.read(params.get("uri"))
            return read
        return await self._complete(params)

    async def _complete(self, params: Mapping[str, Any]) -> dict[str, Any]:
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, Mapping) or not isinstance(argument, Mapping):
            raise FeatureError(
                INVALID_PARAMS,
                "completion/complete needs params.ref ({type: 'ref/prompt', name} or {type: 'ref/resource', "
                "uri}) and params.argument ({name, value})",
            )
        name, value = argument.get("name"), argument.get("value", "")
        if not isinstance(name, str) or not isinstance(value, str):
            raise FeatureError(
                INVALID_PARAMS, "completion/complete params.argument needs a string name and value"
            )
        context = params.get("context")
        given = context.get("arguments") if isinstance(context, Mapping) else None
        filled = {str(k): str(v) for k, v in given.items()} if isinstance(given, Mapping) else {}
        if ref.get("type") == "ref/prompt":
            completion = await self.prompts.complete(ref.get("name"), name, value, filled)
        elif ref.get("type") == "ref/resource":
            completion = await self.resources.complete(ref.get("uri"), name, value, filled)
        else:
            raise FeatureError(
                INVALID_PARAMS,
                f"completion/complete params.ref.type {ref.get('type')!r} must be ref/prompt or ref/resource",
            )
        return {"completion": completion}


def _extension_methods(extensions: Sequence[Any]) -> dict[str, Any]:
    """The extensions' JSON-RPC methods by name; WiringError for a method served twice."""
    methods: dict[str, Any] = {}
    owners: dict[str, str] = {}
    for extension in extensions:
        owner = type(extension).__qualname__
        for name, handler in extension.methods().items():
            core = name in FEATURE_METHODS or name in _CORE_METHODS or name.startswith("tasks/")
            taken = "the endpoint" if core else owners.get(name)
            if taken is not None:
                raise WiringError([f"{owner} serves the MCP method '{name}', which {taken} serves already"])
            methods[name] = handler
            owners[name] = owner
    return methods


class _JoinedResources:
    """The app's resources (or none) and the extensions' beside them: listed after the app's, asked
    first on a read (a read they do not serve answers None and goes on to the app's)."""

    def __init__(self, app: Any, more: Sequence[Any]) -> None:
        self._app = app if app is not None else _NoResources()
        self._more = tuple(more)
        self.template_count = self._app.template_count

    def __len__(self) -> int:
        return len(self._app) + sum(len(m) for m in self._more)

    def descriptors(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = list(self._app.descriptors())
        for more in self._more:
            listed += more.descriptors()
        return listed

    def template_descriptors(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self._app.template_descriptors()
        return listed

    async def read(self, uri: Any) -> dict[str, Any]:
        for more in self._more:
            found: dict[str, Any] | None = await more.read(uri)
            if found is not None:
                return found
        read: dict[str, Any] = await self._app.read(uri)
        return read

    async def complete(self, template_uri: Any, argument: str, value: str, filled: Mapping[str, str]) -> Any:
        return await self._app.complete(template_uri, argument, value, filled)


def _prompt_context(
    params: Mapping[str, Any], modern: bool, signer: RequestStateSigner | None
) -> ToolContext | None:
    """What a prompt that takes a ToolContext sees: the client's input responses and the signed state
    of a previous round (2026-07-28 multi-round requests, SEP-2322)."""
    name = params.get("name")
    if not isinstance(name, str):
        return None
    responses = params.get("inputResponses")
    if responses is not None and not (
        isinstance(responses, Mapping) and all(isinstance(v, Mapping) for v in responses.values())
    ):
        raise FeatureError(
            INVALID_PARAMS,
            "params.inputResponses must map each input request key to the client's answer object",
        )
    signer = signer or RequestStateSigner()
    state = None
    if params.get("requestState") is not None:
        try:
            state = signer.decode(f"prompt:{name}", params["requestState"])
        except TamperedStateError as exc:
            raise FeatureError(INVALID_PARAMS, str(exc)) from None
    meta = params.get("_meta")
    capabilities = meta.get(META_CLIENT_CAPABILITIES) if modern and isinstance(meta, Mapping) else None
    return ToolContext(
        name,
        modern=modern,
        client_capabilities=capabilities if isinstance(capabilities, Mapping) else None,
        input_responses=dict(responses) if responses else None,
        request_state=state,
        encode_state=lambda _tool, value: signer.encode(f"prompt:{name}", value),
    )
