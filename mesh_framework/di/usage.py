"""Which optional features an agent uses, decided from its settings and scanned tools before anything is
built: the container builds (and imports) a feature's beans only when it is used."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from ..config.loader import LoadedSettings
from .configuration import BEAN_ATTR
from .scan import ScanResult

__all__ = ["asks_for", "serves_features"]


def asks_for(scan: ScanResult, names: Collection[str]) -> str | None:
    """Where the app asks for one of the classes `names` (`module.QualName`) by type: a scanned component's
    or configuration's constructor, a `@bean` method or a tool; None when nothing does. Matched by name,
    so a feature's condition imports none of the feature's modules to answer."""
    for function, where in _injected_functions(scan):
        try:
            hints = typing.get_type_hints(function, include_extras=True)
        except Exception:  # the wiring reports an annotation that cannot be resolved
            continue
        for parameter, hint in hints.items():
            if parameter == "return":
                continue
            for asked in _classes(hint):
                name = f"{asked.__module__}.{asked.__qualname__}"
                if name in names:
                    return f"{where} asks for {asked.__qualname__} (parameter '{parameter}')"
    return None


def _injected_functions(scan: ScanResult) -> Iterator[tuple[Callable[..., Any], str]]:
    for spec in scan.components:
        init = getattr(spec.cls, "__init__", None)
        if init is not None and init is not object.__init__:
            yield init, f"component {spec.cls.__qualname__}"
    for cls in scan.configurations:
        init = getattr(cls, "__init__", None)
        if init is not None and init is not object.__init__:
            yield init, f"configuration {cls.__qualname__}"
        for attribute, value in vars(cls).items():
            if inspect.isfunction(value) and hasattr(value, BEAN_ATTR):
                yield value, f"@bean {cls.__qualname__}.{attribute}()"
    for tool in scan.tools:
        yield tool.spec.function, f"tool {tool.key}"


def _classes(hint: Any) -> Iterator[type]:
    """The classes a parameter annotation names: itself, or the members of `Annotated`, `X | None`."""
    origin = get_origin(hint)
    if origin is Annotated:
        yield from _classes(get_args(hint)[0])
    elif origin is Union or type(hint).__name__ == "UnionType":
        for member in get_args(hint):
            yield from _classes(member)
    elif isinstance(hint, type):
        yield hint


def serves_features(loaded: LoadedSettings, scan: ScanResult, bases: Iterable[Path | None]) -> bool:
    """The app may serve prompts or resources: a `@mesh_prompt`/`@mesh_resource`/`@completer`, static
    files, prompt folders set explicitly, or a default prompt folder that exists in the config folder or
    the app package (`bases`). Otherwise their planning and catalog modules are not loaded."""
    settings = loaded.settings
    if scan.features or settings.resources.files or loaded.origin_of("prompts.folders") != "default":
        return True
    folders = [base for base in bases if base is not None]
    for listed in settings.prompts.folders:
        path = Path(listed)
        candidates = [path] if path.is_absolute() else [base / path for base in folders]
        if any(candidate.is_dir() for candidate in candidates):
            return True
    return False
