"""Loads `MeshSettings` from every layer, keeping each value's origin, and reports bad values together.

Precedence, highest first: command line, environment, `application-{profile}.yaml` (later profiles win),
`application.yaml`, code (decorator parameters), defaults.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from .._frozen import record
from ..errors import ConfigError, display_path
from .fields import field_names, model_at, unknown_key
from .masking import (
    MASK,
    SECRET_WORDS,
    holds_secret,
    is_secret,
    is_secret_header,
    is_secret_name,
    mask_url_credentials,
    masked,
    printable,
)
from .network import detect_outward_host, generate_agent_id, is_loopback, registry_host
from .plain_values import plain_section
from .settings import LlmToolSettings, MeshSettings, _unset, section_defaults, section_model
from .sources import (
    ACTIVE_SOURCES,
    ENV_PROFILES,
    EnvironmentSource,
    LayerSource,
    YamlFileSource,
    cli_origin,
    dotted_to_nested,
    iter_leaves,
)

__all__ = [
    "MASK",
    "SECRET_WORDS",
    "LoadedSettings",
    "describe_errors",
    "find_config_dir",
    "is_secret_header",
    "load_settings",
    "section_rows",
    "validate_section",
]


@record
class LoadedSettings:
    """The settings plus where each value came from (`origins` maps dotted keys to a description)."""

    settings: MeshSettings
    origins: dict[str, str]
    files: list[Path] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    """Settings nothing reads (each a problem with its origin and the closest known name), when the
    loader was asked to keep them rather than stop (`mesh config` shows them)."""

    def origin_of(self, key: str) -> str:
        return _lookup(self.origins, key)

    def table(self) -> list[tuple[str, str, str]]:
        """Every resolved value as (key, printable value, origin), secrets masked."""
        data = self.settings.model_dump(mode="python")
        return [
            (key, printable(key, value, MeshSettings), self.origin_of(key))
            for key, value in iter_leaves(data)
        ]


def find_config_dir(candidates: Sequence[Path]) -> Path | None:
    for candidate in candidates:
        if (candidate / "application.yaml").is_file() or (candidate / "application.yml").is_file():
            return candidate
    return None


def _yaml_file(directory: Path, stem: str) -> Path | None:
    for suffix in (".yaml", ".yml"):
        path = directory / f"{stem}{suffix}"
        if path.is_file():
            return path
    return None


def _split_profiles(value: Any) -> list[str]:
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        return [str(p).strip() for p in value if str(p).strip()]
    return []


def load_settings(
    *,
    code: Mapping[str, Any] | None = None,
    cli: Mapping[str, Any] | None = None,
    profiles: Sequence[str] | None = None,
    config_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
    keep_unread: bool = False,
) -> LoadedSettings:
    """Build the layers and validate. `code` and `cli` are flat dotted keys (`{"server.port": 9000}`).

    Raises ConfigError listing every bad value with its key, value, origin and reason, and every key of a
    framework section that nothing reads (a typo) with the closest known name; with `keep_unread` the
    latter are left out of the settings and kept in `unread` instead.
    """
    environ = os.environ if environ is None else environ
    env_source = EnvironmentSource(MeshSettings, environ)
    cli_flat = {k: v for k, v in (cli or {}).items() if v is not None}
    cli_source = LayerSource(
        MeshSettings,
        "command line",
        dotted_to_nested(cli_flat),
        {k: cli_origin(k) for k in cli_flat},
    )
    code_flat = {k: v for k, v in (code or {}).items() if v is not None}
    code_source = LayerSource(
        MeshSettings,
        "code",
        dotted_to_nested(code_flat),
        {k: "code (@mesh_agent parameter)" for k in code_flat},
    )
    yaml_sources: list[LayerSource] = []
    files: list[Path] = []
    base = _yaml_file(config_dir, "application") if config_dir is not None else None
    if base is not None:
        yaml_sources.append(YamlFileSource(MeshSettings, base, display_path(base), environ=environ))
        files.append(base)
    # Active profiles: command line, else environment, else `profiles:` in application.yaml.
    if profiles:
        active, profiles_origin = list(profiles), "command line (--profile)"
    elif environ.get(ENV_PROFILES):
        active, profiles_origin = (
            _split_profiles(environ[ENV_PROFILES]),
            f"environment variable {ENV_PROFILES}",
        )
    elif yaml_sources and "profiles" in yaml_sources[0].data:
        active = _split_profiles(yaml_sources[0].data["profiles"])
        profiles_origin = yaml_sources[0].origins.get("profiles", yaml_sources[0].label)
    else:
        active, profiles_origin = [], "default"
    problems: list[str] = []
    for profile in active:
        path = _yaml_file(config_dir, f"application-{profile}") if config_dir is not None else None
        if path is None:
            where = display_path(config_dir) if config_dir is not None else "no config directory"
            problems.append(
                f"profiles = {profile!r} (from {profiles_origin}): application-{profile}.yaml not "
                f"found in {where}; create it or remove the profile"
            )
            continue
        yaml_sources.insert(
            0, YamlFileSource(MeshSettings, path, display_path(path), environ=environ)
        )  # later profiles win
        files.append(path)
    if problems:
        raise ConfigError(problems)
    for source in (cli_source, env_source, *yaml_sources):
        source.data.pop("profiles", None)
    cli_source.data["profiles"] = active  # resolved above; its origin is recorded below
    agent_name = (
        cli_flat.get("agent.name")
        or environ.get("MESH_AGENT__NAME")
        or environ.get("MCP_MESH_AGENT_NAME")
        or code_flat.get("agent.name")
    )
    yaml_sources = _with_agent_sections(yaml_sources, agent_name)
    layers: tuple[LayerSource, ...] = (cli_source, env_source, *yaml_sources, code_source)
    origins: dict[str, str] = {}
    for layer in reversed(layers):
        origins.update(layer.origins)
    origins["profiles"] = profiles_origin
    settings, unread = _validate(layers, origins)
    unread += _unread_in_llm_tools(settings, origins)
    if unread and not keep_unread:
        raise ConfigError(unread)
    loaded = LoadedSettings(settings=settings, origins=origins, files=files, unread=unread)
    _derive(loaded)
    return loaded


def _with_agent_sections(sources: list[LayerSource], agent: str | None) -> list[LayerSource]:
    """Each file's `agents.<name>` section (settings of one agent of a project with several) as a layer
    just above that file; the sections of other agents are dropped."""
    layered: list[LayerSource] = []
    for source in sources:
        sections = source.data.pop("agents", None)
        prefix = f"agents.{agent}."
        own = sections.get(agent) if isinstance(sections, dict) and agent else None
        if isinstance(own, dict) and own:
            origins = {k[len(prefix) :]: v for k, v in source.origins.items() if k.startswith(prefix)}
            layered.append(LayerSource(MeshSettings, f"{source.label} (agents.{agent})", own, origins))
        source.origins = {k: v for k, v in source.origins.items() if not k.startswith("agents.")}
        layered.append(source)
    return layered


def _derive(loaded: LoadedSettings) -> None:
    """Fill the values computed from others: agent id, advertised host, bind address."""
    settings = loaded.settings
    registry = registry_host(next(iter(settings.registry.endpoints()), None))
    local = registry is None or is_loopback(registry)
    if settings.agent.id is None:
        settings.agent.id = generate_agent_id(settings.agent.name)
        loaded.origins["agent.id"] = "generated ({name}-{8 hex})"
    if settings.agent.host is None:
        settings.agent.host = "127.0.0.1" if local else detect_outward_host(registry)
        loaded.origins["agent.host"] = "local default" if local else "auto-detected (route to the registry)"
    if settings.server.host is None:
        settings.server.host = "127.0.0.1" if local else "0.0.0.0"
        loaded.origins["server.host"] = "local default" if local else "default (all interfaces)"


def _validate(layers: Sequence[LayerSource], origins: Mapping[str, str]) -> tuple[MeshSettings, list[str]]:
    """The settings of `layers`, and the keys nothing reads, which are dropped from the layers (so that
    `mesh config` can still show everything else). ConfigError for any other bad value.

    Valid layers are validated section by section (`_build_settings`: only the sections given values);
    any problem validates the settings whole, which reports every problem at once."""
    settings = _build_settings(_merge_layers([layer.data for layer in layers]))
    if settings is not None:
        return settings, []
    token = ACTIVE_SOURCES.set(tuple(layers))
    try:
        try:
            return MeshSettings(), []
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        extra = [e for e in errors if e["type"] == "extra_forbidden"]
        unread = [describe_error(e, origins) for e in extra]
        others = [describe_error(e, origins) for e in errors if e["type"] != "extra_forbidden"]
        if others:
            raise ConfigError(others + unread)
        for error in extra:
            for layer in layers:
                _drop(layer.data, error["loc"])
        try:
            return MeshSettings(), unread
        except ValidationError as exc:
            raise ConfigError(describe_errors(exc, origins) + unread) from None
    finally:
        ACTIVE_SOURCES.reset(token)


# Validating `MeshSettings` whole builds the validator of the whole tree (some 40 models) while an agent sets
# a few sections: loading validates each section given values alone (its validator built on first use) and
# makes the others from their defaults without validating them. Any problem validates the tree whole.


def _merge_layers(layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The layers' data merged, the first layer winning: mappings merge key by key, anything else replaces
    (pydantic-settings' merge of its sources, which validating `MeshSettings` whole uses)."""
    merged: dict[str, Any] = {}
    for data in layers:
        merged = _deep_update(dict(data), merged)
    return merged


