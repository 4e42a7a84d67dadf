"""The password of a URL masked wherever the URL is shown (no pydantic here: light CLI commands use it)."""

from __future__ import annotations

import re

__all__ = ["URL_MASK", "mask_url_credentials"]

URL_MASK = "******"
# A URL's scheme and user-info (up to the netloc's last `@`, as `urlsplit` reads it). The patterns of this
# package are compiled on first use (`re` caches them): most are for a problem or a listing, not a start.
_URL_USERINFO = r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#\s\"<>\\]*)@"


def mask_url_credentials(text: str) -> str:
    """`text` with the password of every URL in it masked: `http://user:******@host:8000`; a user-info
    without a colon (a token written as the user name) is masked whole: `https://******@host`."""
    if "@" not in text or "://" not in text:
        return text
    return re.sub(_URL_USERINFO, _mask_userinfo, text)


def _mask_userinfo(match: re.Match[str]) -> str:
    user, colon, _ = match["userinfo"].partition(":")
    return f"{match['scheme']}{user + ':' if colon else ''}{URL_MASK}@"
