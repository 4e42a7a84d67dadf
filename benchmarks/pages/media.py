"""The media section, from media.json (media_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import X, count, fmt, missing, run_lines, table

__all__ = ["media_section"]


def media_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Media round trip (`benchmarks/media_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("media", ".venv/bin/python benchmarks/media_bench.py"), ""]
    args, ms, sent = res["args"], res["ms"], res["bytes_sent"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        f"An image of {fmt(res['image_bytes'] / 1024, 0)} KiB to the model, in process (one agent through "
        "its ASGI app, a model that answers at once): uploaded to a route into the local media store and "
        "passed to the LLM tool as a media URI, which the framework reads when it builds the model's "
        "`image_url` part, beside the same image inlined as base64 in the tool's arguments. Each side ends "
        f"when the model holds the image. {count(args['rounds'], 'round')}, the sides taking turns; "
        "medians.",
        "",
    ]
    lines += table(
        ["side", "ms per round trip", "bytes sent by the client"],
        [
            ["upload, then the media URI", fmt(ms["uri"], 2), f"{sent['uri']:,}"],
            ["base64 inlined in the arguments", fmt(ms["inline"], 2), f"{sent['inline']:,}"],
        ],
    )
    lines += [
        "",
        f"Ratio media URI/inline: {fmt(res['ratio'], 3)} {X}. The upload is sent once; after it, every "
        "message that carries the image (to another agent, to an LLM provider) carries a URI of about "
        "100 bytes instead of the base64 text, which is a third larger than the image.",
    ]
    return [*lines, ""]
