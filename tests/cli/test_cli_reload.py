"""`mesh run --reload` restarts the agent when a source file changes (and survives a broken edit); `mesh run`
of several agents says plainly when each serves when stdout is no terminal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mesh_framework.cli.run import watch_paths

from ..agents import ROOT, run_cli, run_mesh, stop, wait_until

AGENT = """\
from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="reloader", port=0)
class ReloadAgent:
    pass


@mesh_tool(capability="one")
def one() -> str:
    return "one"
"""
SECOND_TOOL = """

@mesh_tool(capability="two")
def two() -> str:
    return "two"
"""


def test_reload_restarts_the_agent_when_a_source_file_changes(tmp_path: Path) -> None:
    package = tmp_path / "reload_demo"
    package.mkdir()
    source = package / "__init__.py"
    source.write_text(AGENT)
    with run_mesh(["run", "reload_demo", "--reload", "--port", "0"], cwd=tmp_path) as running:
        assert "with 1 tool(s)" in running.text()
        source.write_text(AGENT + SECOND_TOOL)
        wait_until(lambda: "with 2 tool(s)" in running.text(), timeout=20)
        assert "changed: reload_demo/__init__.py; restarting" in running.text()
        source.write_text(AGENT + "\nbroken = (\n")
        wait_until(lambda: "reload_demo exited with code 1" in running.text(), timeout=20)
        broken = [line for line in running.output if "SyntaxError" in line]
        assert broken and "cannot import the application: SyntaxError" in broken[0]
        assert "Traceback" not in running.text()
        source.write_text(AGENT)
        wait_until(lambda: running.text().count("reload_demo is ready at") == 3, timeout=20)
        assert stop(running.process) == 0
    assert len(re.findall(r"serving http://127\.0\.0\.1:\d+/mcp", running.text())) == 3


def test_watch_paths_are_the_package_and_the_config_folders(tmp_path: Path) -> None:
    assert watch_paths(["starter_app.calculator"], None) == [ROOT / "config", ROOT / "starter_app"]
    (tmp_path / "settings").mkdir()
    paths = watch_paths(["starter_app"], str(tmp_path / "settings"))
    assert paths == sorted([ROOT / "config", ROOT / "starter_app", tmp_path / "settings"])


def test_reload_of_an_unknown_module_is_one_line() -> None:
    result = run_cli(["run", "no_such_app", "--reload"])
    assert result.returncode == 1 and result.stderr.strip() == (
        "mesh run: no module named 'no_such_app' on the path; run `mesh` from the project folder"
    )


@pytest.mark.parametrize("reload", [False, True])
def test_several_agents_say_plainly_when_each_serves(reload: bool) -> None:
    args = ["run", "starter_app", "starter_app.calculator", "--port", "0", "--registry-port", "0"]
    env = {"MESH_REGISTRY__EMBEDDED_PORT": "0", "MCP_MESH_HEALTH_INTERVAL": "0.5"}
    with run_mesh([*args, *(["--reload"] if reload else [])], env=env, timeout=30) as running:
        wait_until(lambda: "every agent is ready; Ctrl-C stops them" in running.text(), timeout=30)
        text = running.text()
        assert re.search(r"^starter_app is ready at http://127\.0\.0\.1:\d+/mcp$", text, re.M)
        assert re.search(r"^starter_app\.calculator is ready at http://127\.0\.0\.1:\d+/mcp$", text, re.M)
        assert "waiting for" not in text  # no spinner off a terminal
        assert stop(running.process) == 0
