"""The crash part of phase `topology`: two providers, SIGKILL the one the consumer uses (calls across the
kill, an alternate exists), then SIGKILL the other (no alternate left)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from _common import cpu_seconds
from processes import Proc, log

from .agents import list_agents, wait_mesh_agent, wait_our_agent
from .calls import calls_across, poll_until, summarize_calls
from .client import McpClient, Outcome


def provider_in_use(client: McpClient, providers: list[Proc], calls: int) -> tuple[Proc, dict[str, float]]:
    """The provider whose CPU time grows while the consumer answers `calls` calls (the registry's view of a
    consumer's resolution can lag behind what the consumer uses)."""
    for _attempt in range(3):
        before = {p.pid: cpu_seconds(p.pid) for p in providers}
        for i in range(calls):
            client.call(i, 1)
        deltas = {p.pid: cpu_seconds(p.pid) - before[p.pid] for p in providers}
        ranked = sorted(providers, key=lambda p: deltas[p.pid], reverse=True)
        if deltas[ranked[0].pid] > 0 and deltas[ranked[0].pid] >= 3 * deltas[ranked[1].pid]:
            return ranked[0], {str(p.agent_id): round(deltas[p.pid], 3) for p in providers}
        calls *= 2
    raise RuntimeError(f"cannot tell which provider the consumer uses (CPU deltas {deltas})")


def crash_tests(
    side: str,
    client: McpClient,
    url: str,
    start_provider: Callable[[], Proc],
    procs: list[Proc],
    args: argparse.Namespace,
) -> dict[str, Any]:
    ours = side == "ours"
    first = start_provider()
    procs.append(first)
    second = start_provider()
    procs.append(second)
    for provider in (first, second):
        if ours:
            wait_our_agent(provider, url)
        else:
            wait_mesh_agent(
                provider, url, "mesh-adder", {p.agent_id for p in procs if p.agent_id and p is not provider}
            )
    poll_until(client, {"ok"}, 60)

    # The provider the consumer uses, as the registry reports it (informative) ...
    def in_use() -> str | None:
        for agent in list_agents(url):
            for res in agent.get("dependency_resolutions") or []:
                if res.get("capability") == "add" and res.get("status") == "available":
                    return str(res.get("provider_agent_id") or res.get("endpoint"))
        return None

    # Let both providers be known to the consumer (it re-POSTs on the next heartbeat after the second joined).
    time.sleep(args.settle)
    poll_until(client, {"ok"}, 60)
    registry_view = in_use()
    # ... and as its CPU shows: that one is killed.
    victim, deltas = provider_in_use(client, [first, second], 100 if ours else 40)
    alternate = second if victim is first else first
    out: dict[str, Any] = {
        "victim": victim.agent_id,
        "alternate": alternate.agent_id,
        "provider_cpu_s_during_probe": deltas,
        "registry_view_of_resolution": registry_view,
    }

    # (a) an alternate exists
    t0 = time.perf_counter()
    victim.kill()

    def stop_a(t: float, outcomes: list[Outcome]) -> bool:
        failed = [o for o in outcomes if o.kind != "ok"]
        if t < args.crash_min_s:
            return False
        if not failed:
            return True
        return t - failed[-1].t >= 2.0  # 2 s of successes after the last failure

    outcomes = calls_across(
        client, stop=stop_a, max_s=args.crash_max_s, max_calls=20000, pause=args.crash_pause, t0=t0
    )
    out["with_alternate"] = summarize_calls(outcomes)
    log(
        f"  crash with alternate: {out['with_alternate']['failed']} failed, "
        f"success again at {out['with_alternate']['success_again_s']} s"
    )

    # (b) no alternate left
    t0 = time.perf_counter()
    alternate.kill()

    def stop_b(t: float, outcomes: list[Outcome]) -> bool:
        if t < args.crash_min_s:
            return False
        unavailable = [o for o in outcomes if o.kind == "unavailable"]
        return bool(unavailable) and t - unavailable[0].t >= 1.0

    outcomes = calls_across(
        client, stop=stop_b, max_s=args.crash_max_s, max_calls=20000, pause=args.crash_pause, t0=t0
    )
    summary = summarize_calls(outcomes)
    unavailable = [o for o in outcomes if o.kind == "unavailable"]
    summary["unavailable_from_s"] = round(unavailable[0].t, 3) if unavailable else None
    clear = [o for o in outcomes if o.kind in ("unavailable", "error")]
    summary["first_clear_answer_s"] = round(clear[0].t + clear[0].latency, 3) if clear else None
    summary["hung_calls_over_1s"] = sum(1 for o in outcomes if o.latency > 1.0)
    out["without_alternate"] = summary
    log(
        f"  crash without alternate: first answer {summary['first_answer']}, unavailable from "
        f"{summary['unavailable_from_s']} s"
    )
    return out
