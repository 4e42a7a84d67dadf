"""The tool callbacks and catalog section, from callbacks.json (callbacks_bench.py)."""

from __future__ import annotations

from typing import Any

from .text import X, count, missing, run_lines

__all__ = ["callbacks_section"]

LABELS = {
    "bare-stdio": "bare SDK `Client`, server-everything stdio `echo`",
    "callback-stdio": "callback, server-everything stdio `echo`",
    "bare-everything-http": "bare SDK `Client`, server-everything streamableHttp `echo`",
    "callback-everything-http": "callback, server-everything streamableHttp `echo`",
    "bare-agent-http": "bare SDK `Client`, our agent (bench_agent) `add`",
    "callback-agent-http": "callback, our agent (bench_agent) `add`",
    "direct-bare-stdio": "direct: bare SDK `Client` → server-everything stdio",
    "direct-callback-stdio": "direct: callback → server-everything stdio",
    "direct-bare-everything-http": "direct: bare SDK `Client` → server-everything streamableHttp",
    "plain-agent-bare-http": "no gateway: bare SDK `Client` → our agent's own `add` (HTTP)",
    "gateway-bare-http": "gateway: bare SDK `Client` → gateway agent (HTTP) → server-everything stdio",
    "gateway-callback-http": "gateway: callback → gateway agent (HTTP) → server-everything stdio",
}
SHORT = {
    "callback-stdio": "server-everything, stdio",
    "callback-everything-http": "server-everything, streamableHttp",
    "callback-agent-http": "our agent (bench_agent `add`), HTTP",
}


