"""The framework's version, read from the installed package's metadata: pyproject.toml's `version` is
the only place it is written."""

from __future__ import annotations

from importlib import metadata

__all__ = ["DISTRIBUTION", "__version__"]

DISTRIBUTION = "mesh-framework"

try:
    __version__ = metadata.version(DISTRIBUTION)
except metadata.PackageNotFoundError:  # a source tree put on sys.path without installing it
    __version__ = "0+unknown"
