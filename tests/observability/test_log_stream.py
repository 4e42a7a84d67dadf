"""The framework's log handler writes to the `sys.stderr` of the moment, not the one it was made with."""

from __future__ import annotations

import contextlib
import io
import logging

from mesh_framework.logs import configure_logging


def test_the_handler_follows_stderr_and_never_writes_to_a_closed_stream() -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    first, second = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(first):
            configure_logging("INFO")
            logging.getLogger("mesh_framework.test").info("into the first stream")
        assert "into the first stream" in first.getvalue()
        first.close()  # as a test's capture is closed once the test ends
        with contextlib.redirect_stderr(second):
            logging.getLogger("mesh_framework.test").warning("into the second stream")
        assert "into the second stream" in second.getvalue()
        assert "Logging error" not in second.getvalue()
    finally:
        root.handlers[:] = before[0]
        root.setLevel(before[1])
