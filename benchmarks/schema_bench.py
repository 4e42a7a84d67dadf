"""Resolution with schema matching beside resolution without it, on a 1,000-agent fleet, in process.

The embedded registry's store holds a fleet of `--agents` agents (default 1,000): half are providers of
`--capabilities` capabilities (default 50, so 10 providers each), half are consumers with two dependencies
each. Two fleets of the same shape, resolved by the same code:

  without  no schemas anywhere: providers publish no output schema, dependencies state no expected type
  with     every provider publishes its output schema (half answer a Caption, half a Labelled) and every
           dependency expects a Caption (`match_mode` subset): the schema stage keeps the Caption half,
           compares hashes and runs the subset diff for the other half

One round resolves every consumer once (`resolve()` with the audit log, as the store does when a consumer's
providers changed); the sides take turns, the order alternating. Figures: medians over the rounds of the
time per consumer resolution, and of each round's with/without ratio.

Usage: .venv/bin/python benchmarks/schema_bench.py [--agents 1000] [--rounds 30] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import Run, save_results  # noqa: E402
from processes import log  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from mesh_framework.registry import RegistryStore  # noqa: E402
from mesh_framework.registry.resolution import resolve  # noqa: E402
from mesh_framework.schemas import canonical_schema  # noqa: E402


class Caption(BaseModel):
    text: str
    confidence: float
    tags: list[str]


class Labelled(BaseModel):
    label: str
    confidence: float


def fleet(agents: int, capabilities: int, *, schemas: bool) -> RegistryStore:
    """A store holding `agents` agents: providers first, then consumers of two capabilities each."""
    caption, labelled = canonical_schema(Caption), canonical_schema(Labelled)
    store = RegistryStore(audit_history=10_000)
    providers = agents // 2
    for n in range(providers):
        tool: dict[str, Any] = {"function_name": f"serve_{n}", "capability": f"cap-{n % capabilities}"}
        if schemas:
            shape = caption if n % 2 else labelled
            tool |= {"outputSchemaCanonical": shape.canonical, "outputSchemaHash": shape.hash}
        store.heartbeat(_agent(f"provider-{n}", 10_000 + n, [tool]))
    for n in range(agents - providers):
        dependencies = []
        for k in (n, n + 1):
            dependency: dict[str, Any] = {"capability": f"cap-{k % capabilities}"}
            if schemas:
                dependency |= {
                    "expectedSchemaCanonical": caption.canonical,
                    "expectedSchemaHash": caption.hash,
                    "matchMode": "subset",
                }
            dependencies.append(dependency)
        tool = {"function_name": "use", "capability": f"use-{n}", "dependencies": dependencies}
        store.heartbeat(_agent(f"consumer-{n}", 20_000 + n, [tool]))
    return store


def _agent(agent_id: str, port: int, tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id,
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": tools,
    }


def one_round(store: RegistryStore) -> float:
    """Seconds to resolve every consumer of the store once."""
    consumers = [s.registration for s in store.agents() if s.registration.is_consumer]
    index, audit = store._index, store.audit  # the store's own resolution inputs
    started = time.perf_counter()
    for registration in consumers:
        resolve(registration, index, audit)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=1000, help="agents in the fleet (default 1000)")
    parser.add_argument("--capabilities", type=int, default=50, help="capabilities provided (default 50)")
    parser.add_argument("--rounds", type=int, default=30, help="rounds per side (default 30)")
    parser.add_argument("--quick", action="store_true", help="10 rounds")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 10
    run = Run(short=args.quick or args.rounds < 30)
    sides = {"without": fleet(args.agents, args.capabilities, schemas=False)}
    sides["with"] = fleet(args.agents, args.capabilities, schemas=True)
    consumers = sum(1 for s in sides["with"].agents() if s.registration.is_consumer)
    for store in sides.values():  # warm up: first traces recorded, caches filled
        one_round(store)
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    ratios = []
    for number in range(args.rounds):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        took = {name: one_round(sides[name]) for name in order}
        for name, value in took.items():
            seconds[name].append(value)
        ratios.append(took["with"] / took["without"])
    per_consumer = {name: statistics.median(values) / consumers * 1e6 for name, values in seconds.items()}
    ratio = statistics.median(ratios)
    log(
        f"{args.agents} agents, {consumers} consumers: without {per_consumer['without']:.1f} µs, "
        f"with {per_consumer['with']:.1f} µs per consumer resolution, {ratio:.3f} x"
    )
    save_results(
        "schema",
        run,
        {
            "args": {"agents": args.agents, "capabilities": args.capabilities, "rounds": args.rounds},
            "consumers": consumers,
            "slots_per_consumer": 2,
            "providers_per_capability": (args.agents // 2) // args.capabilities,
            "us_per_consumer": per_consumer,
            "ratio": ratio,
            "ratio_samples": ratios,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
