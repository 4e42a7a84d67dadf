"""The beans of the prompts and resources feature: the plan made while the app loads (every prompt,
resource and completer checked, Markdown folders and static files read) and the endpoint's handlers."""

from __future__ import annotations

from ..di.configuration import bean, configuration
from ..errors import ConfigError, WiringError
from ..extension import BeanLookup, LoadPlan, ScannedApp
from ..protocol.features import FeatureHandlers
from .planning import FeaturePlan, build_features, plan_features

__all__ = ["PromptsAndResources", "PromptsBeans"]


class PromptsAndResources(LoadPlan):
    """The prompts, resources and completers found, or the problems with them."""

    def __init__(self, app: ScannedApp) -> None:
        self.plan: FeaturePlan | None = None
        try:
            self.plan = plan_features(app.loaded, app.scan, app.owners(), app.config_dir, app.package_dir)
        except (WiringError, ConfigError) as exc:
            self.problems = exc.problems
            self.config_problems = isinstance(exc, ConfigError)


@configuration
class PromptsBeans:
    @bean
    def prompts_and_resources(self, app: ScannedApp) -> PromptsAndResources:
        return PromptsAndResources(app)

    @bean
    def prompt_and_resource_handlers(self, found: PromptsAndResources, lookup: BeanLookup) -> FeatureHandlers:
        return build_features(found.plan, lookup)
