"""Write docs/benchmarks.md from the JSON results in benchmarks/results/ (run by benchmarks/run_all.sh).

Usage: .venv/bin/python benchmarks/report.py [--results DIR] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from _common import RESULTS_DIR, ROOT

DOC = ROOT / "docs" / "benchmarks.md"


def _load(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.exists() else None


def _verdict(met: bool) -> str:
    return "**met**" if met else "**MISSED**"


def _miss(value: float, target: float) -> str:
    if value <= target:
        return f"{(1 - value / target) * 100:.0f} % under"
    return f"{(value / target - 1) * 100:.0f} % over"


def machine_section(machine: dict[str, Any]) -> list[str]:
    return [
        "## Machine",
        "",
        f"* date: {machine['date']}",
        f"* nproc: {machine['nproc']} ({machine['cpu_model']}), Linux {machine['kernel']}",
        f"* Python {machine['python']} (.venv); {machine['packages']}",
        f"* node {machine['node']}, autocannon 8 (`.tools/autocannon`, installed by "
        f"`scripts/install-node-tools.sh`)",
        f"* PYTHONDONTWRITEBYTECODE={machine.get('PYTHONDONTWRITEBYTECODE')} in this environment; "
        f".pyc files in .venv: {machine.get('venv_pyc_files')}",
        f"* a shared machine (load average {machine.get('loadavg_at_end', '?')} when the script "
        f"ended): other "
        "people's processes (tests, installs, type checks) ran at the same time, so absolute numbers "
        "are noisy; "
        "the ratios measured in one run are what count.",
        "",
    ]


def cpu_section(cpu: dict[str, Any]) -> tuple[list[str], list[tuple[str, str, str, str]]]:
    s = cpu["summary"]
    cfg = cpu["settings"]
    lines = [
        "## 1. Server CPU per request under load (`benchmarks/server_cpu.py`)",
        "",
        f"Command: `{cpu['invocation']}`",
        "",
        "One run, one server process per server (one uvicorn worker, its httptools parser, asyncio loop, "
        "127.0.0.1), loaded one "
        f"target at a time by autocannon with {cfg['connections']} connections for {cfg['duration_s']:g} s "
        f"(cap {cfg['max_requests']} requests) after a {cfg['warmup_s']:g} s warm-up; "
        f"{cfg['repeats']} rounds "
        "interleaving the targets, median reported. Server CPU = delta of utime+stime in "
        "/proc/PID/stat divided "
        "by the 2xx answers (10 ms clock ticks; in-flight requests at the end of a run add < 0.3 %). "
        "Latencies are autocannon's, whole milliseconds.",
        "",
        "| target | req/s | p50 ms | p99 ms | server CPU util | **server CPU µs/req** | **\u00d7 "
        "plain (a)** |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in cpu["targets"]:
        r = s[t["key"]]
        lines.append(
            f"| {t['label']} | {r['req_per_s']:.0f} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | "
            f"{r['cpu_util']:.2f} | {r['cpu_us_per_req']:.0f} | {r['cpu_ratio_vs_plain']:.2f} |"
        )
    lines += [
        "",
        "Per-round samples (µs/req): "
        + "; ".join(
            f"{t['key']} " + "/".join(f"{x['cpu_us_per_req']:.0f}" for x in cpu["runs"][t["key"]])
            for t in cpu["targets"]
        ),
        "",
    ]
    lines += ["Servers (working directory `benchmarks/`, `<port>` a free port):", ""]
    lines += [f"* {kind}: `{info['command']}`" for kind, info in cpu["servers"].items()]
    lines += ["", "Load, per target (`<port>` the target's server):", ""]
    lines += [f"* {t['key']}: `{t['command']}`" for t in cpu["targets"]]
    lines.append("")
    mesh_vs_sdk = [
        ("2026-07-28", s["mesh-2026"]["cpu_us_per_req"] / s["sdk-2026"]["cpu_us_per_req"]),
        ("legacy", s["mesh-legacy"]["cpu_us_per_req"] / s["sdk-legacy"]["cpu_us_per_req"]),
    ]
    lines += ["Ratios vs the anchors (CPU per request):", ""]
    lines += [
        f"* ours: (b)/(a) = {s['mesh-2026']['cpu_ratio_vs_plain']:.2f}, "
        f"(c)/(a) = {s['mesh-legacy']['cpu_ratio_vs_plain']:.2f}",
        *(
            [
                f"* ours against the plain route sent the same request: (b)/(a') = "
                f"{s['mesh-2026']['cpu_us_per_req'] / s['plain-2026']['cpu_us_per_req']:.2f} "
                "(informative; the target is against (a))"
            ]
            if "plain-2026" in s
            else []
        ),
        f"* SDK low-level: (d)/(a) = {s['sdk-2026']['cpu_ratio_vs_plain']:.2f} (2026-07-28), "
        f"{s['sdk-legacy']['cpu_ratio_vs_plain']:.2f} (legacy); DESIGN §6 anchor: 1.9-2.4 \u00d7 and "
        f"3.3-5 \u00d7",
    ]
    lines += [f"* ours / SDK low-level, {path}: {ratio:.2f}" for path, ratio in mesh_vs_sdk]
    plain_runs = cpu["runs"]["plain"]
    for key in ("mesh-2026", "mesh-legacy", "sdk-2026", "sdk-legacy"):
        per_round = [
            r["cpu_us_per_req"] / p["cpu_us_per_req"]
            for r, p in zip(cpu["runs"][key], plain_runs, strict=True)
        ]
        lines.append(f"* {key} / plain within each round: " + ", ".join(f"{x:.2f}" for x in per_round))
    lines.append("")
    close = [
        key
        for key, limit in (("mesh-2026", 1.5), ("mesh-legacy", 2.0))
        if s[key]["cpu_ratio_vs_plain"] > 0.85 * limit
    ]
    if close:
        lines += [
            f"**Close to the target: {', '.join(close)}.** Per-round ratios above vary by tens of percent on "
            "this shared machine, so a single run can land on either side; rerun before concluding.",
            "",
        ]
    if max(s["mesh-2026"]["p50_ms"], s["mesh-legacy"]["p50_ms"]) >= 30:
        lines += [
            "**Warning: p50 of our agent is >= 30 ms with the server mostly idle**, the signature of Nagle "
            "plus delayed ACK (fixed in 405362b by TCP_NODELAY on the listening socket and content-length on "
            "answers). Check `MeshApplication.bind()` and that answers are not written in several parts.",
            "",
        ]
    verdicts = []
    for key, label in (
        ("mesh-2026", "CPU/`tools/call`, 2026-07-28 (b)/(a)"),
        ("mesh-legacy", "CPU/`tools/call`, legacy (c)/(a)"),
    ):
        v = cpu["verdicts"][key]
        verdicts.append(
            (
                label,
                f"≤ {v['target']:g} \u00d7",
                f"{v['ratio']:.2f} \u00d7",
                f"{_verdict(v['met'])} ({_miss(v['ratio'], v['target'])})",
            )
        )
    return lines, verdicts


def startup_section(st: dict[str, Any]) -> tuple[list[str], list[tuple[str, str, str, str]]]:
    lines = [
        "## 2. Start-up and memory (`benchmarks/startup.py`)",
        "",
        "Servers (working directory `benchmarks/`): `mesh` is the benchmark agent alone "
        "(`registry.enabled: false` in its config), "
        "like the SDK "
        "anchor; `mesh-registry` is the same agent joining the mesh, which starts an embedded registry "
        "(the default when no registry URL is set).",
        "",
        f"Command: `{st['invocation']}`",
        "",
        "Process start (just before `Popen`) → first `tools/list` (2026-07-28 path) answered 200 "
        "with the tool, "
        "polled by a tight loop of POSTs (1 ms pause after a refused connection) on a pre-picked free port. "
        "VmRSS (/proc/PID/status) once serving and after "
        f"{st['settings']['calls']} `tools/call add` (autocannon, half on each path). Median of "
        f"{st['settings']['runs']} runs per server, runs alternating, after one untimed start of each.",
        "",
    ]
    verdicts = []
    for mode, desc in st["modes"].items():
        res = st["results"][mode]
        lines += [
            f"### mode `{mode}`: {desc}",
            "",
            "| server | command | start → tools/list, median (min-max) | RSS serving | "
            "RSS after calls (max) |",
            "|---|---|---|---|---|",
        ]
        for kind, r in res["summary"].items():
            lines.append(
                f"| {kind} | `{r['command']}` | **{r['startup_median_s']:.3f} s** "
                f"({r['startup_min_s']:.3f}-{r['startup_max_s']:.3f}) | {r['rss_serving_median_mib']:.1f} "
                f"MiB | {r['rss_after_calls_median_mib']:.1f} MiB ({r['rss_after_calls_max_mib']:.1f}) |"
            )
        for kind, reason in res.get("failures", {}).items():
            lines.append(f"| {kind} | (failed) | {reason} | | |")
        v = res["verdicts"]
        lines += [
            "",
            f"Ours vs SDK low-level: start-up {v['startup']['ratio_vs_sdk']:.2f} \u00d7, RSS after calls "
            f"{v['rss']['ratio_vs_sdk']:.2f} \u00d7.",
            "",
        ]
        verdicts.append(
            (
                f"start → `tools/list` median, mode `{mode}`",
                "≤ 0.6 s",
                f"{v['startup']['value']:.3f} s",
                f"{_verdict(v['startup']['met'])} ({_miss(v['startup']['value'], 0.6)})",
            )
        )
        verdicts.append(
            (
                f"agent RSS, mode `{mode}`",
                "≤ 70 MiB",
                f"{v['rss']['value']:.1f} MiB",
                f"{_verdict(v['rss']['met'])} ({_miss(v['rss']['value'], 70.0)})",
            )
        )
        joined = res["summary"].get("mesh-registry")
        if joined:
            value = joined["startup_median_s"]
            verdicts.append(
                (
                    f"same, agent joining the mesh (embedded registry), mode `{mode}` (informative)",
                    "≤ 0.6 s",
                    f"{value:.3f} s",
                    f"{_verdict(value <= 0.6)} ({_miss(value, 0.6)})",
                )
            )
    if not st["machine"].get("venv_pyc_files"):
        lines += [
            "**The venv held no .pyc files** (and PYTHONDONTWRITEBYTECODE="
            f"{st['machine'].get('PYTHONDONTWRITEBYTECODE')}), so every start compiled the imported "
            "third-party modules from source; installed software has its bytecode (`scripts/bootstrap.sh` "
            "passes `--compile-bytecode`). Mode `pyc` measures with a bytecode cache.",
            "",
        ]
    return lines, verdicts


def inproc_section(data: dict[str, Any]) -> list[str]:
    us = data["us_per_request"]
    lines = [
        "## 3. In process, no sockets (`benchmarks/profile_inproc.py calls`)",
        "",
        f"Command: `{data['invocation']}`",
        "",
        "The ASGI app called directly (no uvicorn, no socket, no client), best of 3 \u00d7 "
        f"{data['n']} requests, process CPU time: what our endpoint costs beyond Starlette.",
        "",
        "| path | CPU µs/request | \u00d7 plain |",
        "|---|---|---|",
    ]
    lines += [f"| {key} | {value:.1f} | {value / us['plain']:.1f} |" for key, value in us.items()]
    return [*lines, ""]


def render(results: Path) -> str:
    cpu = _load(results / "server_cpu.json")
    st = _load(results / "startup.json")
    inproc = _load(results / "inproc.json")
    machine = (cpu or st or {}).get("machine")
    body: list[str] = []
    verdicts: list[tuple[str, str, str, str]] = []
    if cpu:
        lines, found = cpu_section(cpu)
        body += lines
        verdicts += found
    if st:
        lines, found = startup_section(st)
        body += lines
        verdicts += found
    if inproc:
        body += inproc_section(inproc)
    head = [
        "# Benchmarks",
        "",
        "Generated by `benchmarks/run_all.sh` (which runs `benchmarks/server_cpu.py`, "
        "`benchmarks/startup.py`, "
        "`benchmarks/profile_inproc.py calls` and `benchmarks/report.py`); do not edit by hand. What "
        "the scripts "
        "measure and how: `benchmarks/README.md`. Targets: DESIGN.md §6.",
        "",
        "## Targets",
        "",
        "| measure | target | measured | verdict |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in verdicts],
        "",
    ]
    return "\n".join(head + (machine_section(machine) if machine else []) + body).rstrip() + "\n"


MESH_DOC = ROOT / "docs" / "benchmarks-mesh.md"


def mesh_summary(mesh_doc: Path) -> str:
    """The mesh figures' targets table, taken from docs/benchmarks-mesh.md (written by mesh_report.py)."""
    if not mesh_doc.exists():
        return ""
    text = mesh_doc.read_text()
    start = text.find("## Targets")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    table = text[start + len("## Targets") : end if end > 0 else None].strip()
    command = next((line for line in text.splitlines() if line.startswith("Command:")), "")
    return (
        "\n## Mesh: agents calling agents, beside MCP Mesh\n\n"
        f"From `benchmarks/run_mesh.sh`; every figure, with method and machine: "
        f"[benchmarks-mesh.md](benchmarks-mesh.md). {command}\n\n{table}\n"
    )


GENERATED = ("## Targets", "## Machine", "## 1. ", "## 2. ", "## 3. ", "## Mesh: agents calling agents")


def kept_sections(page: str) -> str:
    """The sections of an existing page that this script does not write (those other benchmarks replace
    in place: callbacks, LLM, jobs, tracing, fleet, ...), in their order, to go after what it writes."""
    kept = [section for section in page.split("\n## ")[1:] if not ("## " + section).startswith(GENERATED)]
    return "".join("\n## " + section.rstrip("\n") + "\n" for section in kept)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=Path, default=RESULTS_DIR)
    parser.add_argument("--out", type=Path, default=DOC)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kept = kept_sections(args.out.read_text()) if args.out.exists() else ""
    args.out.write_text(render(args.results) + mesh_summary(MESH_DOC) + kept)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
