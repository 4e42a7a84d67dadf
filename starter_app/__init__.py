"""The starter app: two agents. This one greets people and adds numbers; `starter_app.calculator` is a
second agent whose tool calls this one's `add` through the mesh.

Run one with `mesh run starter_app`, or both with `mesh run starter_app starter_app.calculator`.
"""

from mesh_framework import mesh_agent


@mesh_agent(
    name="starter",
    version="0.1.0",
    description="Greets people and adds numbers",
    port=8080,
    exclude=["starter_app.calculator", "starter_app.azure", "starter_app.servers.*"],
)
class StarterAgent:
    """The application class: its package (`starter_app`) is what the scan imports, less the calculator."""
