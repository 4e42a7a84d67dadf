"""Start-up time and memory: process start → first `tools/list` answered, and RSS, ours beside the SDK.

Each run picks a free port, starts the server as a subprocess (127.0.0.1) and POSTs `tools/list`
(2026-07-28 path) in a tight loop (1 ms pause after a refused connection) until one is answered 200 with the
tool in it. Then it reads VmRSS (/proc/PID/status), sends `--calls` tools/call add with autocannon (half on
each protocol path, capped by count and by a time-out), reads VmRSS again and stops the server by PID.
Runs alternate between the servers; one untimed start of each comes first (warms the page cache and writes
the .pyc files). The medians of `--runs` runs are reported; results go to benchmarks/results/startup.json.

  starter        .venv/bin/python -m mesh_framework.cli run starter_app --port N   (the starter app, from
                 the repository root, its embedded registry on a free port)
  mesh           .venv/bin/python -m mesh_framework.cli run bench_agent --port N   (the benchmark agent:
                 one tool, no registry, like the SDK anchor)
  mesh-registry  the same agent joining a mesh (it starts an embedded registry on a free port)
  sdk            .venv/bin/python -m uvicorn sdk_lowlevel_app:app --port N         (mcp SDK low-level Server)

  floor          python floor_app.py serve ...   (the starter app's floor, below)

The floor is computed in the same run, before the timed runs: the starter app is started once under
`floor_app.py modules` and, once it answered `tools/list`, writes the modules in its `sys.modules`; the
floor server imports every third-party module of that list (neither the standard library nor the framework
nor the app) and serves the starter's own `tools/list` answer with a plain ASGI app on stock uvicorn. It
takes turns with the others like any server. The framework's own cost is the starter app minus the floor,
run by run (the median of the differences).

Usage: .venv/bin/python benchmarks/startup.py [--runs 10] [--calls 1000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from typing import Any

from _common import (
    AUTOCANNON,
    BENCH_DIR,
    ENV_MODES,
    FLOOR_ANSWER,
    FLOOR_DIR,
    FLOOR_MODULES,
    HOST,
    MCP_PATH,
    PYTHON,
    ROOT,
    SERVER_LABELS,
    Run,
    Server,
    call_body,
    call_headers,
    free_port,
    list_body,
    list_headers,
    median,
    post,
    rss_mib,
    save_results,
    server_env,
    wait_until_answers,
)
from floor_app import third_party
from processes import Proc

KINDS = ("starter", "floor", "mesh", "mesh-registry", "sdk")
OPTIONAL = {"mesh-registry"}  # a failure of these is reported, not fatal
ENV_SHOWN = {
    "mesh-registry": "MESH_REGISTRY__ENABLED=true MESH_REGISTRY__EMBEDDED_PORT=<free port> ",
    "starter": "MESH_REGISTRY__EMBEDDED_PORT=<free port> ",
}
STARTER_ARGS = ["run", "starter_app", "--host", HOST]


def capture_floor(mode: str) -> dict[str, Any]:
    """Start the starter app once under `floor_app.py modules`; once it answers `tools/list`, keep that
    answer and the modules it imported (FLOOR_ANSWER, FLOOR_MODULES): what the floor server of this run
    imports and serves."""
    FLOOR_DIR.mkdir(exist_ok=True)
    FLOOR_MODULES.unlink(missing_ok=True)
    port = free_port()
    env = server_env(mode) | {"MESH_REGISTRY__EMBEDDED_PORT": str(free_port())}
    argv = [PYTHON, str(BENCH_DIR / "floor_app.py"), "modules", str(FLOOR_MODULES), "--"]
    proc = Proc("floor-modules", [*argv, *STARTER_ARGS, "--port", str(port)], env=env, cwd=ROOT, port=port)
    proc.kind = "floor-modules"  # type: ignore[attr-defined]  # what wait_until_answers names
    try:
        wait_until_answers(proc, timeout=30.0, modern=False)  # type: ignore[arg-type]
        conn = http.client.HTTPConnection(HOST, port, timeout=10)
        try:
            status, answer = post(conn, list_body(modern=False), list_headers(modern=False))
        finally:
            conn.close()
        if status != 200:
            raise RuntimeError(f"floor: the starter app answered tools/list with HTTP {status}")
        FLOOR_ANSWER.write_bytes(answer)
        proc.popen.send_signal(signal.SIGUSR1)
        deadline = time.perf_counter() + 10
        while not FLOOR_MODULES.exists() or not FLOOR_MODULES.read_text().endswith("]"):
            if time.perf_counter() > deadline:
                raise RuntimeError(f"floor: the starter app wrote no module list\n{proc.tail()}")
            time.sleep(0.01)
    finally:
        proc.stop(grace=8)
    modules = json.loads(FLOOR_MODULES.read_text())
    imported = third_party(modules)
    packages = Counter(name.split(".")[0] for name in imported)
    return {
        "command": "python floor_app.py modules <file> -- " + " ".join(STARTER_ARGS) + " --port <port>",
        "modules": len(modules),
        "framework_modules": sum(1 for m in modules if m.split(".")[0] in ("mesh_framework", "starter_app")),
        "third_party_modules": len(imported),
        "packages": dict(sorted(packages.items(), key=lambda item: (-item[1], item[0]))),
    }


def send_calls(server: Server, count: int, *, modern: bool) -> int:
    """`count` tools/call add over 8 keep-alive connections; returns how many were answered 2xx."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("startup: `node` is not on PATH")
    argv = [
        node,
        str(AUTOCANNON),
        "-c",
        str(min(8, count)),
        "-a",
        str(count),
        "-m",
        "POST",
        "--json",
        "-b",
        call_body(1, 2, modern=modern),
    ]
    for name, value in call_headers(modern=modern).items():
        argv += ["-H", f"{name}={value}"]
    argv.append(f"http://{HOST}:{server.port}{MCP_PATH}")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"autocannon failed: {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    return int(result["2xx"])


