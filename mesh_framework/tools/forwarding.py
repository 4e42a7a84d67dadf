"""The signature of a tool that forwards a call's arguments as they were sent to whoever runs it (a catalog
server, an HTTP service, an agent of the mesh), which checks them: nothing is analysed or injected here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from .signature import ToolSignature

__all__ = ["AnyArguments", "forwarding_signature"]


class AnyArguments(BaseModel):
    """Arguments as sent: whoever runs the tool validates them."""

    model_config = ConfigDict(extra="allow")


def forwarding_signature(
    input_schema: Mapping[str, Any],
    *,
    output_schema: Mapping[str, Any] | None = None,
    wants_context: bool = False,
) -> ToolSignature:
    """An async tool taking its arguments as sent, described by the schemas of whoever runs it;
    `wants_context` when its call takes the call's context (then it is answered as an event stream)."""
    return ToolSignature(
        arguments_model=AnyArguments,
        injected=(),
        input_schema=dict(input_schema),
        output_schema=dict(output_schema) if output_schema else None,
        output_adapter=None,
        wraps_result=False,
        is_async=True,
        wants_context=wants_context,
    )
