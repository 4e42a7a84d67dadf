"""A2A (Agent2Agent): tools served as A2A skills and A2A agents called from tools.

Serving needs the `a2a` extra (`a2a-sdk`); calling does not. Names load on first use, so marking a tool
costs no HTTP client import.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["A2aClient", "A2aError", "A2aEvent", "A2aPeer", "A2aSkillSpec", "A2aTask", "mesh_a2a"]

_HOMES = {
    "A2aClient": ".client",
    "A2aError": ".client",
    "A2aPeer": ".client",
    "A2aEvent": ".wire",
    "A2aTask": ".wire",
    "A2aSkillSpec": ".marks",
    "mesh_a2a": ".marks",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home, __name__), name)
