"""docs/benchmarks-mesh.md: our agents and registry beside the real MCP Mesh, from mesh.json (mesh_bench.py)
and, when present, mesh_profile.json (mesh_profile.py); and the summary of it on docs/benchmarks.md."""

from __future__ import annotations

import json
import statistics
from typing import Any

from . import goals
from .text import DASH, X, count, fmt, missing, ratio, run_lines, table

__all__ = ["calc_values", "mesh_page", "mesh_summary"]

LABELS = {
    "ours-5s": "ours, heartbeat 5 s (default)",
    "ours-1s": "ours, heartbeat 1 s (MCP_MESH_HEALTH_INTERVAL=1)",
    "mcp": "MCP Mesh as shipped (heartbeat 5 s)",
}


def calc_values(res: dict[str, Any]) -> dict[str, float] | None:
    """Our calc p50 (ms), our throughput over the faster MCP Mesh variant's, and that variant's key."""
    calc = res.get("calc", {})
    ours = calc.get("ours")
    theirs = [calc[k] for k in ("mcp", "mcp-nodelay") if k in calc]
    if ours is None:
        return None
    values = {"p50_ms": ours["latency"]["p50_ms"]}
    if theirs:
        best = max(t["throughput"]["calls_per_s"] for t in theirs)
        values["throughput_ratio"] = ours["throughput"]["calls_per_s"] / best
    return values


def _targets(res: dict[str, Any]) -> list[str]:
    calc, topo = res.get("calc", {}), res.get("topology", {})
    rows: list[list[Any]] = []
    values = calc_values(res)
    if values is not None:
        mcp, nodelay = calc.get("mcp"), calc.get("mcp-nodelay")
        shipped = f"{mcp['latency']['p50_ms']:.1f} ms as shipped" if mcp else DASH
        if nodelay:
            shipped += f", {nodelay['latency']['p50_ms']:.1f} ms with TCP_NODELAY"
        rows.append(
            [
                goals.CALC_P50.measure,
                goals.CALC_P50.text(),
                f"{values['p50_ms']:.2f} ms",
                shipped,
                goals.CALC_P50.verdict(values["p50_ms"]),
            ]
        )
        if "throughput_ratio" in values:
            theirs = [calc[k] for k in ("mcp", "mcp-nodelay") if k in calc]
            best = max(t["throughput"]["calls_per_s"] for t in theirs)
            rows.append(
                [
                    goals.CALC_THROUGHPUT.measure,
                    goals.CALC_THROUGHPUT.text(),
                    f"{calc['ours']['throughput']['calls_per_s']:.0f} calls/s = "
                    f"**{values['throughput_ratio']:.2f} {X}**",
                    f"{best:.0f} calls/s",
                    goals.CALC_THROUGHPUT.verdict(values["throughput_ratio"]),
                ]
            )
    for key, label in (("ours-5s", "heartbeat 5 s (default)"), ("ours-1s", "heartbeat 1 s")):
        t, tm = topo.get(key), topo.get("mcp")
        if t:
            value = t["provider_start"]["median_s"]
            rows.append(
                [
                    f"{goals.PROVIDER_START.measure}, {label}",
                    goals.PROVIDER_START.text(),
                    f"{value:.2f} s",
                    f"{tm['provider_start']['median_s']:.2f} s" if tm else DASH,
                    goals.PROVIDER_START.verdict(value),
                ]
            )
    if not rows:
        return []
    return [*table(["measure", "target", "ours", "MCP Mesh, same run", "verdict"], rows), ""]


