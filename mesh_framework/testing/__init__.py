"""Testing kit: in-process clients, stand-ins for mesh tools and models, real clusters, a pytest plugin.

With mesh_framework installed, pytest gets the fixtures `mesh_app`, `mesh_client`, `mesh_settings`,
`stub_tool`, `stub_llm` and `mesh_cluster` (see `mesh_framework.testing.plugin`).
"""

from ..llm.scripted import ScriptedLlm
from .client import MeshTestClient, SyncMeshClient, mesh_client
from .cluster import MeshCluster
from .stubs import StubTool

__all__ = ["MeshCluster", "MeshTestClient", "ScriptedLlm", "StubTool", "SyncMeshClient", "mesh_client"]
