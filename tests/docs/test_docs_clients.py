"""docs/clients.md as written: every `mesh install` line of its ```bash blocks runs (with HOME and the
project folder in a temporary directory), and writes the entry of the ```json block that follows it; the
table names each client's file as the command computes it, on Linux and macOS. (Its ```console blocks run
in tests/docs/test_docs_console.py.)"""

from __future__ import annotations

import json
import logging
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework.cli import main
from mesh_framework.install import CLIENTS, FILE_CLIENTS, config_path, mesh_executable

from ..agents import ROOT
from ..docs_examples import page_blocks

PAGE = ROOT / "docs" / "clients.md"
# what the page shows for this machine's paths
PROJECT, MESH = "/home/me/shop", "/home/me/shop/.venv/bin/mesh"


@pytest.fixture(autouse=True)
def keep_process_state() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level, path = list(root.handlers), root.level, list(sys.path)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    sys.path[:] = path


def commands() -> list[tuple[int, list[str], dict[str, object] | None]]:
    """Each `mesh install` line of a ```bash block: its page line, its arguments, and the JSON block that
    follows the bash block (None when another block comes first)."""
    blocks = page_blocks(PAGE.read_text())
    found = []
    for index, block in enumerate(blocks):
        if block.kind != "bash":
            continue
        after = blocks[index + 1] if index + 1 < len(blocks) else None
        shown = json.loads(after.code) if after is not None and after.kind == "json" else None
        for offset, line in enumerate(block.code.splitlines()):
            if line.startswith("mesh install "):
                found.append((block.line + offset, shlex.split(line)[1:], shown))
    return found


def test_the_page_shows_every_client() -> None:
    shown = {argv[1] for _, argv, _ in commands()}
    assert shown == set(FILE_CLIENTS)
    assert all(f"`{name}`" in PAGE.read_text() for name in CLIENTS)


@pytest.mark.parametrize(("line", "argv", "shown"), commands(), ids=lambda v: str(v)[:40])
def test_each_install_line_writes_the_entry_shown(
    line: int,
    argv: list[str],
    shown: dict[str, object] | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(ROOT))  # the starter app, as in the project folder the page is in
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, f"docs/clients.md:{line}: {err}"
    client, scope = argv[1], argv[argv.index("--scope") + 1] if "--scope" in argv else "user"
    path = config_path(client, home=home, platform=sys.platform, scope=scope, project=project)
    assert "added '" in out and str(path) in out
    if shown is None:
        return
    [executable] = mesh_executable()  # this environment has a `mesh` script, as a venv does
    text = path.read_text().replace(executable, MESH).replace(str(project), PROJECT)
    assert json.loads(text) == shown, f"docs/clients.md:{line}"


@pytest.mark.parametrize("client", FILE_CLIENTS)
@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_the_table_names_each_file(client: str, platform: str) -> None:
    home = Path("/h")
    rows = [row for row in PAGE.read_text().splitlines() if row.startswith(f"| `{client}` |")]
    assert len(rows) == 1
    relative = config_path(client, home=home, platform=platform).relative_to(home)
    assert f"`~/{relative}`" in rows[0]
    if CLIENTS[client].project_path:
        assert f"`{CLIENTS[client].project_path}`" in rows[0]


def test_the_readme_line_installs_the_starter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    [line] = [row for row in (ROOT / "README.md").read_text().splitlines() if "mesh install " in row]
    argv = shlex.split(line.split("#")[0])
    assert argv[0] == ".venv/bin/mesh"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(ROOT)  # the checkout, where the README's commands run
    assert main(argv[1:]) == 0, capsys.readouterr().err
    entry = json.loads((tmp_path / ".cursor" / "mcp.json").read_text())["mcpServers"]["starter_app"]
    assert entry["args"][-4:] == ["stdio", "starter_app", "--directory", str(ROOT)]
