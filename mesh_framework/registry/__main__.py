"""`python -m mesh_framework.registry [--host H] [--port P] [--db FILE] [--timeout S]`: a standalone registry.

For starting the embedded registry as a subprocess; it logs `registry serving http://HOST:PORT` once
serving (port 0 picks a free port) and stops cleanly on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio

from ..logs import configure_logging
from .server import serve_registry
from .store import DEFAULT_TIMEOUT


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mesh_framework.registry", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file to persist agents in")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds of silence to unhealthy"
    )
    parser.add_argument("--check-interval", type=float, default=None, help="seconds between health sweeps")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    configure_logging(args.log_level.upper())
    asyncio.run(serve_registry(args.host, args.port, args.db, args.timeout, args.check_interval))


if __name__ == "__main__":
    main()
