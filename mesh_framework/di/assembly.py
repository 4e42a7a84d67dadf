"""Assembly: scanned specs in, a `MeshContainer` with every provider out; every problem found is reported.

Nothing is instantiated here. Each step adds providers and returns the problems it found, so that one
`WiringError` can list them all.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dependency_injector import providers

from ..config.loader import LoadedSettings, validate_section
from ..config.typos import unknown_settings
from ..errors import ConfigError, WiringError
from ..extension import (
    AgentHealth,
    AgentInitializer,
    CallObserver,
    EmbeddedRegistry,
    EndpointExtension,
    GracefulStop,
    HeartbeatFields,
    HttpSurface,
    LoadPlan,
    MeshMember,
    RouteSlots,
    ScannedApp,
    ServingLifecycle,
    ToolSource,
)
from ..observation import Tracer
from ..protocol.features import FeatureHandlers
from ..specs import AgentSpec
from ..tools.builder import ToolPlan, plan_tool
from ..tools.signature import SignatureError
from .container import REPLACEABLE, MeshContainer
from .definitions import BeanDefinition, ConfigurationDefinition, Selection, select_beans
from .lifecycle import BeanLifecycle
from .scan import ScannedTool, ScanResult
from .wiring import Bean, BeanCatalog, Requirement, describe_location, is_assignable

__all__ = ["add_collections", "assemble_container", "bean_name_for"]

logger = logging.getLogger("mesh_framework")


def assemble_container(
    loaded: LoadedSettings,
    scan: ScanResult,
    catalog: BeanCatalog,
    *,
    report_unread: bool = False,
    selection: Selection | None = None,
    folders: tuple[Path | None, Path | None] = (None, None),
    environ: Mapping[str, str] | None = None,
    agent: AgentSpec | None = None,
) -> Any:
    """The container for one agent. Raises WiringError listing every problem found; settings nothing reads
    are among them unless `report_unread`, which keeps them in `loaded.unread` (for `mesh config`).
    `selection`: the beans defined (di/definitions.py); default the scanned components and configuration
    classes, without auto-configurations. `folders`: the app's config folder and package folder, and
    `environ` the environment its settings were read from, and `agent` its `@mesh_agent`, for the features'
    plans (extension.ScannedApp)."""
    if selection is None:
        selection = select_beans(scan.components, scan.configurations, (), loaded.settings)
    container = MeshContainer(
        settings=providers.Object(loaded.settings),
        loaded_settings=providers.Object(loaded),
    )
    problems = [
        *_add_config_sections(container, loaded, scan, catalog),
        *_add_beans(container, catalog, selection),
        *_replace_framework_beans(container, catalog),
    ]
    plans, tool_problems = _plan_tools(loaded, scan, catalog)
    problems += tool_problems
    scanned = ScannedApp(loaded, scan, catalog, plans, *folders, environ=environ, agent=agent)
    container.scanned_app.override(providers.Object(scanned))
    _add_extension_points(container, catalog)
    add_collections(container, catalog)
    unread = unknown_settings(
        loaded,
        {spec.prefix: spec.model for spec in scan.config_properties},
        strict=loaded.settings.config.strict,
        read_by_conditions=selection.property_keys,
    )
    for warning in unread.warnings:
        logger.warning("setting ignored: %s", warning)
    if report_unread:
        loaded.unread = unread.errors
    else:
        problems += unread.errors
    plan_problems, config_problems = _load_plans(container, catalog, wired=not problems)
    problems += plan_problems
    add_collections(container, catalog)  # `list[T]` beans the features' plans ask for (routes' parameters)
    if problems:
        raise WiringError(problems + config_problems)
    if config_problems:  # only files and settings a plan read: a configuration problem
        raise ConfigError(config_problems)
    container.tool_plans.override(providers.Object(plans))
    return container


# The core's extension points (extension.py): the container's slot for the beans of each type.
EXTENSION_POINTS = {
    "tool_sources": ToolSource,
    "http_surfaces": HttpSurface,
    "initializers": AgentInitializer,
    "serving_lifecycles": ServingLifecycle,
    "graceful_stops": GracefulStop,
    "mesh_members": MeshMember,
    "heartbeat_fields": HeartbeatFields,
    "feature_handlers": FeatureHandlers,  # the endpoint's prompts and resources
    "endpoint_extensions": EndpointExtension,  # MCP extensions served on the endpoint
    "route_slots": RouteSlots,
    "agent_health": AgentHealth,
    "call_observers": CallObserver,
    "tracers": Tracer,
    "embedded_registries": EmbeddedRegistry,
}


def _add_extension_points(container: Any, catalog: BeanCatalog) -> None:
    """Each extension point's slot takes the list of its beans, in order."""
    for slot, point in EXTENSION_POINTS.items():
        collection = catalog.collection(point)
        add_collections(container, catalog)
        getattr(container, slot).override(getattr(container, collection.name))


