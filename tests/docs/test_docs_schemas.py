"""docs/services.md, sections "Schema matching" and "The resolution audit": the `mesh explain` sample is
what the command prints for the registry those sections' examples fill (served on loopback)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from mesh_framework.serving import UvicornServer, bind_socket

from ..agents import ROOT, run_cli, wait_until
from ..docs_examples import BLOCK, run_examples, section

DOC = ROOT / "docs" / "services.md"

pytestmark = pytest.mark.timeout(60)


@contextmanager
def serving(app: object) -> Iterator[str]:
    """`app` served on a loopback port from a thread; yields its URL."""
    sock = bind_socket("127.0.0.1", 0)
    server = UvicornServer(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive())
        assert server.started
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_the_mesh_explain_sample_is_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOC.read_text()
    blocks = [
        b
        for title in ("Schema matching", "The resolution audit")
        for b in BLOCK.findall(section(text, title))
    ]
    namespace = run_examples(blocks, DOC, tmp_path, monkeypatch, files={"docs_viewer/__init__.py"}, runs=3)
    [sample] = [code for kind, _, code in blocks if kind == "text" and code.startswith("$ mesh explain ")]
    command, *shown = sample.splitlines()
    match = re.fullmatch(r"\$ mesh (explain \S+ \S+)", command)
    assert match, command
    with serving(namespace["registry"].app) as url:
        result = run_cli([*match.group(1).split(), "--registry-url", url], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    assert printed == [line.rstrip() for line in shown], "\n".join(printed)
