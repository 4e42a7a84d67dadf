"""An agent serving Agent Skills from its `skills/` folder, beside one plain tool (test_skills_sdk.py)."""

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="skills-agent", version="1.0.0")
class SkillsAgent:
    pass


@mesh_tool(capability="changelog")
def changelog(version: str) -> str:
    return f"Changes of {version}"
