"""Sections of one agent alone: server CPU per call, start-up and memory, the CLI's start, in process.

Results files: server_cpu.json (server_cpu.py), startup.json (startup.py), cli.json (cli_bench.py),
inproc.json (profile_inproc.py calls).
"""

from __future__ import annotations

from typing import Any

from . import goals
from .text import X, count, missing, run_lines, table

__all__ = [
    "cli_section",
    "cli_values",
    "cpu_ratios",
    "cpu_section",
    "inproc_ratio",
    "inproc_section",
    "framework_values",
    "starter_values",
    "startup_section",
]

CPU_HEADING = "## Server CPU per request under load (`benchmarks/server_cpu.py`)"
STARTUP_HEADING = "## Start-up and memory (`benchmarks/startup.py`)"
CLI_HEADING = "## The `mesh` command's start (`benchmarks/cli_bench.py`)"
INPROC_HEADING = "## In process, no sockets (`benchmarks/profile_inproc.py calls`)"


def cpu_ratios(cpu: dict[str, Any]) -> dict[str, float]:
    """Ratios of median server CPU per request: the three the targets are about and the anchors'."""
    us = {key: row["cpu_us_per_req"] for key, row in cpu["summary"].items()}
    return {
        "our_stack": us["mesh-2026"] / us["plain-ours"],
        "stock": us["mesh-2026"] / us["plain"],
        "legacy": us["mesh-legacy"] / us["plain"],
        "stock_same_request": us["mesh-2026"] / us["plain-2026"],
        "stack_vs_stock": us["plain-ours"] / us["plain-2026"],
        "sdk_2026": us["sdk-2026"] / us["plain"],
        "sdk_legacy": us["sdk-legacy"] / us["plain"],
        **({"sync": us["mesh-sync"] / us["mesh-2026"]} if "mesh-sync" in us else {}),
    }


def _per_round(cpu: dict[str, Any], num: str, den: str) -> str:
    pairs = zip(cpu["runs"][num], cpu["runs"][den], strict=True)
    return ", ".join(f"{a['cpu_us_per_req'] / b['cpu_us_per_req']:.2f}" for a, b in pairs)


