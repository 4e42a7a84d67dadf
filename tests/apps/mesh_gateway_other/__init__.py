"""An agent whose `convert` is another tool than `tools`'s (another schema): the gateway prefixes both."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="other", version="1.0.0")
class Other:
    pass


@mesh_tool(capability="currency", tags=["money"])
def convert(amount: float, currency: str) -> str:
    """Convert an amount of money into euros."""
    return f"{amount * 0.9:.2f} EUR from {currency}"
