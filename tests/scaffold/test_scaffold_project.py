"""A new project works at once: its own tests pass, and `mesh run` serves its agents, which call each other
through a registry (real processes on loopback ports; `mesh call` from this checkout runs in this process,
tests/cli_in_process.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.scaffold import create_project
from tests.agents import (
    ROOT,
    AgentProcess,
    forget_agents,
    loopback,
    run_agent,
    run_cli,
    run_mesh,
    run_registry,
    wait_until,
)
from tests.cli_in_process import run_cli_in_process

OPTIONS: dict[str, dict[str, Any]] = {
    "default": {},
    "agents": {"agents": ["billing", "order-book"]},
    "llm-and-catalog": {"llm": True, "catalog": True},
}


def project_pytest(folder: Path) -> subprocess.CompletedProcess[str]:
    """`python -m pytest` in the project, as its README says, with mesh_framework from this checkout.

    `python` on PATH is another interpreter (a venv that is not activated): the catalog's `python` is the
    one running the tests all the same."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(folder)])
    shims = folder.parent / "shims"
    shims.mkdir(exist_ok=True)
    for name in ("python", "python3"):
        (shims / name).write_text(
            "#!/bin/sh\necho 'shim: not the interpreter running the tests' >&2\nexit 1\n"
        )
        (shims / name).chmod(0o755)
    env["PATH"] = f"{shims}{os.pathsep}{env.get('PATH', '')}"
    # -p no:asyncio: this venv has pytest-asyncio (a user's need not), which warns about its unset options
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.timeout(240)  # the new project's own test run is bounded at 180 s
@pytest.mark.parametrize("option", OPTIONS)
def test_the_project_s_own_tests_pass(tmp_path: Path, option: str) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", **OPTIONS[option])
    result = project_pytest(folder)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = {"default": 6, "agents": 9, "llm-and-catalog": 8}[option]
    assert f"{expected} passed" in result.stdout, result.stdout


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = loopback.post(agent.mcp_url, json=body, timeout=15)  # as the README's curl: no Accept header
    return response.json()["result"]  # type: ignore[no-any-return]


def test_mesh_run_serves_the_new_agent(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop")
    with run_agent("shop", cwd=folder) as agent:  # no registry: MESH_REGISTRY__ENABLED=false
        assert call(agent, "add", {"a": 1, "b": 2})["structuredContent"] == {"result": 3}
        greeting = call(agent, "greet", {"name": "Ada"})["structuredContent"]
        assert greeting["text"] == "Hello, Ada!"  # the greeting section of config/application.yaml
        unresolved = call(agent, "sum_of_squares", {"a": 3, "b": 4})
        assert unresolved["isError"] and "add" in unresolved["content"][0]["text"]


def succeeds(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> Any:
    result = call(agent, tool, arguments)
    return None if result["isError"] else result["structuredContent"]


@pytest.fixture(scope="module")
def shared_registry() -> Iterator[AgentProcess]:
    with run_registry(0) as running:
        yield running


@pytest.fixture
def registry(shared_registry: AgentProcess) -> AgentProcess:
    """The module's registry, as a fresh one would be to the test: no agent offered (an agent of an earlier
    test that did not stop gracefully goes as its graceful stop would have)."""
    forget_agents(shared_registry)
    return shared_registry


def test_a_new_agent_calls_its_own_capability_through_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: AgentProcess
) -> None:
    folder = create_project("shop", directory=tmp_path / "shop")
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
    with run_agent("shop", env=env, cwd=folder) as agent:
        assert wait_until(lambda: succeeds(agent, "sum_of_squares", {"a": 3, "b": 4})) == {"result": 25}
        monkeypatch.chdir(folder)  # as its README says: in the project's folder
        called = run_cli_in_process(["call", "sum_of_squares", "a=3", "b=4"], monkeypatch, env)
        assert called.returncode == 0 and called.stdout.strip() == "25", called.stderr


def test_the_other_agents_call_the_first_through_the_registry(tmp_path: Path, registry: AgentProcess) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", agents=["billing", "order-book"])
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
    with (
        run_agent("shop", env=env, cwd=folder),
        run_agent("shop.billing", env=env, cwd=folder) as billing,
        run_agent("shop.order_book", env=env, cwd=folder) as order_book,
    ):
        for agent in (billing, order_book):
            assert wait_until(lambda a=agent: succeeds(a, "sum_of_squares", {"a": 1, "b": 2})) == {
                "result": 5
            }
        names = {a["name"] for a in loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]}
        assert names == {"shop", "billing", "order-book"}


UV = ROOT / ".tools" / "bootstrap" / "bin" / "uv"


def install_project(folder: Path, venv: Path) -> Path:
    """A fresh virtual environment holding mesh_framework (built from this checkout, its dependencies at
    the versions of uv.lock), the new project and pytest, as the project's README says; returns its bin/."""
    uv_env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    constraints = venv.parent / "constraints.txt"
    exported = subprocess.run(
        [UV, "export", "--frozen", "--no-hashes", "--no-emit-project", "--quiet"],
        cwd=ROOT,
        env=uv_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    constraints.write_text(exported.stdout)
    subprocess.run([UV, "venv", "--quiet", "--python", "python3", venv], env=uv_env, check=True, timeout=60)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [UV, "pip", "install", "--quiet", "--python", python, "-c", constraints, ROOT, folder, "pytest"],
        env=uv_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    return venv / "bin"


@pytest.mark.timeout(720)  # creates a venv and installs the project and its dependencies
def test_an_installed_project_works_as_its_readme_says(tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop")
    bin_dir = install_project(folder, tmp_path / "venv")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTEST_"))}
    clean.pop("PYTHONPATH", None)
    tests = subprocess.run(
        [bin_dir / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=folder,
        env=clean,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert tests.returncode == 0 and "6 passed" in tests.stdout, tests.stdout + tests.stderr
    where = subprocess.run(
        [
            bin_dir / "python",
            "-c",
            "import importlib.metadata as m, shop; print(m.version('mesh-framework'), shop.__file__)",
        ],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # both installed: the project in the venv, mesh_framework as the checkout its pyproject names
    assert where.stdout.startswith("0.1.0 " + str(tmp_path / "venv")), where.stdout
    # `mesh run shop` with its embedded registry, then `mesh call` from "another terminal"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        registry_port = probe.getsockname()[1]
    mesh = [str(bin_dir / "mesh")]
    env = {"MESH_REGISTRY__EMBEDDED_PORT": str(registry_port), "MCP_MESH_HEALTH_INTERVAL": "0.5"}
    with run_mesh(["run", "shop", "--port", "0"], env=env, cwd=folder, mesh=mesh) as agent:
        # its `add` resolved through the registry: the agent is offered there (a `mesh call` each poll before
        # that would be a process each)
        wait_until(lambda: "sum_of_squares:dep_0: add ->" in agent.text(), timeout=30, processes=[agent])
        registry = {"MCP_MESH_REGISTRY_URL": f"http://127.0.0.1:{registry_port}"}
        called = wait_until(
            lambda: (
                (
                    r := run_cli(
                        ["call", "sum_of_squares", "a=3", "b=4"], env=registry, cwd=folder, mesh=mesh
                    )
                ).returncode
                == 0
                and r
            ),
            timeout=20,
        )
        assert called.stdout.strip() == "25", agent.text()  # type: ignore[attr-defined]
