"""`Stream[str]`: the return annotation of a tool that streams its answer chunk by chunk.

The same name and meaning as MCP Mesh's `mesh.Stream`: an alias of `AsyncIterator[T]`, so a tool written

    @mesh_tool()
    async def chat(prompt: str) -> Stream[str]:
        yield "Hello"
        yield " world"

is an ordinary async generator to Python and type checkers. Only `Stream[str]` is served.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeAlias, TypeVar

__all__ = ["Stream"]

_T = TypeVar("_T")

Stream: TypeAlias = AsyncIterator[_T]
