"""One `GET` of a registry route for the `mesh` command, with the standard library's `http.client`.

A command reads the registry once and exits: `http.client` is ready at once, where an HTTP client library
and its TLS context would take most of the command's run. An https URL gets the settings' TLS context
(`tls.ca_file`, mutual TLS), as the agents' own clients do.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import ssl

__all__ = ["get_json"]


def get_json(
    url: str,
    path: str,
    *,
    headers: Mapping[str, str],
    timeout: float,
    tls: Callable[[], ssl.SSLContext | bool],
) -> tuple[int, Any]:
    """`GET {url}{path}`: the status and the JSON body (None when the body is not JSON). Raises OSError
    (refused, timed out, TLS) or `http.client.HTTPException` when no HTTP answer arrives. `tls` is called
    for an https URL only: an SSL context, or False for no verification."""
    parts = urlsplit(url.rstrip("/") + path)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port, timeout=timeout, context=_context(tls())
        )
    elif parts.scheme == "http":
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    else:
        raise http.client.InvalidURL(f"{url}: not an http(s) URL")
    try:
        connection.request("GET", target, headers={"Accept": "application/json", **headers})
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    return response.status, body


def _context(verify: ssl.SSLContext | bool) -> ssl.SSLContext:
    import ssl

    if isinstance(verify, ssl.SSLContext):
        return verify
    context = ssl.create_default_context()
    if not verify:  # tls.verify: false
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context
