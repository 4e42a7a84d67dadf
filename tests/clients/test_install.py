"""`mesh install CLIENT`: each client's file at its own path (Linux and macOS), its own entry format, every
other key kept, a backup, a second run that changes nothing, `--dry-run`, and the error paths (a file that
is not strict JSON, an unknown client, no target, bad options), in process."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework.cli import main
from mesh_framework.install import (
    CLIENTS,
    FILE_CLIENTS,
    ConfigFileError,
    Target,
    config_path,
    mesh_executable,
    plan_change,
    plan_install,
    server_entry,
    target_for,
)

URL = "http://127.0.0.1:9090/mcp"
COMMAND = Target(command=("/venv/bin/mesh", "stdio", "starter_app", "--directory", "/project"))
KEYS = {
    "claude-code": "mcpServers",
    "claude-desktop": "mcpServers",
    "cursor": "mcpServers",
    "vscode": "servers",
    "gemini-cli": "mcpServers",
}
LINUX = {
    "claude-code": ".claude.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".config/Code/User/mcp.json",
    "gemini-cli": ".gemini/settings.json",
}
MACOS = {
    **LINUX,
    "claude-desktop": "Library/Application Support/Claude/claude_desktop_config.json",
    "vscode": "Library/Application Support/Code/User/mcp.json",
}
PROJECT = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
    "gemini-cli": ".gemini/settings.json",
}


@pytest.fixture(autouse=True)
def keep_process_state() -> Iterator[None]:
    """`main()` configures the root logger and puts the working folder on sys.path; put both back."""
    root = logging.getLogger()
    handlers, level, path = list(root.handlers), root.level, list(sys.path)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    sys.path[:] = path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def user_file(home: Path, client: str) -> Path:
    return home / LINUX[client] if sys.platform != "darwin" else home / MACOS[client]


# -- where each client keeps its servers, and the entry it expects ------------------------------


@pytest.mark.parametrize("client", FILE_CLIENTS)
@pytest.mark.parametrize(("platform", "paths"), [("linux", LINUX), ("darwin", MACOS)])
def test_each_client_file_on_linux_and_macos(client: str, platform: str, paths: dict[str, str]) -> None:
    home, project = Path("/home/u"), Path("/work/p")
    assert config_path(client, home=home, platform=platform) == home / paths[client]
    if client in PROJECT:
        found = config_path(client, home=home, platform=platform, scope="project", project=project)
        assert found == project / PROJECT[client]
    else:
        with pytest.raises(ValueError, match="no project configuration file"):
            config_path(client, home=home, platform=platform, scope="project", project=project)


def test_the_clients_are_the_documented_ones() -> None:
    assert list(CLIENTS) == ["claude-code", "claude-desktop", "cursor", "vscode", "gemini-cli", "mcp-json"]
    assert tuple(LINUX) == FILE_CLIENTS
    with pytest.raises(ValueError, match="unknown client 'zed'; the clients: claude-code, "):
        config_path("zed", home=Path("/h"), platform="linux")


def test_url_entries_differ_per_client() -> None:
    url = Target(url=URL)
    assert server_entry("claude-code", url) == {"type": "http", "url": URL}
    assert server_entry("vscode", url) == {"type": "http", "url": URL}
    assert server_entry("mcp-json", url) == {"type": "http", "url": URL}
    assert server_entry("cursor", url) == {"url": URL}
    assert server_entry("gemini-cli", url) == {"httpUrl": URL}
    with pytest.raises(ValueError, match="neither a URL nor a command"):
        server_entry("claude-desktop", url)  # its file takes commands only: the bridge is the command


def test_command_entries_differ_per_client() -> None:
    args = ["stdio", "starter_app", "--directory", "/project"]
    typed = {"type": "stdio", "command": "/venv/bin/mesh", "args": args}
    for client in ("claude-code", "vscode", "mcp-json"):
        assert server_entry(client, COMMAND) == typed
    for client in ("claude-desktop", "cursor", "gemini-cli"):
        assert server_entry(client, COMMAND) == {"command": "/venv/bin/mesh", "args": args}


def test_targets_an_app_by_this_environment_and_a_url_in_claude_desktop_by_the_bridge() -> None:
    mesh = ["/venv/bin/mesh"]
    app = target_for("cursor", url=None, app="starter_app", mesh=mesh, directory=Path("/p"))
    assert app == Target(command=("/venv/bin/mesh", "stdio", "starter_app", "--directory", "/p"))
    assert target_for("cursor", url=URL, app=None, mesh=mesh, directory=Path("/p")) == Target(url=URL)
    desktop = target_for("claude-desktop", url=URL, app=None, mesh=mesh, directory=Path("/p"))
    assert server_entry("claude-desktop", desktop) == {
        "command": "/venv/bin/mesh",
        "args": ["stdio", "--url", URL],
    }


def test_the_mesh_executable_is_the_one_beside_the_interpreter(tmp_path: Path) -> None:
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    python = venv / "python"
    python.touch()
    assert mesh_executable(str(python), "linux") == [str(python), "-m", "mesh_framework.cli"]
    (venv / "mesh").touch()
    assert mesh_executable(str(python), "linux") == [str(venv / "mesh")]
    assert mesh_executable(str(python), "win32") == [str(python), "-m", "mesh_framework.cli"]  # mesh.exe


@pytest.mark.parametrize("client", FILE_CLIENTS)
@pytest.mark.parametrize(("platform", "paths"), [("linux", LINUX), ("darwin", MACOS)])
def test_plan_install_writes_each_client_file_on_both_platforms(
    tmp_path: Path, client: str, platform: str, paths: dict[str, str]
) -> None:
    target = target_for(client, url=URL, app=None, mesh=["/venv/bin/mesh"], directory=tmp_path)
    plan = plan_install(client, "mesh", target, home=tmp_path, platform=platform)
    assert plan.change is not None and plan.change.path == tmp_path / paths[client]
    assert plan.change.write() is None  # a new file: nothing to back up
    written = json.loads((tmp_path / paths[client]).read_text())
    assert written == {KEYS[client]: {"mesh": server_entry(client, target)}}


# -- the command, for every client ----------------------------------------------------------------


@pytest.mark.parametrize("client", FILE_CLIENTS)
def test_a_new_file(home: Path, capsys: pytest.CaptureFixture[str], client: str) -> None:
    code, out, err = run(capsys, "install", client, "--name", "mesh", "--url", URL)
    assert code == 0, err
    path = user_file(home, client)
    assert f"added 'mesh' to {path}" in out and "backup" not in out
    assert f"restart {CLIENTS[client].title}" in out
    data = json.loads(path.read_text())
    assert list(data) == [KEYS[client]] and list(data[KEYS[client]]) == ["mesh"]


@pytest.mark.parametrize("client", FILE_CLIENTS)
def test_an_existing_file_keeps_every_other_entry_and_key_and_is_backed_up(
    home: Path, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    path = user_file(home, client)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = KEYS[client]
    original = {
        "theme": "dark",
        key: {"other": {"command": "npx", "args": ["-y", "other"]}, "zeta": {"url": "https://z/mcp"}},
        "projects": {"/p": {"mcpServers": {"local": {"command": "x"}}}},
        "ünïcode": "kept",
    }
    text = json.dumps(original, indent=4, ensure_ascii=False) + "\n"
    path.write_text(text)
    path.chmod(0o600)

    code, out, err = run(capsys, "install", client, "--name", "mesh", "--url", URL)
    assert code == 0, err
    data = json.loads(path.read_text())
    assert data == {**original, key: {**original[key], "mesh": data[key]["mesh"]}}
    assert list(data) == list(original) and list(data[key]) == ["other", "zeta", "mesh"]
    assert '\n    "theme"' in path.read_text() and "ünïcode" in path.read_text()  # indentation, UTF-8 kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    backups = list(path.parent.glob(f"{path.name}.*.bak"))
    assert len(backups) == 1 and backups[0].read_text() == text
    assert f"(backup: {backups[0]})" in out


@pytest.mark.parametrize("client", FILE_CLIENTS)
def test_a_second_run_changes_nothing_and_says_so(
    home: Path, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    assert run(capsys, "install", client, "--name", "mesh", "--url", URL)[0] == 0
    path = user_file(home, client)
    before = path.read_text(), path.stat().st_mtime_ns
    code, out, _ = run(capsys, "install", client, "--name", "mesh", "--url", URL)
    assert code == 0
    assert out.strip() == f"'mesh' is already in {path} as given; nothing changed"
    assert (path.read_text(), path.stat().st_mtime_ns) == before
    assert not list(path.parent.glob("*.bak"))


@pytest.mark.parametrize("client", FILE_CLIENTS)
def test_dry_run_shows_the_diff_and_writes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    code, out, _ = run(capsys, "install", client, "--name", "mesh", "--url", URL, "--dry-run")
    path = user_file(home, client)
    assert code == 0 and not path.exists()
    assert out.startswith(f"--- /dev/null\n+++ {path}\n@@ ")
    assert '+    "mesh": {' in out and out.rstrip().endswith(f"dry run: {path} not changed")

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({KEYS[client]: {"other": {"command": "x"}}}, indent=2))
    code, out, _ = run(capsys, "install", client, "--name", "mesh", "--url", URL, "--dry-run")
    assert code == 0 and f"--- {path}\n+++ {path}\n" in out
    assert "-" + ' "other"' not in out and "+" in out
    assert json.loads(path.read_text()) == {KEYS[client]: {"other": {"command": "x"}}}
    assert not list(path.parent.glob("*.bak"))


@pytest.mark.parametrize("client", FILE_CLIENTS)
@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        ('{\n  "a": 1,\n  "b": [1 2]\n}\n', "3:11", "not valid JSON (Expecting ',' delimiter)"),
        ('{\n  // mine\n  "a": 1\n}\n', "2:3", "a comment; mesh install does not rewrite a file with"),
        ('{\n  "a": 1 /* c */\n}\n', "2:10", "a comment"),
        ('{\n  "a": [1, 2,],\n  "b": 1\n}\n', "2:14", "a trailing comma"),
        ("[1, 2]\n", "1", "holds a JSON list, not an object"),
        ('{\n  "theme": 1,\n  "KEY": [1]\n}\n', "3", "'KEY' is a JSON list, not an object of servers"),
    ],
)
def test_a_malformed_file_is_named_with_its_line_and_left_alone(
    home: Path, capsys: pytest.CaptureFixture[str], client: str, text: str, line: str, said: str
) -> None:
    path = user_file(home, client)
    path.parent.mkdir(parents=True, exist_ok=True)
    text, said = text.replace("KEY", KEYS[client]), said.replace("KEY", KEYS[client])
    path.write_text(text)
    code, out, err = run(capsys, "install", client, "--name", "mesh", "--url", URL)
    assert code == 1 and out == ""
    assert err.startswith(f"mesh install: {path}:{line}: {said}"), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_text() == text and not list(path.parent.glob("*.bak"))


def test_a_file_refused_for_its_comments_says_which_entry_to_add_by_hand(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / LINUX["vscode"]
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // my servers\n  "servers": {}\n}\n')
    code, _, err = run(capsys, "install", "vscode", "--name", "mesh", "--url", URL)
    assert code == 1
    assert f"""(the entry, under 'servers': "mesh": {{"type": "http", "url": "{URL}"}})""" in err


def test_an_entry_of_that_name_is_replaced_and_said_so(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / LINUX["cursor"]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"mesh": {"url": "http://old/mcp"}, "b": {"url": "u"}}}))
    code, out, _ = run(capsys, "install", "cursor", "--name", "mesh", "--url", URL)
    assert code == 0 and out.startswith(f"replaced 'mesh' in {path} (backup: ")
    assert json.loads(path.read_text())["mcpServers"] == {"mesh": {"url": URL}, "b": {"url": "u"}}


def test_tabs_stay_tabs(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / LINUX["vscode"]
    path.parent.mkdir(parents=True)
    path.write_text('{\n\t"servers": {},\n\t"inputs": []\n}\n')
    assert run(capsys, "install", "vscode", "--name", "mesh", "--url", URL)[0] == 0
    assert path.read_text() == (
        '{\n\t"servers": {\n\t\t"mesh": {\n\t\t\t"type": "http",\n\t\t\t"url": "'
        + URL
        + '"\n\t\t}\n\t},\n\t"inputs": []\n}\n'
    )


def test_an_app_becomes_a_command_of_this_environment(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "install", "cursor", "starter_app")
    assert code == 0, err
    entry = json.loads((home / LINUX["cursor"]).read_text())["mcpServers"]["starter_app"]
    assert entry == {
        "command": mesh_executable()[0],
        "args": [*mesh_executable()[1:], "stdio", "starter_app", "--directory", os.getcwd()],
    }
    assert Path(entry["command"]).is_absolute()


def test_an_app_module_is_named_by_dots_as_dashes(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "install", "gemini-cli", "starter_app.calculator")[0] == 0
    servers = json.loads((home / LINUX["gemini-cli"]).read_text())["mcpServers"]
    assert list(servers) == ["starter_app-calculator"]


def test_mcp_json_prints_the_entry_and_changes_no_file(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "install", "mcp-json", "--name", "mesh", "--url", URL)
    assert code == 0
    assert json.loads(out) == {"mcpServers": {"mesh": {"type": "http", "url": URL}}}
    assert list(home.iterdir()) == []


def test_project_scope_writes_the_project_file(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "install", "claude-code", "--name", "mesh", "--url", URL, "--scope", "project")
    assert code == 0 and f"added 'mesh' to {project / '.mcp.json'}" in out
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"mesh": {"type": "http", "url": URL}}
    }
    assert list(home.iterdir()) == []


def test_plan_change_reads_only(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"mcpServers": {}}')
    change = plan_change(path, "mcpServers", "m", {"url": URL})
    assert change.changed and path.read_text() == '{"mcpServers": {}}'
    path.write_text("{oops")
    with pytest.raises(ConfigFileError, match=r"a\.json:1:2: not valid JSON"):
        plan_change(path, "mcpServers", "m", {"url": URL})


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["install", "zed", "--url", URL], "invalid choice: 'zed'; choose from claude-code, claude-desktop"),
        (["install", "cursr", "--url", URL], "did you mean 'cursor'?"),
        (["install", "cursor"], "give an app module (`mesh install cursor starter_app`) or --url URL"),
        (["install", "cursor", "starter_app", "--url", URL], "give an app or --url, not both"),
        (["install", "cursor", "--url", URL], "name the server the client will show: --name NAME"),
        (["install", "cursor", "--name", "m", "--url", "ftp://x"], "is not an http:// or https:// URL"),
        (["install", "cursor", "--name", "a b", "--url", URL], "--name 'a b': use letters, digits"),
        (["install", "cursor", "no_such_app_here"], "no module named 'no_such_app_here' from "),
        (
            ["install", "claude-desktop", "--name", "m", "--url", URL, "--scope", "project"],
            "Claude Desktop has no project file",
        ),
    ],
)
def test_usage_errors(home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    try:
        code = main(argv)
    except SystemExit as exited:  # the parser's own errors (an unknown client)
        code = int(exited.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and said in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(home.iterdir()) == []
