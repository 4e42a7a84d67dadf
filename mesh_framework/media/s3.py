"""The S3-compatible media store (`media.storage: s3`, the `s3` extra: boto3): `s3://` URIs, the object's
ContentType kept, each object written by one PUT (a reader sees all of it or nothing).

boto3 is imported when the store is first used, so an agent that stores nothing never loads it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .errors import MediaError, MediaNotFound, MediaStoreUnavailable
from .media import Media
from .store import MediaStore, check_filename

__all__ = ["S3MediaStore"]

_MISSING = ("404", "NoSuchKey", "NotFound")


class S3MediaStore(MediaStore):
    """Media in `s3://<bucket>/<prefix><name>`; `endpoint` points at any S3-compatible server (MinIO,
    moto, ...). Credentials come from boto3's usual chain (AWS_ACCESS_KEY_ID, profiles, roles)."""

    scheme = "s3"

    def __init__(
        self,
        bucket: str,
        prefix: str = "media/",
        *,
        endpoint: str | None = None,
        region: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        if not bucket:
            raise MediaError(
                "media.storage is s3 but no bucket is set; set media.bucket (MCP_MESH_MEDIA_STORAGE_BUCKET)"
            )
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.region = region
        self.timeout = timeout
        self._client: Any = None
        self._lock = threading.Lock()

    def describe(self) -> str:
        where = f" at {self.endpoint}" if self.endpoint else ""
        return f"S3 bucket {self.bucket!r}{where}"

    async def upload(self, data: bytes, filename: str, mime_type: str) -> str:
        key = self.prefix + check_filename(filename)
        await self._call("put_object", f"s3://{self.bucket}/{key}", Key=key, Body=data, ContentType=mime_type)
        return f"s3://{self.bucket}/{key}"

    async def fetch(self, uri: str) -> Media:
        bucket, key = self._split(uri)
        response = await self._call("get_object", uri, Bucket=bucket, Key=key)
        data = await asyncio.to_thread(response["Body"].read)
        return Media(data, response.get("ContentType") or "application/octet-stream", uri)

    async def exists(self, uri: str) -> bool:
        bucket, key = self._split(uri)
        try:
            await self._call("head_object", uri, Bucket=bucket, Key=key)
        except MediaNotFound:
            return False
        return True

    def _split(self, uri: str) -> tuple[str, str]:
        self.check_uri(uri)
        bucket, _, key = uri.removeprefix("s3://").partition("/")
        if not bucket or not key:
            raise MediaError(f"Media URI {uri!r} names no object; expected s3://<bucket>/<key>")
        return bucket, key

    async def _call(self, operation: str, uri: str, **arguments: Any) -> Any:
        client = self.client()
        arguments.setdefault("Bucket", self.bucket)
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return await asyncio.to_thread(getattr(client, operation), **arguments)
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in _MISSING:
                raise MediaNotFound(f"Media {uri!r} does not exist in the {self.describe()}") from None
            message = exc.response.get("Error", {}).get("Message") or code
            raise MediaError(f"{self.describe()} refused {operation} of {uri!r}: {code}: {message}") from None
        except BotoCoreError as exc:
            raise MediaStoreUnavailable(
                f"Media store {self.describe()} cannot be reached ({exc}); check media.endpoint "
                "(MCP_MESH_MEDIA_STORAGE_ENDPOINT) and that the store is up"
            ) from exc

    def client(self) -> Any:
        """The boto3 S3 client, created on first use."""
        with self._lock:
            if self._client is None:
                self._client = self._create()
            return self._client

    def _create(self) -> Any:
        try:
            import boto3
            from botocore.config import Config
        except ImportError:
            raise MediaError(
                "media.storage is s3 but boto3 is not installed; install the s3 extra "
                "(pip install 'mesh-framework[s3]')"
            ) from None
        config = Config(
            connect_timeout=self.timeout,
            read_timeout=self.timeout,
            retries={"max_attempts": 2, "mode": "standard"},
        )
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=self.region, config=config)