def _load_plans(container: Any, catalog: BeanCatalog, *, wired: bool) -> tuple[list[str], list[str]]:
    """Make the features' plans (extension.LoadPlan beans) now, while loading, and collect their problems:
    (wiring problems, configuration problems), reported with the app's other problems. A plan that fails to
    be made is a problem too, unless the wiring has problems already (`wired` false: the plan may need a
    bean that is missing). A plan whose `config_problems` is true found problems in files or settings only."""
    problems: list[str] = []
    config_problems: list[str] = []
    for bean in catalog.collection(LoadPlan).elements:
        try:
            plan = getattr(container, bean.name)()
        except ConfigError as exc:
            config_problems.extend(exc.problems)
            continue
        except WiringError as exc:
            problems.extend(exc.problems)
            continue
        except Exception as exc:
            if wired:
                problems.append(f"bean '{bean.name}' failed to plan: {type(exc).__name__}: {exc}")
            continue
        (config_problems if plan.config_problems else problems).extend(plan.problems)
    return problems, config_problems


def bean_name_for(catalog: BeanCatalog, annotation: Any) -> str:
    """The provider name of the bean injected for `annotation`; WiringError if none fits."""
    resolved = catalog.resolve(annotation)
    if isinstance(resolved, Bean):
        return resolved.name
    raise WiringError([resolved])


def _add_config_sections(
    container: Any, loaded: LoadedSettings, scan: ScanResult, catalog: BeanCatalog
) -> list[str]:
    """Typed settings sections, validated now so that a bad value stops start-up with its origin."""
    problems: list[str] = []
    for spec in scan.config_properties:
        try:
            section = validate_section(loaded, spec.prefix, spec.model)
        except ConfigError as exc:
            problems.extend(exc.problems)
            # A stand-in, so the components taking the section still wire up and the problem is reported
            # with the others; the WiringError that follows means nothing is ever built from it.
            container.set_provider(catalog.config[spec.model].name, providers.Object(None))
            continue
        container.set_provider(catalog.config[spec.model].name, providers.Object(section))
    return problems


