"""Rules of this test suite itself: every test has a timeout; the `no_servers` mark is where it belongs."""

from __future__ import annotations

import pytest

from tests.agents import ROOT
from tests.conftest import starts_servers


def test_every_test_has_a_timeout(request: pytest.FixtureRequest) -> None:
    default = float(request.config.getini("timeout"))
    assert 0 < default <= 120
    for item in request.session.items:
        mark = item.get_closest_marker("timeout")
        limit = float(mark.args[0]) if mark else default
        assert 0 < limit <= 900, f"{item.nodeid}: timeout {limit}"


def test_modules_that_start_servers_are_not_marked_no_servers(request: pytest.FixtureRequest) -> None:
    assert starts_servers(ROOT / "tests" / "test_mesh_page.py")  # a registry, agents and a browser
    assert starts_servers(ROOT / "tests" / "test_conformance.py")  # Node
    assert starts_servers(ROOT / "tests" / "test_run_script.py")  # runs the start script, which uses .venv
    assert not starts_servers(ROOT / "tests" / "test_wrapper.py")
    assert request.node.get_closest_marker("no_servers") is not None  # this module starts none
