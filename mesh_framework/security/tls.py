"""TLS from settings: what uvicorn needs to serve HTTPS (optionally asking for client certificates), and the
`ssl.SSLContext` our HTTP clients verify servers with (and present a client certificate from, for mTLS)."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .._frozen import frozen
from ..config.settings import TlsSettings

__all__ = ["ServerTls", "client_ssl_context", "client_verify", "mesh_https", "server_tls"]


def _readable(path: str, key: str) -> str:
    if not Path(path).is_file():
        raise ValueError(f"tls.{key} = {path!r}: no such file; give the path of a PEM file")
    return path


@frozen
class ServerTls:
    """A server's certificate and key (PEM), and for mutual TLS the CA its clients' certificates chain to."""

    cert_file: str
    key_file: str
    client_ca_file: str | None = None  # set: clients must present a certificate signed by this CA

    def uvicorn_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"ssl_certfile": self.cert_file, "ssl_keyfile": self.key_file}
        if self.client_ca_file:
            options["ssl_ca_certs"] = self.client_ca_file
            options["ssl_cert_reqs"] = ssl.CERT_REQUIRED
        return options

    def context(self) -> ssl.SSLContext:
        """The server-side context (for servers other than uvicorn, and to check the files early)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_file, self.key_file)
        if self.client_ca_file:
            context.load_verify_locations(self.client_ca_file)
            context.verify_mode = ssl.CERT_REQUIRED
        return context


def server_tls(tls: TlsSettings) -> ServerTls | None:
    """The server side of `tls`: None unless both `cert_file` and `key_file` are set."""
    if not tls.cert_file and not tls.key_file:
        return None
    if not (tls.cert_file and tls.key_file):
        raise ValueError("tls.cert_file and tls.key_file go together: set both, or neither")
    client_ca = None
    if tls.require_client_cert:
        if not tls.ca_file:
            raise ValueError("tls.require_client_cert needs tls.ca_file, the CA client certificates chain to")
        client_ca = _readable(tls.ca_file, "ca_file")
    return ServerTls(_readable(tls.cert_file, "cert_file"), _readable(tls.key_file, "key_file"), client_ca)


def client_ssl_context(tls: TlsSettings) -> ssl.SSLContext | bool:
    """What our HTTP clients pass as `verify`: a context trusting `ca_file` (else the system's CAs) and
    presenting this agent's certificate when mutual TLS is on; False only with `verify: false`."""
    if not tls.verify:
        return False
    cafile = _readable(tls.ca_file, "ca_file") if tls.ca_file else None
    context = ssl.create_default_context(cafile=cafile)
    cert = tls.client_cert_file or (tls.cert_file if tls.require_client_cert else None)
    key = tls.client_key_file or (tls.key_file if tls.require_client_cert else None)
    if cert and key:
        context.load_cert_chain(_readable(cert, "client_cert_file"), _readable(key, "client_key_file"))
    return context


def client_verify(tls: TlsSettings) -> ssl.SSLContext | bool | Callable[[], ssl.SSLContext | bool]:
    """`client_ssl_context(tls)` for a pooled client; when it can only be the system's default (verification
    on, no `ca_file`, no client certificate), the function that builds it, which the client calls at its
    first https request: loading the system's certificate authorities takes megabytes and tens of
    milliseconds, which a mesh on http never needs. A configured file is read at once (a bad one stops
    start-up)."""
    configured = tls.ca_file or tls.client_cert_file or tls.client_key_file or tls.require_client_cert
    if tls.verify and not configured:
        return partial(client_ssl_context, tls)
    return client_ssl_context(tls)


def mesh_https(tls: TlsSettings) -> bool:
    """Whether other agents are called over https: `tls.mesh_https`, by default when this agent serves TLS."""
    return tls.mesh_https if tls.mesh_https is not None else bool(tls.cert_file and tls.key_file)
