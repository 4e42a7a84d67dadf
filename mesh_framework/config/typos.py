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


def _field_names(model: type[BaseModel]) -> list[str]:
    names: list[str] = []
    for name, field in model.model_fields.items():
        names.append(name)
        if field.alias:
            names.append(normalize_key(field.alias))
    return names


def unknown_settings(loaded: LoadedSettings, sections: Mapping[str, type[BaseModel]]) -> list[str]:
    """One message per setting nothing reads: where it was set, and the closest known name."""
    extra = loaded.settings.model_extra or {}
    top_sections = sorted({*MeshSettings.model_fields, *(prefix.split(".")[0] for prefix in sections)})
    problems: list[str] = []
    for key in sorted(extra):
        if key not in top_sections:
            problems.append(
                f"{key} (from {loaded.origin_of(key)}): no settings section of that name is read"
                f"{_suggest(key, top_sections)}"
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
