"""The sides of the mesh benchmark and their processes: our registry and agents (`mesh registry`, `mesh run`
of benchmarks/mesh_agents/), MCP Mesh's fixture agents (tests/interop/mesh_agents/); started on loopback and
waited for until the registry lists them healthy."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

from _common import BENCH_DIR, HOST, PYTHON, ROOT, free_port
from processes import Proc, clean_env, http_status, wait_for

from tests.interop import mcp_mesh as mm

from .client import ACCEPT

AGENTS_DIR = BENCH_DIR / "mesh_agents"
NODELAY_DIR = AGENTS_DIR / "nodelay"

OUR_REGISTRY_TIMEOUT = (
    20.0  # `mesh registry` default; MCP Mesh's DEFAULT_TIMEOUT_THRESHOLD default is 20 s too
)
MESH_REGISTRY_DEFAULTS = {"HEALTH_CHECK_INTERVAL": "10", "DEFAULT_TIMEOUT_THRESHOLD": "20"}  # its defaults

SIDES = {
    "ours": "mesh_framework (our registry, bench_adder + bench_calc)",
    "mcp": "MCP Mesh as shipped (registry binary, adder.py + calc_consumer.py)",
    "mcp-nodelay": "MCP Mesh, agents' listening sockets given TCP_NODELAY (sitecustomize)",
}
TOOL = {"ours": "calc", "mcp": "mesh_calc", "mcp-nodelay": "mesh_calc"}


def list_agents(registry_url: str) -> list[dict[str, Any]]:
    try:
        return mm.registry_agents(registry_url, timeout=5)
    except (OSError, RuntimeError, ValueError):
        return []


# ours


def start_our_registry(log_dir: Path, timeout: float = OUR_REGISTRY_TIMEOUT) -> tuple[Proc, str]:
    port = free_port()
    argv = [PYTHON, "-m", "mesh_framework.cli", "registry", "--port", str(port), "--timeout", str(timeout)]
    proc = Proc("our-registry", argv, env=clean_env({}), cwd=ROOT, log_dir=log_dir)
    url = f"http://{HOST}:{port}"
    wait_for(lambda: http_status(url + "/health") == 200, 20, "our registry /health", procs=[proc])
    proc.port = port
    return proc, url


def spawn_our_agent(module: str, registry_url: str, log_dir: Path, *, interval: float | None = None) -> Proc:
    port = free_port()
    env = {"MCP_MESH_REGISTRY_URL": registry_url, "MESH_LOGGING__LEVEL": "WARNING"}
    if interval is not None:
        env["MCP_MESH_HEALTH_INTERVAL"] = str(interval)
    argv = [PYTHON, "-m", "mesh_framework.cli", "run", module, "--host", HOST, "--port", str(port)]
    proc = Proc(f"our-{module}", argv, env=clean_env(env), cwd=AGENTS_DIR, log_dir=log_dir)
    proc.port = port
    proc.endpoint = f"http://{HOST}:{port}"
    return proc


def wait_our_agent(proc: Proc, registry_url: str, timeout: float = 30) -> Proc:
    """Until the agent answers tools/list and the registry lists it healthy."""
    assert proc.port is not None
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    def answers() -> bool:
        conn = http.client.HTTPConnection(HOST, proc.port, timeout=2)
        try:
            conn.request(
                "POST", "/mcp", body=body, headers={"Content-Type": "application/json", "Accept": ACCEPT}
            )
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    wait_for(answers, timeout, f"{proc.label} tools/list", procs=[proc], interval=0.005)

    def listed() -> bool:
        for agent in list_agents(registry_url):
            if agent.get("endpoint") == proc.endpoint and agent.get("status") == "healthy":
                proc.agent_id = str(agent["id"])
                return True
        return False

    wait_for(listed, timeout, f"{proc.label} registered", procs=[proc])
    return proc


# MCP Mesh


def spawn_mesh_agent(script: str, registry_url: str, log_dir: Path, *, nodelay: bool) -> Proc:
    """An mcp-mesh fixture agent as shipped (default debounce and heartbeat interval), on loopback."""
    env = {
        "HOST": HOST,  # bind address
        "MCP_MESH_HTTP_HOST": HOST,  # advertised address
        "MCP_MESH_HTTP_PORT": "0",
        "MCP_MESH_REGISTRY_URL": registry_url,
        "PYTHONUNBUFFERED": "1",
    }
    if nodelay:
        env["PYTHONPATH"] = str(NODELAY_DIR)
    path = mm.AGENTS_DIR / script
    return Proc(
        f"mcp-{path.stem}{'-nodelay' if nodelay else ''}",
        [str(mm.MESH_PYTHON), str(path)],
        env=clean_env(env),
        cwd=mm.AGENTS_DIR,
        log_dir=log_dir,
    )


def wait_mesh_agent(proc: Proc, registry_url: str, name: str, known: set[str], timeout: float = 60) -> Proc:
    def registered() -> bool:
        for agent in list_agents(registry_url):
            if (
                agent.get("name") == name
                and agent.get("id") not in known
                and agent.get("status") == "healthy"
            ):
                proc.agent_id = str(agent["id"])
                proc.endpoint = str(agent["endpoint"])
                proc.port = int(proc.endpoint.rsplit(":", 1)[1])
                return True
        return False

    wait_for(registered, timeout, f"{proc.label} registered", procs=[proc], interval=0.05)
    return proc


def known_ids(registry_url: str) -> set[str]:
    return {str(a.get("id")) for a in list_agents(registry_url)}


def parse_ts(text: str) -> float | None:
    """An RFC 3339 UTC timestamp (micro- or nanoseconds) as epoch seconds."""
    import datetime as dt

    try:
        head, _, frac = text.rstrip("Z").partition(".")
        base = dt.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.UTC).timestamp()
        return base + (float("0." + frac) if frac else 0.0)
    except ValueError:
        return None


def registered_after_exec(registry_url: str, proc: Proc, name: str) -> float | None:
    """Seconds from the provider's exec to its `created_at` in the registry (the newest row named `name`,
    or the row at its endpoint)."""
    rows = [
        a
        for a in list_agents(registry_url)
        if (proc.endpoint and a.get("endpoint") == proc.endpoint) or a.get("name") == name
    ]
    stamps = [t for t in (parse_ts(str(a.get("created_at", ""))) for a in rows) if t is not None]
    return round(max(stamps) - proc.t_exec_wall, 3) if stamps else None
