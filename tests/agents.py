"""Start agents and registries as real processes on loopback ephemeral ports, and stop them by PID."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path

import httpx2
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"serving (https?://[\d.]+:(\d+))(/\S*)?")
# An agent's serving line names the id it joins a mesh under: `agent 'NAME' (ID) serving URL ...`.
OWN_ID = re.compile(r"\((\S+)\) serving https?://")
# One client for the tests' requests to the processes they start (plain HTTP on loopback): a client made
# per request (`httpx2.get(...)`) loads the CA certificates each time, ~25 ms of CPU, which a check polled
# every 50 ms pays 20 times a second. It keeps no connection open: each request opens its own, as one made
# by `httpx2.get` does; nor does it keep a cookie a server sets (no cookie jar carried from one test's
# request to another's). Safe to share between threads.
loopback = httpx2.Client(
    trust_env=False,
    limits=httpx2.Limits(max_keepalive_connections=0),
    cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),
)


@dataclass
class AgentProcess:
    process: subprocess.Popen[str]
    base_url: str
    port: int
    mcp_url: str
    output: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(self.output)


def agent_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment; agents stay out of any mesh unless `extra` names a registry."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    env["PYTHONPATH"] = str(ROOT)
    extra = dict(extra or {})
    if "MCP_MESH_REGISTRY_URL" not in extra and "MESH_REGISTRY__EMBEDDED_PORT" not in extra:
        env["MESH_REGISTRY__ENABLED"] = "false"
    env.update(extra)
    return env


@contextmanager
def run_mesh(
    arguments: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 20.0,
    cwd: Path = ROOT,
    mesh: Sequence[str] | None = None,
) -> Iterator[AgentProcess]:
    """Any long-running `mesh` command that logs `serving http://HOST:PORT[/path]` once ready.

    `mesh` is the command to run instead of this checkout's (an installed `mesh` script, which then
    imports mesh_framework from where it was installed: no PYTHONPATH is set)."""
    command = [*(mesh or [sys.executable, "-m", "mesh_framework.cli"]), *arguments]
    environ = agent_env(env)
    if mesh is not None:
        environ.pop("PYTHONPATH", None)
    process = subprocess.Popen(
        command, cwd=cwd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output: list[str] = []
    lines: queue.Queue[str | None] = queue.Queue()
    # Drain the pipe for the whole life of the process, so a chatty agent never blocks on a full pipe.
    drain = threading.Thread(target=_drain, args=(process, output, lines), daemon=True)
    drain.start()
    try:
        match = _wait_for(process, output, lines, SERVING, timeout)
        yield AgentProcess(
            process, match.group(1), int(match.group(2)), match.group(1) + (match.group(3) or ""), output
        )
    finally:
        stop(process)
        drain.join(timeout=10)  # once the block ends, `text()` holds every line the process wrote


@contextmanager
def run_agent(
    app: str, *args: str, env: Mapping[str, str] | None = None, timeout: float = 20.0, cwd: Path = ROOT
) -> Iterator[AgentProcess]:
    """`mesh run APP --port 0 ARGS...`; yields once the agent logs that it is serving."""
    with run_mesh(["run", app, "--port", "0", *args], env=env, timeout=timeout, cwd=cwd) as running:
        yield running


@contextmanager
def run_starter_with_model(model_url: str) -> Iterator[tuple[AgentProcess, AgentProcess]]:
    """A registry and `mesh run starter_app` whose OpenAI model is the (fake) server at `model_url`; yields
    (registry, starter) once the starter's chat route has found `ask`, its own tool, through the mesh."""
    with run_registry(0, "--timeout", "120") as registry:
        env = {
            "MCP_MESH_REGISTRY_URL": registry.base_url,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "test-key",
            # the `notes` catalog server `ask` may use is started as `python ...`: this interpreter's
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        with run_agent("starter_app", env=env, timeout=30) as starter:
            wait_until(lambda: "ask -> " in starter.text(), timeout=30)
            yield registry, starter


@contextmanager
def run_registry(port: int = 0, *args: str, timeout: float = 20.0) -> Iterator[AgentProcess]:
    """`mesh registry --port PORT`; yields once it serves (`base_url` is the registry URL)."""
    with run_mesh(["registry", "--port", str(port), *args], timeout=timeout) as running:
        yield running


def _drain(process: subprocess.Popen[str], output: list[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)
        lines.put(line)
    process.stdout.close()  # at its end, not at garbage collection (a ResourceWarning in a later test)
    lines.put(None)


def _wait_for(
    process: subprocess.Popen[str],
    output: list[str],
    lines: queue.Queue[str | None],
    pattern: re.Pattern[str],
    timeout: float,
) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=remaining)
        except queue.Empty:
            break
        if line is None:
            break
        match = pattern.search(line)
        if match:
            return match
    raise AssertionError(f"process did not start (exit {process.poll()}):\n{''.join(output)}")


def wait_until(
    predicate: object,
    timeout: float = 10.0,
    interval: float = 0.05,
    *,
    processes: Sequence[AgentProcess] = (),
) -> object:
    """Poll `predicate()` until it returns something truthy (bounded); returns that value. On failure the
    message ends with the last lines of each of `processes` (what they logged while the test waited)."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        last = predicate()  # type: ignore[operator]
        if last:
            return last
        time.sleep(interval)
    logs = "".join(f"\n--- {p.process.args!r}:\n{''.join(p.output[-40:])}" for p in processes)
    raise AssertionError(f"condition not met within {timeout}s (last value: {last!r}){logs}")


def metric(base_url: str, name: str, **labels: str) -> float | None:
    """One sample of a process's `/metrics` (None when it has no sample of that name and labels)."""
    scrape = loopback.get(base_url + "/metrics", timeout=5).text
    for family in text_string_to_metric_families(scrape):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return None


def dependency_providers(agent: AgentProcess, tool: str, capability: str) -> int:
    """How many providers `agent`'s slot for `capability` in `tool` can call now (the chosen one and its
    alternates), read from the agent's own `/metrics`: what the agent holds, not what the registry says."""
    value = metric(agent.base_url, "mesh_dependency_providers", tool=tool, capability=capability)
    if value is None:
        raise AssertionError(f"{agent.base_url}/metrics has no slot for {capability} in {tool}")
    return int(value)


def stop(process: subprocess.Popen[str], timeout: float = 10.0, sig: int = signal.SIGTERM) -> int:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)
    return process.returncode