def _add_beans(container: Any, catalog: BeanCatalog, selection: Selection) -> list[str]:
    """One provider per bean (components and `@bean` methods, scoped), its parameters wired by type; the
    configuration classes of the beans; scope mismatches and cycles among the problems."""
    problems: list[str] = list(selection.problems)
    reserved = set(MeshContainer.providers)
    requirements: dict[str, list[Requirement]] = {}
    definitions = selection.beans
    configurations = {d.configuration.name: d.configuration for d in definitions if d.configuration}
    for config in configurations.values():
        found_requirements, found = catalog.requirements(config.cls)
        problems.extend(found)
        requirements[config.name] = found_requirements
        container.set_provider(config.name, providers.ThreadSafeSingleton(config.cls))
    lifecycle = BeanLifecycle(container, definitions, requirements)
    for definition in definitions:
        if definition.name in reserved:
            problems.append(
                f"{definition.location}: bean name '{definition.name}' is taken by a framework bean; pass "
                f"{'@bean' if definition.is_method else '@component'}(name=...)"
            )
            continue
        if definition.configuration is not None:
            found_requirements, found = catalog.parameters(
                definition.factory,
                definition.configuration.cls.__qualname__,
                label=definition.factory.__name__,
            )
        else:
            found_requirements, found = catalog.requirements(definition.type)
        problems.extend(found)
        requirements[definition.name] = found_requirements
        if definition.lazy and (definition.is_async or definition.scope != "singleton"):
            problems.append(
                f"{definition.location}: bean '{definition.name}' is lazy but "
                f"{'async' if definition.is_async else definition.scope + '-scoped'}; a lazy bean is a "
                "sync singleton made on first use"
            )
        if definition.is_async and definition.scope == "prototype":
            problems.append(
                f"{definition.location}: bean '{definition.name}' is async and prototype-scoped; a prototype "
                "is made where it is injected, which cannot await: make it a singleton or call-scoped"
            )
        container.set_provider(definition.name, lifecycle.provider(definition))
    names = [d.name for d in definitions] + list(configurations)
    for duplicate in sorted({n for n in names if names.count(n) > 1}):
        listed = ", ".join(
            [f"{d.factory.__module__}.{d.display}" for d in definitions if d.name == duplicate]
            + [
                f"{c.cls.__module__}.{c.cls.__qualname__}"
                for c in configurations.values()
                if c.name == duplicate
            ]
        )
        problems.append(
            f"two beans are named '{duplicate}' ({listed}); pass @component(name=...) or @bean(name=...)"
        )
    problems.extend(_scope_problems(definitions, configurations, requirements))
    problems.extend(_cycles(definitions, requirements))
    add_collections(container, catalog)
    for name, found_requirements in requirements.items():
        provider = getattr(container, name)
        if isinstance(provider, providers.Callable):  # async or call-scoped: the lifecycle passes them
            continue
        provider.add_kwargs(
            **{r.parameter: getattr(container, r.bean.name) for r in found_requirements if r.bean}
        )
    container.bean_lifecycle.override(providers.Object(lifecycle))
    return problems


def add_collections(container: Any, catalog: BeanCatalog) -> None:
    """A provider for each `list[T]` asked for so far: every bean assignable to T, in order."""
    for name, collection in catalog.collections.items():
        if name not in container.providers:
            elements = (getattr(container, b.name) for b in collection.elements)
            container.set_provider(name, providers.Callable(_as_list, *elements))


def _as_list(*beans: Any) -> list[Any]:
    return list(beans)


def _expanded(bean: Bean | None) -> list[Bean]:
    if bean is None:
        return []
    return list(bean.elements) if bean.kind == "list" else [bean]


def _where(definition: BeanDefinition | None, cls: type | None, parameter: str) -> str:
    if definition is not None and definition.is_method:
        return describe_location(definition.factory, parameter)
    target = definition.type if definition is not None else cls
    return describe_location(target.__init__, parameter)  # type: ignore[misc]


def _scope_problems(
    definitions: list[BeanDefinition],
    configurations: dict[str, ConfigurationDefinition],
    requirements: dict[str, list[Requirement]],
) -> list[str]:
    """A singleton or prototype cannot hold a call-scoped bean; a collection holds no call-scoped bean."""
    problems: list[str] = []
    owners: list[tuple[str, str, str, BeanDefinition | None, type | None]] = [
        (d.name, d.scope, d.display, d, None) for d in definitions
    ]
    owners += [(c.name, "singleton", c.cls.__qualname__, None, c.cls) for c in configurations.values()]
    for name, scope, display, definition, cls in owners:
        for requirement in requirements.get(name, []):
            bean = requirement.bean
            if bean is not None and bean.kind == "list":
                for element in bean.elements:
                    if element.scope == "call":
                        where = _where(definition, cls, requirement.parameter)
                        problems.append(
                            f"{where}: parameter '{requirement.parameter}' of {display}: the collection "
                            f"would hold call-scoped bean '{element.name}'; a collection holds singletons "
                            "and prototypes only"
                        )
                continue
            if scope != "call" and bean is not None and bean.kind == "component" and bean.scope == "call":
                problems.append(
                    f"{_where(definition, cls, requirement.parameter)}: {scope} bean '{name}' ({display}) "
                    f"asks for call-scoped bean '{bean.name}' (parameter '{requirement.parameter}'), which "
                    f"exists only during a call; make '{name}' call-scoped too, or take '{bean.name}' as a "
                    "parameter of the tool or route"
                )
    return problems


