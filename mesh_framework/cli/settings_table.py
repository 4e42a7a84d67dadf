"""The table of resolved settings that `mesh config` prints and `--explain` starts from."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Row", "settings_rows"]


class Row(NamedTuple):
    """One resolved setting: dotted key, value as printed (masked), origin, and the value as JSON."""

    key: str
    shown: str
    origin: str
    value: Any


def settings_rows(app: Any) -> list[Row]:
    """The rows `mesh config` prints: framework settings, then each `@config_properties` section (with
    its defaults) in place of its raw data."""
    from ..config.loader import section_rows
    from ..config.masking import masked
    from ..config.settings import MeshSettings
    from ..config.sources import iter_leaves

    prefixes = [spec.prefix + "." for spec in app.scan.config_properties]
    values = dict(iter_leaves(app.loaded.settings.model_dump(mode="json")))
    rows = [
        Row(key, shown, origin, masked(key, values.get(key), MeshSettings))
        for key, shown, origin in app.loaded.table()
        if not any(key.startswith(p) for p in prefixes)
    ]
    for spec in app.scan.config_properties:
        section = app.section(spec.model)
        typed = dict(iter_leaves(section.model_dump(mode="json"), spec.prefix + "."))
        for key, shown, origin in section_rows(app.loaded, spec.prefix, section):
            rows.append(Row(key, shown, origin, masked(key, typed.get(key), spec.model, spec.prefix + ".")))
    return rows
