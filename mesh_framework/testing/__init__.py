"""Testing kit: in-process clients, stand-ins for mesh tools and models, real clusters, a pytest plugin.

With mesh_framework installed, pytest gets the fixtures `mesh_app`, `mesh_client`, `mesh_settings`,
`stub_tool`, `stub_llm` and `mesh_cluster` (see `mesh_framework.testing.plugin`).

The names below are loaded on first use (PEP 562): pytest imports the plugin, so this package, at the
start of every run wherever mesh_framework is installed, and the kit loads the framework with the first
fixture or name a test uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..llm.scripted import ScriptedLlm
    from .client import MeshTestClient, SyncMeshClient, mesh_client
    from .cluster import MeshCluster
    from .stubs import StubTool

__all__ = ["MeshCluster", "MeshTestClient", "ScriptedLlm", "StubTool", "SyncMeshClient", "mesh_client"]

_LOCATIONS = {
    "MeshCluster": ".cluster",
    "MeshTestClient": ".client",
    "ScriptedLlm": "..llm.scripted",
    "StubTool": ".stubs",
    "SyncMeshClient": ".client",
    "mesh_client": ".client",
}

__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
