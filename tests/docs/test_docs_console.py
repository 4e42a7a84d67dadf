"""Every ```console block of the docs is a shell session that runs as written: each `$ ` line is run by
bash (in one session per block, so `echo $?` works), with `mesh` on the PATH and a mesh of the starter
agents up, and what it prints must match the lines below it (spaces collapsed; a line `...` stands for
any number of lines)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agents import ROOT, AgentProcess, loopback, run_agent, run_registry, wait_until

PAGES = sorted((ROOT / "docs").glob("*.md"))
BLOCK = re.compile(r"```console\n(.*?)```", re.S)
MARKER = "@@mesh-docs-command@@"


def sessions() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in BLOCK.finditer(text):
            found.append((page.name, text[: match.start()].count("\n") + 1, match.group(1)))
    return found


@pytest.fixture(scope="module")
def mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A registry with the starter agents, and a `mesh` executable on the PATH (this checkout's)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    script = bin_dir / "mesh"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mesh_framework.cli "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    with run_registry(0) as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
        with run_agent("starter_app", env=env) as starter, run_agent("starter_app.calculator", env=env):
            wait_until(lambda: _resolved(registry), timeout=30)
            yield {**env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
            del starter


def _resolved(registry: AgentProcess) -> bool:

    agents = loopback.get(registry.base_url + "/agents", timeout=5).json().get("agents") or []
    return len(agents) == 2 and all(a["dependencies_resolved"] == a["total_dependencies"] for a in agents)


def split(session: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line of a session."""
    steps: list[tuple[str, list[str]]] = []
    for line in session.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line with spaces collapsed; a line `...` matches any number of lines, and `...` inside a
    line any text (an id, a port)."""
    patterns = [_line_pattern(line) for line in expected]
    got = [" ".join(line.split()) for line in actual]

    def walk(i: int, j: int) -> bool:
        if i == len(patterns):
            return j == len(got)
        if patterns[i] is None:
            return any(walk(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and patterns[i].fullmatch(got[j]) is not None and walk(i + 1, j + 1)  # type: ignore[union-attr]

    return walk(0, 0)


def _line_pattern(line: str) -> re.Pattern[str] | None:
    text = " ".join(line.split())
    if text == "...":
        return None
    return re.compile(".*".join(re.escape(part) for part in text.split("...")))


@pytest.mark.timeout(180)  # a page's session is bounded at 120 s below
@pytest.mark.parametrize(("page", "line", "session"), sessions(), ids=lambda v: str(v)[:20])
def test_console_session_runs_as_written(
    mesh: dict[str, str], page: str, line: int, session: str, tmp_path: Path
) -> None:
    steps = split(session)
    # the marker is printed between commands without changing `$?` for the next one
    script = "".join(f"status=$?; echo '{MARKER}'; (exit $status)\n{command}\n" for command, _ in steps)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env={**env, **mesh, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    outputs = result.stdout.split(MARKER + "\n")[1:]
    assert len(outputs) == len(steps), result.stdout
    for (command, expected), output in zip(steps, outputs, strict=True):
        actual = output.splitlines()
        assert matches(expected, actual), (
            f"docs/{page}:{line}: `{command}` printed:\n{output}\nthe page says:\n" + "\n".join(expected)
        )


def test_the_docs_have_console_sessions() -> None:
    assert {page for page, _, _ in sessions()} >= {"cli.md"}
