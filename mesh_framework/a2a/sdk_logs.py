"""The a2a-sdk's JSON-RPC logs kept to one line each: a client's unreadable request is no error of ours."""

from __future__ import annotations

import logging

__all__ = ["one_line_sdk_logs"]

_DISPATCHER_LOG = "a2a.server.routes.jsonrpc_dispatcher"


class _OneLine(logging.Filter):
    """The SDK's JSON-RPC dispatcher logs a traceback at ERROR for each request it cannot read, then a
    "Request Error" line naming the problem: that line alone stays (a client's mistake is no error of
    ours). Any other exception it logs is one line, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info or record.exc_info[1] is None:
            return True
        exc = record.exc_info[1]
        mistake = record.getMessage().startswith(("Failed to validate", "Failed to parse"))
        if mistake and record.name == _DISPATCHER_LOG:
            return False
        detail = " ".join(str(exc).split())[:300]
        record.msg = f"{record.getMessage()}: {type(exc).__name__}: {detail}"
        record.args = None
        record.exc_info = None
        record.exc_text = None
        if mistake:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_ONE_LINE = _OneLine()


def one_line_sdk_logs() -> None:
    """Installs the one-line filter on the SDK's JSON-RPC loggers (once: calling again changes nothing)."""
    for name in (_DISPATCHER_LOG, "a2a.compat.v0_3.jsonrpc_adapter"):
        if _ONE_LINE not in logging.getLogger(name).filters:
            logging.getLogger(name).addFilter(_ONE_LINE)
