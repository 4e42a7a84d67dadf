"""Definitions as they may be shown: every env value and every credential header masked."""

from __future__ import annotations

from typing import Any

from ..config.loader import MASK, is_secret_header
from .definitions import McpServerDefinition

__all__ = ["masked"]


def masked(definition: McpServerDefinition) -> dict[str, Any]:
    """`definition.to_dict()` with env values and Authorization-like headers replaced by `******`."""
    data = definition.to_dict()
    if "env" in data:
        data["env"] = dict.fromkeys(data["env"], MASK)
    if "headers" in data:
        data["headers"] = {k: MASK if is_secret_header(k) else v for k, v in data["headers"].items()}
    return data