def call_table(rows: dict[str, Any], pairs: dict[str, str]) -> list[str]:
    lines = [
        f"| target | p50 µs | p99 µs | mean µs | client CPU µs/call | server CPU µs/call | calls/s "
        f"| p50 {X} anchor | client CPU {X} anchor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        anchor = pairs.get(name)
        if anchor:
            p50 = f"**{row['p50_us'] / rows[anchor]['p50_us']:.2f}**"
            cpu = f"{row['client_cpu_us'] / rows[anchor]['client_cpu_us']:.2f}"
        else:
            p50 = cpu = "1 (anchor)" if name in pairs.values() else "-"
        server = "-" if row["server_cpu_us"] is None else f"{row['server_cpu_us']:.0f}"
        lines.append(
            f"| {LABELS[name]} | {row['p50_us']:.0f} | {row['p99_us']:.0f} | {row['mean_us']:.0f} | "
            f"{row['client_cpu_us']:.0f} | {server} | {row['calls_per_s']:.0f} | {p50} | {cpu} |"
        )
    return lines


def gateway_cpu_text(rows: dict[str, Any]) -> list[str]:
    """Where the hop's CPU goes, from the server and client CPU columns of the same run."""
    gateway, direct = rows["gateway-bare-http"], rows["direct-callback-stdio"]
    plain = rows["plain-agent-bare-http"]
    if gateway["server_cpu_us"] is None or direct["server_cpu_us"] is None or plain["server_cpu_us"] is None:
        return []
    agent = gateway["server_cpu_us"] - direct["server_cpu_us"]
    parts = plain["server_cpu_us"] + direct["client_cpu_us"]
    return [
        f"Where the hop's CPU goes: the gateway agent itself uses about {agent:.0f} µs per call (its server "
        f"CPU minus server-everything's own, {direct['server_cpu_us']:.0f} µs in the direct stdio row), "
        f"against {plain['server_cpu_us']:.0f} µs for an agent serving its own tool plus "
        f"{direct['client_cpu_us']:.0f} µs for a callback call over stdio ({parts:.0f} µs together); the "
        f"caller's SDK client spends {gateway['client_cpu_us']:.0f} µs per HTTP call.",
        "",
    ]


def cpu_floor_text(d: dict[str, Any], nproc: int) -> str:
    start = d.get("server_start_cpu_s")
    if not start:
        return ""
    return (
        f"A server-everything process uses {start:.2f} s of CPU from start to exit (median, reaped "
        f"children's times), most of it node starting up: {d['servers']} of them on {nproc} cores need at "
        f"least {d['cpu_floor_s']:.2f} s however they are started, so on this machine the floor is that "
        f"(and the bare SDK starting {d['servers']} at once), not the slowest single server."
    )


def callbacks_section(res: dict[str, Any] | None) -> list[str]:
    lines = ["## Tool callbacks and the catalog (`benchmarks/callbacks_bench.py`)", ""]
    if res is None:
        return [*lines, *missing("tool callbacks", ".venv/bin/python benchmarks/callbacks_bench.py"), ""]
    a = res["args"]
    rat, per_call = res["ratios"], res["per_call"]
    d = res["discovery"]
    s = d["median_s"]
    nproc = res["run"]["machine"]["nproc"]
    lines += [*run_lines(res["run"]), ""]
    lines += [
        "A tool callback over a catalog server beside a bare `mcp` SDK session calling the same server, and "
        "the discovery of several servers at once beside the slowest one alone:",
        "",
        "| measure | measured (same run) |",
        "|---|---|",
    ]
    for r in rat:
        lines.append(
            f"| callback / bare SDK per call, p50: {SHORT[r['ours']]} "
            f"| **{r['p50']:.2f} {X}** (median of the rounds' ratios {r['median_round_p50']:.2f}; "
            f"client CPU {r['client_cpu']:.2f} {X}) |"
        )
    lines.append(
        f"| discovery, {d['servers']} stdio servers in one provider / slowest alone "
        f"| **{d['parallel_over_slowest']:.2f} {X}** ({d['parallel_over_sum']:.2f} {X} the sum of the "
        f"{d['servers']} alone, {s['ours_sum_singles'] / s['ours_slowest_single']:.1f} {X} the slowest; "
        f"{d['parallel_over_bare_parallel']:.2f} {X} the bare SDK starting {d['servers']} at once) |"
    )
    own = res.get("own_cost")
    lines += [
        "",
        f"### Per call ({a['calls']} stdio / {a['http_calls']} HTTP sequential calls per target, "
        f"{a['rounds']} interleaved rounds, {a['warmup']} warm-up calls)",
        "",
        "`callback` is `await callback.call(args)` from `McpToolCallbackProvider.from_catalog(...)` "
        "(its answer unwrapped to a Python value); `bare SDK` is `await client.call_tool(name, args)` on "
        "`mcp.client.client.Client(..., cache=None)` entered once. Stdio: each client has its own "
        "server-everything process; HTTP: both clients talk to the same server. Latency as the caller sees "
        "it; client CPU = the benchmark process's CPU time over the calls; server CPU = utime+stime of the "
        "server process(es) over the calls (/proc, 10 ms ticks).",
        "",
        *call_table(per_call, {r["ours"]: r["anchor"] for r in rat}),
        "",
        "Per-round p50 ratios (callback / bare): "
        + "; ".join(
            f"{r['ours'].removeprefix('callback-')}: " + ", ".join(f"{x:.2f}" for x in r["per_round_p50"])
            for r in rat
        ),
        "",
    ]
    if own is not None:
        bare_cpu = per_call["bare-stdio"]["client_cpu_us"]
        lines += [
            f"The callback's own cost, in process (`callback.call` over a stub session that answers at once, "
            f"best of 5 {X} {own['calls']} calls): **{own['own_us']:.1f} µs CPU per call** "
            f"({own['own_call_result_us']:.1f} µs for `call_result`), against {bare_cpu:.0f} µs of client "
            f"CPU per bare SDK stdio call above. The SDK adds {own['deadline_us']:.1f} µs per request for "
            "the deadline the callback's connection sets (`call_timeout`; `anyio.move_on_after(30)` against "
            "`move_on_after(None)`, measured here). Client CPU ratio these two account for: "
            f"{(bare_cpu + own['own_us'] + own['deadline_us']) / bare_cpu:.3f} {X}.",
            "",
        ]
    lines += [
        f"### Discovery, cold ({d['servers']} server-everything stdio processes, median of "
        f"{count(d['runs'], 'run')})",
        "",
        "Time of `await provider.get_tool_callbacks()` on a new provider (start the processes, initialize, "
        "`tools/list`), closed after each run. The bare SDK rows do the same with `Client(...)`, one task "
        "per server.",
        "",
        "| discovery | median s | samples s |",
        "|---|---|---|",
    ]
    discovery_labels = {
        "ours_parallel": f"callbacks, {d['servers']} servers in one provider (parallel)",
        "ours_slowest_single": "callbacks, slowest of the servers discovered alone",
        "ours_sum_singles": f"callbacks, sum of the {d['servers']} discovered one after the other",
        "bare_parallel": f"bare SDK, {d['servers']} clients at once (anchor)",
        "bare_single": "bare SDK, one client",
    }
    for key, label in discovery_labels.items():
        samples = ", ".join(f"{x:.3f}" for x in d["samples_s"][key])
        lines.append(f"| {label} | **{s[key]:.3f}** | {samples} |")
    lines += [
        "",
        f"Parallel / slowest single = {d['parallel_over_slowest']:.2f}; parallel / sum = "
        f"{d['parallel_over_sum']:.2f}; ours parallel / bare SDK parallel = "
        f"{d['parallel_over_bare_parallel']:.2f}; one server, ours / bare SDK = "
        f"{d['single_over_bare_single']:.2f}. {cpu_floor_text(d, nproc)}",
        "",
    ]
    gw = res["gateway"]
    lines += ["### Gateway hop", ""]
    if "skipped" in gw:
        lines += [f"Skipped: {gw['skipped']}.", ""]
    else:
        rows = gw["per_call"]
        g = {f"{r['ours']}/{r['anchor']}": r for r in gw["ratios"]}
        hop = rows["gateway-bare-http"]["p50_us"] - rows["direct-callback-stdio"]["p50_us"]
        lines += [
            "`echo` through `callbacks_servers/gateway_agent` (our agent with `mcp.gateway: [everything]`; "
            "it starts server-everything over stdio and calls it through a callback) beside calling "
            f"server-everything directly; {a['http_calls']} calls per target, {a['rounds']} interleaved "
            "rounds. The gateway's server CPU counts the agent and its server-everything process.",
            "",
            *call_table(rows, {}),
            "",
            f"* gateway (bare SDK over HTTP) / direct callback over stdio: p50 "
            f"**{g['gateway-bare-http/direct-callback-stdio']['p50']:.2f} {X}**; the hop adds {hop:.0f} µs "
            "at p50",
            f"* gateway (bare SDK over HTTP) / direct bare SDK over stdio: p50 "
            f"{g['gateway-bare-http/direct-bare-stdio']['p50']:.2f} {X}",
            f"* gateway (bare SDK over HTTP) / our agent's own tool over HTTP (no gateway): p50 "
            f"{g['gateway-bare-http/plain-agent-bare-http']['p50']:.2f} {X}",
            f"* gateway (bare SDK over HTTP) / server-everything's own streamableHttp: p50 "
            f"{g['gateway-bare-http/direct-bare-everything-http']['p50']:.2f} {X}",
            f"* gateway through a callback / direct callback over stdio: p50 "
            f"{g['gateway-callback-http/direct-callback-stdio']['p50']:.2f} {X}",
            "",
            *gateway_cpu_text(rows),
        ]
    lines += ["Servers (commands from the repository root unless they say otherwise):", ""]
    lines += [f"* {k}: `{v}`" for k, v in res["commands"].items()]
    return [*lines, ""]
