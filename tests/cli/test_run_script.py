"""`scripts/run.sh` stops as soon as `mesh run` has exited, with its exit code (its call loop used to keep
trying for about 50 s)."""

from __future__ import annotations

import subprocess

import pytest

from ..agents import ROOT, agent_env


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--no-such-option"], 2, "mesh run: unrecognized arguments: --no-such-option"),
        (["--profile", "nope"], 1, "application-nope.yaml not found"),  # the agents exit at start-up
    ],
)
def test_the_script_ends_with_mesh_run(args: list[str], code: int, said: str) -> None:
    env = agent_env({"MESH_REGISTRY__EMBEDDED_PORT": "0"})  # a registry, if any, on a free port
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "run.sh"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=25,  # the old script kept calling for ~50 s after mesh run had exited
        check=False,
    )
    assert result.returncode == code, result.stderr
    assert said in result.stderr
    assert "cross-agent call" not in result.stdout
