"""What a background job costs against an inline call of the same body, in process (the agent's ASGI app
through httpx's ASGI transport: no socket, so the framework's own time shows).

  inline        tools/call of `work_inline` (the anchor)
  job-start     tools/call of `work_job` (background=True): until the job handle is answered
  status-poll   tools/call of `__mesh_job_status` on a finished job
  job-done      job-start, then `__mesh_job_result` polls until the job is completed (end to end)
  task-start    2025-11-25 task-augmented tools/call of `work_job`: until the CreateTaskResult is answered
  task-done     task-start, then `tasks/result` (which waits for the end) answers the tool's result

Median (p50) and p90 of wall time per call over R rounds of N calls, the variants taking turns inside a
round; ratios against `inline` of the same run. Memory: tracemalloc's growth while M finished jobs are kept
(retention set above M), divided by M. Results: benchmarks/results/jobs.json (benchmarks/report.py writes
the page from it). Usage: .venv/bin/python benchmarks/jobs_bench.py [-n 1000] [-r 5] [-m 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from _common import Run, save_results  # noqa: E402

from mesh_framework import MeshApplication  # noqa: E402
from mesh_framework.testing import MeshTestClient, mesh_client  # noqa: E402

VARIANTS = ("inline", "job-start", "job-done", "status-poll", "task-start", "task-done")
CHUNK = 100  # the variants take turns every CHUNK calls
ENV = {"MESH_REGISTRY__ENABLED": "false", "MESH_LOGGING__LEVEL": "WARNING"}


def load(retained: int) -> MeshApplication:
    cli = {"jobs.retention.max_count": retained, "jobs.max_concurrent": 10_000}
    return MeshApplication.load("jobs_agent", environ=ENV, cli=cli)


async def finish(client: MeshTestClient, job_id: str) -> None:
    for _ in range(10_000):
        outcome = await client.call_ok("__mesh_job_result", {"job_id": job_id})
        if outcome["status"] == "completed":
            return
        await asyncio.sleep(0)
    raise RuntimeError(f"job {job_id} did not complete")


async def one(client: MeshTestClient, variant: str, n: int, last: dict[str, str]) -> float:
    """One call of `variant`; `last["job"]` is the latest finished job (what status-poll reads)."""
    start = time.perf_counter()
    if variant == "inline":
        await client.call_ok("work_inline", {"n": n})
    elif variant == "job-start":
        await client.call_ok("work_job", {"n": n})
    elif variant == "status-poll":
        await client.call_ok("__mesh_job_status", {"job_id": last["job"]})
    elif variant.startswith("task-"):
        params = {"name": "work_job", "arguments": {"n": n}, "task": {}}
        created = await client.result("tools/call", params, modern=False)
        if variant == "task-done":
            task_id = created["task"]["taskId"]
            await client.result("tasks/result", {"taskId": task_id}, modern=False)
    else:
        handle = await client.call_ok("work_job", {"n": n})
        await finish(client, handle["job_id"])
        last["job"] = handle["job_id"]
    return time.perf_counter() - start


async def latency(calls: int, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    async with mesh_client(load(retained=100)) as client:
        handle = await client.call_ok("work_job", {"n": 0})
        await finish(client, handle["job_id"])
        last = {"job": handle["job_id"]}
        for variant in reversed(VARIANTS):  # warm-up
            for i in range(50):
                await one(client, variant, i, last)
        for _ in range(rounds):
            for start in range(0, calls, CHUNK):
                for variant in VARIANTS:
                    for i in range(start, min(start + CHUNK, calls)):
                        times[variant].append(await one(client, variant, i, last))
    return times


async def memory(jobs: int) -> float:
    app = load(retained=jobs + 10)
    async with mesh_client(app) as client:
        runner = app.container.job_service().runner
        for i in range(20):  # warm-up (first-call caches)
            await finish(client, (await client.call_ok("work_job", {"n": i}))["job_id"])
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        ids = [(await client.call_ok("work_job", {"n": i}))["job_id"] for i in range(jobs)]
        for job_id in ids:
            await finish(client, job_id)
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        assert len(runner.store) >= jobs
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return grown / jobs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1000, help="calls per variant per round")
    parser.add_argument("-r", type=int, default=5, help="rounds")
    parser.add_argument("-m", type=int, default=2000, help="finished jobs kept for the memory reading")
    args = parser.parse_args(argv)
    run = Run(short=args.n < 1000 or args.r < 5)
    times = asyncio.run(latency(args.n, args.r))
    anchor = statistics.median(times["inline"])
    variants: dict[str, dict[str, float]] = {}
    for variant, values in times.items():
        ordered = sorted(values)
        p50, p90 = statistics.median(ordered), ordered[int(len(ordered) * 0.9)]
        variants[variant] = {"p50_us": p50 * 1e6, "p90_us": p90 * 1e6, "p50_over_inline": p50 / anchor}
        print(f"{variant:<12} {p50 * 1e6:>9.0f} µs  {p50 / anchor:>5.2f} x inline", file=sys.stderr)
    per_job: float = asyncio.run(memory(args.m))
    save_results(
        "jobs",
        run,
        {
            "calls": args.n,
            "rounds": args.r,
            "chunk": CHUNK,
            "jobs_kept": args.m,
            "variants": variants,
            "memory_per_job_kib": per_job / 1024,
        },
    )


if __name__ == "__main__":
    main()
