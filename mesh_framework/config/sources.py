"""Settings sources, one per layer. Each returns nested data and remembers where every leaf came from."""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from ..errors import ConfigError
from .environment import ENV_CONTROL, ENV_PREFIX, ENV_PROFILES, MCP_MESH_ENV_NAMES
from .placeholders import SETTINGS, PlaceholderError, Use, resolve

__all__ = [
    "ACTIVE_SOURCES",
    "CLI_OPTIONS",
    "ENV_CONTROL",
    "ENV_PREFIX",
    "ENV_PROFILES",
    "MCP_MESH_ENV_NAMES",
    "cli_origin",
    "EnvironmentSource",
    "LayerSource",
    "YamlFileSource",
    "dotted_to_nested",
    "normalize_key",
    "parse_env_value",
]

# The layers `MeshSettings()` reads while `load_settings` builds it (pydantic-settings asks the class for its
# sources, so they are handed over through this variable rather than as arguments).
ACTIVE_SOURCES: contextvars.ContextVar[tuple[PydanticBaseSettingsSource, ...] | None] = (
    contextvars.ContextVar("mesh_settings_sources", default=None)
)

# The command-line options of `mesh run`/`mesh config` that set a key, for naming origins.
CLI_OPTIONS: dict[str, str] = {
    "server.port": "--port",
    "server.host": "--host",
    "agent.name": "--name",
    "registry.url": "--registry-url",
    "logging.level": "--log-level",
    "profiles": "--profile",
}


def cli_origin(key: str) -> str:
    """How a value given on the command line is named as an origin: `command line (--registry-url)`."""
    return f"command line ({CLI_OPTIONS.get(key, '--' + key.rpartition('.')[2].replace('_', '-'))})"


def normalize_key(key: str) -> str:
    """Relaxed binding: `agent-name`, `agentName` and `AGENT_NAME` all mean `agent_name`."""
    if key.isupper():  # an environment variable's part: no camelCase to split (`A2A` is `a2a`)
        return key.lower().replace("-", "_")
    out: list[str] = []
    for i, char in enumerate(key):
        if char.isupper() and i and (key[i - 1].islower() or key[i - 1].isdigit()):
            out.append("_")
        out.append("_" if char == "-" else char.lower())
    return "".join(out)


# Below these dotted prefixes keys are names the user chose (server names, env variables, HTTP headers) and
# are kept as written rather than normalized.
_VERBATIM_PARENTS = ("mcp.servers", "llm", "agents")
_VERBATIM_FIELDS = ("env", "headers")


def keeps_keys_verbatim(parent: str) -> bool:
    """True when the keys directly below the dotted key `parent` are user names, not setting names."""
    if parent in _VERBATIM_PARENTS:
        return True
    head, _, last = parent.rpartition(".")
    return last in _VERBATIM_FIELDS and head.rpartition(".")[0] in _VERBATIM_PARENTS


