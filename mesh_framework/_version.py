"""The framework's version, read from the installed package's metadata: pyproject.toml's `version` is
the only place it is written.

The metadata is read on first use of `__version__` (PEP 562), not on import: finding the installed
distribution scans every entry of `sys.path` (some 3 ms), which a started agent need not pay before it
serves."""

from __future__ import annotations

from functools import cache
from importlib import metadata

__all__ = ["DISTRIBUTION", "__version__"]  # noqa: F822 - `__version__` is made on first use (__getattr__)

DISTRIBUTION = "mesh-framework"


@cache
def _installed_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # a source tree put on sys.path without installing it
        return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _installed_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
