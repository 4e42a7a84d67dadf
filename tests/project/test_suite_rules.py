"""Rules of this test suite itself: every test has a timeout; the `no_servers` and `quick` marks are where
they belong; the processes tests start take Ctrl-C."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.agents import ROOT
from tests.conftest import starts_processes, starts_servers


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
