"""The `mesh gateway` section, from gateway.json (gateway_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import missing, ratio, run_lines, table

__all__ = ["gateway_section"]


def gateway_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Mesh gateway: every tool, or search (`benchmarks/gateway_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("the mesh gateway", ".venv/bin/python benchmarks/gateway_bench.py"), ""]
    lines += [*run_lines(res["run"]), ""]
    listing, task = res["listing_tokens"], res["task_tokens"]
    queries = res["queries"]
    lines += [
        f"A registry holds {res['tools']} tools (20 agents of 10 tools, `benchmarks/gateway/fleet.py`); one "
        "`mesh gateway` lists them all, one runs `--discovery search`. Tokens are counted with "
        f"{res['tokenizer']} over the JSON a client receives: the `tools/list` result's tools, and in search "
        "mode one `search_tools` answer (limit 5) and one `describe_tool` answer per task. Retrieval: "
        f"{queries} written queries (`benchmarks/gateway/queries.py`), each naming the tool that answers it.",
        "",
    ]
    lines += table(
        ["", "every tool listed", "search mode"],
        [
            ["tools the client lists", str(res["tools"]), "3"],
            ["context tokens at start", str(listing["all"]), str(listing["search"])],
            [
                "tokens a task adds (median / largest)",
                "0",
                f"{task['median']:.0f} / {task['max']:.0f}",
            ],
            [
                "start + one task",
                str(listing["all"]),
                f"{listing['search'] + task['median']:.0f} "
                f"({ratio(listing['all'], listing['search'] + task['median'], 0)} fewer)",
            ],
            ["right tool first", "-", f"{res['top1']} of {queries}"],
            ["right tool in the first 3", "-", f"{res['top3']} of {queries}"],
            ["right tool in the first 5", "-", f"{res['top5']} of {queries}"],
        ],
    )
    lines += [
        "",
        "Listing every tool leaves the choice to the model, which this benchmark does not run. The queries "
        "search missed (not in the first 3) are the ones worded far from the tool's own words (BM25 matches "
        "words, not meanings): "
        + "; ".join(f"“{m['query']}” → `{m['expected']}`" for m in res["misses"])
        + ".",
        "",
    ]
    return lines
