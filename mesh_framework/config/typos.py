"""Settings that match nothing: a misspelt top-level section, or a key a `@config_properties` model does not
have. Framework sections already refuse unknown keys; these two would otherwise pass silently."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from pydantic import BaseModel

from .loader import LoadedSettings
from .settings import MeshSettings
from .sources import normalize_key

__all__ = ["unknown_settings"]


def _suggest(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.7)
    return f"; did you mean '{close[0]}'?" if close else ""


def _section_origin(loaded: LoadedSettings, section: str) -> str:
    """Where a section was set: its own origin, else that of its first value."""
    origin = loaded.origin_of(section)
    if origin != "default":
        return origin
    return next((o for key, o in loaded.origins.items() if key.startswith(section + ".")), origin)


def _field_names(model: type[BaseModel]) -> list[str]:
    names: list[str] = []
    for name, field in model.model_fields.items():
        names.append(name)
        if field.alias:
            names.append(normalize_key(field.alias))
    return names


def unknown_settings(
    loaded: LoadedSettings, sections: Mapping[str, type[BaseModel]], *, strict: bool = False
) -> list[str]:
    """One message per setting nothing reads: where it was set, and the closest known name.

    A top-level section this agent does not know is reported when its name is close to a known one (a
    misspelling), or under `strict`: otherwise it is taken for a section another agent of the project
    reads (several agents share `application.yaml`)."""
    extra = loaded.settings.model_extra or {}
    top_sections = sorted({*MeshSettings.model_fields, *(prefix.split(".")[0] for prefix in sections)})
    problems: list[str] = []
    for key in sorted(extra):
        if key in top_sections:
            continue
        hint = _suggest(key, top_sections)
        if hint or strict:
            problems.append(
                f"{key} (from {_section_origin(loaded, key)}): no settings section of that name is read{hint}"
            )
    for prefix, model in sorted(sections.items()):
        raw = loaded.settings.extra_section(prefix)
        if not isinstance(raw, dict) or model.model_config.get("extra") == "allow":
            continue
        known = _field_names(model)
        for key in sorted(raw):
            if key not in known:
                where = f"{prefix}.{key}"
                problems.append(
                    f"{where} (from {loaded.origin_of(where)}): {model.__name__} has no setting '{key}'"
                    f"{_suggest(key, known)}"
                )
    return problems