def _faults(res: dict[str, Any]) -> list[str]:
    topo = res.get("topology", {})
    t5, tm = topo.get("ours-5s"), topo.get("mcp")
    if not t5 or "crash" not in t5:
        return []
    rows: list[list[Any]] = []
    a = t5["crash"]["with_alternate"]
    am = tm["crash"]["with_alternate"] if tm and "crash" in tm else None
    theirs = DASH
    if am:
        after = am.get("success_again_s")
        theirs = f"{am['failed_after_first']} of {am['calls']} failed after the first" + (
            f", success again after {after:.1f} s" if after is not None else ", no success again"
        )
    rows.append(
        [
            "provider SIGKILLed, an alternate running: failed calls after the first",
            f"{a['failed_after_first']} of {a['calls']} ({a['failed']} failed in all)",
            theirs,
        ]
    )
    md = t5["missing_dependency"]["first_call"]
    mdm = tm["missing_dependency"]["first_call"] if tm else None
    rows.append(
        [
            "dependency missing: the first call to a fresh consumer answers",
            f"{md['kind']} after {md['latency_ms']:.0f} ms",
            f"{mdm['kind']} after {mdm['latency_ms']:.0f} ms" if mdm else DASH,
        ]
    )
    b = t5["crash"]["without_alternate"]
    bm = tm["crash"]["without_alternate"] if tm and "crash" in tm else None
    rows.append(
        [
            "provider SIGKILLed, no alternate: first answer; calls over 1 s",
            f"{b['first_answer']['kind']} after {b['first_answer']['latency_ms']:.0f} ms; "
            f"{b['hung_calls_over_1s']} of {b['calls']}",
            f"{bm['first_answer']['kind']} after {bm['first_answer']['latency_ms']:.0f} ms; "
            f"{bm['hung_calls_over_1s']} of {bm['calls']}"
            if bm
            else DASH,
        ]
    )
    return [*table(["behaviour", "ours", "MCP Mesh, same run"], rows), ""]


