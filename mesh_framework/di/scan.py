"""Component scan: import the application's packages and collect what the decorators recorded.

The scan only reads metadata; it builds nothing. Its result is pure data for the container to assemble.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import field
from fnmatch import fnmatchcase
from types import ModuleType
from typing import Any

from .._frozen import frozen, record
from ..argument_completion import COMPLETER_ATTR
from ..decorators import AGENT_ATTR, COMPONENT_ATTR, CONFIG_ATTR, EXTRA_TOOLS_ATTR, TOOL_ATTR, own_metadata
from ..errors import WiringError
from ..specs import AgentSpec, ComponentSpec, ConfigPropertiesSpec, ToolSpec
from .configuration import CONFIGURATION_ATTR, ConfigurationSpec

__all__ = [
    "FEATURE_ATTRS",
    "ScanResult",
    "ScannedFeature",
    "ScannedTool",
    "class_members",
    "find_agent",
    "scan_packages",
]

# Prompts, resources and completers: found like tools (functions and component methods).
FEATURE_ATTRS = ("__mesh_prompt__", "__mesh_resource__", COMPLETER_ATTR)


@frozen
class ScannedTool:
    """A tool found by the scan: a module-level function, or a method of a component class (`owner`)."""

    key: str  # module.qualname
    spec: ToolSpec
    owner: type | None = None
    attribute: str = ""


@frozen
class ScannedFeature:
    """A prompt, resource or completer found by the scan (`spec` is what its decorator recorded)."""

    key: str
    spec: Any
    owner: type | None = None
    attribute: str = ""


@record
class ScanResult:
    modules: list[str] = field(default_factory=list)
    components: list[ComponentSpec] = field(default_factory=list)
    tools: list[ScannedTool] = field(default_factory=list)
    config_properties: list[ConfigPropertiesSpec] = field(default_factory=list)
    features: list[ScannedFeature] = field(default_factory=list)
    configurations: list[type] = field(default_factory=list)  # `@configuration` classes


def find_agent(module_name: str) -> AgentSpec:
    """Import `module_name` and return the one `@mesh_agent` it declares."""
    module = _import(module_name)
    agents = [
        spec
        for spec in (own_metadata(v, AGENT_ATTR) for v in vars(module).values())
        if isinstance(spec, AgentSpec) and spec.module == module.__name__
    ]
    if not agents:
        raise WiringError(
            [
                f"{module_name}: no @mesh_agent class in this module; decorate the application "
                "class with @mesh_agent(name=...)"
            ]
        )
    if len(agents) > 1:
        names = ", ".join(getattr(a.target, "__qualname__", str(a.target)) for a in agents)
        raise WiringError([f"{module_name}: more than one @mesh_agent ({names}); keep one agent per module"])
    return agents[0]


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise WiringError(
                [f"cannot import '{name}': no such module (is its folder on sys.path?)"]
            ) from None
        raise


def _iter_module_names(packages: Iterable[str], exclude: Sequence[str]) -> Iterable[str]:
    seen: set[str] = set()
    for package_name in packages:
        package = _import(package_name)
        names = [package_name]
        if hasattr(package, "__path__"):
            names += [
                info.name
                for info in pkgutil.walk_packages(package.__path__, package_name + ".")
                if not any(fnmatchcase(info.name, p) for p in exclude)
            ]
        for name in names:
            if name not in seen and not any(fnmatchcase(name, p) for p in exclude):
                seen.add(name)
                yield name


def scan_packages(packages: Sequence[str], exclude: Sequence[str] = ()) -> ScanResult:
    """Import every module under `packages` (skipping `exclude` patterns) and collect decorated objects.

    An object is collected in the module that defines it, so a re-export is not counted twice.
    """
    result = ScanResult()
    problems: list[str] = []
    for name in _iter_module_names(packages, exclude):
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except Exception as exc:
            problems.append(
                f"{name}: import failed during the scan ({type(exc).__name__}: {exc}); fix the "
                "module or add it to scan.exclude"
            )
            continue
        result.modules.append(name)
        _collect(module, result)
    if problems:
        raise WiringError(problems)
    return result


def _collect(module: ModuleType, result: ScanResult) -> None:
    for value in list(vars(module).values()):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if isinstance(value, type):
            component = own_metadata(value, COMPONENT_ATTR)
            if isinstance(component, ComponentSpec):
                result.components.append(component)
                result.tools.extend(_component_tools(value))
                result.features.extend(_component_features(value))
            if isinstance(own_metadata(value, CONFIGURATION_ATTR), ConfigurationSpec):
                result.configurations.append(value)
            config = own_metadata(value, CONFIG_ATTR)
            if isinstance(config, ConfigPropertiesSpec):
                result.config_properties.append(config)
        elif inspect.isfunction(value):
            spec = getattr(value, TOOL_ATTR, None)
            if isinstance(spec, ToolSpec):
                result.tools.append(ScannedTool(key=f"{module.__name__}.{value.__qualname__}", spec=spec))
            for extra in getattr(value, EXTRA_TOOLS_ATTR, ()):
                key = f"{module.__name__}.{extra.function.__qualname__}"
                result.tools.append(ScannedTool(key=key, spec=extra))
            for attr in FEATURE_ATTRS:
                if (found := getattr(value, attr, None)) is not None:
                    result.features.append(ScannedFeature(f"{module.__name__}.{value.__qualname__}", found))


def class_members(cls: type) -> list[tuple[str, Any]]:
    """The attributes of `cls` and its bases (but `object`), by name, as `inspect.getmembers(cls)` lists
    them, but as written in the class bodies: read statically, a `staticmethod` or `classmethod` is itself
    (its function is `__func__`) and no descriptor runs (reading a deferred pydantic model's validator would
    build its schema). Where decorators' marks are looked for on a class's methods."""
    found: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        if base is not object:
            found.update(vars(base))
    return sorted(found.items(), key=lambda item: item[0])


def _component_tools(cls: type) -> list[ScannedTool]:
    tools = []
    for attribute, member in class_members(cls):
        function: Any = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        spec = getattr(function, TOOL_ATTR, None)
        if isinstance(spec, ToolSpec):
            tools.append(
                ScannedTool(
                    key=f"{cls.__module__}.{cls.__qualname__}.{attribute}",
                    spec=spec,
                    owner=cls,
                    attribute=attribute,
                )
            )
    return tools


def _component_features(cls: type) -> list[ScannedFeature]:
    found = []
    for attribute, member in class_members(cls):
        function: Any = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        for attr in FEATURE_ATTRS:
            if (spec := getattr(function, attr, None)) is not None:
                key = f"{cls.__module__}.{cls.__qualname__}.{attribute}"
                found.append(ScannedFeature(key, spec, owner=cls, attribute=attribute))
    return found
