"""How a failure of user code (a tool, prompt or resource body) is logged.

An expected failure, a `MeshError` (a vendor without an API key, a dependency that answered an error, a
catalog server that cannot start), says what it is on one line, its traceback at DEBUG: the stack is
the framework's and tells an operator nothing. Anything else is a bug in the body: its traceback is what
finds it, so it is logged at ERROR with it.
"""

from __future__ import annotations

import logging

from .errors import MeshError

__all__ = ["exception_text", "log_failure"]

_TRACEBACK = "Traceback (most recent call last)"


def exception_text(exc: BaseException) -> str:
    """`Type: message`, as a remote caller is told of an exception: never a traceback (a message that
    carries one, a subprocess's output say, is cut where it begins)."""
    text = f"{type(exc).__name__}: {exc}"
    cut = text.find(_TRACEBACK)
    return text if cut < 0 else text[:cut].rstrip()


def log_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log that `what` (`tool 'ask'`) failed with `exc`: one line for a MeshError, a traceback otherwise."""
    if isinstance(exc, MeshError):
        message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        logger.warning("%s failed: %s: %s", what, type(exc).__name__, message)
        logger.debug("%s failed", what, exc_info=exc)
    else:
        logger.error("%s raised", what, exc_info=exc)
