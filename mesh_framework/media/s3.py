"""The S3-compatible media store (`media.storage: s3`, the `s3` extra: boto3): `s3://` URIs, the object's
ContentType kept, each object written by one PUT (a reader sees all of it or nothing).

The store reads and writes only `media.bucket` under `media.prefix`: a URI naming another bucket, or a key
outside the prefix, is refused before S3 is asked, with the same words whether it exists or not. What S3
answers on a failure (which names buckets and says which exist) goes to the log, one line; the caller
reads a neutral message.

boto3 is imported when the store is first used, so an agent that stores nothing never loads it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from .errors import MediaError, MediaNotFound, MediaStoreUnavailable
from .media import Media
from .sniff import sniff
from .store import MediaStore, check_filename

__all__ = ["S3MediaStore"]

logger = logging.getLogger("mesh_framework.media")

_MISSING = ("404", "NoSuchKey", "NotFound")
_VERBS = {"put_object": "write", "get_object": "read", "head_object": "look up"}


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
        key = self._key(uri)
        response = await self._call("get_object", uri, Key=key)
        data = await asyncio.to_thread(response["Body"].read)
        stored = response.get("ContentType") or "application/octet-stream"
        return Media(data, sniff(data) or stored, uri)  # the bytes' own type wins over the label

    async def exists(self, uri: str) -> bool:
        key = self._key(uri)
        try:
            await self._call("head_object", uri, Key=key)
        except MediaNotFound:
            return False
        return True

    def _key(self, uri: str) -> str:
        """The object key of `uri`, which must be in this store's bucket, under its prefix, and name a
        plain path (no `.`, `..` or empty segment, which some S3-compatible stores normalise)."""
        self.check_uri(uri)
        bucket, _, key = uri.removeprefix("s3://").partition("/")
        segments = key.split("/")
        if (
            bucket != self.bucket
            or not key.startswith(self.prefix)
            or len(key) == len(self.prefix)
            or any(segment in ("", ".", "..") for segment in segments)
            or any(c in key for c in "\\\0")
        ):
            raise MediaError(
                f"Media URI {uri[:200]!r} is outside this agent's media store (s3://{self.bucket}/"
                f"{self.prefix}...); agents that share media must share media.bucket and media.prefix"
            )
        return key

    async def _call(self, operation: str, uri: str, **arguments: Any) -> Any:
        client = self.client()
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return await asyncio.to_thread(getattr(client, operation), Bucket=self.bucket, **arguments)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            if code in _MISSING:
                raise MediaNotFound(f"Media {uri!r} does not exist in the {self.describe()}") from None
            # NoSuchBucket, AccessDenied, ...: the detail names buckets; it stays in the log.
            logger.warning(
                "S3 %s of s3://%s/%s refused: %s: %s",
                operation,
                self.bucket,
                arguments.get("Key", ""),
                code,
                error.get("Message") or "",
            )
            raise MediaError(
                f"Media store {self.describe()} refused to {_VERBS.get(operation, operation)} {uri!r}; "
                "the agent's log says why"
            ) from None
        except BotoCoreError as exc:
            logger.warning("S3 %s at %s failed: %s", operation, self.endpoint or "AWS", exc)
            raise MediaStoreUnavailable(
                f"Media store {self.describe()} cannot be reached; check media.endpoint "
                "(MCP_MESH_MEDIA_STORAGE_ENDPOINT) and that the store is up"
            ) from None

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
