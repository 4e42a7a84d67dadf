"""Logging set-up for agents: one line per event, levels from settings."""

from __future__ import annotations

import logging
import sys

__all__ = ["configure_logging"]

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def configure_logging(level: str = "INFO", *, prefix: str = "") -> None:
    """Send the framework's and uvicorn's logs to stderr, one line each (idempotent)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_mesh", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._mesh = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter(prefix + FORMAT, datefmt="%H:%M:%S"))
    root.addHandler(handler)
    root.setLevel(level)
    # Per-request lines of the HTTP client (heartbeats, proxies) are noise at INFO.
    for chatty in ("httpx2", "httpcore2", "httpx", "httpcore"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
