"""The skills' beans (gated by skills/auto_configuration.py): the skills read and checked while the app
loads (every problem a start-up problem naming the file and line), and the skills extension served on
the agent's endpoint."""

from __future__ import annotations

from ..di.configuration import bean, configuration
from ..extension import EndpointExtension, LoadPlan, ScannedApp
from .endpoint import SkillsExtension
from .loading import Skill, find_skill_folders, load_skills
from .skill_catalog import SkillCatalog

__all__ = ["SkillsBeans", "SkillsPlan"]


class SkillsPlan(LoadPlan):
    """The skills of the skill folders, or the problems with them (files and settings: a ConfigError)."""

    config_problems = True

    def __init__(self, app: ScannedApp) -> None:
        folders, problems = find_skill_folders(app.loaded, app.config_dir, app.package_dir)
        skills, skill_problems = load_skills(folders)
        self.skills: list[Skill] = skills
        self.problems = problems + skill_problems


@configuration
class SkillsBeans:
    @bean
    def skills_plan(self, app: ScannedApp) -> SkillsPlan:
        return SkillsPlan(app)

    @bean
    def skill_catalog(self, plan: SkillsPlan) -> SkillCatalog:
        return SkillCatalog(plan.skills)

    @bean
    def skills_extension(self, catalog: SkillCatalog) -> EndpointExtension:
        return SkillsExtension(catalog)
