"""The starter agent: greetings and a little arithmetic, served over MCP.

Run it with `mesh run starter_app` (add `--profile dev` for the dev profile).
"""

from mesh_framework import mesh_agent


@mesh_agent(name="starter", version="0.1.0", description="Greets people and adds numbers", port=8080)
class StarterAgent:
    """The application class: its package (`starter_app`) is what the scan imports."""
