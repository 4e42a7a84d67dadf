"""A2A (Agent2Agent): tools served as A2A skills and A2A agents called from tools.

Serving needs the `a2a` extra (`a2a-sdk`); calling does not. Names load on first use, so marking a tool
costs no HTTP client import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .a2a_marks import A2aSkillSpec, mesh_a2a
    from .client import A2aClient, A2aError, A2aPeer
    from .wire import A2aEvent, A2aTask

__all__ = ["A2aClient", "A2aError", "A2aEvent", "A2aPeer", "A2aSkillSpec", "A2aTask", "mesh_a2a"]

_HOMES = {
    "A2aClient": ".client",
    "A2aError": ".client",
    "A2aPeer": ".client",
    "A2aEvent": ".wire",
    "A2aTask": ".wire",
    "A2aSkillSpec": ".a2a_marks",
    "mesh_a2a": ".a2a_marks",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
