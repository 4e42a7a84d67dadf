"""`python -m mesh_framework.registry [--host H] [--port P] [--db FILE] [--timeout S]`: a standalone registry.

For starting the embedded registry as a subprocess; it logs `registry serving http://HOST:PORT` once
serving (port 0 picks a free port) and stops cleanly on SIGINT/SIGTERM. The token agents must present comes
from the environment (`MESH_REGISTRY__TOKEN`), never from the command line; `--tls-cert/--tls-key` serve
HTTPS, `--tls-client-ca` asks for client certificates (mutual TLS).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from ..logs import configure_logging
from ..security.tls import ServerTls
from .audit import DEFAULT_HISTORY
from .auth import check_bind
from .registry_server import serve_registry
from .store import DEFAULT_TIMEOUT


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mesh_framework.registry", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None, help="SQLite file to persist agents and jobs in")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds of silence to unhealthy"
    )
    parser.add_argument("--check-interval", type=float, default=None, help="seconds between health sweeps")
    parser.add_argument(
        "--audit-history", type=int, default=DEFAULT_HISTORY, help="audit events kept for GET /events"
    )
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--tls-cert", default=None, help="PEM certificate: serve HTTPS")
    parser.add_argument("--tls-key", default=None, help="PEM key of --tls-cert")
    parser.add_argument("--tls-client-ca", default=None, help="CA of client certificates (mutual TLS)")
    args = parser.parse_args(argv)
    configure_logging(args.log_level.upper())
    token = os.environ.get("MESH_REGISTRY__TOKEN") or None
    tls = None
    if args.tls_cert and args.tls_key:
        tls = ServerTls(args.tls_cert, args.tls_key, args.tls_client_ca)
    try:
        check_bind(args.host, token)
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    if args.audit_history < 1:
        sys.exit(f"error: --audit-history must be at least 1, not {args.audit_history}")
    asyncio.run(
        serve_registry(
            args.host,
            args.port,
            args.db,
            args.timeout,
            args.check_interval,
            token=token,
            ssl=tls,
            audit_history=args.audit_history,
        )
    )


if __name__ == "__main__":
    main()
