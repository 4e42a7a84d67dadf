"""Processes the mesh benchmark starts: output to a log file, stopped by PID (also on failure); waiting for a
condition while watching one of them; the run's log lines and the commands shown in the results."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from _common import PYTHON, ROOT


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Proc:
    """A process this benchmark started. Output goes to a log file; stopped by its PID."""

    started: ClassVar[list[Proc]] = []

    def __init__(self, label: str, argv: list[str], env: dict[str, str], cwd: Path, log_dir: Path) -> None:
        self.label = label
        self.argv = argv
        self.log_path = log_dir / f"{label}-{len(Proc.started)}.log"
        self._log = self.log_path.open("wb")
        self.t_exec = time.perf_counter()
        self.t_exec_wall = time.time()
        self.popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C at the terminal reaches only us; we stop it by PID
        )
        self.pid = self.popen.pid
        self.port: int | None = None
        self.agent_id: str | None = None
        self.endpoint: str | None = None
        Proc.started.append(self)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def check(self) -> None:
        if not self.alive():
            raise RuntimeError(
                f"{self.label} (pid {self.pid}) exited with {self.popen.returncode}:\n{self.tail()}"
            )

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM by PID, SIGKILL after `grace` seconds."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.popen.wait(timeout=5)
        self._log.close()

    def kill(self) -> None:
        """SIGKILL by PID (a crash: no unregistration)."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.popen.wait(timeout=5)
        self._log.close()


def stop_all() -> None:
    for proc in reversed(Proc.started):
        with contextlib.suppress(Exception):
            proc.stop(grace=5)


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MESH_", "MCP_MESH_"))
        and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env.update(extra)
    return env


def http_status(url: str, method: str = "GET", timeout: float = 1.0) -> int | None:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=timeout) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except OSError:
        return None


def wait_for(
    predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.02, proc: Proc | None = None
) -> Any:
    deadline = time.perf_counter() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if proc is not None:
            proc.check()
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{what} not within {timeout} s" + (f":\n{proc.tail()}" if proc else ""))
        time.sleep(interval)


def display(argv: list[str]) -> str:
    out = []
    for arg in argv:
        if arg == PYTHON:
            out.append(".venv/bin/python")
        elif arg.startswith(str(ROOT) + os.sep):
            out.append(os.path.relpath(arg, ROOT))
        else:
            out.append(arg)
    return " ".join(out)
