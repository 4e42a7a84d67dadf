"""Tool names of commands: the command path below the exposed root, joined by `_`, hyphens as `_`."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["check_name", "tool_name"]

_VALID = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


def tool_name(path: Sequence[str]) -> str:
    """`("cassandra", "stress", "start")` → `cassandra_stress_start`; `("update-config",)` →
    `update_config`."""
    return "_".join(part.replace("-", "_") for part in path)


def check_name(name: str) -> str | None:
    """Why `name` cannot be an MCP tool name, or None."""
    if _VALID.match(name):
        return None
    return f"'{name}' is not a valid tool name (1-128 letters, digits, '_', '-' or '.')"
