"""Commands the docs show run as typed, in zsh (macOS's shell) and bash: `mesh new "My App"` of
docs/new-project.md, the generated README's `pip install -e ...[openai]`, and the README's `mesh config`
line with the output it shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mesh_framework.scaffold import create_project

from ..agents import ROOT, agent_env

SHELLS = ["zsh", "bash"]


def typed(shell: str, line: str, cwd: Path, *, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """`line` as a user types it into `shell` (no rc files), with this checkout's `mesh` on the PATH."""
    assert shutil.which(shell), f"{shell} is missing: run scripts/install-system-packages.sh"
    env = agent_env()
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    flags = ["-f"] if shell == "zsh" else ["--norc", "--noprofile"]
    return subprocess.run(
        [shell, *flags, "-c", prelude + line],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_the_new_project_page_names_a_bad_name_as_typed(shell: str, tmp_path: Path) -> None:
    text = (ROOT / "docs" / "new-project.md").read_text()
    [command] = re.findall(r"`(mesh new [^`]+)` suggests `my-app`", text)
    result = typed(shell, command, tmp_path)
    assert result.returncode == 2, result.stderr
    assert "try 'my-app'" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("shell", SHELLS)
def test_the_generated_readme_installs_as_typed(shell: str, tmp_path: Path) -> None:
    folder = create_project("shop", directory=tmp_path / "shop", llm=True)
    lines = [line.strip() for line in (folder / "README.md").read_text().splitlines()]
    install = next(line for line in lines if line.startswith("pip install -e "))
    # `pip` stands in as a function that prints the words it was given: no network, no venv
    prelude = "pip() { printf '%s\\n' \"$@\"; }; "
    result = typed(shell, install, tmp_path, prelude=prelude)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["install", "-e", f"{ROOT}[openai]"]


def test_the_readme_mesh_config_sample_is_what_the_command_prints() -> None:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"`(mesh config [^`]+)` prints every resolved value[^\n]*\n\n((?:    .*\n)+)", text)
    assert match, "the README's `mesh config` sample is missing"
    command, sample = match.group(1), match.group(2)
    result = typed("zsh", command, ROOT)
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.strip()}
    for line in sample.splitlines():
        words = line.split()
        assert rows[words[0]] == words, f"README shows {line.strip()!r}; {command} prints {rows[words[0]]}"
