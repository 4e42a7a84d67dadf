"""Anchor a'': benchmarks/plain_app.py's route served by the agents' own HTTP stack.

The same socket (`mesh_framework.serving.bind_socket`: TCP_NODELAY), the same uvicorn configuration
and protocol (`mesh_framework.application.agent_server.uvicorn_server`: header deadline, each answer in one
write) as `mesh run` gives an agent, with default settings and logging at WARNING; only the application
differs. Our `tools/call` measured against this shows what the framework costs on top of its own HTTP stack.

    .venv/bin/python benchmarks/plain_on_our_stack.py --host 127.0.0.1 --port N
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from plain_app import app

from mesh_framework.application.agent_server import serve_until_stopped, uvicorn_server
from mesh_framework.config.settings import MeshSettings
from mesh_framework.serving import bind_socket


async def serve(host: str, port: int) -> None:
    server = uvicorn_server(app, MeshSettings(logging={"level": "WARNING"}))
    sock = bind_socket(host, port)

    def stop() -> None:
        server.should_exit = True

    await serve_until_stopped(server, sock, stop)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
