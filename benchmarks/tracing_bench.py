"""What tracing costs a tool call: the agent's ASGI app called in process (no uvicorn, no socket), the
same `add` call with tracing off (the anchor) and on.

  off             tracing.enabled false (the default): the call path reads one attribute
  on-none         tracing on, exporter none: a server span per call, nothing exported
  on-batch-drop   tracing on, a BatchSpanProcessor handing spans to an exporter that drops them (what
                  the OTLP exporter costs on the call path, without the network)
  on-traceparent  as on-none, the request carrying a W3C traceparent header to continue
  json-logs       tracing off, logging.format json (the call's tool and request id are recorded)

Best of 5 interleaved rounds of N calls each, process CPU time per call; ratios against `off` of the same
run. Usage: .venv/bin/python benchmarks/tracing_bench.py [-n 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import AGENT_CONFIG, call_body, call_headers  # noqa: E402
from profile_inproc import call_once  # noqa: E402

from mesh_framework import MeshApplication  # noqa: E402
from mesh_framework.tracing import configure_tracing, tracer_provider  # noqa: E402

VARIANTS = ("off", "on-none", "on-batch-drop", "on-traceparent", "json-logs")
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def _drop_processor() -> Any:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Drop(SpanExporter):
        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    return BatchSpanProcessor(Drop())


def configure(variant: str) -> None:
    enabled = variant.startswith("on")
    settings = SimpleNamespace(enabled=enabled, exporter="none", endpoint=None, file=None)
    configure_tracing(settings, agent="bench", json_logs=variant == "json-logs")
    if variant == "on-batch-drop":
        tracer_provider().add_span_processor(_drop_processor())


async def measure(n: int, rounds: int) -> dict[str, float]:
    app = MeshApplication.load(
        "bench_agent", cli={"server.host": "127.0.0.1", "server.port": 0}, config=AGENT_CONFIG
    ).build()
    body = call_body(modern=True).encode()
    plain_headers = call_headers(modern=True)
    best: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        for _ in range(rounds):
            for variant in VARIANTS:
                configure(variant)
                headers = (
                    {**plain_headers, "traceparent": TRACEPARENT}
                    if variant == "on-traceparent"
                    else plain_headers
                )
                status, payload = await call_once(app, headers, body)
                if status != 200 or b'"isError":false' not in payload:
                    raise RuntimeError(f"{variant}: HTTP {status}: {payload[:300]!r}")
                for _ in range(min(500, n)):
                    await call_once(app, headers, body)
                started = time.process_time()
                for _ in range(n):
                    await call_once(app, headers, body)
                value = (time.process_time() - started) / n * 1e6
                best[variant] = min(best.get(variant, value), value)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="calls per variant and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    best = asyncio.run(measure(args.n, args.rounds))
    print(f"| variant (in process, {args.n} calls x best of {args.rounds}) | CPU µs/call | x off |")
    print("|---|---|---|")
    for variant in VARIANTS:
        print(f"| {variant} | {best[variant]:.1f} | {best[variant] / best['off']:.2f} |")


if __name__ == "__main__":
    main()
