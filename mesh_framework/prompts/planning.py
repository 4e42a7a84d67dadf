"""Prompts, resources and completers of an agent: planned at load (every problem reported together, before
the port is bound) and bound to the container's components at build.

Markdown prompt folders (`prompts.folders`) and static files (`resources.files`) are read here; relative
paths are looked up in the config folder, then in the agent's package.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._frozen import record
from ..argument_completion import CompleterSpec
from ..config.loader import LoadedSettings
from ..di.scan import ScannedFeature, ScanResult
from ..di.wiring import describe_location
from ..errors import ConfigError, WiringError, display_path
from ..protocol.features import FeatureHandlers
from ..resources.resource_catalog import FunctionResource, ResourceCatalog, TemplateResource
from .arguments import Argument, analyze_arguments, context_parameter
from .markdown import load_prompt_folder
from .prompt_catalog import Prompt, PromptCatalog

if TYPE_CHECKING:  # loaded by an app with decorated prompts or resources, static files or URI templates
    from ..resources.decorator import ResourceSpec
    from ..resources.files import StaticFile
    from .decorator import PromptSpec

__all__ = ["FeaturePlan", "build_features", "plan_features"]

Target = Callable[[], Callable[..., Any]]


@record
class FeaturePlan:
    """The catalogs, whose component methods are resolved once `provide` is bound (at build)."""

    prompts: PromptCatalog = field(default_factory=PromptCatalog)
    resources: ResourceCatalog = field(default_factory=ResourceCatalog)
    provide: Callable[[str], Any] | None = None

    def target(self, function: Callable[..., Any], owner: str | None, attribute: str) -> Target:
        if owner is None:
            return lambda: function

        def resolve() -> Callable[..., Any]:
            assert self.provide is not None, "the agent is not built yet"
            bound: Callable[..., Any] = getattr(self.provide(owner), attribute)
            return bound

        return resolve


def plan_features(
    loaded: LoadedSettings,
    scan: ScanResult,
    owners: dict[type, str],
    config_dir: Path | None,
    package_dir: Path | None,
) -> FeaturePlan:
    """Every prompt, resource and completer checked and catalogued. Raises WiringError (code problems) or
    ConfigError (files named in the settings) listing every problem."""
    plan = FeaturePlan()
    problems: list[str] = []
    prompts: list[Prompt] = []
    resources: list[FunctionResource] = []
    templates: list[TemplateResource] = []
    completers: list[tuple[ScannedFeature, CompleterSpec]] = []
    if scan.features:  # their decorators' modules are loaded: the specs are theirs
        from ..resources.decorator import ResourceSpec
        from .decorator import PromptSpec
    for found in scan.features:
        owner = owners.get(found.owner) if found.owner is not None else None
        if found.owner is not None and owner is None:
            continue  # a method of a class that is not a component: nothing to call it on
        spec = found.spec
        where = describe_location(spec.function)
        try:
            if isinstance(spec, PromptSpec):
                prompts.append(_plan_prompt(plan, spec, found, owner, where))
            elif isinstance(spec, ResourceSpec):
                item = _plan_resource(plan, spec, found, owner)
                if isinstance(item, TemplateResource):
                    templates.append(item)
                else:
                    resources.append(item)
            elif isinstance(spec, CompleterSpec):
                completers.append((found, spec))
        except (TypeError, ValueError) as exc:
            problems.append(f"{where}: {found.key}: {exc}")
    markdown, file_problems = _markdown_prompts(loaded, config_dir, package_dir)
    prompts += markdown
    problems += _duplicates("prompt name", [(p.name, p.origin) for p in prompts])
    problems += _duplicates("resource URI", [(r.uri, r.origin) for r in [*resources, *templates]])
    problems += _attach_completers(plan, completers, prompts, templates, owners)
    files, config_problems = _static_files(loaded, config_dir, package_dir)
    config_problems = file_problems + config_problems
    if problems:
        raise WiringError(problems + config_problems)
    if config_problems:
        raise ConfigError(config_problems)
    plan.prompts = PromptCatalog(prompts)
    plan.resources = ResourceCatalog(resources, templates, files)
    return plan


def build_features(plan: FeaturePlan | None, provide: Callable[[str], Any]) -> FeatureHandlers:
    """The endpoint's feature handlers, component methods resolved by bean name (`provide`)."""
    if plan is None:
        return FeatureHandlers()
    plan.provide = provide
    return FeatureHandlers(plan.prompts, plan.resources)


def _plan_prompt(
    plan: FeaturePlan, spec: PromptSpec, found: ScannedFeature, owner: str | None, where: str
) -> Prompt:
    function = spec.function
    name = spec.name or function.__name__
    return Prompt(
        name=name,
        description=spec.description if spec.description is not None else inspect.getdoc(function) or "",
        arguments=analyze_arguments(function, skip_self=found.owner is not None and _is_plain_method(found)),
        title=spec.title,
        target=plan.target(function, owner, found.attribute),
        origin=where,
        context_param=context_parameter(function),
        scopes=spec.scopes,
    )