def dotted_to_nested(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for dotted, value in flat.items():
        node = nested
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def iter_leaves(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from iter_leaves(value, dotted + ".")
        else:
            yield dotted, value


class LayerSource(PydanticBaseSettingsSource):
    """One settings layer: nested data plus the origin of each dotted leaf key."""

    def __init__(
        self,
        settings_cls: type[BaseSettings],
        label: str,
        data: Mapping[str, Any],
        origins: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(settings_cls)
        self.label = label
        self.data = dict(data)
        self.origins = dict(origins) if origins is not None else {k: label for k, _ in iter_leaves(self.data)}

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return self.data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


class EnvironmentSource(LayerSource):
    """`MESH_SECTION__KEY` variables (nested by `__`) and the MCP Mesh names (`MCP_MESH_HTTP_PORT`, ...).

    When both name the same key, the nested `MESH_...` variable wins.
    """

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        flat: dict[str, Any] = {}
        origins: dict[str, str] = {}
        for name, dotted in MCP_MESH_ENV_NAMES.items():
            if environ.get(name, "") != "":
                flat[dotted] = environ[name]
                origins[dotted] = f"environment variable {name}"
        for name, raw in environ.items():
            if not name.startswith(ENV_PREFIX) or name in ENV_CONTROL or raw == "":
                continue
            parts = [normalize_key(p) for p in name[len(ENV_PREFIX) :].split("__")]
            if not all(parts):
                continue
            dotted = ".".join(parts)
            flat[dotted] = parse_env_value(raw)
            origins[dotted] = f"environment variable {name}"
        super().__init__(settings_cls, "environment", dotted_to_nested(flat), origins)


def parse_env_value(raw: str) -> Any:
    """JSON lists and objects are decoded (`MESH_SCAN__PACKAGES='["a","b"]'`); everything else stays text."""
    stripped = raw.strip()
    if stripped[:1] in "[{":
        try:
            return json.loads(stripped)
        except ValueError:
            return raw
    return raw


class YamlFileSource(LayerSource):
    """One YAML file, keys normalized, `${VAR}` placeholders resolved from `environ`, each leaf's origin
    given as `path:line` (and `via environment variable VAR` when a placeholder supplied it)."""

    def __init__(
        self, settings_cls: type[BaseSettings], path: Path, display: str, *, environ: Mapping[str, str]
    ) -> None:
        data, origins = load_yaml_with_lines(path, display, environ)
        super().__init__(settings_cls, display, data, origins)
        self.path = path


def _catalog_entries(dotted: str) -> bool:
    """`mcp.servers` holds catalog entries: their placeholders follow the catalog's rules, resolved when the
    catalog is read (`catalog.loading`), not here."""
    return dotted == "mcp.servers" or (
        dotted.startswith("agents.") and dotted.endswith(".mcp.servers") and dotted.count(".") == 3
    )


def _with_uses(where: str, uses: list[Use]) -> str:
    if not uses:
        return where
    return f"{where} via " + ", ".join(dict.fromkeys(use.describe() for use in uses))


# libyaml's parser when PyYAML was built with it (the wheels are): the nodes and their lines are the same, the
# parsing about fifteen times faster
_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _compose(text: str) -> yaml.Node | None:
    """The YAML document's node tree. A document that does not parse is parsed again by the pure-Python
    parser, whose error names the problem more precisely (e.g. the tab it found)."""
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        if _FAST_LOADER is yaml.SafeLoader:
            raise
    return yaml.compose(text, Loader=yaml.SafeLoader)


def load_yaml_with_lines(
    path: Path, display: str, environ: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The file's settings and the origin of each leaf. Raises ConfigError for a file that cannot be read or
    parsed, and for every placeholder that cannot be resolved (key, file and line, variable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"{display}: cannot read the file ({exc.strerror})"]) from None
    try:
        root = _compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{display}:{mark.line + 1}" if mark is not None else display
        reason = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{where}: not valid YAML ({reason})"]) from None
    if root is None:
        return {}, {}
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(
            [f"{display}: the top level must be a mapping of settings, e.g. 'server: {{port: 8080}}'"]
        )
    origins: dict[str, str] = {}
    problems: list[str] = []
    constructor = yaml.SafeLoader("")

    def walk(node: yaml.Node, prefix: str, resolve_here: bool, in_list: bool) -> tuple[Any, list[Use]]:
        """The value of `node` and the placeholders it used; keys inside lists are kept as written and
        their origins are those of the list."""
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            used: list[Use] = []
            parent = prefix[:-1]
            for key_node, value_node in node.value:
                key = constructor.construct_object(key_node, deep=True)
                if not in_list:
                    key = str(key) if keeps_keys_verbatim(parent) else normalize_key(str(key))
                dotted = f"{prefix}{key}"
                resolve_below = resolve_here and not _catalog_entries(dotted)
                result[key], uses = walk(value_node, dotted + ".", resolve_below, in_list)
                if not in_list and (not isinstance(value_node, yaml.MappingNode) or not value_node.value):
                    origins[dotted] = _with_uses(f"{display}:{value_node.start_mark.line + 1}", uses)
                used += uses
            return result, used
        if isinstance(node, yaml.SequenceNode):
            items: list[Any] = []
            used = []
            for index, item in enumerate(node.value):
                value, uses = walk(item, f"{prefix}{index}.", resolve_here, True)
                items.append(value)
                used += uses
            return items, used
        value = constructor.construct_object(node, deep=True)
        if not resolve_here or not isinstance(value, str) or "${" not in value:
            return value, []
        try:
            return resolve(value, environ, SETTINGS)
        except PlaceholderError as exc:
            where = f"{display}:{node.start_mark.line + 1}"
            problems.extend(f"{prefix[:-1]} (from {where}): {problem}" for problem in exc.problems)
            return value, []

    data, _uses = walk(root, "", True, False)
    if problems:
        raise ConfigError(problems)
    return data, origins
