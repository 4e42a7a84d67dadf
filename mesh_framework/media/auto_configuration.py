"""The media store as an auto-configuration: the store `media.storage` names (a local folder or S3), unless
the app defines a `MediaStore` bean of its own, which wins; once the agent is built, the store the media
helpers use (`MediaRef.read()`, `media_result()`, `save_upload()`)."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.conditions import conditional_on_missing_bean
from ..di.configuration import bean, configuration
from ..extension import AgentInitializer, BuiltAgent
from .active import build_media_store, use_media
from .store import MediaStore

__all__ = ["MediaAutoConfiguration"]


class _UseMedia(AgentInitializer):
    def __init__(self, store: MediaStore, settings: MeshSettings) -> None:
        self.store = store
        self.settings = settings

    def initialize(self, agent: BuiltAgent) -> None:
        use_media(self.store, self.settings.media)


@configuration
class MediaAutoConfiguration:
    @bean
    @conditional_on_missing_bean(MediaStore)
    def media_store(self, settings: MeshSettings) -> MediaStore:
        return build_media_store(settings.media)

    @bean
    def media_helpers(self, store: MediaStore, settings: MeshSettings) -> AgentInitializer:
        return _UseMedia(store, settings)
