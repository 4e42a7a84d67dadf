"""An A2A message round trip against the same call over MCP, beside MCP Mesh's A2A, interleaved.

One tool, `echo(text)`, reached four ways, each a sequential round trip on a kept-alive connection:

  ours-mcp         our agent (benchmarks/a2a_agent), MCP `tools/call` (handshake-era stateless POST /mcp)
  ours-a2a         the same agent and tool as an A2A skill, current dialect (`SendMessage` to /a2a/echo)
  ours-a2a-mesh    the same skill in MCP Mesh's dialect (`tasks/send` to /a2a/echo)
  mesh-a2a         MCP Mesh 3.8's `mesh.a2a.mount` surface (benchmarks/mesh_agents/a2a_echo.py, uvicorn),
                   `tasks/send`, its agent registered with MCP Mesh's registry

Each round runs a batch of calls per side, the sides in a rotating order; figures are medians over rounds
of the mean time per call, of the server process's CPU time per call (from /proc, in clock ticks: 500
calls per batch resolve 20 µs), and of each round's ratios. The client is Python's http.client, one connection
per side: a latency measure, not a load test.

Usage: .venv/bin/python benchmarks/a2a_bench.py [--rounds 10] [--calls 500] [--quick]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(1, str(BENCH_DIR.parent))

from _common import HOST, PYTHON, Run, cpu_seconds, display_command, free_port, save_results  # noqa: E402
from processes import Proc, clean_env, http_status, log, wait_for  # noqa: E402

from tests.interop import mcp_mesh as mm  # noqa: E402

SIDES = ("ours-mcp", "ours-a2a", "ours-a2a-mesh", "mesh-a2a")
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _mcp_body() -> bytes:
    params = {"name": "echo", "arguments": {"text": "hello"}}
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()


def _current_body() -> bytes:
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    ).encode()


def _mesh_body() -> bytes:
    message = {"role": "user", "parts": [{"type": "text", "text": "hello"}]}
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tasks/send", "params": {"message": message}}
    ).encode()


class Side:
    """One way of reaching `echo`: a kept-alive connection, a path, a body and a check of the answer."""

    def __init__(self, port: int, path: str, body: bytes, headers: dict[str, str], pid: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port)
        self.path, self.body, self.headers = path, body, headers
        self.pid = pid  # the server's process, whose CPU time is read around each batch

    def call(self) -> bytes:
        self.conn.request("POST", self.path, body=self.body, headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200 or b"hello" not in data:
            raise RuntimeError(f"{self.path} answered {response.status}: {data[:300]!r}")
        return data


def _batch(call: Callable[[], Any], calls: int, pid: int) -> tuple[float, float]:
    """Mean wall time and server CPU time per call, in microseconds."""
    cpu, start = cpu_seconds(pid), time.perf_counter_ns()
    for _ in range(calls):
        call()
    wall = (time.perf_counter_ns() - start) / calls / 1000
    return wall, (cpu_seconds(pid) - cpu) / calls * 1e6


def compare(sides: dict[str, Side], rounds: int, calls: int) -> dict[str, Any]:
    for side in sides.values():  # warm up: connections, first-call paths
        _batch(side.call, max(calls // 4, 1), side.pid)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    names = list(sides)
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(_batch(sides[name].call, calls, sides[name].pid))

    def ratio(a: str, b: str, index: int) -> float:
        pairs = zip(times[a], times[b], strict=True)
        return statistics.median(x[index] / y[index] for x, y in pairs if y[index])

    pairs = {
        "ours_a2a_vs_ours_mcp": ("ours-a2a", "ours-mcp"),
        "ours_a2a_mesh_vs_ours_mcp": ("ours-a2a-mesh", "ours-mcp"),
        "mesh_a2a_vs_ours_a2a_mesh": ("mesh-a2a", "ours-a2a-mesh"),
    }
    return {
        "rounds": rounds,
        "calls_per_round": calls,
        "us_per_call": {name: statistics.median(w for w, _ in values) for name, values in times.items()},
        "server_cpu_us_per_call": {
            name: statistics.median(c for _, c in values) for name, values in times.items()
        },
        "ratios": {key: ratio(a, b, 0) for key, (a, b) in pairs.items()},
        "cpu_ratios": {key: ratio(a, b, 1) for key, (a, b) in pairs.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds (default 10)")
    parser.add_argument("--calls", type=int, default=500, help="calls per side and round (default 500)")
    parser.add_argument("--quick", action="store_true", help="5 rounds of 200 calls")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.calls = 5, 200
    run = Run(short=args.quick or args.rounds < 10)
    ours_port, mesh_port = free_port(), free_port()
    ours_argv = [
        PYTHON,
        "-m",
        "mesh_framework.cli",
        "run",
        "a2a_agent",
        "--host",
        HOST,
        "--port",
        str(ours_port),
    ]
    mesh_argv = [
        str(mm.MESH_PYTHON),
        "-m",
        "uvicorn",
        "a2a_echo:app",
        "--host",
        HOST,
        "--port",
        str(mesh_port),
    ]
    with (
        tempfile.TemporaryDirectory(prefix="a2a-bench-") as tmp,
        mm.run_mesh_registry(Path(tmp) / "reg") as reg,
    ):
        ours = Proc(
            "ours",
            ours_argv,
            env=clean_env({"MESH_REGISTRY__ENABLED": "false"}),
            cwd=BENCH_DIR,
            port=ours_port,
        )
        mesh_env = {
            "MCP_MESH_REGISTRY_URL": reg.url,
            "MCP_MESH_HTTP_HOST": HOST,
            "MCP_MESH_HTTP_PORT": str(mesh_port),
            "MCP_MESH_AGENT_NAME": "mesh-a2a-bench",
            "PATH": str(Path(mm.MESH_PYTHON).parent) + ":/usr/bin:/bin",
        }
        mesh = Proc(
            "mesh-a2a", mesh_argv, env=clean_env(mesh_env), cwd=BENCH_DIR / "mesh_agents", port=mesh_port
        )
        try:
            ours_url, mesh_url = f"http://{HOST}:{ours_port}", f"http://{HOST}:{mesh_port}"
            wait_for(lambda: http_status(ours_url + "/health") == 200, 30, "our agent answers", procs=[ours])
            card = mesh_url + "/agents/echo/.well-known/agent.json"
            wait_for(lambda: http_status(card) == 200, 60, "MCP Mesh's surface answers", procs=[mesh])
            sides = {
                "ours-mcp": Side(ours_port, "/mcp", _mcp_body(), JSON_HEADERS, ours.pid),
                "ours-a2a": Side(
                    ours_port, "/a2a/echo", _current_body(), {**JSON_HEADERS, "A2A-Version": "1.0"}, ours.pid
                ),
                "ours-a2a-mesh": Side(ours_port, "/a2a/echo", _mesh_body(), JSON_HEADERS, ours.pid),
                "mesh-a2a": Side(mesh_port, "/agents/echo", _mesh_body(), JSON_HEADERS, mesh.pid),
            }
            log(f"{args.rounds} rounds of {args.calls} calls per side")
            result = compare(sides, args.rounds, args.calls)
        finally:
            ours.stop()
            mesh.stop()
    for name, value in result["us_per_call"].items():
        log(f"{name}: {value:.0f} µs per call")
    for name, value in result["ratios"].items():
        log(f"{name}: {value:.2f} x time, {result['cpu_ratios'][name]:.2f} x server CPU")
    save_results(
        "a2a",
        run,
        {
            "commands": {
                "ours": display_command(ours_argv),
                "mesh": display_command(mesh_argv, BENCH_DIR / "mesh_agents"),
            },
            "args": {"rounds": args.rounds, "calls": args.calls},
            "sides": list(SIDES),
            **result,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