def one_run(kind: str, calls: int, mode: str) -> dict[str, Any]:
    server = Server(kind, env=server_env(mode))
    try:
        answered = wait_until_answers(server, timeout=30.0, modern=True)
        startup = answered - server.t_exec
        rss_serving = rss_mib(server.pid)
        ok = 0
        if calls:
            ok = send_calls(server, calls // 2, modern=True) + send_calls(
                server, calls - calls // 2, modern=False
            )
            if ok != calls:
                raise RuntimeError(f"{kind}: only {ok} of {calls} calls answered 2xx\n{server.tail()}")
        rss_after = rss_mib(server.pid)
        return {
            "startup_s": startup,
            "rss_serving_mib": rss_serving,
            "rss_after_calls_mib": rss_after,
            "calls_ok": ok,
            "command": ENV_SHOWN.get(kind, "")
            + server.shown().replace(str(FLOOR_DIR), "<tmp>/mesh-bench-floor"),
            "cwd": "." if kind == "starter" else "benchmarks",
        }
    finally:
        server.stop(grace=8)


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    summary: dict[str, dict[str, Any]] = {}
    for kind, samples in runs.items():
        if not samples:
            continue
        times = [s["startup_s"] for s in samples]
        summary[kind] = {
            "label": SERVER_LABELS[kind],
            "command": samples[0]["command"],
            "cwd": samples[0]["cwd"],
            "startup_median_s": median(times),
            "startup_min_s": min(times),
            "startup_max_s": max(times),
            "rss_serving_median_mib": median([s["rss_serving_mib"] for s in samples]),
            "rss_after_calls_median_mib": median([s["rss_after_calls_mib"] for s in samples]),
            "rss_after_calls_max_mib": max(s["rss_after_calls_mib"] for s in samples),
        }
    return {"summary": summary, "framework": framework(runs)}


def framework(runs: dict[str, list[dict[str, Any]]]) -> dict[str, float] | None:
    """The starter app above the floor, run by run (they take turns): the medians of the differences."""
    pairs = list(zip(runs.get("starter", []), runs.get("floor", []), strict=False))
    if not pairs:
        return None
    return {
        "startup_median_s": median([s["startup_s"] - f["startup_s"] for s, f in pairs]),
        "rss_serving_median_mib": median([s["rss_serving_mib"] - f["rss_serving_mib"] for s, f in pairs]),
        "pairs": len(pairs),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--calls", type=int, default=1000, help="tools/call add sent before the second RSS reading"
    )
    parser.add_argument(
        "--modes",
        nargs="+",
        choices=sorted(ENV_MODES),
        default=["env"],
        help="env: the environment as is (default); pyc: a private bytecode cache (for a venv without .pyc)",
    )
    args = parser.parse_args()
    if not AUTOCANNON.exists():
        print(
            "startup: autocannon missing; installing it with scripts/install-node-tools.sh", file=sys.stderr
        )
        subprocess.run([str(ROOT / "scripts" / "install-node-tools.sh")], check=True, timeout=900)

    run = Run(short=args.runs < 10)
    results: dict[str, Any] = {}
    for mode in args.modes:
        failures: dict[str, str] = {}
        runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
        floor = capture_floor(mode)
        print(
            f"[{mode}] floor: {floor['third_party_modules']} third-party modules of {floor['modules']}",
            file=sys.stderr,
        )
        for run_no in range(-1, args.runs):  # run -1: untimed warm-up start (fills the bytecode cache)
            for kind in KINDS:
                if kind in failures:
                    continue
                try:
                    sample = one_run(kind, args.calls if run_no >= 0 else 0, mode)
                except Exception as exc:
                    if kind not in OPTIONAL:
                        raise
                    failures[kind] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1][:300]}"
                    print(f"[{mode}] {kind} failed, skipped: {failures[kind]}", file=sys.stderr)
                    continue
                if run_no < 0:
                    continue
                runs[kind].append(sample)
                print(
                    f"[{mode}] run {run_no + 1:2d} {kind:13s} start→tools/list "
                    f"{sample['startup_s'] * 1000:6.0f} ms  "
                    f"RSS {sample['rss_serving_mib']:.1f} → {sample['rss_after_calls_mib']:.1f} MiB",
                    file=sys.stderr,
                )
            time.sleep(0.2)
        results[mode] = summarize(runs)
        results[mode]["floor_modules"] = floor
        results[mode]["runs"] = runs
        results[mode]["failures"] = failures
    save_results(
        "startup",
        run,
        {
            "settings": {"runs": args.runs, "calls": args.calls},
            "modes": {m: ENV_MODES[m] for m in args.modes},
            "results": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
