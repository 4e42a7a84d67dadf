"""The endpoint's prompts, resources and completion methods, for both protocol eras.

`McpEndpoint` hands every method of `FEATURE_METHODS` here and stamps the result for 2026-07-28; errors
come back as `FeatureError` with their JSON-RPC code. A missing prompt argument, an unknown prompt or a
URI nothing serves is -32602 (SEP-2164: `data.uri` names the URI); a failing prompt or resource function
is -32603 with a one-line reason (the traceback goes to the agent's log).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..tools.context import ToolContext
from .request_state import RequestStateSigner, TamperedStateError
from .versions import INTERNAL_ERROR, INVALID_PARAMS, META_CLIENT_CAPABILITIES

if TYPE_CHECKING:
    from ..prompts.catalog import PromptCatalog
    from ..resources.catalog import ResourceCatalog

__all__ = ["FEATURE_METHODS", "FeatureError", "FeatureHandlers"]

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


class FeatureError(Exception):
    """A request of a feature method that cannot be answered, with its JSON-RPC code."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class FeatureHandlers:
    """Serves prompts, resources and completion from the agent's catalogs. An agent with neither loads
    the catalog modules only if a client asks for a feature method (empty catalogs answer it)."""

    def __init__(
        self, prompts: PromptCatalog | None = None, resources: ResourceCatalog | None = None
    ) -> None:
        self._prompts = prompts or None
        self._resources = resources or None

    @property
    def prompts(self) -> PromptCatalog:
        if self._prompts is None:
            from ..prompts.catalog import PromptCatalog

            self._prompts = PromptCatalog()
        return self._prompts

    @property
    def resources(self) -> ResourceCatalog:
        if self._resources is None:
            from ..resources.catalog import ResourceCatalog

            self._resources = ResourceCatalog()
        return self._resources

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
        return declared

    async def handle(
        self,
        method: str,
        params: Mapping[str, Any],
        *,
        modern: bool,
        signer: RequestStateSigner | None = None,
    ) -> dict[str, Any]:
        from ..prompts.catalog import PromptError
        from ..resources.catalog import ResourceError

        try:
            result = await self._handle(method, params, modern, signer)
        except PromptError as exc:
            raise FeatureError(INTERNAL_ERROR if exc.internal else INVALID_PARAMS, str(exc)) from None
        except ResourceError as exc:
            data = {"uri": exc.uri} if exc.uri is not None else None
            raise FeatureError(INTERNAL_ERROR if exc.internal else INVALID_PARAMS, str(exc), data) from None
        if modern and method in _CACHEABLE:
            return {**result, **_CACHE_HINTS}
        return result

    async def _handle(
        self, method: str, params: Mapping[str, Any], modern: bool, signer: RequestStateSigner | None
    ) -> dict[str, Any]:
        if method == "prompts/list":
            return {"prompts": self.prompts.descriptors()}
        if method == "prompts/get":
            context = _prompt_context(params, modern, signer)
            return await self.prompts.render(params.get("name"), params.get("arguments"), context)
        if method == "resources/list":
            return {"resources": self.resources.descriptors()}
        if method == "resources/templates/list":
            return {"resourceTemplates": self.resources.template_descriptors()}
        if method == "resources/read":
            return await self.resources.read(params.get("uri"))
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
