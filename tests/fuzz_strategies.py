"""Hypothesis strategies the fuzz tests share: JSON values of any shape, and printable header text."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["header_texts", "json_values"]


def json_values(integers: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[Any]:
    """Any JSON value (no NaN or Infinity), nested a few levels, with these `integers` as numbers."""
    leaf = (
        st.none()
        | st.booleans()
        | (integers if integers is not None else st.integers())
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20)
    )
    return st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    )


def header_texts(max_size: int = 40) -> st.SearchStrategy[str]:
    """Printable ASCII, trimmed: what a header value may hold."""
    return st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=max_size).map(str.strip)
