"""URLs as logs and errors show them: the password in the user-info part masked (`config/url_masking.py`,
the one rule `mesh config`, start-up errors and the CLI follow too)."""

from __future__ import annotations

from ..config.url_masking import mask_url_credentials

__all__ = ["redact_url"]


def redact_url(url: str) -> str:
    """`http://user:secret@host:8000/x` -> `http://user:******@host:8000/x`; other URLs unchanged."""
    return mask_url_credentials(url)
