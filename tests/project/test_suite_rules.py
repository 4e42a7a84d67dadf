"""Rules of this test suite itself: every test has a timeout; the `no_servers` and `quick` marks are where
they belong; the processes tests start take Ctrl-C; requests to the servers tests start go through one
client."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import httpx2
import pytest

from tests.agents import ROOT, loopback
from tests.conftest import STARTS_SERVERS, starts_processes, starts_servers


def test_test_modules_are_grouped_by_area() -> None:
    """Every test module is in its area's folder (tests/routes/, tests/registry/, ...), none at the top."""
    assert sorted(path.name for path in (ROOT / "tests").glob("test_*.py")) == []
    areas = {path.parent.name for path in (ROOT / "tests").rglob("test_*.py")}
    assert {"routes", "registry", "security", "interop", "di"} <= areas
    assert all((ROOT / "tests" / area / "__init__.py").exists() for area in areas)


def test_every_test_has_a_timeout(request: pytest.FixtureRequest) -> None:
    default = float(request.config.getini("timeout"))
    assert 0 < default <= 120
    for item in request.session.items:
        mark = item.get_closest_marker("timeout")
        limit = float(mark.args[0]) if mark else default
        assert 0 < limit <= 900, f"{item.nodeid}: timeout {limit}"


def test_modules_that_start_servers_are_not_marked_no_servers(request: pytest.FixtureRequest) -> None:
    assert starts_servers(
        ROOT / "tests" / "console" / "test_mesh_page.py"
    )  # a registry, agents and a browser
    assert starts_servers(ROOT / "tests" / "conformance" / "test_conformance.py")  # Node
    assert starts_servers(
        ROOT / "tests" / "cli" / "test_run_script.py"
    )  # runs the start script, which uses .venv
    assert not starts_servers(ROOT / "tests" / "server" / "test_wrapper.py")
    assert request.node.get_closest_marker("no_servers") is not None  # this module starts none


def test_every_helper_starting_servers_is_one_the_classification_names() -> None:
    """A helper of tests/agents.py that starts a server (it waits for a process to say it serves, or calls
    a helper that does) is named in STARTS_SERVERS: a module using only it would otherwise run among the
    tests that start none."""
    tree = ast.parse((ROOT / "tests" / "agents.py").read_text())
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]

    def names(function: ast.FunctionDef) -> set[str]:
        return {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}

    starters = {f.name for f in functions if "SERVING" in names(f)}
    for _ in functions:  # until no new one is found: helpers call helpers
        starters |= {f.name for f in functions if names(f) & starters}
    assert len(starters) >= 4  # the process starter and the agent, registry and starter-app helpers
    assert [name for name in sorted(starters) if not STARTS_SERVERS.search(name)] == []
    assert starts_servers(ROOT / "tests" / "console" / "test_console_counts.py")  # uses one of them only


def test_modules_that_start_any_process_are_not_marked_quick(request: pytest.FixtureRequest) -> None:
    assert starts_processes(ROOT / "tests" / "console" / "test_mesh_page.py")  # servers
    assert starts_processes(ROOT / "tests" / "cli" / "test_cli_messages.py")  # `mesh` commands run to the end
    assert starts_processes(
        ROOT / "tests" / "commands" / "test_command_tools_run.py"
    )  # command tools run as processes
    assert starts_processes(ROOT / "tests" / "project" / "test_wheel_contents.py")  # uv builds the wheel
    assert not starts_processes(ROOT / "tests" / "server" / "test_protocol_server.py")
    assert request.node.get_closest_marker("quick") is None  # this module runs Python in a child


def test_processes_the_tests_start_take_ctrl_c() -> None:
    """Even when the suite itself runs with SIGINT ignored (a background job), a command a test starts
    turns SIGINT into KeyboardInterrupt as in a terminal (tests/conftest.py)."""
    script = f"""
import signal, subprocess, sys
sys.path.insert(0, {str(ROOT)!r})
from tests.conftest import take_ctrl_c

def child_takes_ctrl_c():
    ask = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    return subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True).stdout.strip()

signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a background job
before = child_takes_ctrl_c()
take_ctrl_c()
print(before, child_takes_ctrl_c())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.split() == ["False", "True"], done.stderr


ONE_SHOT = re.compile(r"httpx2\.(get|post|put|patch|delete|head|options|request|stream)\(")


def test_requests_to_the_servers_tests_start_go_through_one_client() -> None:
    """A one-shot `httpx2.get(...)` makes a client per request, which loads the CA certificates (~25 ms
    of CPU; a check polled every 50 ms pays it 20 times a second): tests send theirs through
    `tests.agents.loopback`, made once, unless they pass `verify=` an SSL context of their own (which loads
    nothing). Like a one-shot request, the shared client keeps no cookie a server sets."""
    one_shot = []
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text()
        if not ONE_SHOT.search(text):
            continue
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Call)
                and ONE_SHOT.fullmatch(ast.unparse(node.func) + "(")
                and not any(keyword.arg == "verify" for keyword in node.keywords)
            ):
                one_shot.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert one_shot == []
    request = httpx2.Request("GET", "http://127.0.0.1:8000/")
    loopback.cookies.extract_cookies(httpx2.Response(200, headers={"Set-Cookie": "a=b"}, request=request))
    assert dict(loopback.cookies) == {}
