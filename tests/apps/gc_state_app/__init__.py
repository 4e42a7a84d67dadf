"""One tool answering the serving process's garbage-collection state (tests/server/test_run_gc.py)."""

from __future__ import annotations

import gc

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="gc-state", version="1.0.0")
class GcState:
    pass


@mesh_tool(capability="gc_state")
def gc_state() -> dict[str, object]:
    """Whether garbage is collected, and how many objects start-up froze out of collections."""
    return {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
