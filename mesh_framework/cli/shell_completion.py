"""`mesh completion bash|zsh`: a static completion script, generated from the argparse parser itself.

Completes subcommands, options, option choices and file names for path options; so the script cannot
drift from the parser, it is printed from it at run time. Install it with
`mesh completion bash > ~/.local/share/bash-completion/completions/mesh` (or `source <(mesh completion
bash)` in `~/.bashrc`), and for zsh `mesh completion zsh > "${fpath[1]}/_mesh"`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from .common import EXIT_OK
from .output import echo

__all__ = ["Command", "commands_of", "register", "script"]

SHELLS = ("bash", "zsh")
# Options whose value is a file or folder (by their metavar).
FILE_METAVARS = {"PATH", "FILE"}
FILES = "__files__"


class Command:
    """What completes after one command path (`""`, `"run"`, `"catalog export"`)."""

    __slots__ = ("options", "path", "subcommands", "valued", "values")

    def __init__(self, path: str) -> None:
        self.path = path
        self.subcommands: list[str] = []
        self.options: list[str] = []
        self.valued: list[str] = []
        self.values: dict[str, list[str]] = {}  # option ("" for positionals) → words


def register(commands: Any, root: argparse.ArgumentParser) -> None:
    """Add `mesh completion`; its script is printed from `root`, the whole `mesh` parser."""
    completion = commands.add_parser(
        "completion",
        help="print a shell completion script (bash or zsh)",
        description="Print a completion script for bash or zsh. Install it with `mesh completion bash > "
        "~/.local/share/bash-completion/completions/mesh` (or `source <(mesh completion bash)` in "
        '~/.bashrc); for zsh, `mesh completion zsh > "${fpath[1]}/_mesh"`, then start a new shell.',
    )
    completion.add_argument("shell", choices=SHELLS, help="the shell: bash or zsh")
    completion.set_defaults(handler=lambda args: _completion(args, root))


def _completion(args: argparse.Namespace, root: argparse.ArgumentParser) -> int:
    echo(script(args.shell, root))
    return EXIT_OK


def commands_of(parser: argparse.ArgumentParser, path: str = "") -> Iterator[Command]:
    """Every command path of `parser` with what completes after it, parents first."""
    command = Command(path)
    children: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                command.subcommands.append(name)
                children.append((name, child))
            continue
        if action.option_strings:
            command.options.extend(action.option_strings)
            if action.nargs == 0:
                continue
            command.valued.extend(action.option_strings)
            words = _values(action)
            for option in action.option_strings:
                if words:
                    command.values[option] = words
        elif action.choices:
            command.values[""] = [str(c) for c in action.choices]
    yield command
    for name, child in children:
        yield from commands_of(child, f"{path} {name}".strip())


def _values(action: argparse.Action) -> list[str]:
    if action.choices:
        return [str(c) for c in action.choices]
    return [FILES] if action.metavar in FILE_METAVARS else []


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    commands = list(commands_of(parser))
    helpers = "\n".join(
        [
            _case("_mesh_subcommands", {c.path: c.subcommands for c in commands}),
            _case("_mesh_options", {c.path: c.options for c in commands}),
            _case("_mesh_valued", {c.path: c.valued for c in commands}),
            _case(
                "_mesh_values",
                {f"{c.path}|{option}": words for c in commands for option, words in c.values.items()},
                arguments='"$1|$2"',
            ),
        ]
    )
    return (BASH if shell == "bash" else ZSH).replace("@HELPERS@", helpers)


def _case(name: str, table: dict[str, list[str]], arguments: str = '"$1"') -> str:
    lines = [f"{name}() {{", f"    case {arguments} in"]
    for key, words in table.items():
        if words:
            lines.append(f'        "{key}") echo "{" ".join(words)}" ;;')
    lines += ["    esac", "}"]
    return "\n".join(lines)


def _walk(first: str, cursor: str, words: str) -> str:
    """The loop both scripts run over the words before the cursor (the shell's array `words`, from index
    `first` to `cursor`): the command path they name, and `skip` set when the last is an option awaiting
    its value."""
    return f'    for ((i = {first}; i < {cursor}; i++)); do\n        word="${{{words}[i]}}"\n' + _WALK


_WALK = """\
        if ((skip)); then skip=0; continue; fi
        if [[ "$word" == -* ]]; then
            valued=" $(_mesh_valued "$cmdpath") "
            [[ "$word" != *=* && "$valued" == *" $word "* ]] && skip=1
            continue
        fi
        if [[ " $(_mesh_subcommands "$cmdpath") " == *" $word "* ]]; then
            cmdpath="${cmdpath:+$cmdpath }$word"
        fi
    done"""


BASH = """\
# bash completion for `mesh` (printed by `mesh completion bash`)
@HELPERS@

_mesh() {
    local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath="" word i skip=0 valued values
@WALK@
    if ((skip)); then
        values="$(_mesh_values "$cmdpath" "${COMP_WORDS[COMP_CWORD-1]}")"
        if [[ "$values" == __files__ ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
        fi
    elif [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(_mesh_options "$cmdpath")" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$(_mesh_subcommands "$cmdpath") $(_mesh_values "$cmdpath" "")" -- "$cur"))
    fi
}
complete -o default -F _mesh mesh""".replace("@WALK@", _walk("1", "COMP_CWORD", "COMP_WORDS"))

ZSH = """\
#compdef mesh
# zsh completion for `mesh` (printed by `mesh completion zsh`)
@HELPERS@

_mesh() {
    local cur="${words[CURRENT]}" cmdpath="" word i skip=0 valued values candidates
@WALK@
    if ((skip)); then
        values="$(_mesh_values "$cmdpath" "${words[CURRENT-1]}")"
        if [[ "$values" == __files__ ]]; then _files; else compadd -- ${=values}; fi
    elif [[ "$cur" == -* ]]; then
        compadd -- ${=$(_mesh_options "$cmdpath")}
    else
        candidates="$(_mesh_subcommands "$cmdpath") $(_mesh_values "$cmdpath" "")"
        if [[ -n "${candidates// /}" ]]; then compadd -- ${=candidates}; else _files; fi
    fi
}

if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then
    _mesh "$@"
else
    compdef _mesh mesh
fi""".replace("@WALK@", _walk("2", "CURRENT", "words"))
