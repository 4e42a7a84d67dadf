"""Prompts, resources and completers as an auto-configuration: used by an app that marks a `@mesh_prompt`,
`@mesh_resource` or `@completer`, serves static files or has a prompt folder; its catalogs are planned
while the app loads and answer the endpoint's prompt, resource and completion methods."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports
from ..di.usage import serves_features

__all__ = ["PromptsAutoConfiguration"]


def _serves_features(context: ConditionContext) -> bool:
    if context.loaded is None or context.scan is None:
        return False
    return serves_features(context.loaded, context.scan, context.folders)


@configuration
@conditional(_serves_features, "a prompt, resource or completer, static files or a prompt folder")
@imports("mesh_framework.prompts.beans:PromptsBeans")
class PromptsAutoConfiguration:
    """Gates the prompts and resources beans (prompts/beans.py) on the app using them."""
