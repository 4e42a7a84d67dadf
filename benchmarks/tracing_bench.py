"""What tracing costs a tool call: the agent's ASGI app called in process (no uvicorn, no socket), the
same `add` call with tracing off (the anchor) and on.

  off             tracing.enabled false (the default): the call path reads one attribute
  on-none         tracing on, exporter none: a server span per call, nothing exported
  on-batch-drop   tracing on, a BatchSpanProcessor handing spans to an exporter that drops them (what
                  the OTLP exporter costs on the call path, without the network)
  on-traceparent  as on-none, the request carrying a W3C traceparent header to continue
  json-logs       tracing off, logging.format json (the call's tool and request id are recorded)

Best of R rounds of N calls per variant, the variants taking turns every 250 calls inside a round; process
CPU time per call; ratios against `off` of the same run. Results: benchmarks/results/tracing.json
(benchmarks/report.py writes the page from it). Usage: .venv/bin/python benchmarks/tracing_bench.py [-n 4000]
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

from _common import AGENT_CONFIG, Run, call_body, call_headers, save_results  # noqa: E402
from profile_inproc import call_once  # noqa: E402

from mesh_framework import MeshApplication, observation  # noqa: E402
from mesh_framework.config.settings import TracingSettings  # noqa: E402
from mesh_framework.tracing import SpanTracer, configure_tracing, state, tracer_provider  # noqa: E402

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


def prepared() -> dict[str, tuple[Any, Any, bool]]:
    """Each variant's tracing state, built once (the variants then switch by assignment)."""
    states = {}
    for variant in VARIANTS:
        state.provider = None  # a fresh provider per variant
        configure(variant)
        states[variant] = (state.tracer, state.provider, state.log_calls)
    return states


CHUNK = 250  # the variants take turns every CHUNK calls


async def measure(n: int, rounds: int, chunk: int = CHUNK) -> dict[str, float]:
    """Best round per variant; inside a round the variants take turns every `chunk` calls, so a change
    of load on the machine hits them all alike."""
    app = MeshApplication.load(
        "bench_agent", cli={"server.host": "127.0.0.1", "server.port": 0}, config=AGENT_CONFIG
    ).build()
    # The tracing feature's tracer, as an agent that traces, logs JSON or joins a registry installs it (the
    # bench agent, alone, does none of these); the variants then switch its state.
    observation.install(SpanTracer(TracingSettings(), agent="bench", json_logs=False))
    body = call_body(modern=True).encode()
    plain = call_headers(modern=True)
    headers = {v: {**plain, "traceparent": TRACEPARENT} if v == "on-traceparent" else plain for v in VARIANTS}
    states = prepared()
    best: dict[str, float] = {}
    async with app.router.lifespan_context(app):
        for variant in VARIANTS:
            state.tracer, state.provider, state.log_calls = states[variant]
            status, payload = await call_once(app, headers[variant], body)
            if status != 200 or b'"isError":false' not in payload:
                raise RuntimeError(f"{variant}: HTTP {status}: {payload[:300]!r}")
            for _ in range(min(500, n)):
                await call_once(app, headers[variant], body)
        for _ in range(rounds):
            spent = dict.fromkeys(VARIANTS, 0.0)
            for _ in range(max(1, n // chunk)):
                for variant in VARIANTS:
                    state.tracer, state.provider, state.log_calls = states[variant]
                    started = time.process_time()
                    for _ in range(chunk):
                        await call_once(app, headers[variant], body)
                    spent[variant] += time.process_time() - started
            for variant, seconds in spent.items():
                value = seconds / (max(1, n // chunk) * chunk) * 1e6
                best[variant] = min(best.get(variant, value), value)
    return best


def sdk_span_cost(n: int, rounds: int) -> dict[str, float]:
    """The floor, outside any request: the SDK's start + end of one span with our two attributes, and
    the scope a call enters with tracing off."""
    from mesh_framework.tracing import incoming_call

    configure("on-none")
    tracer = tracer_provider().get_tracer("bench")
    attributes = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "add"}

    def sdk() -> None:
        tracer.start_span("tools/call add", attributes=attributes).end()

    def scope_off() -> None:
        with incoming_call("add", 1, {}, []) as span:
            span.result({})

    best: dict[str, float] = {}
    for _ in range(rounds):
        for label, fn in (("SDK span start + end", sdk), ("our scope, tracing off", scope_off)):
            configure("off" if fn is scope_off else "on-none")
            started = time.process_time()
            for _ in range(n):
                fn()
            value = (time.process_time() - started) / n * 1e6
            best[label] = min(best.get(label, value), value)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=4000, help="calls per variant and round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    run = Run(short=args.n < 4000 or args.rounds < 7)
    best = asyncio.run(measure(args.n, args.rounds))
    for variant in VARIANTS:
        print(
            f"{variant:16s} {best[variant]:7.1f} µs/call  {best[variant] / best['off']:.2f} x off",
            file=sys.stderr,
        )
    alone = sdk_span_cost(args.n * 4, args.rounds)
    save_results(
        "tracing",
        run,
        {"calls": args.n, "rounds": args.rounds, "chunk": CHUNK, "us_per_call": best, "alone_us": alone},
    )


if __name__ == "__main__":
    main()
