"""Agent Skills as an auto-configuration: an app with a skill folder (`skills.folders`, by default a
`skills/` folder beside the config folder or in the app package) serves its skills over MCP (the skills
extension, `io.modelcontextprotocol/skills`: skills/beans.py). Any other app loads no other module of
skills."""

from __future__ import annotations

from pathlib import Path

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["SkillsAutoConfiguration"]


def _has_skill_folders(context: ConditionContext) -> tuple[bool, str]:
    loaded = context.loaded
    if loaded is None:
        return False, "no settings"
    if loaded.origin_of("skills.folders") != "default":
        return True, f"skills.folders is set (from {loaded.origin_of('skills.folders')})"
    config_dir, package_dir = context.folders
    bases = [b for b in (config_dir.parent if config_dir is not None else None, package_dir) if b is not None]
    for listed in loaded.settings.skills.folders:
        path = Path(listed)
        for candidate in [path] if path.is_absolute() else [base / path for base in bases]:
            if candidate.is_dir():
                return True, f"skill folder {candidate} exists"
    return False, "no skill folder (skills.folders)"


@configuration
@conditional(_has_skill_folders, "a skill folder")
@imports("mesh_framework.skills.beans:SkillsBeans")
class SkillsAutoConfiguration:
    """Gates the skills' beans (skills/beans.py) on the app having a skill folder."""
