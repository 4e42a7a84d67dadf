"""Assembly: scanned specs in, a `MeshContainer` with every provider out; every problem found is reported.

Nothing is instantiated here. Each step adds providers and returns the problems it found, so that one
`WiringError` can list them all.
"""

from __future__ import annotations

import logging
from typing import Any

from dependency_injector import providers

from ..command_tools.marks import declares_commands
from ..config.loader import LoadedSettings, validate_section
from ..config.typos import unknown_settings
from ..decorators import LLM_ATTR
from ..errors import ConfigError, WiringError
from ..status.discovery import plan_status_sections
from ..tools.builder import ToolPlan, plan_tool
from ..tools.signature import SignatureError
from .container import REPLACEABLE, MeshContainer, empty_catalog
from .scan import ScanResult
from .wiring import Bean, BeanCatalog, Requirement, describe_location, is_assignable

__all__ = ["assemble_container", "bean_name_for"]

logger = logging.getLogger("mesh_framework")


def assemble_container(
    loaded: LoadedSettings,
    scan: ScanResult,
    catalog: BeanCatalog,
    servers: Any,
    *,
    report_unread: bool = False,
) -> Any:
    """The container for one agent. Raises WiringError listing every problem found; settings nothing reads
    are among them unless `report_unread`, which keeps them in `loaded.unread` (for `mesh config`).
    `servers`: the McpServerCatalog, or None when the settings name no MCP server (an empty one is then
    built if something reads it)."""
    container = MeshContainer(
        settings=providers.Object(loaded.settings),
        loaded_settings=providers.Object(loaded),
        mcp_catalog=(
            providers.ThreadSafeSingleton(empty_catalog) if servers is None else providers.Object(servers)
        ),
    )
    problems = [
        *_add_config_sections(container, loaded, scan, catalog),
        *_add_components(container, catalog),
        *_replace_framework_beans(container, catalog),
    ]
    plans, tool_problems = _plan_tools(loaded, scan, catalog)
    problems += tool_problems
    llm_configs, llm_problems = _plan_llm_tools(loaded, plans, container.mcp_catalog, catalog)
    problems += llm_problems
    command_plans, command_problems = _plan_commands(loaded, scan.modules, plans)
    status_plans, status_problems = plan_status_sections(
        scan.modules, {bean.type: bean.name for bean in catalog.components}
    )
    problems += command_problems + status_problems
    unread = unknown_settings(
        loaded,
        {spec.prefix: spec.model for spec in scan.config_properties},
        strict=loaded.settings.config.strict,
    )
    for warning in unread.warnings:
        logger.warning("setting ignored: %s", warning)
    if report_unread:
        loaded.unread = unread.errors
    else:
        problems += unread.errors
    if problems:
        raise WiringError(problems)
    container.tool_plans.override(providers.Object(plans))
    container.llm_configs.override(providers.Object(llm_configs))
    container.command_plans.override(providers.Object(command_plans))
    container.status_plans.override(providers.Object(status_plans))
    return container


def _plan_commands(
    loaded: LoadedSettings, modules: list[str], plans: list[ToolPlan]
) -> tuple[list[Any], list[str]]:
    """Click commands served as tools (command_tools/); their discovery, and click, are loaded only for an
    app that marks commands or exposes some in settings."""
    if not loaded.settings.commands.expose and not declares_commands(modules):
        return [], []
    from ..command_tools.wiring import plan_agent_commands

    return plan_agent_commands(loaded, modules, plans)


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