def _deep_update(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    result = base.copy()
    for key, value in update.items():
        if key in result and isinstance(result[key], dict) and isinstance(value, dict):
            result[key] = _deep_update(result[key], value)
        else:
            result[key] = value
    return result


def _build_settings(data: Mapping[str, Any]) -> MeshSettings | None:
    """`MeshSettings` of the merged `data`, equal to validating it whole; None when a value is invalid (or
    not checked here), for the caller to validate whole and report every problem."""
    values: dict[str, Any] = {}
    for name, info in MeshSettings.model_fields.items():
        if name not in data:
            values[name] = _default(info, values)
        elif info.default_factory is _unset:
            model = section_model(info)
            section = plain_section(model, data[name])  # no validator built for plain values
            try:
                values[name] = section if section is not None else model.model_validate(data[name])
            except ValidationError:
                return None
        elif _valid_as_is(info, data[name]):
            values[name] = list(data[name])
        else:
            return None
    extra = {key: value for key, value in data.items() if key not in values}
    if not all(isinstance(key, str) and not key.startswith("_") for key in extra):
        return None  # e.g. a key `_fields_set`: not one to pass as a keyword
    return MeshSettings.model_construct(_fields_set=set(data), **values, **extra)


def _default(info: FieldInfo, values: dict[str, Any]) -> Any:
    if info.default_factory is _unset:
        return section_defaults(section_model(info))
    return info.get_default(call_default_factory=True, validated_data=values)


def _valid_as_is(info: FieldInfo, value: Any) -> bool:
    """Whether `value` of a field that is no section (`profiles`) is valid as it is (else: validate whole)."""
    if info.annotation == list[str]:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return False


def _unread_in_llm_tools(settings: MeshSettings, origins: Mapping[str, str]) -> list[str]:
    """Keys of `llm.<tool name>` sections (kept raw until a tool reads them) that `llm.defaults` lacks;
    they are dropped, as the loader drops those of other framework sections."""
    known = field_names(LlmToolSettings)
    unread: list[str] = []
    for name, section in (settings.llm.model_extra or {}).items():
        if not isinstance(section, dict):
            continue
        for key in [k for k in section if k not in known]:
            where = f"llm.{name}.{key}"
            unread.append(unknown_key(where, _lookup(origins, where), f"'llm.{name}'", known))
            del section[key]
    return unread


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    """Remove the value at `loc` (keys and list indexes) from nested data, where it is present."""
    *path, last = loc
    node = data
    for part in path:
        if isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
            continue
        if not isinstance(node, dict) or part not in node:
            return
        node = node[part]
    if isinstance(node, dict):
        node.pop(last, None)


def describe_errors(
    exc: ValidationError,
    origins: Mapping[str, str],
    prefix: str = "",
    model: type[BaseModel] = MeshSettings,
) -> list[str]:
    """One problem per error of validating `model` (the settings below the dotted `prefix`)."""
    return [describe_error(error, origins, prefix, model) for error in exc.errors(include_url=False)]


def describe_error(
    error: ErrorDetails, origins: Mapping[str, str], prefix: str = "", model: type[BaseModel] = MeshSettings
) -> str:
    """`key = value (from origin): reason`, secrets masked; a key nothing reads names the closest one."""
    loc = [str(part) for part in error["loc"]]
    key = prefix + ".".join(loc)
    origin = _error_origin(origins, key)
    if error["type"] == "extra_forbidden":
        owner = model_at(model, loc[:-1])
        known = field_names(owner) if owner is not None else []
        # a framework section is named by its key, a model of the application by its class
        framework = model.__module__.startswith("mesh_framework.")
        name = f"'{key.rpartition('.')[0]}'" if framework else model.__name__
        return unknown_key(key, origin, name, known)
    if error["type"] == "missing":
        return f"{key} (from {origin}): {error['msg']}"
    value = error.get("input")
    reason = error["msg"].removeprefix("Value error, ")  # a validator's own words
    if _hide(key, value, origin, model, prefix):
        shown, reason = MASK, _without(reason, value)
    else:
        shown = repr(masked(key, value, model, prefix))
    return f"{key} = {shown} (from {origin}): {mask_url_credentials(reason)}"


# The variable a `${VAR}` placeholder (or the environment layer) supplied a value from, in its origin.
_FROM_VARIABLE = r"environment variable ([A-Za-z_][A-Za-z0-9_]*)"  # compiled on first use (`re` caches it)


def _hide(key: str, value: Any, origin: str, model: type[BaseModel], prefix: str) -> bool:
    """Whether a bad value is shown masked whole: its key is a secret; a scalar or list stands where a
    section holding secrets belongs (`auth: s3cr3t`: the secret written one level too high); or it came
    from an environment variable named like a secret (`${GITHUB_TOKEN}` in the wrong place)."""
    if is_secret(key, model, prefix):
        return True
    if not isinstance(value, Mapping) and holds_secret(key, model, prefix):
        return True
    return any(is_secret_name(name) for name in re.findall(_FROM_VARIABLE, origin))


def _without(reason: str, value: Any) -> str:
    """A validator's reason with the (masked) value it quotes replaced by the mask."""
    if not isinstance(value, str) or not value:
        return reason
    reason = reason.replace(repr(value), MASK)
    return reason.replace(value, MASK) if len(value) >= 4 else reason


def _error_origin(origins: Mapping[str, str], key: str) -> str:
    """The origin of a bad value: its own, else that of a value below it (a mapping written where text
    belongs), else that of the section holding it."""
    if key in origins:
        return origins[key]
    below = next((origin for name, origin in origins.items() if name.startswith(key + ".")), None)
    return below if below is not None else _lookup(origins, key)


def _lookup(origins: Mapping[str, str], key: str) -> str:
    node = key
    while node:
        if node in origins:
            return origins[node]
        node = node.rpartition(".")[0]
    return "default"


def validate_section(loaded: LoadedSettings, prefix: str, model: type[BaseModel]) -> BaseModel:
    """Validate the settings section `prefix` into `model` (a `@config_properties` class)."""
    raw = loaded.settings.extra_section(prefix)
    try:
        return model.model_validate(raw if raw is not None else {})
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, loaded.origins, prefix + ".", model)) from None


def section_rows(loaded: LoadedSettings, prefix: str, section: BaseModel) -> Iterator[tuple[str, str, str]]:
    """The rows of a `@config_properties` section as `mesh config` prints them, secrets masked."""
    for key, value in iter_leaves(section.model_dump(mode="python"), prefix + "."):
        yield key, printable(key, value, type(section), prefix + "."), loaded.origin_of(key)
