"""Agent Skills served over MCP (the skills extension, `io.modelcontextprotocol/skills`): folders holding
a `SKILL.md` with YAML front matter, listed by `skills/list`, fetched by `skills/get`, read as resources.

The names below are loaded on first use (PEP 562): an app without a skill folder loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .endpoint import EXTENSION_ID, SkillsExtension
    from .frontmatter import SkillFileError
    from .loading import Skill, SkillFile, load_skill_folder
    from .skill_catalog import SkillCatalog

__all__ = [
    "EXTENSION_ID",
    "Skill",
    "SkillCatalog",
    "SkillFile",
    "SkillFileError",
    "SkillsExtension",
    "load_skill_folder",
]

_LOCATIONS = {
    "EXTENSION_ID": ".endpoint",
    "Skill": ".loading",
    "SkillCatalog": ".skill_catalog",
    "SkillFile": ".loading",
    "SkillFileError": ".frontmatter",
    "SkillsExtension": ".endpoint",
    "load_skill_folder": ".loading",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
