"""An app's A2A routes served alone, without the agent's edge (as if mounted in another Starlette app),
for tests of what the A2A handler itself accepts: `python -m tests.a2a_bare_server APP` prints
`serving http://127.0.0.1:PORT`, then logs (every level from INFO) to stdout."""

from __future__ import annotations

import asyncio
import logging
import sys

import uvicorn
from starlette.applications import Starlette

from mesh_framework.a2a.a2a_server import skill_routes
from mesh_framework.app import MeshApplication
from mesh_framework.serving import UvicornServer, bind_socket


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s %(name)s: %(message)s")
    app = MeshApplication.load(sys.argv[1], cli={"registry.enabled": False})
    app.build()
    bare = Starlette(routes=skill_routes(app.settings, app.container.tools()))
    sock = bind_socket("127.0.0.1", 0)
    print(f"serving http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(bare, log_config=None, access_log=False, lifespan="off")
    asyncio.run(UvicornServer(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