def mesh_summary(res: dict[str, Any] | None) -> list[str]:
    """The section of docs/benchmarks.md that points to the mesh page: its targets and fault rows."""
    lines = ["## Mesh: agents calling agents, beside MCP Mesh (`benchmarks/mesh_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("the mesh", "benchmarks/run_mesh.sh"), ""]
    lines += [
        "Every figure, with method, commands and machine: [benchmarks-mesh.md](benchmarks-mesh.md). "
        f"Run {res['run']['date']}, 1-minute load average {res['run']['loadavg_start'][0]:.2f} at the start, "
        f"{res['run']['loadavg_end'][0]:.2f} at the end"
        + (" (short configuration)" if res["run"]["short"] else "")
        + ".",
        "",
    ]
    return [*lines, *_targets(res), *_faults(res)]


def mesh_page(res: dict[str, Any] | None, prof: dict[str, Any] | None) -> str:
    out = [
        "# Mesh benchmarks: mesh_framework beside the real MCP Mesh",
        "",
        "Written by `benchmarks/report.py` from `benchmarks/results/mesh.json` (`benchmarks/mesh_bench.py`, "
        "run "
        "by `benchmarks/run_mesh.sh`); do not edit by hand. Single-agent figures (server CPU per call, "
        "start-up): [benchmarks.md](benchmarks.md).",
        "",
    ]
    if res is None:
        return "\n".join([*out, *missing("the mesh", "benchmarks/run_mesh.sh")]) + "\n"
    out += [*run_lines(res["run"]), ""]
    out += [
        "Every side's processes run at once and the measurements alternate between the sides, the order "
        "rotating: calc latency in chunks of calls, calc throughput in rounds, provider start run by run, "
        "the "
        "registry load by load. The crash tests kill providers and run one side after the other.",
        "",
        "## Targets",
        "",
        *_targets(res),
        "## Behaviour under faults",
        "",
        *_faults(res),
    ]
    m = res["run"]["machine"]
    out += [
        "## Machine",
        "",
        f"* nproc: {m['nproc']} ({m['cpu_model']}), Linux {m['kernel']}",
        f"* Python {m['python']} (.venv); {m['packages']}",
        f"* node {m['node']}, autocannon 8 (`.tools/autocannon`); MCP Mesh: {res['mcp_mesh']}, its own "
        "Python venv `.tools/mcp-mesh-venv`",
        "",
        "## What runs",
        "",
        "* **ours**: `.venv/bin/python -m mesh_framework.cli registry --port <free> --timeout 20` (the "
        "embedded "
        "registry run standalone, in-memory store), and from `benchmarks/mesh_agents/` "
        "`MCP_MESH_REGISTRY_URL=<it> MESH_LOGGING__LEVEL=WARNING .venv/bin/python -m mesh_framework.cli run "
        "bench_adder|bench_calc --host 127.0.0.1 --port <free>`. `bench_adder.py` has `add(a: int, b: int) "
        "-> "
        "int` (a plain `def`, like the MCP Mesh fixture); `bench_calc.py` has `async calc(a, b, add: "
        "McpMeshTool) -> int` returning `await add(a=a, b=b)`.",
        "* **MCP Mesh**: `HOST=127.0.0.1 PORT=<free> DATABASE_URL=<tmp>/registry.db HEALTH_CHECK_INTERVAL=10 "
        "DEFAULT_TIMEOUT_THRESHOLD=20 mcp-mesh-registry` (its defaults, SQLite) and `HOST=127.0.0.1 "
        "MCP_MESH_HTTP_HOST=127.0.0.1 MCP_MESH_HTTP_PORT=0 MCP_MESH_REGISTRY_URL=<it> "
        ".tools/mcp-mesh-venv/bin/python tests/interop/mesh_agents/adder.py|calc_consumer.py` (tool "
        "`mesh_calc`; default debounce 1 s and heartbeat 5 s).",
        "* **MCP Mesh + NODELAY**: the same agents with `PYTHONPATH=benchmarks/mesh_agents/nodelay`, whose "
        "`sitecustomize.py` sets TCP_NODELAY on every TCP listening socket (accepted sockets inherit it). "
        "mcp-mesh itself is not modified.",
        "* Client requests are the same for every side: a legacy stateless `tools/call` (no initialize, no "
        "session), `Content-Type: application/json`, `Accept: application/json, text/event-stream`.",
        "",
    ]
    opts = res["options"]
    calc, topo = res.get("calc", {}), res.get("topology", {})
    if calc:
        out += _calc_sections(calc, opts)
    if topo:
        out += _topology_sections(topo, opts)
    for key, small in (("registry", False), ("registry_small", True)):
        if res.get(key):
            out += _registry_section(res[key], opts, small=small)
    if calc or topo:
        out += _findings(res)
    if prof:
        out += _profile_section(prof)
    return "\n".join(out).rstrip() + "\n"


def _calc_sections(calc: dict[str, Any], opts: dict[str, Any]) -> list[str]:
    o = calc["ours"]["latency"]
    out = [
        "## calc latency, sequential (client → consumer → provider)",
        "",
        f"One keep-alive HTTP/1.1 connection from a Python `http.client` client; {opts['warmup_calls']} "
        "warm-up "
        f"calls, then {opts['calls']} timed calls (bounded to {opts['latency_max_s']:.0f} s per side) in "
        f"{opts['latency_chunks']} chunks alternating between the sides. Every answer checked (`a + b`). CPU "
        "per call: utime+stime of each agent over the timed calls.",
        "",
    ]
    rows = []
    for r in calc.values():
        lat = r["latency"]
        rows.append(
            [
                r["label"],
                lat["calls"],
                lat["ok"],
                f"{lat['p50_ms']:.2f}",
                f"{lat['p99_ms']:.2f}",
                f"{lat['mean_ms']:.2f}",
                f"{lat['calls_per_s']:.0f}",
                f"{lat['cpu_ms_per_call']['consumer']:.2f}",
                f"{lat['cpu_ms_per_call']['provider']:.2f}",
                ratio(lat["p50_ms"], o["p50_ms"]),
                " / ".join(f"{x:.2f}" for x in lat["chunk_p50_ms"]),
                " / ".join(f"{x:.2f}" for x in lat.get("chunk_other_cores", [])),
            ]
        )
    header = [
        "side",
        "calls",
        "ok",
        "p50 ms",
        "p99 ms",
        "mean ms",
        "calls/s",
        "consumer CPU ms/call",
        "provider CPU ms/call",
        "p50 ÷ ours",
        "p50 per chunk ms",
        "other load per chunk, cores",
    ]
    out += [*table(header, rows), ""]
    ot = calc["ours"]["throughput"]
    out += [
        "## calc throughput under concurrent load",
        "",
        f"`node benchmarks/mesh_load.js` (autocannon 8's API: `-c {ot['connections']}`, "
        f"{opts['load_warmup']:g} s "
        f"warm-up, then `-d {opts['duration']:g}` with a cap of {opts['max_requests']} requests; "
        f"{count(opts['rounds'], 'round')} alternating between the sides, the round with the median calls/s "
        "shown) "
        'against each consumer; every answer body is checked for `"structuredContent":{"result":42}`. CPU '
        "utilisation = CPU seconds of the process / wall seconds (1.0 = one core). Load generator, agents "
        "and "
        "registry share the machine's cores.",
        "",
    ]
    rows = []
    for r in calc.values():
        t = r["throughput"]
        rows.append(
            [
                r["label"],
                t["good"],
                t["bad"] + t["non2xx"] + t["errors"] + t["timeouts"],
                f"**{t['calls_per_s']:.0f}**",
                t["p50_ms"],
                t["p99_ms"],
                f"{t['cpu_util']['consumer']:.2f} / {t['cpu_util']['provider']:.2f}",
                f"{t['cpu_ms_per_call']['consumer']:.2f} / {t['cpu_ms_per_call']['provider']:.2f}",
                f"{t['loadgen_cpu_util']:.2f}",
                ratio(ot["calls_per_s"], t["calls_per_s"]),
                " / ".join(f"{x:.0f}" for x in t["rounds_calls_per_s"]),
                " / ".join(f"{x:.2f}" for x in t.get("rounds_other_cores", [])),
            ]
        )
    header = [
        "side",
        "good",
        "bad",
        "calls/s",
        "p50 ms",
        "p99 ms",
        "CPU util consumer / provider",
        "CPU ms/call consumer / provider",
        "load gen CPU",
        "ours ÷ this",
        "calls/s per round",
        "other load per round, cores",
    ]
    out += [*table(header, rows), ""]
    out += [
        "## Memory (VmRSS from /proc/PID/status)",
        "",
        "Once serving (after the first successful calc call) and after the latency and throughput runs.",
        "",
    ]
    rows = [
        [r["label"], role, f"{r['rss_mib']['serving'][role]:.1f}", f"{r['rss_mib']['after_load'][role]:.1f}"]
        for r in calc.values()
        for role in ("provider", "consumer", "registry")
    ]
    return [*out, *table(["side", "process", "serving MiB", "after load MiB"], rows), ""]


def _topology_sections(topo: dict[str, Any], opts: dict[str, Any]) -> list[str]:
    out = [
        "## Provider start → consumer's first successful call",
        "",
        "The consumer runs first, alone (its dependency unresolved), and has answered once. Then the "
        "provider "
        "process is started (t0 = just before exec) and the consumer is called every 20 ms over one "
        "keep-alive "
        "connection until a call returns the right sum; then the provider is stopped with SIGTERM (it "
        "unregisters) and the consumer is polled until it answers 'dependency unavailable' again before the "
        f"next run. {count(opts['runs'], 'run')} each; the same consumer throughout.",
        "",
    ]
    rows = []
    for key, t in topo.items():
        ps = t["provider_start"]
        rows.append(
            [
                LABELS.get(key, key),
                f"**{ps['median_s']:.2f}**",
                ", ".join(f"{r['start_to_ok_s']:.2f}" for r in ps["runs"]),
                fmt(ps.get("exec_to_registered_median_s"), 2),
                f"{ps['graceful_stop_median_s']:.2f}",
            ]
        )
    header = [
        "side",
        "median s",
        "runs s",
        "exec → registered, median s",
        "SIGTERM → 'unavailable', median s",
    ]
    out += [*table(header, rows), "", "Dependency missing (a fresh consumer, no provider anywhere):", ""]
    rows = []
    for key, t in topo.items():
        md = t["missing_dependency"]
        rows.append(
            [
                LABELS.get(key, key),
                f"{md['first_call']['latency_ms']:.0f} ms",
                f"{md['second_call']['latency_ms']:.0f} ms",
                md["first_call"]["text"][:140],
            ]
        )
    out += [*table(["side", "first call", "second call", "answer"], rows), ""]
    out += [
        "## Provider crash (SIGKILL)",
        "",
        "Two providers run; the one the consumer uses is killed with SIGKILL (found by its CPU time growing "
        "while the consumer answers probe calls) while the consumer is called sequentially with a "
        f"{opts['crash_pause'] * 1000:.0f} ms pause between calls (bounded: {opts['crash_max_s']:.0f} s; "
        "stop "
        f"once 2 s passed without a failure, at least {opts['crash_min_s']:.0f} s). Then the remaining "
        "provider is killed too (no alternate left): calls go on until the consumer answers 'dependency "
        "unavailable' for 1 s, or the bound.",
        "",
        "(a) an alternate provider is running:",
        "",
    ]
    rows = []
    for key in ("ours-5s", "mcp"):
        t = topo.get(key)
        if t and "crash" in t:
            a = t["crash"]["with_alternate"]
            failure = next((v for k, v in a["first_text_by_kind"].items() if k != "ok"), "") or ""
            rows.append(
                [
                    LABELS[key],
                    a["calls"],
                    a["failed"],
                    fmt(a["first_failure_s"], 2),
                    fmt(a["success_again_s"], 2),
                    f"{a['max_latency_ms']:.0f}",
                    failure[:120],
                ]
            )
    header = [
        "side",
        "calls after kill",
        "failed",
        "first failure at s",
        "success again at s",
        "max latency ms",
        "failure answer",
    ]
    out += [*table(header, rows), "", "(b) no alternate:", ""]
    rows = []
    for key in ("ours-5s", "mcp"):
        t = topo.get(key)
        if t and "crash" in t:
            b = t["crash"]["without_alternate"]
            fa = b["first_answer"]
            rows.append(
                [
                    LABELS[key],
                    b["calls"],
                    f"{fa['latency_ms']:.0f} ms ({fa['kind']})",
                    fmt(b["first_clear_answer_s"], 3),
                    fmt(b["unavailable_from_s"], 2),
                    b["hung_calls_over_1s"],
                    f"{b['max_latency_ms']:.0f}",
                    fa["text"][:140],
                ]
            )
    header = [
        "side",
        "calls",
        "first answer",
        "first clear error at s",
        "'unavailable' (dependency dropped) from s",
        "calls over 1 s",
        "max latency ms",
        "first answer text",
    ]
    return [*out, *table(header, rows), ""]


def _registry_section(reg: dict[str, Any], opts: dict[str, Any], *, small: bool) -> list[str]:
    r0 = next(iter(reg.values()))
    if small:
        out = [
            f"### The same with a fleet of {r0['fleet']}",
            "",
            "The MCP Mesh registry's cost per request grows with the number of agents it holds.",
            "",
        ]
    else:
        out = [
            "## Registry alone: a simulated fleet of heartbeats",
            "",
            f"{r0['fleet']} distinct agent ids (`fleet-prov-NNNNN` / `fleet-cons-NNNNN`): even ones a "
            "provider, "
            "odd ones a consumer, each body a captured MCP Mesh 3.7 heartbeat "
            "(`benchmarks/mesh_agents/payloads/`: "
            "4 tools with schemas; the consumer depends on `add`) with its own id and port. The fleet first "
            "registers once, then: full POSTs of the whole fleet, full POSTs of the providers only, HEAD "
            f"`/heartbeat/{{id}}` of the whole fleet; each `-c {opts['registry_connections']}` for "
            f"{opts['registry_duration']:g} s (cap {opts['registry_cap']}). POSTs: autocannon's API with a "
            "pre-generated body set (`benchmarks/mesh_load.js`); HEADs: Node's own http client (keep-alive "
            "loops), because autocannon's parser stalls on a HEAD answer without content-length, which is "
            "what "
            "the MCP Mesh registry sends. Registry CPU = its utime+stime / requests. 'Other load' = the "
            "machine's busy CPU (/proc/stat) minus the registry, the load generator and this script.",
            "",
        ]
    rows = []
    for side, r in reg.items():
        name = "ours (`mesh registry`, in memory)" if side == "ours" else "MCP Mesh registry binary (SQLite)"
        for kind, label in (
            ("post", "full POST, whole fleet"),
            ("post_providers", "full POST, providers only"),
            ("head", "HEAD"),
        ):
            x = r[kind]
            rows.append(
                [
                    name,
                    label,
                    f"**{x['per_s']:.0f}**",
                    fmt(x["p50_ms"], 2),
                    fmt(x["p99_ms"], 2),
                    f"{x['registry_cpu_util']:.2f}",
                    f"{x['registry_cpu_us_per_req']:.0f}",
                    f"{x['loadgen_cpu_util']:.2f}",
                    json.dumps(x["status"]),
                    x["errors"] + x["timeouts"],
                    fmt(x.get("other_cores"), 2),
                ]
            )
    header = [
        "registry",
        "load",
        "req/s",
        "p50 ms",
        "p99 ms",
        "registry CPU util",
        "registry CPU µs/req",
        "load gen CPU util",
        "statuses",
        "errors+timeouts",
        "other load, cores",
    ]
    out += [*table(header, rows), ""]
    if "ours" in reg and "mcp" in reg:
        o, mm = reg["ours"], reg["mcp"]
        out += [
            f"Ours ÷ MCP Mesh: full POSTs (fleet) {ratio(o['post']['per_s'], mm['post']['per_s'])}, "
            "providers "
            f"only {ratio(o['post_providers']['per_s'], mm['post_providers']['per_s'])}, HEADs "
            f"{ratio(o['head']['per_s'], mm['head']['per_s'])}; registry CPU per request (fleet POST) "
            f"{ratio(o['post']['registry_cpu_us_per_req'], mm['post']['registry_cpu_us_per_req'])}.",
            "",
        ]
        rows = [
            [
                "ours" if s == "ours" else "MCP Mesh",
                r["registered"],
                f"{r['register_pass_s']:.1f}",
                f"{r['rss_mib']['idle_after_register']:.1f}",
                f"{r['rss_mib']['after_load']:.1f}",
            ]
            for s, r in reg.items()
        ]
        header = [
            "registry",
            "agents registered",
            "registration pass s",
            "RSS after registration MiB",
            "RSS after load MiB",
        ]
        out += [*table(header, rows), ""]
    return out


def _findings(res: dict[str, Any]) -> list[str]:
    """What the tables say, with the figures of this run only."""
    calc, topo = res.get("calc", {}), res.get("topology", {})
    out = ["## Findings", ""]
    ours = calc.get("ours")
    if ours:
        lat, thr = ours["latency"], ours["throughput"]
        out.append(
            f"* **Sequential calc**: p50 {lat['p50_ms']:.2f} ms against a target of {goals.CALC_P50.text()}; "
            f"the consumer spends {lat['cpu_ms_per_call']['consumer']:.2f} ms of CPU per call and the "
            "provider "
            f"{lat['cpu_ms_per_call']['provider']:.2f} ms, on the same cores as the client. The provider's "
            "`add` "
            "is a plain `def` (like MCP Mesh's fixture), which the framework runs in a worker thread."
        )
        mcp = calc.get("mcp")
        if mcp:
            out.append(
                f"* **MCP Mesh's sequential p50** is {mcp['latency']['p50_ms']:.1f} ms as shipped"
                + (
                    f" and {calc['mcp-nodelay']['latency']['p50_ms']:.1f} ms with TCP_NODELAY on its agents' "
                    "sockets, the only difference between the two: without it, its answers wait for the "
                    "client's "
                    "delayed ACK"
                    if "mcp-nodelay" in calc
                    else ""
                )
                + "."
            )
        out.append(
            f"* **Throughput**: ours {thr['calls_per_s']:.0f} calls/s with the consumer at "
            f"{thr['cpu_util']['consumer']:.2f} of a core and the provider at "
            f"{thr['cpu_util']['provider']:.2f}"
            + (
                f", while other work took {statistics.median(thr['rounds_other_cores']):.2f} cores (median "
                "of the "
                "rounds)."
                if thr.get("rounds_other_cores")
                else "."
            )
        )
    t5 = topo.get("ours-5s")
    if t5:
        ps = t5["provider_start"]
        registered = ps.get("exec_to_registered_median_s")
        out.append(
            f"* **Provider start → first successful call**: {ps['median_s']:.2f} s median"
            + (
                f", of which {registered:.2f} s is the provider's own start (exec → registered)"
                if registered
                else ""
            )
            + "; a call that finds its dependency unresolved wakes the consumer's heartbeat at once, so the "
            "heartbeat interval does not set this figure"
            + (
                f" (heartbeat 1 s: {topo['ours-1s']['provider_start']['median_s']:.2f} s)"
                if "ours-1s" in topo
                else ""
            )
            + "."
        )
    return [*out, ""]


def _profile_section(prof: dict[str, Any]) -> list[str]:
    ld = prof["load"]
    out = [
        "## Where our calc path spends its CPU (py-spy, `benchmarks/mesh_profile.py`)",
        "",
        *run_lines(prof["run"]),
        "",
        f"`py-spy record --format raw` on both agents while the consumer is loaded ({ld['connections']} "
        f"connections, {ld['calls_per_s']:.0f} calls/s, p50 {ld['p50_ms']} ms). Shares are of the busy "
        "samples; "
        f"ms/call = share {X} the agent's measured CPU per call.",
        "",
    ]
    for role in ("consumer", "provider"):
        p = prof[role]
        out += [
            f"**{role}**: {p['cpu_ms_per_call']:.2f} ms CPU per call ({p['busy_samples']} busy samples)",
            "",
        ]
        for key, title in (
            ("self_by_package", "Self time by package"),
            ("self_by_function", "Self time by function"),
            ("inclusive_by_package", "Inclusive, by package"),
        ):
            rows = [[f"{x['pct']:.1f} %", f"{x['ms_per_call']:.3f}", x["name"]] for x in p[key][:10]]
            out += [f"{title}:", "", *table(["share", "ms/call", "name"], rows), ""]
    return out