def _add_components(container: Any, catalog: BeanCatalog) -> list[str]:
    """One thread-safe singleton per component, its constructor wired by type."""
    problems: list[str] = []
    graph: dict[type, list[Requirement]] = {}
    reserved = set(MeshContainer.providers)
    for bean in catalog.components:
        if bean.name in reserved:
            problems.append(
                f"{describe_location(bean.type)}: component name '{bean.name}' is taken by a "
                "framework bean; pass @component(name=...)"
            )
            continue
        requirements, found = catalog.requirements(bean.type)
        problems.extend(found)
        graph[bean.type] = requirements
        container.set_provider(bean.name, providers.ThreadSafeSingleton(bean.type))
    names = [b.name for b in catalog.components]
    for duplicate in sorted({n for n in names if names.count(n) > 1}):
        classes = ", ".join(
            f"{b.type.__module__}.{b.type.__qualname__}" for b in catalog.components if b.name == duplicate
        )
        problems.append(f"two components are named '{duplicate}' ({classes}); pass @component(name=...)")
    problems.extend(catalog.find_cycles(graph))
    for bean in catalog.components:
        if bean.type in graph:
            getattr(container, bean.name).add_kwargs(
                **{r.parameter: getattr(container, r.bean.name) for r in graph[bean.type] if r.bean}
            )
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


def _plan_llm_tools(
    loaded: LoadedSettings, plans: list[ToolPlan], catalog: Any, beans: BeanCatalog
) -> tuple[dict[str, Any], list[str]]:
    """Every `@mesh_llm` tool's settings resolved now, so a bad provider or prompt stops start-up. The LLM
    modules (and the catalog, `catalog()`) are loaded only for an app with such a tool."""
    configs: dict[str, Any] = {}
    problems: list[str] = []
    for plan in plans:
        function = plan.spec.function
        marked = getattr(function, LLM_ATTR, None) is not None
        wants = any(p.kind == "llm" for p in plan.signature.injected)
        where = f"{describe_location(function)}: tool '{plan.name}'"
        if wants and not marked:
            problems.append(
                f"{where} takes a MeshLlmAgent but has no @mesh_llm(...); add it to choose a provider"
            )
            continue
        if marked and not wants:
            problems.append(f"{where} has @mesh_llm but no parameter typed MeshLlmAgent to receive it")
            continue
        if not marked:
            continue
        from ..llm.config import resolve_llm_config
        from ..llm.local_tools import plan_local_tools

        try:
            config = resolve_llm_config(
                plan.name,
                function,
                loaded,
                return_type=plan.signature.return_type,
                streams=plan.signature.streams,
            )
        except ConfigError as exc:
            problems.extend(f"{where}: {p}" for p in exc.problems)
            continue
        config, local_problems = plan_local_tools(
            config, can_inject=beans.can_inject, bean_for=lambda annotation: bean_name_for(beans, annotation)
        )
        problems.extend(f"{where}: {p}" for p in local_problems)
        servers = catalog()
        missing = [s for s in config.catalog_servers if not servers.contains(s)]
        if missing:
            problems.append(
                f"{where}: tools={missing!r} (from {config.origins.get('tools', 'code')}) name no MCP server "
                f"of the catalog (it has: {', '.join(servers) or 'none'})"
            )
            continue
        configs[plan.name] = config
    return configs, problems


def _plan_tools(
    loaded: LoadedSettings, scan: ScanResult, catalog: BeanCatalog
) -> tuple[list[ToolPlan], list[str]]:
    """Every tool's signature analyzed once, here; duplicate tool names refused."""
    owners = {bean.type: bean.name for bean in catalog.components}
    plans: list[ToolPlan] = []
    problems: list[str] = []
    for tool in scan.tools:
        where = f"{describe_location(tool.spec.function)}: tool '{tool.key}'"
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
            problems.append(f"{where}: {exc}")
        except WiringError as exc:
            problems.extend(f"{where}: {p}" for p in exc.problems)
    seen: dict[str, str] = {}
    for plan in plans:
        if plan.name in seen:
            problems.append(
                f"{describe_location(plan.spec.function)}: tool name '{plan.name}' is already used by "
                f"{seen[plan.name]}; pass @mesh_tool(name=...)"
            )
        seen[plan.name] = plan.key
    return plans, problems
