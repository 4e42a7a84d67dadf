"""The processes a benchmark starts: one class for all of them, stopped by PID, also on failure.

A `Proc` writes its output to a log file (in a folder the benchmark names, or a temporary file removed when
it stops), runs in its own session (a Ctrl-C at the terminal reaches only the benchmark, which stops its
processes itself) and is stopped by its PID: SIGTERM, then SIGKILL after a grace period. Children it started
and left behind (a gateway agent's stdio server) are stopped by their PIDs too. Every `Proc` is remembered
until it stops, so `stop_all()` in a `finally` ends whatever a failed run left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

__all__ = ["Proc", "child_pids", "clean_env", "display", "http_status", "log", "stop_all", "wait_for"]

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent


def log(message: str) -> None:
    """One progress line on stderr, with the time of day."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def child_pids(pid: int) -> list[int]:
    """The PIDs of the children of process `pid` (/proc), [] when it is gone."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


class Proc:
    """A subprocess of the benchmark: output to a log file, stopped by its PID."""

    running: ClassVar[list[Proc]] = []
    _count: ClassVar[int] = 0

    def __init__(
        self,
        label: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path = ROOT,
        log_dir: Path | None = None,
        port: int | None = None,
    ) -> None:
        self.label = label
        self.argv = list(argv)
        self.port = port
        self.endpoint = ""  # set by whoever learns it (given at spawn, or read from a registry)
        self.agent_id: str | None = None
        self.agent_name = ""
        if log_dir is None:
            handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
                "wb", prefix=f"bench-{label}-", suffix=".log", delete=False
            )
            self.log_path, self._keep_log = Path(handle.name), False
            self._log = handle.file
        else:
            log_dir.mkdir(parents=True, exist_ok=True)
            Proc._count += 1
            self.log_path, self._keep_log = log_dir / f"{label}-{Proc._count}.log", True
            self._log = self.log_path.open("wb")
        self.t_exec = time.perf_counter()
        self.t_exec_wall = time.time()
        self.popen = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env=dict(os.environ if env is None else env),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pid = self.popen.pid
        Proc.running.append(self)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def check(self) -> None:
        """Raise with the end of its log when the process has exited."""
        if not self.alive():
            raise RuntimeError(
                f"{self.label} (pid {self.pid}) exited with {self.popen.returncode}:\n{self.tail()}"
            )

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError, ValueError):
            self._log.flush()
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    def stop(self, grace: float = 10.0, sig: int = signal.SIGTERM) -> None:
        """`sig` (SIGTERM) by PID, SIGKILL after `grace` seconds; then the children it left, by PID."""
        children = {child: _cmdline(child) for child in child_pids(self.pid)} if self.alive() else {}
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.popen.wait(timeout=5)
        for child, cmdline in children.items():
            if cmdline and _cmdline(child) == cmdline:  # still that process, not a reused PID
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGTERM)
        self._close()

    def kill(self) -> None:
        """SIGKILL by PID: a crash (no unregistration, no graceful stop)."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.popen.wait(timeout=5)
        self._close()

    def _close(self) -> None:
        self._log.close()
        if not self._keep_log:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
        with contextlib.suppress(ValueError):
            Proc.running.remove(self)


def stop_all(grace: float = 5.0) -> None:
    """Stop every process still running, the last started first."""
    for proc in reversed(list(Proc.running)):
        with contextlib.suppress(Exception):
            proc.stop(grace=grace)


def clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without the framework's, MCP Mesh's and OpenAI's settings or a Python
    path, plus `extra`: every process starts from the settings its benchmark gives it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MESH_", "MCP_MESH_", "OPENAI_"))
        and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env.update(extra)
    return env


def http_status(url: str, method: str = "GET", timeout: float = 1.0) -> int | None:
    """The status of one request, or None when nothing answered."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=timeout) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except OSError:
        return None


def wait_for(
    predicate: Callable[[], Any],
    timeout: float,
    what: str,
    *,
    procs: Iterable[Proc] = (),
    interval: float = 0.02,
    tolerate: tuple[type[Exception], ...] = (),
) -> Any:
    """Poll `predicate` until it returns something true (returned), raising when one of `procs` exits or
    `timeout` seconds pass; exceptions of the `tolerate` types count as "not yet"."""
    watched = tuple(procs)
    deadline = time.perf_counter() + timeout
    while True:
        try:
            value = predicate()
        except tolerate:
            value = None
        if value:
            return value
        for proc in watched:
            proc.check()
        if time.perf_counter() > deadline:
            tails = "".join(f"\n--- {p.label}:\n{p.tail()}" for p in watched)
            raise TimeoutError(f"{what}: not within {timeout} s{tails}")
        time.sleep(interval)


def display(argv: Sequence[str]) -> str:
    """argv as typed from the repository root: no machine paths."""
    return " ".join(os.path.relpath(arg, ROOT) if arg.startswith(str(ROOT) + os.sep) else arg for arg in argv)
