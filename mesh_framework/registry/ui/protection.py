"""The mesh page's protections, the same on the registry (`/ui`) and on `mesh console`.

- A CSRF token per page load: a random nonce and its HMAC under a secret made when this process started,
  written into the page (`<meta name="mesh-csrf">`). The page sends it back in `X-Mesh-Csrf` with every
  `POST /ui/call`; a call without it, or with one this process did not make, is refused with 403 before
  its body is read. Another site's page can neither read the token nor make one.
- Headers on the page: a Content-Security-Policy allowing only this origin and the page's own inline
  script and style (a fresh nonce per load), no framing (`frame-ancestors 'none'`, `X-Frame-Options`),
  `nosniff`, no referrer.
- `/favicon.ico`: 204, cached for a day, so a browser's request for it is not an error in any log.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

__all__ = ["CSRF_HEADER", "csrf_token", "favicon_route", "page_response", "valid_csrf"]

CSRF_HEADER = "X-Mesh-Csrf"
_SECRET = secrets.token_bytes(32)  # per process: a page served before a restart must be reloaded
_PURPOSE = b"mesh-console-call:"


def _mac(nonce: str) -> str:
    digest = hmac.new(_SECRET, _PURPOSE + nonce.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def csrf_token() -> str:
    """A new token for one page: `nonce.mac`."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_mac(nonce)}"


def valid_csrf(request: Request) -> bool:
    """Whether the request carries a token this process made (compared in constant time)."""
    presented = request.headers.get(CSRF_HEADER, "")
    nonce, _, mac = presented.partition(".")
    if not nonce or not mac or not nonce.isascii():
        return False
    return hmac.compare_digest(mac.encode("ascii", "replace"), _mac(nonce).encode("ascii"))


def _policy(nonce: str) -> str:
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'nonce-{nonce}'",
            f"style-src 'self' 'nonce-{nonce}'",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


def page_response(template: str) -> HTMLResponse:
    """The page from `template` (its `{{csrf}}` placeholder, `<script>` and `<style>` tags) with a new CSRF
    token, a new nonce on its inline script and style, and the page's security headers."""
    nonce = secrets.token_urlsafe(16)
    html = (
        template.replace("{{csrf}}", csrf_token(), 1)
        .replace("<script>", f'<script nonce="{nonce}">')
        .replace("<style>", f'<style nonce="{nonce}">')
    )
    headers = {
        "Cache-Control": "no-store",
        "Content-Security-Policy": _policy(nonce),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    return HTMLResponse(html, headers=headers)


def favicon_route() -> Route:
    """`GET /favicon.ico`: no icon, and not an error (204, cached for a day)."""

    async def favicon(request: Request) -> Response:
        return Response(status_code=204, headers={"Cache-Control": "public, max-age=86400"})

    return Route("/favicon.ico", favicon, methods=["GET"])