def cpu_section(cpu: dict[str, Any] | None) -> list[str]:
    lines = [CPU_HEADING, ""]
    if cpu is None:
        return [*lines, *missing("server CPU", ".venv/bin/python benchmarks/server_cpu.py"), ""]
    s, cfg = cpu["summary"], cpu["settings"]
    r = cpu_ratios(cpu)
    lines += [*run_lines(cpu["run"]), ""]
    lines += [
        "One server process per server (one uvicorn worker, its httptools parser, asyncio loop, 127.0.0.1), "
        f"loaded one target at a time by autocannon with {cfg['connections']} connections for "
        f"{cfg['duration_s']:g} s (cap {cfg['max_requests']} requests) after a {cfg['warmup_s']:g} s "
        "warm-up; "
        f"{count(cfg['repeats'], 'round')}, every target once per round (the order rotating), median "
        "reported. Server "
        "CPU = delta of utime+stime in /proc/PID/stat divided by the 2xx answers (10 ms clock ticks). "
        "Latencies are autocannon's, whole milliseconds.",
        "",
        "The plain route (`benchmarks/plain_app.py`) reads and parses the request, adds the two numbers and "
        "answers a small JSON-RPC result: a `tools/call add` without the protocol. It is served two ways: by "
        "stock uvicorn (a, a'), and by the agents' own HTTP stack (a'': the socket options, uvicorn "
        "configuration and one-write protocol `mesh run` gives an agent, "
        "`benchmarks/plain_on_our_stack.py`).",
        "",
    ]
    plain, ours_stack = s["plain"]["cpu_us_per_req"], s["plain-ours"]["cpu_us_per_req"]
    rows = [
        [
            t["label"],
            f"{s[t['key']]['req_per_s']:.0f}",
            f"{s[t['key']]['p50_ms']:.0f}",
            f"{s[t['key']]['p99_ms']:.0f}",
            f"{s[t['key']]['cpu_util']:.2f}",
            f"**{s[t['key']]['cpu_us_per_req']:.0f}**",
            f"{s[t['key']]['cpu_us_per_req'] / plain:.2f}",
            f"{s[t['key']]['cpu_us_per_req'] / ours_stack:.2f}",
        ]
        for t in cpu["targets"]
    ]
    header = [
        "target",
        "req/s",
        "p50 ms",
        "p99 ms",
        "server CPU util",
        "server CPU µs/req",
        f"{X} (a)",
        f"{X} (a'')",
    ]
    lines += [*table(header, rows), ""]
    lines += [
        "Targets, and the ratio each is about (CPU per request, medians of this run):",
        "",
        f"* {goals.CPU_OUR_STACK.measure}: (b)/(a'') = **{r['our_stack']:.2f} {X}**, target "
        f"{goals.CPU_OUR_STACK.text()}: {goals.CPU_OUR_STACK.verdict(r['our_stack'])}. Both sent the same "
        "2026-07-28 request over the same HTTP stack: what the framework adds on top of it.",
        f"* {goals.CPU_STOCK.measure}: (b)/(a) = **{r['stock']:.2f} {X}**, target {goals.CPU_STOCK.text()}: "
        f"{goals.CPU_STOCK.verdict(r['stock'])}.",
        f"* {goals.CPU_LEGACY.measure}: (c)/(a) = **{r['legacy']:.2f} {X}**, target "
        f"{goals.CPU_LEGACY.text()}: {goals.CPU_LEGACY.verdict(r['legacy'])}.",
        *sync_lines(cpu, r),
        "",
        "Other ratios of the same run (informative):",
        "",
        f"* our HTTP stack against stock uvicorn, the same route and request: (a'')/(a') = "
        f"{r['stack_vs_stock']:.2f} {X}",
        f"* ours against the stock route sent the same 2026-07-28 request: (b)/(a') = "
        f"{r['stock_same_request']:.2f} {X}",
        f"* SDK low-level server against the stock route: (d)/(a) = {r['sdk_2026']:.2f} {X} (2026-07-28), "
        f"{r['sdk_legacy']:.2f} {X} (legacy)",
        "",
        "The same ratios within each round: "
        f"(b)/(a'') {_per_round(cpu, 'mesh-2026', 'plain-ours')}; (b)/(a) "
        f"{_per_round(cpu, 'mesh-2026', 'plain')}; "
        f"(c)/(a) {_per_round(cpu, 'mesh-legacy', 'plain')}.",
        "",
        "Servers (working directory `benchmarks/`, `<port>` a free port):",
        "",
        *[f"* {kind}: `{info['command']}`" for kind, info in cpu["servers"].items()],
        "",
        "Load, per target (`<port>` the target's server):",
        "",
        *[f"* {t['key']}: `{t['command']}`" for t in cpu["targets"]],
        "",
    ]
    return lines


def sync_lines(cpu: dict[str, Any], r: dict[str, float]) -> list[str]:
    """The sync tool's row against its async twin, and when a sync tool is the right choice."""
    if "sync" not in r:
        return []
    return [
        f"* {goals.SYNC_TOOL.measure}: (b')/(b) = **{r['sync']:.2f} {X}**, target "
        f"{goals.SYNC_TOOL.text()}: {goals.SYNC_TOOL.verdict(r['sync'])} (within each round: "
        f"{_per_round(cpu, 'mesh-sync', 'mesh-2026')}). The same body, served by the same process, the "
        "one as `def add_sync`, which the agent runs in a worker thread, the other as `async def add`, "
        "run on the event loop. The rule ([Tools](concepts.md#tools)): write a tool `def` when its body "
        "blocks (a sync client library, files, a database driver, `call_sync`), so that it never stalls "
        "the loop the agent's other calls share; write it `async def` when it awaits or only computes "
        "briefly, and it costs no hand-off.",
    ]


def starter_values(st: dict[str, Any]) -> tuple[float, float] | None:
    """The starter app's median start → `tools/list` (s) and its RSS once serving (MiB), mode `env`."""
    row = st["results"].get("env", {}).get("summary", {}).get("starter")
    if row is None:
        return None
    return row["startup_median_s"], row["rss_serving_median_mib"]


