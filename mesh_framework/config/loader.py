"""Loads `MeshSettings` from every layer, keeping each value's origin, and reports bad values together.

Precedence, highest first: command line, environment, `application-{profile}.yaml` (later profiles win),
`application.yaml`, code (decorator parameters), defaults.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr, ValidationError

from ..errors import ConfigError, display_path
from .network import detect_outward_host, generate_agent_id, is_loopback, registry_host
from .settings import MeshSettings
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

__all__ = ["LoadedSettings", "find_config_dir", "is_secret_header", "load_settings", "validate_section"]

SECRET_WORDS = ("secret", "token", "password", "api_key", "apikey", "credential", "private_key")
MASK = "******"
# HTTP headers that carry credentials (case-insensitive): these names, or names containing these words.
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "x-api-key")
SECRET_HEADER_WORDS = ("auth", "token", "secret", "key", "password", "cookie", "credential")
# Every value of an MCP server's environment, and credential headers, are masked too.
_SERVER_ENV = re.compile(r"mcp\.servers\..+\.env(\..+)?")
_SERVER_HEADER = re.compile(r"mcp\.servers\..+\.headers(?:\.([^.]+))?")


@dataclass
class LoadedSettings:
    """The settings plus where each value came from (`origins` maps dotted keys to a description)."""

    settings: MeshSettings
    origins: dict[str, str]
    files: list[Path] = field(default_factory=list)

    def origin_of(self, key: str) -> str:
        return _lookup(self.origins, key)

    def table(self) -> list[tuple[str, str, str]]:
        """Every resolved value as (key, printable value, origin), secrets masked."""
        data = self.settings.model_dump(mode="python")
        rows = []
        for key, value in iter_leaves(data):
            rows.append((key, _printable(key, value), self.origin_of(key)))
        return rows


def is_secret_header(name: str) -> bool:
    """True for HTTP headers that carry credentials (Authorization, Cookie, X-Api-Key, *token*, ...)."""
    lowered = name.lower()
    return lowered in SECRET_HEADERS or any(word in lowered for word in SECRET_HEADER_WORDS)


def _is_secret(key: str) -> bool:
    if any(word in key.lower() for word in SECRET_WORDS) or _SERVER_ENV.fullmatch(key):
        return True
    header = _SERVER_HEADER.fullmatch(key)
    return header is not None and (header.group(1) is None or is_secret_header(header.group(1)))


def _masked(key: str, value: Any) -> Any:
    """`value` with every secret below `key` masked (for values shown whole, such as in errors)."""
    if isinstance(value, Mapping):
        return {k: _masked(f"{key}.{k}", v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(f"{key}.{i}", v) for i, v in enumerate(value)]
    if value is not None and value != {} and (isinstance(value, SecretStr) or _is_secret(key)):
        return MASK
    return value


def _printable(key: str, value: Any) -> str:
    if value is not None and value != {} and (isinstance(value, SecretStr) or _is_secret(key)):
        return MASK
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (str, int, float)):
        return str(value)
    return repr(_masked(key, value))


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
) -> LoadedSettings:
    """Build the layers and validate. `code` and `cli` are flat dotted keys (`{"server.port": 9000}`).

    Raises ConfigError listing every bad value with its key, value, origin and reason.
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
        yaml_sources.append(YamlFileSource(MeshSettings, base, display_path(base)))
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
        yaml_sources.insert(0, YamlFileSource(MeshSettings, path, display_path(path)))  # later profiles win
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
    token = ACTIVE_SOURCES.set(layers)
    try:
        settings = MeshSettings()
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, origins)) from None
    finally:
        ACTIVE_SOURCES.reset(token)
    loaded = LoadedSettings(settings=settings, origins=origins, files=files)
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


def describe_errors(exc: ValidationError, origins: Mapping[str, str], prefix: str = "") -> list[str]:
    problems = []
    for error in exc.errors(include_url=False):
        key = prefix + ".".join(str(p) for p in error["loc"])
        origin = _lookup(origins, key)
        if error["type"] == "extra_forbidden":
            problems.append(
                f"{key} (from {origin}): unknown setting; check the spelling against `mesh config`"
            )
            continue
        value = error.get("input")
        masked = _masked(key, value)
        shown = MASK if masked is MASK else repr(masked)
        problems.append(f"{key} = {shown} (from {origin}): {error['msg']}")
    return problems


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
        raise ConfigError(describe_errors(exc, loaded.origins, prefix=prefix + ".")) from None


def section_rows(loaded: LoadedSettings, prefix: str, section: BaseModel) -> Iterator[tuple[str, str, str]]:
    for key, value in iter_leaves(section.model_dump(mode="python"), prefix + "."):
        yield key, _printable(key, value), loaded.origin_of(key)
