"""`MeshCluster`: several agents and a registry on loopback ports, ready before a test's body runs.

Each agent and the registry is a process of its own (`mesh run APP --port 0`, `mesh registry --port 0`),
stopped by PID. `start()` returns once every agent serves, is registered and has every declared
dependency resolved; `stop(app)` / `start_agent(app)` let a test exercise failover.

Usage::

    with MeshCluster(["starter_app", "starter_app.calculator"]) as mesh:
        assert mesh.call("sum_of_squares", {"a": 3, "b": 4}) == 25
        mesh.stop("starter_app")
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from prometheus_client.parser import text_string_to_metric_families

from .client import build_request, result_of, value_of

__all__ = ["ClusterProcess", "MeshCluster"]

_SERVING = re.compile(r"serving (http://[\d.]+:\d+)(/\S*)?")


@dataclass
class ClusterProcess:
    """One process of the cluster: where it serves and what it logged."""

    name: str
    process: subprocess.Popen[str]
    url: str = ""
    mcp_url: str = ""
    output: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(self.output)


class MeshCluster:
    """A registry and `apps` (modules holding a `@mesh_agent`), each in its own process."""

    def __init__(
        self,
        apps: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.apps = list(apps)
        self.cwd = Path(cwd or Path.cwd())
        self.timeout = timeout
        base = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
        path = os.pathsep.join([str(self.cwd), base.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        # Short heartbeats: agents learn of a change (a restart, a new provider) in a fraction of a second.
        self.env = {
            **base,
            "PYTHONPATH": path,
            "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.25",
            "MESH_METRICS__ENABLED": "true",  # wait_until_resolved reads each agent's dependency gauges
            **dict(env or {}),
        }
        self.heartbeat = float(self.env["MESH_REGISTRY__HEARTBEAT_INTERVAL"])
        self.registry: ClusterProcess | None = None
        self.agents: dict[str, ClusterProcess] = {}
        self._http: httpx2.Client | None = None

    @property
    def _client(self) -> httpx2.Client:
        """The cluster's one HTTP client, made on first use and closed with the cluster: the readiness wait
        polls the registry and every agent every 50 ms, and a client made per request would load the CA
        certificates each time (~25 ms of CPU). It keeps no connection open (each request opens its own,
        as a one-shot request does), so a stopped or restarted agent leaves no stale connection behind."""
        if self._http is None:
            self._http = httpx2.Client(trust_env=False, limits=httpx2.Limits(max_keepalive_connections=0))
        return self._http

    def __enter__(self) -> MeshCluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- processes -----------------------------------------------------------------------------------

    def _spawn(self, name: str, arguments: Sequence[str], env: Mapping[str, str]) -> ClusterProcess:
        process = subprocess.Popen(
            [sys.executable, "-m", "mesh_framework.cli", *arguments],
            cwd=self.cwd,
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        running = ClusterProcess(name, process)
        ready = threading.Event()

        def drain() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                running.output.append(line)
                match = _SERVING.search(line)
                if match and not running.url:
                    running.url = match.group(1)
                    running.mcp_url = running.url + (match.group(2) or "")
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True, name=f"cluster {name}").start()
        if not ready.wait(self.timeout) or not running.url:
            _terminate(process)
            raise RuntimeError(f"{name} did not start within {self.timeout}s:\n{running.text()[-3000:]}")
        return running

    def start(self) -> None:
        """Start the registry and every agent; return once all are registered with dependencies resolved."""
        self.registry = self._spawn("registry", ["registry", "--port", "0"], self.env)
        for app in self.apps:
            self.start_agent(app, wait=False)
        self.wait_until_resolved()

    def start_agent(self, app: str, *, wait: bool = True) -> ClusterProcess:
        """Start (or start again) the agent of `app`."""
        assert self.registry is not None, "start the cluster first"
        env = {**self.env, "MCP_MESH_REGISTRY_URL": self.registry.url}
        self.agents[app] = self._spawn(app, ["run", app, "--port", "0"], env)
        if wait:
            self.wait_until_resolved()
        return self.agents[app]

    def stop(self, app: str, *, sig: int = signal.SIGTERM) -> None:
        """Stop one agent (SIGTERM: it deregisters; SIGKILL: a crash)."""
        _terminate(self.agents.pop(app).process, sig)

    def close(self) -> None:
        for app in list(self.agents):
            self.stop(app)
        if self.registry is not None:
            _terminate(self.registry.process)
            self.registry = None
        if self._http is not None:
            self._http.close()
            self._http = None

    # -- the registry's view ---------------------------------------------------------------------------

    def listing(self) -> list[dict[str, Any]]:
        assert self.registry is not None
        response = self._client.get(self.registry.url + "/agents", timeout=5)
        return list(response.json().get("agents") or [])

    def wait_until_resolved(self) -> None:
        """Every running agent is healthy in the registry with all its dependencies resolved, and holds a
        provider in each of its dependency slots (read from its own `/metrics`)."""
        expected = {process.url for process in self.agents.values()}
        deadline = time.monotonic() + self.timeout
        seen: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            seen = [a for a in self.listing() if a.get("endpoint") in expected]
            ready = [
                a
                for a in seen
                if a.get("status") == "healthy"
                and a.get("dependencies_resolved") == a.get("total_dependencies")
            ]
            # The registry has resolved everyone; the agents hold its answers once their slots are filled.
            if len(ready) == len(expected) and all(
                _slots_filled(self._client, process) for process in self.agents.values()
            ):
                return
            time.sleep(0.05)
        states = {
            a.get("name"): (a.get("status"), a.get("dependencies_resolved"), a.get("total_dependencies"))
            for a in seen
        }
        raise RuntimeError(f"the cluster did not resolve within {self.timeout}s: {states}")

    # -- calls -----------------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call `tool` on the agent of the cluster that serves it; its value, or a readable AssertionError."""
        for process in self.agents.values():
            body, headers = build_request("tools/list", None, modern=True, name=None)
            listed = result_of(self._client.post(process.mcp_url, json=body, headers=headers), "tools/list")
            if any(t.get("name") == tool for t in listed.get("tools") or []):
                params = {"name": tool, "arguments": dict(arguments or {})}
                body, headers = build_request("tools/call", params, modern=True, name=tool)
                response = self._client.post(process.mcp_url, json=body, headers=headers, timeout=30)
                return value_of(result_of(response, "tools/call"), tool, arguments)
        raise AssertionError(
            f"no agent of the cluster serves a tool named '{tool}' ({', '.join(self.agents)})"
        )


def _slots_filled(http: httpx2.Client, process: ClusterProcess) -> bool:
    """Whether the agent holds a provider in every dependency slot (its `mesh_dependency_resolved`)."""
    response = http.get(process.url + "/metrics", timeout=5)
    if response.status_code == 404:
        raise RuntimeError(
            f"{process.name} serves no /metrics (metrics.enabled is false): MeshCluster reads each agent's "
            "mesh_dependency_resolved gauges to know it is ready; leave metrics on in the cluster's env"
        )
    return all(
        sample.value == 1
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == "mesh_dependency_resolved"
    )


def _terminate(process: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)