def run_cli(
    args: Sequence[str],
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    cwd: Path = ROOT,
    mesh: Sequence[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `mesh ARGS` to completion (bounded by `timeout`); `mesh` as for `run_mesh`."""
    environ = agent_env(env)
    if mesh is not None:
        environ.pop("PYTHONPATH", None)
    return subprocess.run(
        [*(mesh or [sys.executable, "-m", "mesh_framework.cli"]), *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def forget_agents(registry: AgentProcess) -> None:
    """Empty a registry that earlier tests used, so a test starts from a registry that knows no agent: an
    agent a test killed stays listed until it misses its heartbeats (and a consumer could be sent to it);
    each is taken out as its graceful stop would have (`DELETE /agents/{id}`)."""
    listed = loopback.get(registry.base_url + "/agents", timeout=5).json().get("agents") or []
    for agent in listed:
        gone = loopback.delete(f"{registry.base_url}/agents/{agent['id']}", timeout=5)
        assert gone.status_code == 204, gone.text


def registered_id(registry: AgentProcess, agent: AgentProcess, timeout: float = 30.0) -> str:
    """The id `agent` joined `registry` under (the one its serving line names), once the registry lists it.

    A registry tests share keeps the agents earlier tests stopped (as unhealthy, or healthy until their
    heartbeats are missed when they were killed), under the same names: a test finds its own agent by id."""
    match = OWN_ID.search(agent.text())
    if match is None:
        raise AssertionError(f"{agent.process.args!r} logged no id when it started:\n{agent.text()}")
    own = match.group(1)

    def listed() -> bool:
        agents = loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]
        return any(row.get("id") == own for row in agents or [])

    wait_until(listed, timeout=timeout, processes=(agent,))
    return own
