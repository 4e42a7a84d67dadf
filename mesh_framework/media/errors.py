"""What goes wrong with media: a URI no store of this agent can read, media that is not there, a store
that cannot be reached. Each message says which URI or store and what to do."""

from __future__ import annotations

from ..errors import MeshError

__all__ = ["MediaError", "MediaNotFound", "MediaStoreUnavailable"]


class MediaError(MeshError):
    """Media could not be stored or read (bad URI, outside the store, wrong type)."""


class MediaNotFound(MediaError):
    """The URI names nothing in the store."""


class MediaStoreUnavailable(MediaError):
    """The store could not be reached or written (a folder that cannot be written, an S3 endpoint down)."""
