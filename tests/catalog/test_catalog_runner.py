"""Coding-agent runners, over stand-in executables that record what they were given."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.catalog import (
    ClaudeCodeRunner,
    CodingAgentError,
    GeminiCliRunner,
    HttpDefinition,
    McpServerCatalog,
    StdioDefinition,
    to_claude_code,
    to_gemini,
)
from mesh_framework.errors import CatalogError

STAND_IN = """\
import json, os, subprocess, sys, time
argv = sys.argv[1:]
config_path = argv[argv.index("--mcp-config") + 1] if "--mcp-config" in argv else os.environ.get(
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
)
record = {
    "argv": argv,
    "cwd": os.getcwd(),
    "config_path": config_path,
    "config": json.load(open(config_path)) if config_path else None,
    "mode": oct(os.stat(config_path).st_mode & 0o777) if config_path else None,
    "extra_env": os.environ.get("EXTRA"),
}
mode = os.environ.get("STAND_IN_MODE", "ok")
if mode == "sleep":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    record["child"] = child.pid
with open(os.environ["STAND_IN_RECORD"], "w") as out:
    json.dump(record, out)
if mode == "sleep":
    print("working...", flush=True)
    time.sleep(60)
if mode == "fail":
    print("partial output")
    print("warming up", file=sys.stderr)
    print("boom: no credentials", file=sys.stderr)
    sys.exit(3)
print(json.dumps({"result": "done"}))
"""

CATALOG = McpServerCatalog.of(
    {
        "fs": StdioDefinition("npx", ["-y", "server-fs"], {"TOKEN": "t"}),
        "web": HttpDefinition("https://web.example.com/mcp", {"Authorization": "Bearer s3cret"}),
        "docs": HttpDefinition("https://docs.example.com/mcp"),
    }
)


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "bin" / "agent"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\n{STAND_IN}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("STAND_IN_RECORD", str(tmp_path / "record.json"))
    return script


def record(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "record.json").read_text())  # type: ignore[no-any-return]


async def test_claude_code_gets_the_goal_and_its_servers_in_an_mcp_config_file(
    stand_in: Path, tmp_path: Path
) -> None:
    runner = ClaudeCodeRunner(
        CATALOG,
        executable=str(stand_in),
        default_servers=["fs"],
        output_format="json",
        extra_args=["--model", "sonnet"],
        env={"EXTRA": "yes"},
    )
    result = await runner.run("Fix the bug", servers=["web"], extra_args=["--max-turns", "3"])
    seen = record(tmp_path)
    assert seen["argv"] == [
        "-p",
        "Fix the bug",
        "--output-format",
        "json",
        "--model",
        "sonnet",
        "--max-turns",
        "3",
        "--strict-mcp-config",
        "--mcp-config",
        seen["config_path"],
    ]
    assert seen["config"] == to_claude_code(CATALOG.resolve(["fs", "web"]))
    assert seen["mode"] == "0o600" and seen["extra_env"] == "yes"
    assert result.ok and result.exit_code == 0 and not result.timed_out and result.error is None
    assert result.json() == {"result": "done"} and result.check() is result
    assert result.config == seen["config"] and str(result.config_path) == seen["config_path"]
    assert not result.config_path.exists() and not result.config_path.parent.exists()
    assert "s3cret" not in repr(result)


async def test_gemini_cli_reads_its_servers_from_the_system_settings_file(
    stand_in: Path, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    runner = GeminiCliRunner(CATALOG, executable=str(stand_in), cwd=workdir)
    result = await runner.run("Summarize", servers=["docs", "fs"])
    seen = record(tmp_path)
    assert seen["argv"] == [
        "-p",
        "Summarize",
        "--output-format",
        "text",
        "--allowed-mcp-server-names",
        "docs",
        "fs",
    ]
    assert seen["config"] == to_gemini(CATALOG.resolve(["docs", "fs"]))
    assert Path(seen["cwd"]) == workdir and not (workdir / ".gemini").exists()
    assert Path(seen["config_path"]).name == "settings.json" and not Path(seen["config_path"]).exists()
    assert result.ok


def test_definitions_can_be_given_directly_and_run_synchronously(stand_in: Path, tmp_path: Path) -> None:
    runner = ClaudeCodeRunner(executable=str(stand_in), output_format=None, strict_mcp_config=False)
    result = runner.run_sync("Go", servers={"local": StdioDefinition("python", ["s.py"])})
    seen = record(tmp_path)
    assert seen["argv"] == ["-p", "Go", "--mcp-config", seen["config_path"]]
    assert seen["config"] == {
        "mcpServers": {"local": {"type": "stdio", "command": "python", "args": ["s.py"], "env": {}}}
    }
    assert result.stdout.strip() == '{"result": "done"}'


async def test_timeout_stops_the_process_group_and_says_so(
    stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAND_IN_MODE", "sleep")
    runner = ClaudeCodeRunner(CATALOG, executable=str(stand_in), timeout=60)
    result = await runner.run("Loop forever", servers=["docs"], timeout=1.0)  # not the runner's 60 s
    assert result.timed_out and not result.ok and result.exit_code != 0
    assert "working..." in result.stdout
    assert result.error is not None and result.error.startswith("Claude Code timed out after 1.")
    assert "process group" in result.error
    with pytest.raises(CodingAgentError, match="timed out"):
        result.check()
    child = record(tmp_path)["child"]
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the agent's own child process outlived the timeout"
    assert not result.config_path.exists()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but not yet reaped by its parent (init, here): /proc says so.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


async def test_a_failing_agent_reports_its_exit_code_and_last_error_line(
    stand_in: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAND_IN_MODE", "fail")
    result = await GeminiCliRunner(executable=str(stand_in)).run("Try")
    assert (result.exit_code, result.timed_out, result.ok) == (3, False, False)
    assert result.stdout == "partial output\n" and "warming up" in result.stderr
    assert result.error == "Gemini CLI exited with code 3: boom: no credentials"
    with pytest.raises(CodingAgentError, match="exited with code 3: boom"):
        result.check()
    with pytest.raises(CodingAgentError, match="did not print JSON"):
        result.json()


async def test_missing_executable_and_unknown_servers_fail_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(CodingAgentError) as caught:
        await ClaudeCodeRunner(CATALOG, executable=str(tmp_path / "nope")).run("Go")
    assert "the executable '" in str(caught.value) and "was not found" in str(caught.value)
    assert "npm install -g @anthropic-ai/claude-code" in str(caught.value)
    with pytest.raises(CodingAgentError, match="'gemini-does-not-exist' was not found"):
        await GeminiCliRunner(executable="gemini-does-not-exist").run("Go")
    with pytest.raises(CatalogError, match=r"unknown MCP server\(s\): gh, db"):
        await ClaudeCodeRunner(CATALOG, default_servers=["gh"], executable=sys.executable).run("Go", ["db"])
    with pytest.raises(CatalogError, match="the runner has no catalog"):
        await ClaudeCodeRunner(executable=sys.executable).run("Go", ["web"])
