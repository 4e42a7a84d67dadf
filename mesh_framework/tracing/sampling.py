"""`TraceBudget`: how many new traces the console starts per second in one agent.

An agent that feeds the console counts every call, but records spans only for the traces it keeps. A call
that arrives without a trace starts one while the budget lasts (`rate` a second: the console's push, once
a second, fills it again), else it runs untraced and tells the agents it calls so (`X-Mesh-Sampled: 0`),
so a trace is kept whole or not at all. A call that continues a caller's trace follows the caller. A
developer trying tools sees every call; a busy agent spends a span's cost on a few calls a second.
"""

from __future__ import annotations

__all__ = ["DEFAULT_TRACES_PER_SECOND", "TraceBudget"]

DEFAULT_TRACES_PER_SECOND = 10


class TraceBudget:
    """`left`: the new traces the console may still start before the next `refill()`."""

    __slots__ = ("left", "rate")

    def __init__(self, rate: int = DEFAULT_TRACES_PER_SECOND) -> None:
        if rate < 0:
            raise ValueError(f"a trace rate is zero or more traces a second, not {rate!r}")
        self.rate = rate
        self.left = rate

    def refill(self) -> None:
        self.left = self.rate
