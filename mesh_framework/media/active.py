"""The media store and settings that `MediaRef.read()`, `media_result()` and `save_upload()` use when
they are not handed a store: the agent's bean, installed when its application is built."""

from __future__ import annotations

from .._frozen import frozen
from ..config.settings import MediaSettings
from .local import LocalMediaStore
from .store import MediaStore

__all__ = ["MediaRuntime", "build_media_store", "current_media", "use_media"]


def build_media_store(settings: MediaSettings) -> MediaStore:
    """The store `media.storage` names (the S3 client is created on first use)."""
    if settings.storage == "s3":
        from .s3 import S3MediaStore

        return S3MediaStore(
            settings.bucket or "", settings.prefix, endpoint=settings.endpoint, region=settings.region
        )
    return LocalMediaStore(settings.path, settings.prefix)


@frozen
class MediaRuntime:
    store: MediaStore
    settings: MediaSettings


_installed: dict[str, MediaRuntime] = {}  # "runtime": the one in use


def use_media(store: MediaStore, settings: MediaSettings) -> MediaRuntime:
    """Make `store` (with `settings`' limits) the one media helpers use in this process."""
    runtime = _installed["runtime"] = MediaRuntime(store, settings)
    return runtime


def current_media() -> MediaRuntime:
    """The installed store; before an application installs one, the default local folder."""
    runtime = _installed.get("runtime")
    if runtime is None:
        settings = MediaSettings()
        runtime = use_media(build_media_store(settings), settings)
    return runtime