def _cycles(definitions: list[BeanDefinition], requirements: dict[str, list[Requirement]]) -> list[str]:
    """Every dependency cycle among beans, each reported once with its path."""
    by_name = {d.name: d for d in definitions}
    problems: list[str] = []
    reported: set[frozenset[str]] = set()
    state: dict[str, int] = {}

    def edges(name: str) -> list[tuple[str, str]]:
        found = list(requirements.get(name, []))
        definition = by_name[name]
        if definition.configuration is not None:
            found += requirements.get(definition.configuration.name, [])
        return [(r.parameter, b.name) for r in found for b in _expanded(r.bean) if b.name in by_name]

    def label(name: str) -> str:
        definition = by_name[name]
        return definition.display if definition.is_method else definition.type.__qualname__

    def visit(name: str, path: list[tuple[str, str]]) -> None:
        state[name] = 1
        for parameter, target in edges(name):
            if state.get(target) == 1:
                full = [*path, (name, parameter)]
                loop = full[next(i for i, (n, _p) in enumerate(full) if n == target) :]
                members = frozenset(n for n, _ in loop)
                if members not in reported:
                    reported.add(members)
                    text = " -> ".join(f"{label(n)}({p})" for n, p in loop) + f" -> {label(target)}"
                    where = _where(by_name[name], None, parameter)
                    problems.append(
                        f"{where}: dependency cycle {text}; break it with a setter, an event or a lookup"
                    )
            elif state.get(target) is None:
                visit(target, [*path, (name, parameter)])
        state[name] = 2

    for name in by_name:
        if state.get(name) is None:
            visit(name, [])
    return problems


def _replace_framework_beans(container: Any, catalog: BeanCatalog) -> list[str]:
    """A user component of a framework type replaces the framework's bean (Spring's "on missing bean")."""
    problems: list[str] = []
    for name, framework_type in REPLACEABLE.items():
        replacements = [b for b in catalog.components if is_assignable(b.type, framework_type)]
        if len(replacements) > 1:
            replacements = [b for b in replacements if b.primary] or replacements
        if len(replacements) == 1:
            getattr(container, name).override(getattr(container, replacements[0].name))
        elif replacements:
            listed = ", ".join(b.type.__qualname__ for b in replacements)
            problems.append(
                f"{len(replacements)} components replace the framework's {framework_type.__name__} "
                f"({listed}); mark one @component(primary=True)"
            )
    return problems


def _plan_tools(
    loaded: LoadedSettings, scan: ScanResult, catalog: BeanCatalog
) -> tuple[list[ToolPlan], list[str]]:
    """Every tool's signature analyzed once, here; duplicate tool names refused."""
    owners = {bean.type: bean.name for bean in catalog.components}
    plans: list[ToolPlan] = []
    problems: list[str] = []
    for tool in scan.tools:
        try:
            plans.append(
                plan_tool(
                    tool.key,
                    tool.spec,
                    default_timeout=loaded.settings.tools.timeout,
                    is_method=tool.owner is not None,
                    can_inject=catalog.can_inject,
                    bean_for=lambda annotation: bean_name_for(catalog, annotation),
                    owner=owners.get(tool.owner) if tool.owner is not None else None,
                    attribute=tool.attribute,
                    schema_strict=loaded.settings.tools.schema_strict,
                )
            )
        except SignatureError as exc:
            problems.append(f"{_tool_location(tool)}: {exc}")
        except WiringError as exc:
            problems.extend(f"{_tool_location(tool)}: {p}" for p in exc.problems)
    seen: dict[str, str] = {}
    for plan in plans:
        if plan.name in seen:
            problems.append(
                f"{describe_location(plan.spec.function)}: tool name '{plan.name}' is already used by "
                f"{seen[plan.name]}; pass @mesh_tool(name=...)"
            )
        seen[plan.name] = plan.key
    return plans, problems


def _tool_location(tool: ScannedTool) -> str:
    """`path:LINE: tool 'key'`, found only when a problem names it (locating costs more than planning)."""
    return f"{describe_location(tool.spec.function)}: tool '{tool.key}'"