def startup_section(st: dict[str, Any] | None) -> list[str]:
    lines = [STARTUP_HEADING, ""]
    if st is None:
        return [*lines, *missing("start-up", ".venv/bin/python benchmarks/startup.py"), ""]
    cfg = st["settings"]
    lines += [*run_lines(st["run"]), ""]
    lines += [
        "Process start (just before `Popen`) → first `tools/list` (2026-07-28 path) answered 200 with the "
        "tool, polled by a tight loop of POSTs (1 ms pause after a refused connection) on a pre-picked free "
        f"port. VmRSS (/proc/PID/status) once serving and after {cfg['calls']} `tools/call add` (autocannon, "
        f"half on each path). Median of {count(cfg['runs'], 'run')} per server, runs alternating, after one "
        "untimed "
        "start of each. `starter` is the starter app as shipped (from the repository root; it starts an "
        "embedded registry, here on a free port); `mesh` the benchmark agent alone (one tool, no registry), "
        "like the SDK anchor; `mesh-registry` the same agent joining a mesh (its embedded registry). "
        "`floor` is what the starter app's dependencies cost without the framework: the starter app was "
        "started once before the timed runs and, once serving, wrote the modules it had imported; the floor "
        "server imports every third-party one of them and answers the starter app's own `tools/list` with a "
        "plain ASGI app on stock uvicorn (`benchmarks/floor_app.py`). The framework's own cost is the "
        "starter app minus the floor, run by run (they take turns), the median of the differences.",
        "",
    ]
    for mode, desc in st["modes"].items():
        res = st["results"][mode]
        summary = res["summary"]
        rows = [
            [
                kind,
                f"`{r['command']}` (in `{r['cwd']}`)",
                f"**{r['startup_median_s']:.3f} s** ({r['startup_min_s']:.3f}-{r['startup_max_s']:.3f})",
                f"{r['rss_serving_median_mib']:.1f} MiB",
                f"{r['rss_after_calls_median_mib']:.1f} MiB ({r['rss_after_calls_max_mib']:.1f})",
            ]
            for kind, r in summary.items()
        ]
        rows += [[kind, "(failed)", reason, "", ""] for kind, reason in res.get("failures", {}).items()]
        header = [
            "server",
            "command",
            "start → tools/list, median (min-max)",
            "RSS serving",
            "RSS after calls (max)",
        ]
        lines += [f"### Mode `{mode}`: {desc}", "", *table(header, rows), ""]
        starter = summary.get("starter")
        if starter:
            start, rss = starter["startup_median_s"], starter["rss_serving_median_mib"]
            lines += [
                f"* {goals.STARTUP.measure}: **{start:.3f} s**, target {goals.STARTUP.text()}: "
                f"{goals.STARTUP.verdict(start)}",
                f"* {goals.RSS.measure}: **{rss:.1f} MiB**, target {goals.RSS.text()}: "
                f"{goals.RSS.verdict(rss)}",
            ]
            lines += floor_lines(res, start, rss)
        if "mesh" in summary and "sdk" in summary:
            mesh, sdk = summary["mesh"], summary["sdk"]
            lines.append(
                f"* the benchmark agent against the SDK low-level server: start-up "
                f"{mesh['startup_median_s'] / sdk['startup_median_s']:.2f} {X}, RSS after calls "
                f"{mesh['rss_after_calls_median_mib'] / sdk['rss_after_calls_median_mib']:.2f} {X}"
            )
        lines.append("")
    machine = st["run"]["machine"]
    if not machine.get("venv_pyc_files"):
        lines += [
            "**The venv held no .pyc files**, so every start compiled the imported modules from source; "
            "mode `pyc` measures with a bytecode cache.",
            "",
        ]
    return lines


def framework_values(st: dict[str, Any]) -> tuple[float, float] | None:
    """The framework's own start-up (ms) and memory (MiB): the starter app above the floor, mode `env`."""
    row = st["results"].get("env", {}).get("framework")
    if not row:
        return None
    return row["startup_median_s"] * 1000, row["rss_serving_median_mib"]


