"""A real S3 API server for tests: moto's `moto_server` (PyPI `moto[s3]` with flask) on 127.0.0.1 and an
ephemeral port, started as a process and stopped by its PID. It speaks the S3 REST API that boto3 and
MCP Mesh's S3 store use; credentials are any non-empty pair."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["S3Server", "S3_ENV", "s3_server"]

S3_ENV = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    pid: int

    def client(self):  # type: ignore[no-untyped-def]
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            region_name="us-east-1",
        )


@contextmanager
def s3_server(*buckets: str) -> Iterator[S3Server]:
    """`moto_server` on a free port with `buckets` created; yields once it answers."""
    binary = Path(sys.executable).with_name("moto_server")
    process = subprocess.Popen(
        [str(binary), "-H", "127.0.0.1", "-p", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **S3_ENV},
    )
    try:
        assert process.stdout is not None
        port = None
        for _ in range(50):  # bounded: the banner comes within a few lines
            line = process.stdout.readline()
            if not line:
                break
            match = re.search(r"Running on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if port is None:
            raise RuntimeError("moto_server did not start")
        threading.Thread(target=process.stdout.read, daemon=True).start()  # keep draining its log
        server = S3Server(f"http://127.0.0.1:{port}", process.pid)
        client = server.client()
        for bucket in buckets:
            client.create_bucket(Bucket=bucket)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
