"""`within(seconds, awaitable)`: await something in the current task, cancelling it after `seconds`.

On the call path this replaces `asyncio.wait_for` (a new task per call) and `asyncio.timeout` (several times
the cost): a timer handle is all it costs. `Expired` tells the deadline apart from a `TimeoutError` the
awaited code raised itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["Expired", "within"]

T = TypeVar("T")


class Expired(Exception):
    """The deadline passed before the awaited code finished (it was cancelled)."""


async def within(seconds: float, running: Awaitable[T]) -> T:
    task = asyncio.current_task()
    assert task is not None
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    handle = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        return await running
    except asyncio.CancelledError:
        if expired and task.uncancel() == 0:
            raise Expired from None
        raise
    finally:
        handle.cancel()
