"""The pooled HTTP client builds its TLS context at its first https request when that context can only be the
system's default: a mesh on http never loads certificates (megabytes, tens of milliseconds). A configured
`tls.ca_file` or client certificate is read at once, so a bad one still stops start-up."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest
import trustme

from mesh_framework.config.settings import TlsSettings
from mesh_framework.mesh.http_pool import build_http_client
from mesh_framework.security.tls import client_verify


async def _answer_ok(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One keep-alive HTTP/1.1 server: every GET is answered `ok`."""
    try:
        while await reader.readuntil(b"\r\n\r\n"):
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def test_the_client_builds_its_tls_context_at_the_first_https_request() -> None:
    ca = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(served)
    plain = await asyncio.start_server(_answer_ok, "127.0.0.1", 0)
    secure = await asyncio.start_server(_answer_ok, "127.0.0.1", 0, ssl=served)
    built: list[ssl.SSLContext] = []

    def context() -> ssl.SSLContext:
        trusting = ssl.create_default_context()
        ca.configure_trust(trusting)
        built.append(trusting)
        return trusting

    try:
        http_port = plain.sockets[0].getsockname()[1]
        https_port = secure.sockets[0].getsockname()[1]
        async with build_http_client(verify=context) as http:
            for _ in range(2):
                assert (await http.get(f"http://127.0.0.1:{http_port}/")).text == "ok"
            assert built == []
            for _ in range(2):
                assert (await http.get(f"https://127.0.0.1:{https_port}/")).text == "ok"
            assert len(built) == 1  # once, then the https transport and its pool are kept
    finally:
        for server in (plain, secure):
            server.close()
            await server.wait_closed()


def test_only_the_default_context_waits_and_a_configured_file_is_read_at_once(tmp_path: Path) -> None:
    assert callable(client_verify(TlsSettings()))
    bundle = tmp_path / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(bundle))
    assert isinstance(client_verify(TlsSettings(ca_file=str(bundle))), ssl.SSLContext)
    assert client_verify(TlsSettings(verify=False)) is False
    with pytest.raises(ValueError, match=r"tls.ca_file = .*missing.pem.*no such file"):
        client_verify(TlsSettings(ca_file=str(tmp_path / "missing.pem")))
