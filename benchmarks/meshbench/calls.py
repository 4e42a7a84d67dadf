"""Calls across a change in the mesh (a provider starts, stops or crashes): polling until an answer of some
kind, sequential calls until a condition, and a summary of what they answered when."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from processes import Proc

from .client import McpClient, Outcome


def poll_until(
    client: McpClient, kinds: set[str], timeout: float, interval: float = 0.02, proc: Proc | None = None
) -> tuple[float, Outcome, int]:
    """Call every `interval` s until an answer of one of `kinds`; returns (time of that answer, it, calls)."""
    deadline = time.perf_counter() + timeout
    calls = 0
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError(
                f"no answer of kind {kinds} within {timeout} s" + (f"\n{proc.tail()}" if proc else "")
            )
        out = client.call(3, 4, timeout=max(0.5, remaining))
        calls += 1
        if out.kind in kinds:
            return time.perf_counter(), out, calls
        time.sleep(interval)


def calls_across(
    client: McpClient,
    *,
    stop: Callable[[float, list[Outcome]], bool],
    max_s: float,
    max_calls: int,
    pause: float,
    t0: float,
) -> list[Outcome]:
    """Sequential calls (pause between them) until `stop(t_since_t0, outcomes)`, bounded in time and count."""
    outcomes: list[Outcome] = []
    while len(outcomes) < max_calls:
        now = time.perf_counter() - t0
        if now > max_s or stop(now, outcomes):
            break
        out = client.call(3, 4, timeout=max(1.0, max_s - now + 1))
        out.t -= t0
        outcomes.append(out)
        time.sleep(pause)
    return outcomes


def summarize_calls(outcomes: list[Outcome]) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    firsts: dict[str, str] = {}
    for o in outcomes:
        kinds[o.kind] = kinds.get(o.kind, 0) + 1
        firsts.setdefault(o.kind, o.text)
    failed = [o for o in outcomes if o.kind != "ok"]
    last_fail = max((o.t for o in failed), default=None)
    recovered = next(
        (o.t + o.latency for o in outcomes if o.kind == "ok" and (last_fail is None or o.t > last_fail)), None
    )
    return {
        "calls": len(outcomes),
        "span_s": round(outcomes[-1].t + outcomes[-1].latency, 3) if outcomes else 0,
        "by_kind": kinds,
        "first_text_by_kind": firsts,
        "failed": len(failed),
        "failed_after_first": max(0, len(failed) - 1) if failed and outcomes[0].kind != "ok" else len(failed),
        "first_failure_s": round(min((o.t for o in failed), default=0), 3) if failed else None,
        "last_failure_s": round(last_fail, 3) if last_fail is not None else None,
        "success_again_s": round(recovered, 3)
        if failed and recovered is not None
        else (0.0 if not failed else None),
        "max_latency_ms": round(max((o.latency for o in outcomes), default=0) * 1000, 1),
        "first_answer": {
            "kind": outcomes[0].kind,
            "latency_ms": round(outcomes[0].latency * 1000, 1),
            "text": outcomes[0].text,
        }
        if outcomes
        else None,
    }
