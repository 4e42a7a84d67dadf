"""A graceful stop that begins while the agent is still joining the mesh (here its first health check, whose
verdict it registers with, is held open) keeps it out of the registry: the join ends without registering,
so a draining agent never appears there. Real registry and agent processes; every wait is on a file, a log
line, a registry row or a process."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.agents import loopback, run_agent, run_registry, wait_until

pytestmark = pytest.mark.timeout(120)

NOT_JOINING = "stopping before the mesh was joined: not registering"


def listed(registry_url: str) -> list[dict[str, Any]]:
    agents = loopback.get(registry_url + "/agents", timeout=5).json().get("agents") or []
    return [a for a in agents if a.get("name") == "slow-join"]


def registrations(registry_url: str) -> list[dict[str, Any]]:
    answer = loopback.get(registry_url + "/events", params={"type": "register", "limit": 500}, timeout=5)
    assert answer.status_code == 200, answer.text
    return [e for e in answer.json()["events"] if e.get("agent_name") == "slow-join"]


def hold(mcp_url: str, started: Path, release: Path) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "hold", "arguments": {"started": str(started), "release": str(release)}},
    }
    loopback.post(mcp_url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=60)


def _joining_env(registry_url: str, checking: Path, checked: Path) -> dict[str, str]:
    """A 60 s grace, and a first health check that waits for `checked` once it wrote `checking`."""
    return {
        "MCP_MESH_REGISTRY_URL": registry_url,
        "MESH_SERVER__SHUTDOWN_GRACE": "60",
        "MESH_HEALTH__TIMEOUT": "60",
        "JOIN_CHECKING": str(checking),
        "JOIN_CHECKED": str(checked),
    }


def test_a_stop_during_the_join_keeps_the_agent_out_of_the_registry(tmp_path: Path) -> None:
    checking, checked = tmp_path / "checking", tmp_path / "checked"
    started, release = tmp_path / "started", tmp_path / "release"
    with run_registry() as registry:
        env = _joining_env(registry.base_url, checking, checked)
        with run_agent("tests.apps.slow_join_app", env=env) as agent:
            wait_until(checking.exists, 20)  # the join waits on the first health check
            # a call in flight keeps the agent draining after the stop, long enough for the join to go on
            holder = threading.Thread(target=hold, args=(agent.mcp_url, started, release))
            holder.start()
            wait_until(started.exists, 20)
            agent.process.send_signal(signal.SIGTERM)
            wait_until(lambda: "stopping: leaving the mesh" in agent.text(), 20)
            checked.write_text("UP")  # the join goes on, the agent still draining
            wait_until(lambda: listed(registry.base_url) or NOT_JOINING in agent.text(), 20)
            assert listed(registry.base_url) == []
            release.write_text("go")
            holder.join(timeout=60)
            assert agent.process.wait(timeout=30) == 0  # long before the 60 s grace
        assert registrations(registry.base_url) == []
        assert "joining the mesh at" not in agent.text()


def test_a_stop_during_the_join_does_not_wait_for_the_join(tmp_path: Path) -> None:
    """The health check the join waits on never answers (within the test): the agent stops all the same."""
    checking, checked = tmp_path / "checking", tmp_path / "checked"
    with run_registry() as registry:
        env = _joining_env(registry.base_url, checking, checked)
        with run_agent("tests.apps.slow_join_app", env=env) as agent:
            wait_until(checking.exists, 20)
            agent.process.send_signal(signal.SIGTERM)
            assert agent.process.wait(timeout=30) == 0  # long before the 60 s grace and the check's end
        assert registrations(registry.base_url) == []
        assert listed(registry.base_url) == []