def floor_lines(res: dict[str, Any], start: float, rss: float) -> list[str]:
    """The floor of this run and the framework's own cost above it, side by side."""
    floor, own, captured = res["summary"].get("floor"), res.get("framework"), res.get("floor_modules")
    if not floor or not own:
        return []
    lines = [
        "",
        *table(
            ["", "start → tools/list, median", "RSS serving, median"],
            [
                ["starter app", f"{start:.3f} s", f"{rss:.1f} MiB"],
                [
                    "floor (its dependencies alone)",
                    f"{floor['startup_median_s']:.3f} s",
                    f"{floor['rss_serving_median_mib']:.1f} MiB",
                ],
                [
                    f"**the framework's own** (median of {count(own['pairs'], 'paired run')})",
                    f"**{own['startup_median_s'] * 1000:.0f} ms**",
                    f"**{own['rss_serving_median_mib']:.1f} MiB**",
                ],
            ],
        ),
        "",
        f"* {goals.FRAMEWORK_START.measure}: **{own['startup_median_s'] * 1000:.0f} ms**, target "
        f"{goals.FRAMEWORK_START.text()}: {goals.FRAMEWORK_START.verdict(own['startup_median_s'] * 1000)}",
        f"* {goals.FRAMEWORK_RSS.measure}: **{own['rss_serving_median_mib']:.1f} MiB**, target "
        f"{goals.FRAMEWORK_RSS.text()}: {goals.FRAMEWORK_RSS.verdict(own['rss_serving_median_mib'])}",
    ]
    if captured:
        packages = ", ".join(f"{name} {n}" for name, n in captured["packages"].items())
        lines.append(
            f"* the floor's modules: the started starter app held {captured['modules']} modules, "
            f"{captured['framework_modules']} of them the framework's and the app's, "
            f"{captured['third_party_modules']} third-party ones (by package: {packages}), the rest the "
            "standard library's"
        )
    return lines


def cli_values(cli: dict[str, Any]) -> dict[str, float]:
    return {name: row["median_s"] for name, row in cli["summary"].items()}


def cli_section(cli: dict[str, Any] | None) -> list[str]:
    lines = [CLI_HEADING, ""]
    if cli is None:
        return [*lines, *missing("the CLI", ".venv/bin/python benchmarks/cli_bench.py"), ""]
    lines += [*run_lines(cli["run"]), ""]
    lines += [
        "Wall time from process start to exit, median of "
        f"{count(cli['runs'], 'run')} per command, the commands taking turns (the order rotating), after one "
        "untimed "
        "run of each. `list` asks a registry (`mesh registry` on a free port) that holds one agent; "
        "`meshctl` is MCP Mesh's CLI (Go), asked the same registry.",
        "",
    ]
    rows = [
        [name, f"`{row['command']}`", f"**{row['median_s']:.3f}**", f"{row['min_s']:.3f}-{row['max_s']:.3f}"]
        for name, row in cli["summary"].items()
    ]
    lines += [*table(["command", "as run", "median s", "min-max s"], rows), ""]
    for name in ("mesh --help", "mesh list"):
        value = cli["summary"].get(name, {}).get("median_s")
        if value is not None:
            lines.append(
                f"* `{name}`: **{value:.3f} s**, target {goals.CLI.text()}: {goals.CLI.verdict(value)}"
            )
    floor = cli["summary"].get("python -c pass", {}).get("median_s")
    if floor is not None:
        lines.append(f"* floor: the interpreter alone (`python -c pass`) starts and exits in {floor:.3f} s")
    return [*lines, ""]


def inproc_ratio(data: dict[str, Any]) -> float:
    us = data["us_per_request"]
    return float(us["mesh-2026"] / us["plain"])


def inproc_section(data: dict[str, Any] | None) -> list[str]:
    lines = [INPROC_HEADING, ""]
    if data is None:
        return [
            *lines,
            *missing("in-process calls", ".venv/bin/python benchmarks/profile_inproc.py calls"),
            "",
        ]
    us = data["us_per_request"]
    lines += [*run_lines(data["run"]), ""]
    lines += [
        "Each ASGI app called directly (no uvicorn, no socket, no client), process CPU time per request, "
        f"best of {count(data['rounds'], 'round')} of {data['n']} requests per path (every path once per "
        "round, the "
        "order rotating): what our endpoint costs beyond the plain handler (`benchmarks/plain_app.py`, which "
        "parses the request and answers the sum).",
        "",
    ]
    rows = [[key, f"{value:.1f}", f"{value / us['plain']:.2f}"] for key, value in us.items()]
    lines += [*table(["path", "CPU µs/request", f"{X} plain"], rows), ""]
    value = inproc_ratio(data)
    lines += [
        f"* {goals.INPROC.measure}: mesh-2026 / plain = **{value:.2f} {X}**, target {goals.INPROC.text()}: "
        f"{goals.INPROC.verdict(value)}",
        "",
    ]
    return lines
