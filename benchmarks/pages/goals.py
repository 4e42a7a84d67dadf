"""The project's performance targets, each stated once: what is measured, the limit, and its verdict.

The sections print the targets they measure; the targets table at the top of docs/benchmarks.md lists all
of them, measured or not.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import X, verdict, verdict_at_least

__all__ = [
    "CALC_P50",
    "CALC_THROUGHPUT",
    "CLI",
    "CONSOLE",
    "CONSOLE_PAINT",
    "CPU_LEGACY",
    "CPU_OUR_STACK",
    "CPU_STOCK",
    "FRAMEWORK_RSS",
    "FRAMEWORK_START",
    "INPROC",
    "LLM",
    "PROVIDER_START",
    "RSS",
    "SERVICE",
    "STARTUP",
    "STREAM_CHUNK",
    "STREAM_FIRST",
    "SWITCH",
    "SYNC_TOOL",
    "Goal",
]


@dataclass(frozen=True)
class Goal:
    measure: str
    limit: float
    unit: str
    at_least: bool = False
    note: str = ""

    def text(self) -> str:
        sign = "≥" if self.at_least else "≤"
        return f"{sign} {self.limit:g} {self.unit}" + (f" ({self.note})" if self.note else "")

    def verdict(self, value: float | None) -> str:
        return verdict_at_least(value, self.limit) if self.at_least else verdict(value, self.limit)


INPROC = Goal("in-process `tools/call` vs a plain handler (no sockets)", 1.5, X)
CPU_OUR_STACK = Goal(
    "server CPU per `tools/call` (2026-07-28) vs a plain route on our HTTP stack",
    1.25,
    X,
    note=f"long-run goal 1.1 {X}",
)
CPU_STOCK = Goal("server CPU per `tools/call` (2026-07-28) vs a stock uvicorn Starlette route", 1.35, X)
CPU_LEGACY = Goal("server CPU per `tools/call`, legacy stateless path, vs the stock route", 1.3, X)
SYNC_TOOL = Goal(
    "server CPU per `tools/call` of a sync tool (`def`, run in a worker thread) vs the same tool `async`",
    1.3,
    X,
)
STARTUP = Goal("process start → answers `tools/list` (starter app)", 0.30, "s")
FRAMEWORK_START = Goal(
    "the framework's own start-up: starter app start → `tools/list` minus the floor's, same run", 50, "ms"
)
FRAMEWORK_RSS = Goal(
    "the framework's own memory: starter app RSS serving minus the floor's, same run", 5, "MiB"
)
RSS = Goal("agent RSS serving (starter app, before its first LLM call)", 48, "MiB")
CLI = Goal("`mesh --help` and `mesh list`, each", 0.12, "s")
CALC_P50 = Goal("calc, client → consumer → provider: sequential p50", 1.0, "ms")
CALC_THROUGHPUT = Goal(
    "calc throughput vs MCP Mesh (its faster variant in the same run)", 10, X, at_least=True
)
PROVIDER_START = Goal("provider starts → consumer's next call succeeds, median", 0.6, "s")
SWITCH = Goal("provider DOWN → consumer switched, median", 100, "ms")
LLM = Goal(
    "LLM ask, 2 model turns + 1 mesh tool, same fake model: MCP Mesh's end-to-end time / ours",
    5,
    X,
    at_least=True,
)
STREAM_FIRST = Goal("streaming: first chunk through two hops after the model's first token", 5, "ms")
STREAM_CHUNK = Goal("streaming: time per chunk through two hops", 0.2, "ms")
SERVICE = Goal("service-method call vs a plain `McpMeshTool` call", 1.05, X)
SCHEMA = Goal("resolution with schema matching vs without, 1,000-agent fleet", 1.2, X)
CONSOLE = Goal("console gathering: CPU added to a tools/call, share of the call's CPU over HTTP", 3, "%")
CONSOLE_PAINT = Goal("mesh page: first paint over loopback, median", 300, "ms")
