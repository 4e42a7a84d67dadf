"""The mesh page's CSRF token, read as the page's script reads it: from `<meta name="mesh-csrf">` of `/ui`."""

from __future__ import annotations

import re
from typing import Any

_META = re.compile(r'<meta name="mesh-csrf" content="([^"]+)">')


def token_of(html: str) -> str:
    found = _META.search(html)
    assert found is not None, html[:500]
    return found.group(1)


def page_headers(client: Any, **headers: str) -> dict[str, str]:
    """`X-Mesh-Csrf` with a token from `client`'s `GET /ui` (any client with a `get`), plus `headers`."""
    page = client.get("/ui", headers=headers)
    assert page.status_code == 200, page.text
    return {**headers, "X-Mesh-Csrf": token_of(page.text)}
