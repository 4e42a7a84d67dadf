"""How `mesh run` shows agents coming up: a rich spinner on a terminal, plain lines elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ..launcher import PlainProgress, Progress
from .output import console, is_terminal

__all__ = ["RichProgress", "progress_display"]


def progress_display() -> Progress:
    """The spinner when stdout and stderr are both terminals (the agents' logs scroll above it), else
    the plain lines scripts and logs can rely on."""
    stderr_tty = getattr(sys.stderr, "isatty", None)
    if is_terminal() and stderr_tty is not None and stderr_tty():
        return RichProgress()
    return PlainProgress()


class RichProgress:
    """A spinner naming what each agent not ready yet waits for (to serve, or a provider of a
    dependency); the same lines as `PlainProgress`, in colour."""

    def __init__(self) -> None:
        self.console = console()
        self.pending: dict[str, str] = {}  # app -> what it is doing
        self.status: Any = None

    def starting(self, apps: Sequence[str]) -> None:
        self.pending = dict.fromkeys(apps, "is starting")
        self._update()

    def ready(self, app: str, url: str) -> None:
        self._say(f"{app} is ready at {url}", "green")
        if app in self.pending:
            self.pending[app] = "is resolving its dependencies"
            self._update()

    def waiting(self, app: str, missing: Sequence[str]) -> None:
        self._say(f"{app} waits for a provider of {', '.join(missing)}", "yellow")
        if app in self.pending:
            self.pending[app] = f"waits for a provider of {', '.join(missing)}"
            self._update()

    def resolved(self, app: str) -> None:
        if self.pending.pop(app, None) is not None:
            self._update()
            if not self.pending:
                self._say("every agent is ready; Ctrl-C stops them", "bold")

    def exited(self, app: str, code: int) -> None:
        if self.pending.pop(app, None) is not None:
            self._update()
        self._say(f"{app} exited with code {code}", "red" if code else "yellow")

    def restarting(self, changed: Sequence[str]) -> None:
        self._say(f"changed: {', '.join(changed)}; restarting", "yellow")

    def close(self) -> None:
        self.pending = {}
        self._update()

    def _update(self) -> None:
        if not self.pending:
            if self.status is not None:
                self.status.stop()
                self.status = None
            return
        text = "; ".join(f"{app} {what}" for app, what in self.pending.items())
        if self.status is None:
            self.status = self.console.status(text, spinner="dots")
            self.status.start()
        else:
            self.status.update(text)

    def _say(self, line: str, style: str) -> None:
        from rich.text import Text

        self.console.print(Text(line, style=style))
