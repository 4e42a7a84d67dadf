"""Both pages, from the results files: docs/benchmarks.md (every section) and docs/benchmarks-mesh.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .a2a import a2a_section
from .callbacks import callbacks_section
from .console import console_section
from .features import jobs_section, metrics_section, tracing_section
from .fleet import fleet_section
from .gateway import gateway_section
from .llm import llm_section
from .media import media_section
from .mesh import mesh_page, mesh_summary
from .robustness import robustness_section
from .schema import schema_section
from .server import cli_section, cpu_section, inproc_section, startup_section
from .service import service_section
from .stream import stream_section
from .targets import targets_section
from .topology import topology_section

__all__ = ["MAIN_PAGE", "MESH_PAGE", "load_results", "render_pages"]

MAIN_PAGE = "docs/benchmarks.md"
MESH_PAGE = "docs/benchmarks-mesh.md"


def load_results(folder: Path) -> dict[str, dict[str, Any]]:
    """Every results file of the folder, by name (server_cpu.json → "server_cpu")."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def _main_page(r: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Every section of this page is written by `benchmarks/report.py` from a results file in "
        "`benchmarks/results/` (one per benchmark, dated, with the machine's load during the run); do not "
        "edit "
        "it by hand. `benchmarks/run_all.sh` runs every benchmark and then the report; "
        "`.venv/bin/python benchmarks/report.py` alone rewrites this page and "
        "[benchmarks-mesh.md](benchmarks-mesh.md) from the committed results, and the test suite checks that "
        "the committed pages are what it writes. How each benchmark measures: `benchmarks/README.md`.",
        "",
        *targets_section(r),
        *cpu_section(r.get("server_cpu")),
        *startup_section(r.get("startup")),
        *cli_section(r.get("cli")),
        *inproc_section(r.get("inproc")),
        *mesh_summary(r.get("mesh")),
        *topology_section(r.get("topology")),
        *llm_section(r.get("llm"), r.get("llm_breakdown")),
        *stream_section(r.get("stream")),
        *callbacks_section(r.get("callbacks")),
        *gateway_section(r.get("gateway")),
        *service_section(r.get("service")),
        *schema_section(r.get("schema")),
        *media_section(r.get("media")),
        *a2a_section(r.get("a2a")),
        *fleet_section(r.get("fleet")),
        *jobs_section(r.get("jobs")),
        *tracing_section(r.get("tracing")),
        *console_section(r.get("console")),
        *metrics_section(r.get("metrics")),
        *robustness_section(r.get("fuzz"), r.get("faults"), r.get("soak")),
    ]
    return "\n".join(lines).rstrip() + "\n"


def render_pages(folder: Path) -> dict[str, str]:
    """The text of each page (by path from the repository root), from the results in `folder`."""
    results = load_results(folder)
    return {
        MAIN_PAGE: _main_page(results),
        MESH_PAGE: mesh_page(results.get("mesh"), results.get("mesh_profile")),
    }
