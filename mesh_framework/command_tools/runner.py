"""Running one command in a child interpreter: stdin at EOF, output read line by line, killed on timeout.

A child process, not a thread of the agent: only a process can be stopped when a command hangs (a thread
blocked in `time.sleep`, a socket or a subprocess cannot be interrupted), and a command's `sys.exit`,
`os.chdir`, signal handlers or stdin reads then cannot disturb the agent. The child imports only the
module of the command's root and calls it as its own command line would (`root.main(args)`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["CommandOutcome", "LineListener", "run_command"]

# (stream name, line without its newline); an awaitable it returns is awaited before the next line
LineListener = Callable[[str, str], Awaitable[None] | None]

# The child: import the root command (`module:attribute`, a click command or a Typer app) and run it.
# On Linux it asks for SIGTERM when the agent dies (prctl PR_SET_PDEATHSIG), so no command outlives a
# crashed agent.
_CHILD = """\
import importlib, os, signal, sys
try:
    import ctypes
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)
    if os.getppid() != int(sys.argv[1]):  # the agent died before the request took effect
        sys.exit(1)
except (AttributeError, OSError):
    pass
reference, prog = sys.argv[2], sys.argv[3]
module, _, attribute = reference.partition(":")
root = importlib.import_module(module)
for part in attribute.split("."):
    root = getattr(root, part)
import click
if not isinstance(root, click.Command):
    import typer.main
    root = typer.main.get_command(root)
root.main(args=sys.argv[4:], prog_name=prog)
"""
_LINE_LIMIT = 1 << 20


@dataclass
class CommandOutcome:
    """How a command ended: its exit code (negative: killed by that signal), its last lines of output."""

    exit_code: int | None
    lines: deque[str] = field(default_factory=deque)
    timed_out: bool = False
    timeout: float | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def text(self) -> str:
        return "\n".join(self.lines)

    def last(self, count: int = 10) -> list[str]:
        return list(self.lines)[-count:]


def child_environment() -> dict[str, str]:
    """The agent's environment, its import path (so the app's modules import the same way) and unbuffered
    output (so lines arrive as they are printed)."""
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(
        dict.fromkeys([*paths, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    )
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return env


async def run_command(
    reference: str,
    prog: str,
    argv: Sequence[str],
    *,
    timeout: float | None,
    on_line: LineListener | None = None,
    keep_lines: int = 1000,
    kill_grace: float = 2.0,
) -> CommandOutcome:
    """Run `reference` (`module:attribute`) with `argv` in a child interpreter and wait for it to end.

    Each output line goes to `on_line` as it is printed; the last `keep_lines` are kept. Past `timeout`
    seconds (or when the calling task is cancelled) the child's whole process group gets SIGTERM, then
    SIGKILL after `kill_grace` seconds.
    """
    outcome = CommandOutcome(exit_code=None, lines=deque(maxlen=keep_lines), timeout=timeout)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _CHILD,
        str(os.getpid()),
        reference,
        prog,
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=child_environment(),
        start_new_session=True,
        limit=_LINE_LIMIT,
    )

    def keep(stream: str, line: str) -> Awaitable[None] | None:
        outcome.lines.append(line)
        return on_line(stream, line) if on_line is not None else None

    assert process.stdout is not None and process.stderr is not None
    readers = asyncio.gather(_read(process.stdout, "stdout", keep), _read(process.stderr, "stderr", keep))
    ended = asyncio.gather(readers, process.wait())
    try:
        try:
            await asyncio.wait_for(asyncio.shield(ended), timeout)
        except TimeoutError:
            outcome.timed_out = True
            await _stop(process, kill_grace)
        outcome.exit_code = await process.wait()
        with contextlib.suppress(TimeoutError):  # what was printed before it ended
            await asyncio.wait_for(asyncio.shield(readers), kill_grace)
    finally:
        if process.returncode is None:  # cancelled: stop the command with the call
            await asyncio.shield(_stop(process, kill_grace))
        if not ended.done():
            ended.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await ended
    return outcome


async def _read(stream: asyncio.StreamReader, name: str, keep: LineListener) -> None:
    while True:
        try:
            raw = await stream.readline()
        except ValueError:  # a line longer than the limit: take it in pieces
            raw = await stream.read(_LINE_LIMIT)
        if not raw:
            return
        pending = keep(name, raw.decode("utf-8", "replace").rstrip("\r\n"))
        if pending is not None:
            await pending


async def _stop(process: asyncio.subprocess.Process, grace: float) -> None:
    """SIGTERM to the command's process group, SIGKILL if it is still there after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
