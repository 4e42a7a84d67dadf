"""`mesh config APP --explain KEY`: the value every settings layer gives one key, and which one won.

The layers, highest first, as `config.loader` stacks them: command line, environment (`MESH_...` names,
then the MCP Mesh names), each active profile's file (later profiles first), `application.yaml`, each
file's `agents.<name>` section just above that file, code (`@mesh_agent` parameters), defaults. Files are
read again here (the loader keeps only the merged result); the winner is the layer whose origin the loader
recorded, so the explanation always agrees with `mesh config`.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..config.masking import MASK
from ..config.sources import CLI_OPTIONS, cli_origin, parse_env_value
from .common import EXIT_USAGE, CliError
from .output import echo, is_terminal, plain_table, rich_table
from .settings_table import settings_rows

__all__ = ["explain", "show_explanation"]

_UNSET: Any = object()

# Options of `mesh run`/`mesh config` that set a key of the command-line layer.
# `@mesh_agent` parameters (the code layer), by the key they set.
PARAMETERS = {
    "agent.name": "name",
    "agent.version": "version",
    "agent.description": "description",
    "agent.host": "host",
    "server.port": "port",
    "agent.namespace": "namespace",
    "registry.url": "registry_url",
    "registry.heartbeat_interval": "heartbeat_interval",
}


def explain(
    app: Any, requested: str, *, cli: Mapping[str, Any], profiles_given: Sequence[str] | None
) -> dict[str, Any]:
    """Every layer's value for `requested` (a dotted key, relaxed spelling allowed), as JSON-ready data.

    CliError (exit 2) for a key `mesh config` does not show, naming the closest ones.
    """
    rows = {row.key: row for row in settings_rows(app)}
    key = _known_key(requested, rows)
    resolved = rows[key]
    hide = _masking(app, key, whole=resolved.value == MASK)
    layers = [
        *_command_line(key, cli, profiles_given),
        *_environment(key, os.environ),
        *_files(app, key),
        *_code(app, key),
        _default(app, key),
    ]
    winner = next((layer for layer in layers if layer["origin"] == resolved.origin), None)
    if winner is None:
        winner = _layer("computed", resolved.origin, resolved.origin, resolved.value)
        layers.insert(len(layers) - 1, winner)  # derived values sit just above the defaults
    shown = []
    for layer in layers:
        is_set = layer["value"] is not _UNSET
        value = hide(layer["value"]) if is_set else None
        shown.append(
            {
                "layer": layer["layer"],
                "source": layer["source"],
                "set": is_set,
                "value": value,
                "wins": layer is winner,
            }
        )
    return {"key": key, "value": resolved.value, "origin": resolved.origin, "layers": shown}


def show_explanation(explanation: Mapping[str, Any]) -> None:
    echo(f"{explanation['key']} = {_text(explanation['value'])}  (from {explanation['origin']})")
    echo()
    header = ["LAYER", "SOURCE", "VALUE", ""]
    rows = [
        [
            layer["layer"],
            layer["source"],
            _text(layer["value"]) if layer["set"] else "-",
            "wins" if layer["wins"] else "overridden" if layer["set"] else "",
        ]
        for layer in explanation["layers"]
    ]
    if not is_terminal():
        plain_table([header, *rows], caps=[40, 60, 40])
        return
    from rich.text import Text

    styled = [
        [
            Text(cell, style="bold green" if row[3] == "wins" else "dim" if row[3] != "overridden" else "")
            for cell in row
        ]
        for row in rows
    ]
    rich_table(header, styled)


def _known_key(requested: str, rows: Mapping[str, Any]) -> str:
    from ..config.sources import normalize_key

    candidates = [requested.strip(), ".".join(normalize_key(p) for p in requested.strip().split("."))]
    for candidate in candidates:
        if candidate in rows:
            return candidate
    for candidate in candidates:
        below = [k for k in rows if k.startswith(candidate + ".")]
        if below:
            listed = ", ".join(below[:8]) + (", ..." if len(below) > 8 else "")
            raise CliError(f"'{requested}' is a section; explain one of its keys: {listed}", EXIT_USAGE)
    close = difflib.get_close_matches(candidates[1], list(rows), n=5, cutoff=0.6)
    leaf = candidates[1].rpartition(".")[2]
    leaves = {k.rpartition(".")[2]: k for k in rows}
    for name in difflib.get_close_matches(leaf, list(leaves), n=3, cutoff=0.8):
        if leaves[name] not in close:
            close.append(leaves[name])
    hint = f"; did you mean {', '.join(close[:5])}?" if close else "; `mesh config APP` lists every key"
    raise CliError(f"unknown setting '{requested}'{hint}", EXIT_USAGE)


def _layer(layer: str, source: str, origin: str, value: Any = _UNSET) -> dict[str, Any]:
    return {"layer": layer, "source": source, "origin": origin, "value": value}


def _command_line(key: str, cli: Mapping[str, Any], given: Sequence[str] | None) -> list[dict[str, Any]]:
    option = CLI_OPTIONS.get(key)
    if option is None:
        return [_layer("command line", "(no option for this key)", "")]
    if key == "profiles":
        return [_layer("command line", option, "command line (--profile)", list(given) if given else _UNSET)]
    value = cli.get(key)
    origin = cli_origin(key)
    return [_layer("command line", option, origin, _UNSET if value is None else value)]


def _environment(key: str, environ: Mapping[str, str]) -> list[dict[str, Any]]:
    from ..config.sources import ENV_CONTROL, ENV_PREFIX, ENV_PROFILES, MCP_MESH_ENV_NAMES, normalize_key

    if key == "profiles":
        raw = environ.get(ENV_PROFILES, "")
        origin = f"environment variable {ENV_PROFILES}"
        return [_layer("environment", ENV_PROFILES, origin, raw if raw else _UNSET)]
    nested: list[dict[str, Any]] = []
    for name, raw in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in ENV_CONTROL or raw == "":
            continue
        dotted = ".".join(normalize_key(p) for p in name[len(ENV_PREFIX) :].split("__"))
        value = _env_value(key, dotted, raw)
        if value is not _UNSET:
            nested.append(_layer("environment", name, f"environment variable {name}", value))
    if not nested:
        name = ENV_PREFIX + "__".join(part.upper() for part in key.split("."))
        nested.append(_layer("environment", name, f"environment variable {name}"))
    for name, dotted in MCP_MESH_ENV_NAMES.items():  # beside the nested names, which win over them
        if dotted == key or key.startswith(dotted + "."):
            raw = environ.get(name, "")
            nested.append(_layer("environment", name, f"environment variable {name}", raw or _UNSET))
    return nested


def _env_value(key: str, dotted: str, raw: str) -> Any:
    """The value variable `dotted` (holding `raw`) gives `key`: itself, or a part of its JSON object."""
    if dotted == key:
        return parse_env_value(raw)
    if not key.startswith(dotted + ".") or raw.strip()[:1] != "{":
        return _UNSET
    try:
        data = json.loads(raw)
    except ValueError:
        return _UNSET
    return _walk(data, key[len(dotted) + 1 :])


def _files(app: Any, key: str) -> list[dict[str, Any]]:
    """Each settings file, highest first, and its `agents.<name>` section just above it."""
    from ..config.settings import MeshSettings
    from ..config.sources import YamlFileSource
    from ..errors import display_path

    files: list[Path] = list(app.loaded.files)
    if not files:
        return [_layer("application.yaml", "(no config folder found)", "")]
    agent = _agent_name(app)
    layers = []
    for index, path in reversed(list(enumerate(files))):
        source = YamlFileSource(MeshSettings, path, display_path(path), environ=os.environ)
        kind = "application.yaml" if index == 0 else f"profile {path.stem.partition('-')[2]}"
        if key == "profiles" and index > 0:
            continue  # only application.yaml may name the active profiles
        sections = source.data.get("agents")
        own = sections.get(agent) if isinstance(sections, dict) and agent else None
        if agent:
            prefix = f"agents.{agent}."
            value = _walk(own, key) if isinstance(own, dict) else _UNSET
            origin = _origin(source.origins, prefix + key, stop=prefix)
            where = origin if value is not _UNSET else source.label
            layers.append(_layer(f"{kind}, agents.{agent}", where, origin, value))
        data = {k: v for k, v in source.data.items() if k != "agents"}
        value = _walk(data, key)
        origin = _origin(source.origins, key)
        layers.append(_layer(kind, origin if value is not _UNSET else source.label, origin, value))
    return layers


def _code(app: Any, key: str) -> list[dict[str, Any]]:
    parameter = PARAMETERS.get(key)
    if parameter is None:
        return [_layer("code", "(no @mesh_agent parameter for this key)", "")]
    value = app.agent.params.get(key, _UNSET)
    return [_layer("code", f"@mesh_agent({parameter}=...)", "code (@mesh_agent parameter)", value)]


def _default(app: Any, key: str) -> dict[str, Any]:
    from ..config.settings import MeshSettings

    for spec in app.scan.config_properties:
        if key.startswith(spec.prefix + "."):
            try:
                data = spec.model.model_validate({}).model_dump(mode="json")
            except ValidationError:
                return _layer("default", f"{spec.model.__name__} (required: no default)", "default")
            return _layer("default", spec.model.__name__, "default", _walk(data, key[len(spec.prefix) + 1 :]))
    data = MeshSettings().model_dump(mode="json")  # no layers active: the defaults alone
    return _layer("default", "MeshSettings", "default", _walk(data, key))


def _agent_name(app: Any) -> str | None:
    """The name the loader picks `agents.<name>` sections by: command line, environment, code."""
    cli_name = app.loaded.origin_of("agent.name").startswith("command line")
    environ = os.environ
    return (
        (app.settings.agent.name if cli_name else None)
        or environ.get("MESH_AGENT__NAME")
        or environ.get("MCP_MESH_AGENT_NAME")
        or app.agent.params.get("agent.name")
    )


def _walk(data: Any, dotted: str) -> Any:
    """The value at `dotted` in nested mappings (relaxed spelling of each part), or _UNSET."""
    from ..config.sources import normalize_key

    node = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return _UNSET
        if part in node:
            node = node[part]
            continue
        match = [k for k in node if normalize_key(str(k)) == normalize_key(part)]
        if not match:
            return _UNSET
        node = node[match[0]]
    return node


def _origin(origins: Mapping[str, str], key: str, stop: str = "") -> str:
    node = key
    while node and node + "." != stop:
        if node in origins:
            return origins[node]
        node = node.rpartition(".")[0]
    return ""


def _masking(app: Any, key: str, *, whole: bool) -> Callable[[Any], Any]:
    """How a layer's value of `key` is shown: `******` for a secret key (or when the resolved value was
    masked whole), else with the secrets inside it masked (the token of each `auth.tokens` entry)."""
    from ..config.masking import is_secret, masked
    from ..config.settings import MeshSettings

    model: Any = MeshSettings
    prefix = ""
    for spec in app.scan.config_properties:
        if key.startswith(spec.prefix + "."):
            model, prefix = spec.model, spec.prefix + "."
    if whole or is_secret(key, model, prefix):
        return lambda value: MASK if value is not None else None
    return lambda value: masked(key, value, model, prefix)


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (str, int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, default=str)
