"""`mesh completion bash|zsh`: the printed scripts complete subcommands, options, choices and file names,
as the shells run them (bash always; zsh where it is installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mesh_framework.cli import build_parser
from mesh_framework.cli.shell_completion import commands_of, script

from .test_cli_errors import assert_one_clean_line
from .test_cli_json import Cli, clean_fixture, cli_fixture  # noqa: F401 (fixtures)


def bash_complete(tmp_path: Path, words: list[str]) -> list[str]:
    """What bash's `_mesh` offers with the cursor on the last of `words` (`mesh` first)."""
    (tmp_path / "mesh.bash").write_text(script("bash", build_parser()))
    array = " ".join(f"'{w}'" for w in words)
    program = (
        f"source '{tmp_path / 'mesh.bash'}'; COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
        '_mesh; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return sorted(line for line in done.stdout.splitlines() if line)


def test_the_parser_is_described_completely() -> None:
    commands = {c.path: c for c in commands_of(build_parser())}
    assert set(commands[""].subcommands) == {
        "run",
        "config",
        "beans",
        "list",
        "status",
        "explain",
        "call",
        "console",
        "catalog",
        "registry",
        "completion",
        "new",
        "gateway",
        "install",
        "stdio",
    }
    assert commands["catalog"].subcommands == ["list", "show", "export", "login", "logout"]
    assert "--json" in commands["catalog list"].options and "--reload" in commands["run"].options
    assert commands["completion"].values == {"": ["bash", "zsh"]}
    assert commands["config"].values["--config"] == ["__files__"]
    assert "--json" not in commands["run"].valued and "--port" in commands["run"].valued


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["mesh", "st"], ["status", "stdio"]),
        (["mesh", "install", "c"], ["claude-code", "claude-desktop", "cursor"]),
        (["mesh", "c"], ["call", "catalog", "completion", "config", "console"]),
        (["mesh", "catalog", ""], ["export", "list", "login", "logout", "show"]),
        (["mesh", "catalog", "list", "--j"], ["--json"]),
        (["mesh", "run", "--re"], ["--registry-port", "--registry-url", "--reload"]),
        (["mesh", "completion", ""], ["bash", "zsh"]),
        (["mesh", "--profile", "dev", "conf"], ["config"]),
        (["mesh", "config", "--port", "80", "--ex"], ["--explain"]),
    ],
)
def test_bash_completes_commands_options_and_choices(
    tmp_path: Path, words: list[str], expected: list[str]
) -> None:
    assert bash_complete(tmp_path, words) == expected


def test_bash_completes_file_names_for_path_options(tmp_path: Path) -> None:
    (tmp_path / "settings-dir").mkdir()
    assert bash_complete(tmp_path, ["mesh", "config", "--config", "sett"]) == ["settings-dir"]
    assert bash_complete(tmp_path, ["mesh", "registry", "--port", ""]) == []  # a number: no words


def test_zsh_completes_like_bash(tmp_path: Path) -> None:
    assert shutil.which("zsh"), "zsh is missing: run scripts/install-system-packages.sh"
    (tmp_path / "_mesh").write_text(script("zsh", build_parser()))
    stubs = 'compadd() { [[ "$1" == -- ]] && shift; print -l -- "$@"; }; _files() { print __files__; }; '
    stubs += "compdef() { :; }; "

    def complete(*words: str) -> list[str]:
        array = " ".join(f"'{w}'" for w in words)
        program = f"{stubs} source '{tmp_path / '_mesh'}'; words=({array}); CURRENT={len(words)}; _mesh"
        done = subprocess.run(
            ["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=10, check=False
        )
        assert done.returncode == 0, done.stderr
        return sorted(line for line in done.stdout.splitlines() if line)

    assert [w for w in complete("mesh", "catalog", "") if w] == ["export", "list", "login", "logout", "show"]
    assert complete("mesh", "completion", "") == ["bash", "zsh"]
    assert "--explain" in complete("mesh", "config", "--")
    assert complete("mesh", "config", "--config", "") == ["__files__"]
    assert complete("mesh", "run", "starter_app", "") == ["__files__"]


def test_the_command_prints_the_script(cli: Cli, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli("completion", "bash")
    assert code == 0 and out.rstrip().endswith("complete -o default -F _mesh mesh")
    code, out, _ = cli("completion", "zsh")
    assert code == 0 and out.startswith("#compdef mesh\n")
    with pytest.raises(SystemExit) as exited:
        cli("completion", "fish")
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "invalid choice: 'fish'" in err
    assert_one_clean_line(err)