def _plan_resource(
    plan: FeaturePlan, spec: ResourceSpec, found: ScannedFeature, owner: str | None
) -> FunctionResource:
    from ..resources.template import UriTemplate

    function = spec.function
    plain_method = found.owner is not None and _is_plain_method(found)
    arguments = analyze_arguments(function, skip_self=plain_method, context=False)
    common: dict[str, Any] = {
        "uri": spec.uri,
        "name": spec.name or function.__name__,
        "description": spec.description if spec.description is not None else inspect.getdoc(function) or "",
        "target": plan.target(function, owner, found.attribute),
        "arguments": arguments,
        "title": spec.title,
        "mime_type": spec.mime_type,
        "origin": describe_location(function),
        "scopes": spec.scopes,
    }
    if not UriTemplate.is_template(spec.uri):
        required = [a.name for a in arguments if a.required]
        if required:
            raise TypeError(
                f"resource '{spec.uri}' has no URI variables, but the function requires "
                f"{', '.join(required)}; give them defaults or put them in the URI as {{name}}"
            )
        return FunctionResource(**common)
    template = UriTemplate(spec.uri)
    names = {a.name for a in arguments}
    unknown = [v for v in template.variables if v not in names]
    if unknown:
        raise TypeError(
            f"URI template '{spec.uri}' has {{{unknown[0]}}}, which is no parameter of the function; "
            "name a parameter after each variable"
        )
    unfilled = [a.name for a in arguments if a.required and a.name not in template.variables]
    if unfilled:
        raise TypeError(
            f"parameter(s) {', '.join(unfilled)} appear in no variable of URI template '{spec.uri}'; "
            "add {name} to the URI or give them defaults"
        )
    used = tuple(a for a in arguments if a.name in template.variables)
    return TemplateResource(**{**common, "arguments": used}, template=template)


def _is_plain_method(found: ScannedFeature) -> bool:
    assert found.owner is not None
    return not isinstance(inspect.getattr_static(found.owner, found.attribute), staticmethod)


def _attach_completers(
    plan: FeaturePlan,
    completers: list[tuple[ScannedFeature, CompleterSpec]],
    prompts: list[Prompt],
    templates: list[TemplateResource],
    owners: dict[type, str],
) -> list[str]:
    problems = []
    by_prompt = {p.name: p for p in prompts}
    by_template = {t.uri: t for t in templates}
    for found, spec in completers:
        where = describe_location(spec.function)
        owner = owners.get(found.owner) if found.owner is not None else None
        holder: Prompt | TemplateResource | None = (
            by_prompt.get(spec.prompt) if spec.prompt is not None else by_template.get(spec.resource or "")
        )
        if holder is None:
            known = ", ".join(by_prompt if spec.prompt is not None else by_template) or "none"
            problems.append(
                f"{where}: @completer names {spec.target}, which this agent does not serve (it has: {known})"
            )
            continue
        arguments: tuple[Argument, ...] = holder.arguments
        if not any(a.name == spec.argument for a in arguments):
            names = ", ".join(a.name for a in arguments) or "none"
            problems.append(
                f"{where}: @completer names argument '{spec.argument}' of {spec.target}, which has: {names}"
            )
            continue
        if holder.completers is None:
            holder.completers = {}
        if spec.argument in holder.completers:
            problems.append(f"{where}: a second @completer for argument '{spec.argument}' of {spec.target}")
            continue
        holder.completers[spec.argument] = plan.target(spec.function, owner, found.attribute)
    return problems


def _markdown_prompts(
    loaded: LoadedSettings, config_dir: Path | None, package_dir: Path | None
) -> tuple[list[Prompt], list[str]]:
    explicit = loaded.origin_of("prompts.folders") != "default"
    prompts: list[Prompt] = []
    problems: list[str] = []
    for index, listed in enumerate(loaded.settings.prompts.folders):
        folder = _locate(listed, config_dir, package_dir)
        if folder is None or not folder.is_dir():
            if explicit:
                problems.append(
                    f"prompts.folders[{index}] = {listed!r} (from {loaded.origin_of('prompts.folders')}): "
                    "no such folder in the config folder or the app package; create it or fix the path"
                )
            continue
        found, file_problems = load_prompt_folder(folder)
        problems += file_problems
        for markdown in found:
            prompts.append(
                Prompt(
                    name=markdown.name,
                    description=markdown.description,
                    arguments=markdown.arguments,
                    title=markdown.title,
                    markdown=markdown,
                    origin=display_path(markdown.path),
                )
            )
    return prompts, problems


def _static_files(
    loaded: LoadedSettings, config_dir: Path | None, package_dir: Path | None
) -> tuple[list[StaticFile], list[str]]:
    settings = loaded.settings.resources
    files: list[StaticFile] = []
    problems: list[str] = []
    for index, listed in enumerate(settings.files):
        entry = _locate(listed, config_dir, package_dir)
        if entry is None:
            problems.append(
                f"resources.files[{index}] = {listed!r} (from {loaded.origin_of('resources.files')}): "
                "no such file or folder in the config folder or the app package; fix the path"
            )
            continue
        from ..resources.files import find_files  # an app serving files only

        files += find_files(entry, settings.uri_prefix)
    return files, problems


def _locate(listed: str, config_dir: Path | None, package_dir: Path | None) -> Path | None:
    path = Path(listed)
    if path.is_absolute():
        return path if path.exists() else None
    for base in (config_dir, package_dir):
        if base is not None and (base / path).exists():
            return base / path
    return None


def _duplicates(what: str, named: list[tuple[str, str]]) -> list[str]:
    seen: dict[str, str] = {}
    problems = []
    for name, origin in named:
        if name in seen:
            problems.append(f"{what} '{name}' is used twice ({seen[name]} and {origin}); rename one")
        else:
            seen[name] = origin
    return problems
