"""The measured numbers docs/clients.md gives for the gateway's search mode are those of
benchmarks/results/gateway.json (written by benchmarks/gateway_bench.py): a new run that changes them fails
this test until the page says what was measured. And cli.md keeps the command's reference only: the
gateway's behaviour is told once, on clients.md."""

from __future__ import annotations

import json
import re

from ..agents import ROOT

PAGE = ROOT / "docs" / "clients.md"
RESULTS = ROOT / "benchmarks" / "results" / "gateway.json"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def measured_sentence(res: dict[str, object]) -> str:
    """The page's sentence, as the results file words it."""
    listing, task = res["listing_tokens"], res["task_tokens"]
    assert isinstance(listing, dict) and isinstance(task, dict)
    queries = res["queries"]
    return " ".join(
        [
            f"on a mesh of {res['tools']} tools, a client starts with {listing['search']} tokens of tools",
            f"instead of {listing['all']}, and a task adds {task['median']:.0f} tokens (a search and a",
            f"description, median). The right tool was the first hit for {res['top1']} of {queries} written",
            f"queries, among the first three for {res['top3']} and among the first five for {res['top5']}.",
        ]
    )


def test_the_search_mode_numbers_are_the_measured_ones() -> None:
    sentence = measured_sentence(json.loads(RESULTS.read_text()))
    assert sentence in flat(PAGE.read_text()), f"docs/clients.md should say: {sentence}"


def test_the_numbers_are_not_repeated_elsewhere_by_hand() -> None:
    res = json.loads(RESULTS.read_text())
    cli = flat((ROOT / "docs" / "cli.md").read_text())
    for number in (res["listing_tokens"]["all"], f"{res['listing_tokens']['all']:,}"):
        assert f" {number} tokens" not in cli, "cli.md links to clients.md for the gateway's numbers"
    assert "clients.md#the-whole-mesh-the-gateway" in cli
