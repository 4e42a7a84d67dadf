"""A client ID metadata document served over https on 127.0.0.1 (an ephemeral port), with a certificate of
a trustme CA: what a user publishes for `mesh catalog login`. The authorization server (Node) trusts the CA
through NODE_EXTRA_CA_CERTS=`ca_file`. Started and stopped by the test."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import trustme

from mesh_framework.catalog.oauth_login import client_metadata_document

PATH = "/mesh-client.json"


@dataclass
class ClientMetadataServer:
    client_id: str
    ca_file: Path
    handler: type[_Document]

    @property
    def fetches(self) -> int:
        """How many times the document was asked for."""
        return self.handler.fetches


class _Document(BaseHTTPRequestHandler):
    document: ClassVar[dict[str, Any]] = {}
    fetches: ClassVar[int] = 0

    def do_GET(self) -> None:
        found = self.path == PATH
        type(self).fetches += found
        body = json.dumps(self.document if found else {"error": "not found"}).encode()
        self.send_response(200 if found else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def client_metadata_server(folder: Path, **document: Any) -> Iterator[ClientMetadataServer]:
    """The document `mesh catalog login` asks users to publish (its client_id the URL it is served at,
    `document` merged over it) on https://127.0.0.1:PORT/mesh-client.json."""
    ca = trustme.CA()
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    handler = type("Document", (_Document,), {"fetches": 0})
    listener = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    listener.socket = context.wrap_socket(listener.socket, server_side=True)
    client_id = f"https://127.0.0.1:{listener.server_address[1]}{PATH}"
    handler.document = {**client_metadata_document(client_id, "mesh (tests)"), **document}
    thread = threading.Thread(target=listener.serve_forever, daemon=True)
    thread.start()
    try:
        yield ClientMetadataServer(client_id, ca_file, handler)
    finally:
        listener.shutdown()
        listener.server_close()
        thread.join(10)
