"""`mesh ARGS` run by the CLI's own `main(argv)` in a thread of the test's process: what the command prints
and its exit code, without starting a Python process for it (importing the framework there costs more CPU
than most commands do). For tests about what a command says and does with the servers it talks to; a test
about the process itself (a signal, its environment, how it exits) runs it with `tests.agents.run_cli`.

The command's environment is the test's, set through `monkeypatch` as `tests.agents.agent_env` sets a
process's (no MESH_/MCP_MESH_ setting of the test's own, no registry unless `env` names one); its stdout and
stderr are captured while it runs (they are the process's: the test thread should print nothing meanwhile).
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TextIO

import pytest

__all__ = ["CliRun", "run_cli_in_process", "start_cli"]


class _Output(io.StringIO):
    """A stream the command writes to from its thread; the test waits on it for a line."""

    def __init__(self) -> None:
        super().__init__()
        self._written = threading.Condition()

    def write(self, text: str) -> int:
        with self._written:
            count = super().write(text)
            self._written.notify_all()
        return count

    def first_line(self, timeout: float, done: threading.Event) -> str:
        """The first whole line written (empty when the command ended before writing one)."""
        deadline = time.monotonic() + timeout
        with self._written:
            while "\n" not in (text := self.getvalue()) and not done.is_set():
                if not self._written.wait(timeout=max(0.0, deadline - time.monotonic())):
                    raise AssertionError(f"the command printed no line within {timeout}s: {text!r}")
        return text.split("\n", 1)[0] + "\n" if "\n" in text else ""


class CliRun:
    """A `mesh` command running in a thread: its first line once printed; its end. Its stdout and stderr
    are captured, or both are `terminal` when given (a pseudo-terminal the test reads itself)."""

    def __init__(self, args: Sequence[str], terminal: TextIO | None = None) -> None:
        self.args = list(args)
        self.stdout, self.stderr = _Output(), _Output()
        self._done = threading.Event()
        self._code: int | None = None
        self._streams = sys.stdout, sys.stderr
        self._logging = list(logging.getLogger().handlers), logging.getLogger().level
        self._path = list(sys.path)  # `main` puts the working folder on it
        sys.stdout, sys.stderr = (terminal, terminal) if terminal is not None else (self.stdout, self.stderr)
        self._thread = threading.Thread(target=self._run, name=f"mesh {' '.join(self.args)}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from mesh_framework.cli import main

        try:
            self._code = main(self.args)
        except SystemExit as exc:  # argparse's usage errors
            self._code = exc.code if isinstance(exc.code, int) else 1
        finally:
            self._done.set()

    @property
    def ended(self) -> bool:
        return self._done.is_set()

    @property
    def code(self) -> int | None:
        """The exit code, once ended."""
        return self._code

    def first_line(self, timeout: float = 30.0) -> str:
        return self.stdout.first_line(timeout, self._done)

    def finish(self, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Waits for the command's end; then as `close`."""
        ended = self._done.wait(timeout)
        self.close()
        assert ended, f"`mesh {' '.join(self.args)}` did not end within {timeout}s: {self.stderr.getvalue()}"
        assert self._code is not None
        return subprocess.CompletedProcess(
            ["mesh", *self.args], self._code, self.stdout.getvalue(), self.stderr.getvalue()
        )

    def close(self) -> None:
        """The streams, the root logger (which `main` configures for a command-line run) and `sys.path` are
        the test's again (a command that has not ended writes on to its own streams, unread)."""
        sys.stdout, sys.stderr = self._streams
        sys.path[:] = self._path
        handlers, level = self._logging
        logging.getLogger().handlers[:] = handlers
        logging.getLogger().setLevel(level)


def _environ(monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str] | None) -> None:
    for name in list(os.environ):
        if name.startswith(("MESH_", "MCP_MESH_")):
            monkeypatch.delenv(name)
    env = dict(env or {})
    if "MCP_MESH_REGISTRY_URL" not in env and "MESH_REGISTRY__EMBEDDED_PORT" not in env:
        env["MESH_REGISTRY__ENABLED"] = "false"
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def start_cli(
    args: Sequence[str], monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str] | None = None
) -> CliRun:
    """`mesh ARGS` started in a thread, with `env` set (for the rest of the test)."""
    _environ(monkeypatch, env)
    return CliRun(args)


def run_cli_in_process(
    args: Sequence[str],
    monkeypatch: pytest.MonkeyPatch,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> subprocess.CompletedProcess[str]:
    """`mesh ARGS` run to its end (bounded by `timeout`), as `tests.agents.run_cli` answers."""
    return start_cli(args, monkeypatch, env).finish(timeout)
