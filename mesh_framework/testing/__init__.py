"""Testing kit: in-process clients, stand-ins for mesh tools and models, a pytest plugin."""

from ..llm.scripted import ScriptedLlm
from .client import MeshTestClient, mesh_client

__all__ = ["MeshTestClient", "ScriptedLlm", "mesh_client"]
