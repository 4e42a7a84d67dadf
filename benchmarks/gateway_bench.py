"""`mesh gateway` on a 200-tool mesh: what a client loads into its context, listing every tool or searching
(`--discovery search`), and whether search finds the right tool.

    .venv/bin/python benchmarks/gateway_bench.py

A registry holds the fleet of `benchmarks/gateway/fleet.py` (20 agents, 10 tools each, registered by
heartbeat as `benchmarks/fleet/` registers its simulated agents; no tool is called, so nothing listens on
their ports); two gateways serve it, one listing every tool and one in search mode. Measured through the
gateways' MCP endpoints:

- context tokens: the `tools/list` result's `tools` array as the client receives it (compact JSON), counted
  with the o200k tokenizer (`bpe-openai`, which ships the o200k tables; nothing is downloaded). In search
  mode, a task also loads one `search_tools` answer (limit 5) and one `describe_tool` answer: their
  `structuredContent`, as the client receives it, counted the same way (median and largest over the
  queries).
- retrieval: for each written query of `benchmarks/gateway/queries.py`, whether the tool that answers it
  is the first hit, or among the first three, of `search_tools`.

Results: benchmarks/results/gateway.json (benchmarks/report.py writes its section of docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
sys.path[:0] = [str(BENCH_DIR), str(ROOT)]

import httpx2  # noqa: E402
from _common import Run, save_results  # noqa: E402
from bpe_openai import get_encoding  # noqa: E402
from gateway.fleet import fleet_agents, tool_count  # noqa: E402
from gateway.queries import QUERIES  # noqa: E402
from mcp import Client  # noqa: E402

from tests.agents import run_mesh, run_registry, wait_until  # noqa: E402

ENCODING = get_encoding("o200k_base")


def tokens(value: Any) -> int:
    return len(ENCODING.encode(json.dumps(value, separators=(",", ":"), ensure_ascii=False)))


def register(url: str) -> None:
    with httpx2.Client(timeout=30, trust_env=False) as http:
        for body in fleet_agents():
            answer = http.post(url + "/heartbeat", json=body)
            answer.raise_for_status()


async def measure(all_url: str, search_url: str) -> dict[str, Any]:
    async with Client(all_url, mode="2026-07-28") as client:
        listed = [t.model_dump(by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools]
    async with Client(search_url, mode="2026-07-28") as client:
        search_listed = [
            t.model_dump(by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools
        ]
        rows = []
        for query, expected in QUERIES:
            found = await client.call_tool("search_tools", {"query": query, "limit": 5})
            hits = (found.structured_content or {}).get("result") or []
            names = [h["name"] for h in hits]
            described = await client.call_tool("describe_tool", {"name": names[0] if names else expected})
            rows.append(
                {
                    "query": query,
                    "expected": expected,
                    "hits": names,
                    "rank": names.index(expected) + 1 if expected in names else None,
                    "search_tokens": tokens(found.structured_content),
                    "describe_tokens": tokens(described.structured_content),
                }
            )
    search_tokens = [r["search_tokens"] for r in rows]
    describe_tokens = [r["describe_tokens"] for r in rows]
    per_task = [r["search_tokens"] + r["describe_tokens"] for r in rows]
    return {
        "tools": len(listed),
        "listing_tokens": {"all": tokens(listed), "search": tokens(search_listed)},
        "search_answer_tokens": {"median": statistics.median(search_tokens), "max": max(search_tokens)},
        "describe_answer_tokens": {"median": statistics.median(describe_tokens), "max": max(describe_tokens)},
        "task_tokens": {"median": statistics.median(per_task), "max": max(per_task)},
        "queries": len(rows),
        "top1": sum(1 for r in rows if r["rank"] == 1),
        "top3": sum(1 for r in rows if r["rank"] is not None and r["rank"] <= 3),
        "top5": sum(1 for r in rows if r["rank"] is not None),
        "misses": [r for r in rows if r["rank"] is None or r["rank"] > 3],
        "rows": rows,
    }


def main() -> int:
    run = Run()
    with run_registry(0, "--timeout", "600") as registry:
        register(registry.base_url)
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with (
            run_mesh(["gateway", "--port", "0"], env=env) as everything,
            run_mesh(["gateway", "--port", "0", "--discovery", "search"], env=env) as search,
        ):
            wait_until(lambda: f"{tool_count()} tool(s)" in everything.text(), timeout=30)
            wait_until(lambda: f"{tool_count()} tool(s)" in search.text(), timeout=30)
            data = asyncio.run(measure(everything.mcp_url, search.mcp_url))
    data["tokenizer"] = "o200k_base (bpe-openai)"
    print(
        f"{data['tools']} tools: listing {data['listing_tokens']['all']} tokens, search mode "
        f"{data['listing_tokens']['search']} + {data['task_tokens']['median']} a task (median); "
        f"top-3 {data['top3']}/{data['queries']}, top-1 {data['top1']}/{data['queries']}",
        file=sys.stderr,
    )
    save_results("gateway", run, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
