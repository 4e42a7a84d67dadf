"""The effective settings of one LLM tool: decorator parameters merged with `llm.<tool>` and
`llm.defaults` from every settings layer.

Precedence per key, highest first: `llm.<tool>` (any layer), `llm.defaults` set on the command line or
in the environment (`MESH_LLM_MODEL`, `MESH_LLM_MAX_ITERATIONS`), the `@mesh_llm` parameter, `llm.defaults`
from yaml files, then the built-in default.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._frozen import frozen
from ..config.loader import LoadedSettings, describe_errors
from ..config.settings import LlmToolSettings
from ..decorators import LLM_ATTR
from ..errors import ConfigError
from ..specs import LlmSpec, Selector
from .prompts import SystemPrompt, load_system_prompt

__all__ = ["DEFAULT_MAX_ITERATIONS", "STREAM_TAG", "LlmToolConfig", "resolve_llm_config"]

DEFAULT_MAX_ITERATIONS = 10
STREAM_TAG = "ai.mcpmesh.stream"  # the tag of an LLM provider's stream tool (MCP Mesh's)
_MODEL_KEYS = ("temperature", "max_tokens")


@frozen
class LlmToolConfig:
    """Everything one `@mesh_llm` tool needs at run time, resolved once at start-up."""

    tool: str
    provider: str | Selector
    model: str | None
    filter: tuple[Selector | str, ...]
    filter_mode: str
    system_prompt: SystemPrompt | None
    max_iterations: int
    parallel_tool_calls: bool | None
    model_params: Mapping[str, Any]
    catalog_servers: tuple[str, ...]
    callbacks: tuple[Any, ...]
    response_model: Any
    origins: Mapping[str, str] = field(default_factory=dict)
    streams: bool = False  # the tool returns Stream[str]: its provider is a stream tool

    @property
    def direct(self) -> bool:
        """True when the tool calls a vendor API itself (`"vendor/model"`), not a mesh provider agent."""
        return isinstance(self.provider, str)

    def heartbeat_fields(self, namespace: str) -> dict[str, Any]:
        """`llm_filter` and `llm_provider` as MCP Mesh's heartbeat carries them for this tool; a direct-mode
        tool adds `llm_model` (its `vendor/model`, for the mesh page; MCP Mesh's registry ignores it)."""
        fields: dict[str, Any] = {}
        if isinstance(self.provider, str):
            fields["llm_model"] = self.model or self.provider
        if self.filter:
            entries = [_filter_wire(f) for f in self.filter]
            fields["llm_filter"] = {"filter": entries, "filter_mode": self.filter_mode}
        if isinstance(self.provider, Selector):
            wire = {"namespace": namespace, **self.provider.to_wire()}
            tags = [*wire.get("tags", [])]
            if not {STREAM_TAG, f"+{STREAM_TAG}", f"-{STREAM_TAG}"} & set(tags):
                # as mcp-mesh consumers do: a streaming tool requires the provider's stream tool, others
                # exclude it
                tags.append(STREAM_TAG if self.streams else f"-{STREAM_TAG}")
            wire["tags"] = tags
            wire.setdefault("version", "")
            fields["llm_provider"] = wire
        return fields


class _Layers:
    """Picks each key by the precedence above and remembers where it came from."""

    def __init__(self, name: str, loaded: LoadedSettings) -> None:
        llm = loaded.settings.llm
        try:
            self.tool = llm.for_tool(name)
        except ValidationError as exc:
            raise ConfigError(describe_errors(exc, loaded.origins, f"llm.{name}.", LlmToolSettings)) from None
        self.defaults = llm.defaults
        self.name = name
        self.loaded = loaded
        self.origins: dict[str, str] = {}

    def pick(self, key: str, code: Any) -> Any:
        value, self.origins[key] = self._pick(key, code)
        return value

    def _pick(self, key: str, code: Any) -> tuple[Any, str]:
        if self.tool is not None and getattr(self.tool, key) is not None:
            return getattr(self.tool, key), self.loaded.origin_of(f"llm.{self.name}.{key}")
        default = getattr(self.defaults, key)
        default_origin = self.loaded.origin_of(f"llm.defaults.{key}")
        if default is not None and default_origin.startswith(("environment", "command line")):
            return default, default_origin
        if code is not None:
            return code, "code (@mesh_llm parameter)"
        if default is not None:
            return default, default_origin
        return None, "default"

    def model_params(self, spec: LlmSpec) -> dict[str, Any]:
        params: dict[str, Any] = {**self.defaults.model_params, **spec.model_params}
        if self.tool is not None:
            params.update(self.tool.model_params)
        for key in _MODEL_KEYS:
            value = self.pick(key, spec.model_params.get(key))
            if value is not None:
                params[key] = value
        return params


def _provider(
    layers: _Layers, spec: LlmSpec, problems: list[str]
) -> tuple[str | Selector | None, str | None]:
    name, origins = layers.name, layers.origins
    provider = layers.pick("provider", spec.provider)
    model = layers.pick("model", None)
    if provider is None and model is not None:
        provider, origins["provider"] = model, origins["model"]
    if provider is None:
        problems.append(
            f"LLM tool '{name}': no provider; pass @mesh_llm(provider='openai/gpt-4o-mini') or a mesh "
            "provider selector ({'capability': 'llm'}), or set llm.defaults.provider"
        )
    elif isinstance(provider, Mapping):
        try:
            provider = Selector.of(provider)
        except (TypeError, ValueError) as exc:
            problems.append(f"llm.{name}.provider (from {origins['provider']}): {exc}")
            provider = None
    elif isinstance(provider, str) and "/" not in provider:
        problems.append(
            f"LLM tool '{name}': provider {provider!r} (from {origins['provider']}) is neither "
            "'vendor/model' (e.g. 'openai/gpt-4o-mini') nor a selector of a mesh provider agent"
        )
    return provider, (model if model != provider else None)


def _filters(layers: _Layers, spec: LlmSpec, problems: list[str]) -> tuple[Selector | str, ...]:
    from ..decorators import _llm_filter

    raw = layers.pick("filter", spec.filter)
    try:
        return (_llm_filter(raw) or ()) if raw is not None else ()
    except (TypeError, ValueError) as exc:
        problems.append(f"llm.{layers.name}.filter (from {layers.origins['filter']}): {exc}")
        return ()


def resolve_llm_config(
    name: str, function: Any, loaded: LoadedSettings, *, return_type: Any = None, streams: bool = False
) -> LlmToolConfig:
    """The configuration of the LLM tool `name` (whose function carries `@mesh_llm`; `streams` when it
    returns Stream[str]). ConfigError lists every problem (an unusable provider, a prompt file that is
    missing or broken, a structured answer asked of a tool that streams)."""
    spec: LlmSpec = getattr(function, LLM_ATTR)
    layers = _Layers(name, loaded)
    problems: list[str] = []
    if streams and spec.response_model is not None and spec.response_model is not str:
        problems.append(
            f"LLM tool '{name}' returns Stream[str] but asks for a structured answer "
            f"(response_model={getattr(spec.response_model, '__name__', spec.response_model)}); a structured "
            "answer cannot stream: drop response_model, or return the model type instead of Stream[str]"
        )
    provider, model = _provider(layers, spec, problems)
    filters = _filters(layers, spec, problems)
    filter_mode = layers.pick("filter_mode", spec.filter_mode) or ("*" if filters == ("*",) else "all")
    base = Path(inspect.getfile(function)).resolve().parent if _has_file(function) else None
    prompt = None
    try:
        raw_prompt = layers.pick("system_prompt", spec.system_prompt)
        prompt = load_system_prompt(raw_prompt, origin=layers.origins["system_prompt"], base=base)
    except ConfigError as exc:
        problems.extend(exc.problems)
    servers = list(layers.pick("tools", [item for item in spec.tools if isinstance(item, str)] or None) or [])
    if problems:
        raise ConfigError(problems)
    assert provider is not None
    return LlmToolConfig(
        tool=name,
        provider=provider,
        model=model,
        filter=filters,
        filter_mode=filter_mode,
        system_prompt=prompt,
        max_iterations=int(layers.pick("max_iterations", spec.max_iterations) or DEFAULT_MAX_ITERATIONS),
        parallel_tool_calls=layers.pick("parallel_tool_calls", spec.parallel_tool_calls),
        model_params=layers.model_params(spec),
        catalog_servers=tuple(dict.fromkeys(servers)),
        callbacks=tuple(item for item in spec.tools if not isinstance(item, str)),
        response_model=spec.response_model if spec.response_model is not None else _structured(return_type),
        origins=layers.origins,
        streams=streams,
    )


def _filter_wire(entry: Selector | str) -> Any:
    """A filter entry as MCP Mesh writes it: a tags-only selector carries no capability."""
    if not isinstance(entry, Selector):
        return entry
    wire = entry.to_wire()
    if wire["capability"] == "*":
        del wire["capability"]
    return wire


def _has_file(function: Any) -> bool:
    try:
        inspect.getfile(function)
    except TypeError:
        return False
    return True


def _structured(return_type: Any) -> Any:
    """A tool's return annotation, when it is a type the LLM must answer in (a pydantic model)."""
    from pydantic import BaseModel

    return return_type if isinstance(return_type, type) and issubclass(return_type, BaseModel) else None
