"""A media round trip (upload → LLM input resolved) beside inlining the image as base64, in process.

One agent (benchmarks/media_agent), served in process through its ASGI app (no network, so the figures are
the framework's own work), with a model that answers at once (`ScriptedLlm`) and records each request:

  media URI  POST the image to an upload route (multipart/form-data → `save_upload` → the local store),
             then `tools/call by_uri {image: <uri>}`: the tool passes the URI to `llm(..., media=[uri])`,
             which reads the file and builds the model's `image_url` part
  inline     `tools/call inline {image_base64: ...}`: the image travels base64 in the JSON arguments,
             and the tool puts it into the model's `image_url` part as it came

Both end when the model has the request with the image part (checked to hold the image's bytes). The sides
take turns, the order alternating; figures are medians over the rounds, and the bytes each side sent.

Usage: .venv/bin/python benchmarks/media_bench.py [--size-kib 1024] [--rounds 20] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import Run, save_results  # noqa: E402
from processes import log  # noqa: E402

from mesh_framework import LlmModel, MeshApplication  # noqa: E402
from mesh_framework.llm.scripted import ScriptedLlm  # noqa: E402
from mesh_framework.testing import mesh_client  # noqa: E402


def png(size: int) -> bytes:
    """A valid grey PNG of about `size` bytes (random pixels, stored uncompressed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    width = max(1, int(max(0, size - 67) ** 0.5))
    rows = b"".join(b"\x00" + os.urandom(width) for _ in range(width))
    header = struct.pack(">IIBBBBB", width, width, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 0))
        + chunk(b"IEND", b"")
    )


def _image_bytes(model: ScriptedLlm) -> bytes:
    part = model.requests[-1].messages[-1]["content"][1]
    return base64.b64decode(part["image_url"]["url"].split(",", 1)[1])


async def measure(size: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="media-bench-") as folder:
        return await _measure(size, rounds, folder)


async def _measure(size: int, rounds: int, folder: str) -> dict[str, Any]:
    image = png(size)
    encoded = base64.b64encode(image).decode("ascii")
    app = MeshApplication.load(
        "media_agent", environ={"MESH_MEDIA__PATH": folder, "MESH_MEDIA__MAX_UPLOAD_BYTES": str(4 * size)}
    )
    model = ScriptedLlm(["ok"] * (2 * rounds + 4))
    seconds: dict[str, list[float]] = {"uri": [], "inline": []}
    sent: dict[str, int] = {}
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:

            async def by_uri(number: int) -> float:
                started = time.perf_counter()
                files = {"file": (f"photo-{number}.png", image, "image/png")}
                uri = (await client.http.post("/api/upload", files=files)).json()["uri"]
                result = await client.call_tool("by_uri", {"question": "What is it?", "image": uri})
                took = time.perf_counter() - started
                assert result["structuredContent"] == {"result": "ok"}, result
                assert _image_bytes(model) == image
                sent["uri"] = len(image) + len(json.dumps({"question": "What is it?", "image": uri}))
                return took

            async def inline(number: int) -> float:
                started = time.perf_counter()
                arguments = {"question": "What is it?", "image_base64": encoded}
                result = await client.call_tool("inline", arguments)
                took = time.perf_counter() - started
                assert result["structuredContent"] == {"result": "ok"}, result
                assert _image_bytes(model) == image
                sent["inline"] = len(json.dumps(arguments))
                return took

            sides = {"uri": by_uri, "inline": inline}
            for side in sides.values():  # warm up
                await side(-1)
            ratios = []
            for number in range(rounds):
                order = list(sides) if number % 2 == 0 else list(reversed(sides))
                took = {name: await sides[name](number) for name in order}
                for name, value in took.items():
                    seconds[name].append(value)
                ratios.append(took["uri"] / took["inline"])
    return {
        "image_bytes": len(image),
        "ms": {name: statistics.median(values) * 1000 for name, values in seconds.items()},
        "ratio": statistics.median(ratios),
        "ratio_samples": ratios,
        "bytes_sent": sent,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-kib", type=int, default=1024, help="image size in KiB (default 1024)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds per side (default 20)")
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    args = parser.parse_args()
    if args.quick:
        args.rounds = 5
    run = Run(short=args.quick or args.rounds < 20)
    figures = asyncio.run(measure(args.size_kib * 1024, args.rounds))
    log(
        f"{figures['image_bytes']} bytes: media URI {figures['ms']['uri']:.2f} ms, "
        f"inline base64 {figures['ms']['inline']:.2f} ms, {figures['ratio']:.3f} x"
    )
    save_results("media", run, {"args": {"size_kib": args.size_kib, "rounds": args.rounds}, **figures})
    return 0


if __name__ == "__main__":
    sys.exit(main())
