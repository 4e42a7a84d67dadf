"""Settings nothing reads, under one rule: a key that a section this agent reads does not have (a framework
section or a `@config_properties` model) is an error, with the closest known name; a top-level section
nothing reads is a warning when its name is close to a known one, an error under `config.strict`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import NamedTuple

from pydantic import BaseModel

from .fields import did_you_mean, field_names, unknown_key
from .loader import LoadedSettings
from .settings import MeshSettings

__all__ = ["Unread", "unknown_settings"]


class Unread(NamedTuple):
    """What nothing reads: `errors` stop start-up, `warnings` are logged."""

    errors: list[str]
    warnings: list[str]


def _section_origin(loaded: LoadedSettings, section: str) -> str:
    """Where a section was set: its own origin, else that of its first value."""
    origin = loaded.origin_of(section)
    if origin != "default":
        return origin
    return next((o for key, o in loaded.origins.items() if key.startswith(section + ".")), origin)


def unknown_settings(
    loaded: LoadedSettings,
    sections: Mapping[str, type[BaseModel]],
    *,
    strict: bool = False,
    read_by_conditions: Collection[str] = (),
) -> Unread:
    """Every setting nothing reads, each with where it was set and the closest known name.

    A top-level section this agent does not know is reported when its name is close to a known one (a
    misspelling), or under `strict`: otherwise it is taken for a section another agent of the project
    reads (several agents share `application.yaml`). Keys a bean's `@conditional_on_property` reads
    (`read_by_conditions`) are read, and so is their top-level section."""
    read = set(read_by_conditions)
    errors = [
        problem
        for problem in loaded.unread  # keys of framework sections, found by the loader
        if not any(problem.startswith(f"{key} ") or problem.startswith(f"{key}:") for key in read)
    ]
    for prefix, model in sorted(sections.items()):
        raw = loaded.settings.extra_section(prefix)
        # models that refuse unknown keys report them when validated; those that allow them read them all
        if not isinstance(raw, dict) or model.model_config.get("extra") in ("allow", "forbid"):
            continue
        known = field_names(model)
        for key in sorted(raw):
            if key not in known and f"{prefix}.{key}" not in read:
                where = f"{prefix}.{key}"
                errors.append(unknown_key(where, loaded.origin_of(where), model.__name__, known))
    extra = loaded.settings.model_extra or {}
    top_sections = sorted(
        {
            *MeshSettings.model_fields,
            *(prefix.split(".")[0] for prefix in sections),
            *(key.split(".")[0] for key in read),
        }
    )
    warnings: list[str] = []
    for key in sorted(extra):
        if key in top_sections:
            continue
        hint = did_you_mean(key, top_sections)
        problem = (
            f"{key} (from {_section_origin(loaded, key)}): no settings section of that name is read{hint}"
        )
        if strict:
            errors.append(f"{problem} (config.strict is on)")
        elif hint:
            warnings.append(problem)
    return Unread(errors, warnings)
