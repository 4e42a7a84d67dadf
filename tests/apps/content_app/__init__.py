"""An agent serving prompts (functions, a component's methods, Markdown files), resources (functions, URI
templates, static files) and completions, for the prompts/resources tests."""

from mesh_framework import mesh_agent


@mesh_agent(name="content-agent", version="1.0.0")
class ContentAgent:
    pass
