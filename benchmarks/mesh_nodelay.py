"""Serve the benchmark agent like `mesh run bench_agent`, but with TCP_NODELAY on the listening socket.

Why: `MeshApplication.bind()` creates its socket with protocol 0, so asyncio's transport does not switch
Nagle off on accepted connections (`_set_nodelay` only acts on sockets whose proto is IPPROTO_TCP). uvicorn
then writes the response head and the chunked body separately, and with the client's delayed ACK every
request waits ~40 ms. This launcher sets TCP_NODELAY on the listening socket (accepted sockets inherit it on
Linux) to show what the server costs once that is fixed. It changes nothing else.

Usage (cwd = benchmarks/): python mesh_nodelay.py --port N
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from mesh_framework import MeshApplication
from mesh_framework.logs import configure_logging

CONFIG = Path(__file__).resolve().parent / "bench_agent" / "config"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    app = MeshApplication.load("bench_agent", cli={"server.port": args.port, "server.host": args.host},
                               config=CONFIG)
    configure_logging(app.settings.logging.level)
    bind = app.bind

    def bind_nodelay() -> socket.socket:
        sock = bind()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    app.bind = bind_nodelay  # type: ignore[method-assign]
    try:
        app.run()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
