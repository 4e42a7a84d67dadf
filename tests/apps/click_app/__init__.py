"""An agent serving a click application's commands as tools, with status sections."""

from __future__ import annotations

import itertools

from mesh_framework import component, mesh_agent, status_section

_cluster_reads = itertools.count(1)


@mesh_agent(name="click-ops")
class ClickOps:
    pass


@status_section("cluster", refresh=3600)
def cluster() -> dict[str, object]:
    return {"reads": next(_cluster_reads), "nodes": 3, "admin": {"user": "ops", "password": "hunter2"}}


@component
class Probes:
    def __init__(self) -> None:
        self.fails = 0

    @status_section("broken", refresh=3600)
    async def broken(self) -> dict[str, object]:
        self.fails += 1
        raise RuntimeError(f"probe failed {self.fails} time(s)")
