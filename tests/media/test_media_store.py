"""The media store: the local folder (MCP Mesh's layout, atomic writes, traversal refused) and the S3 store
against a real S3 API server (moto_server), chosen by settings; bad URIs and a store that is down."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesh_framework import ConfigError
from mesh_framework.config.loader import load_settings
from mesh_framework.media import (
    LocalMediaStore,
    MediaError,
    MediaNotFound,
    MediaRef,
    MediaStoreUnavailable,
    build_media_store,
)
from mesh_framework.media.s3 import S3MediaStore
from tests.media_files import PDF, SVG, png
from tests.s3_server import S3_ENV, S3Server, s3_server

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server("media", "other") as server:
        yield server


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in S3_ENV.items():
        monkeypatch.setenv(name, value)


async def test_local_store_keeps_mcp_mesh_layout_and_reads_back(tmp_path: Path) -> None:
    store = LocalMediaStore(tmp_path, "media/")
    image = png(200)
    uri = await store.upload(image, "chart.png", "image/png")
    assert uri == f"file://{tmp_path}/media/chart.png"
    assert (tmp_path / "media" / "chart.png").read_bytes() == image
    media = await store.fetch(uri)
    assert (media.data, media.mime_type, media.filename) == (image, "image/png", "chart.png")
    assert await store.exists(uri)
    assert await store.upload(b"again", "chart.png", "image/png") == uri  # same name overwrites
    assert (await store.fetch(uri)).data == b"again"
    assert [p.name for p in (tmp_path / "media").iterdir()] == ["chart.png"]  # no temporary left


@pytest.mark.parametrize("name", ["../evil.png", "a/b.png", "..", "", "x\\y.png"])
async def test_local_store_refuses_names_that_leave_the_prefix(tmp_path: Path, name: str) -> None:
    store = LocalMediaStore(tmp_path / "store")
    with pytest.raises(MediaError, match="path traversal"):
        await store.upload(b"x", name, "image/png")
    assert not (tmp_path / "evil.png").exists()


async def test_local_store_refuses_uris_outside_its_folder(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    store = LocalMediaStore(tmp_path / "store")
    for uri in (f"file://{secret}", f"file://{tmp_path}/store/../secret.txt"):
        with pytest.raises(MediaError, match="outside this agent's local folder"):
            await store.fetch(uri)
    with pytest.raises(MediaError, match="uses s3://, but this agent's media store is the local folder"):
        await store.fetch("s3://media/media/chart.png")
    with pytest.raises(MediaNotFound, match="does not exist"):
        await store.fetch(f"file://{tmp_path}/store/media/none.png")
    assert not await store.exists(f"file://{tmp_path}/store/media/none.png")


async def test_a_local_store_that_cannot_be_written_says_so_and_leaves_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = LocalMediaStore(blocker)
    with pytest.raises(MediaStoreUnavailable, match=r"cannot be written .*media\.path"):
        await store.upload(b"x", "a.png", "image/png")


_PARTIAL_WRITE = """
import asyncio, resource, signal, sys
from mesh_framework.media import LocalMediaStore, MediaStoreUnavailable
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # the disk 'fills' after 4 KiB
try:
    asyncio.run(LocalMediaStore(sys.argv[1]).upload(b"x" * 100_000, "big.png", "image/png"))
except MediaStoreUnavailable as exc:
    print(exc)
"""


def test_a_write_that_fails_half_way_leaves_no_partial_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PARTIAL_WRITE, str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "cannot be written (File too large)" in done.stdout, done.stdout + done.stderr
    assert list((tmp_path / "media").iterdir()) == []  # neither big.png nor its temporary


def test_settings_choose_the_store_and_honour_mcp_mesh_names(tmp_path: Path) -> None:
    local = load_settings(
        environ={"MCP_MESH_MEDIA_STORAGE_PATH": str(tmp_path), "MCP_MESH_MEDIA_STORAGE_PREFIX": "m/"}
    )
    store = build_media_store(local.settings.media)
    assert isinstance(store, LocalMediaStore) and store.folder == tmp_path / "m"
    s3 = load_settings(
        environ={
            "MCP_MESH_MEDIA_STORAGE": "s3",
            "MCP_MESH_MEDIA_STORAGE_BUCKET": "media",
            "MCP_MESH_MEDIA_STORAGE_ENDPOINT": "http://127.0.0.1:9",
        }
    )
    store = build_media_store(s3.settings.media)
    assert isinstance(store, S3MediaStore)
    assert (store.bucket, store.prefix, store.endpoint) == ("media", "media/", "http://127.0.0.1:9")


def test_s3_without_a_bucket_or_a_bad_prefix_stops_loading() -> None:
    with pytest.raises(ConfigError, match=r"media\.bucket.*required with storage: s3"):
        load_settings(environ={"MCP_MESH_MEDIA_STORAGE": "s3"})
    with pytest.raises(ConfigError, match=r"media\.prefix.*relative prefix"):
        load_settings(environ={"MESH_MEDIA__PREFIX": "../up/"})


async def test_s3_store_round_trip_on_a_real_s3_server(s3: S3Server, aws: None) -> None:
    store = S3MediaStore("media", "media/", endpoint=s3.endpoint)
    uri = await store.upload(PDF, "report.pdf", "application/pdf")
    assert uri == "s3://media/media/report.pdf"
    obj = s3.client().get_object(Bucket="media", Key="media/report.pdf")
    assert obj["ContentType"] == "application/pdf" and obj["Body"].read() == PDF
    media = await store.fetch(uri)
    assert (media.data, media.mime_type) == (PDF, "application/pdf")
    assert await store.exists(uri) and not await store.exists("s3://media/media/none.pdf")
    with pytest.raises(MediaNotFound, match="does not exist in the S3 bucket 'media'"):
        await store.fetch("s3://media/media/none.pdf")
    with pytest.raises(MediaError, match="uses file://, but this agent's media store is the S3 bucket"):
        await store.fetch("file:///tmp/mcp-mesh-media/media/x.png")
    with pytest.raises(MediaError, match="path traversal"):
        await store.upload(b"x", "../x.png", "image/png")


async def test_s3_store_reads_only_its_bucket_under_its_prefix(s3: S3Server, aws: None) -> None:
    client = s3.client()
    client.put_object(Bucket="other", Key="media/secret.png", Body=b"other bucket's secret")
    client.put_object(Bucket="media", Key="private/secret.png", Body=b"outside the prefix")
    client.put_object(Bucket="media", Key="media/../private/secret.png", Body=b"a dotted key")
    store = S3MediaStore("media", "media/", endpoint=s3.endpoint)
    outside = [
        "s3://other/media/secret.png",  # another bucket the credentials reach
        "s3://absent/media/secret.png",  # a bucket that does not exist
        "s3://media/private/secret.png",  # this bucket, outside the prefix
        "s3://media/media/../private/secret.png",
        "s3://media/media/./secret.png",
        "s3://media/media//secret.png",
        "s3://media/media/",
        "s3://media/mediax/secret.png",
        "s3://media",
        "s3://MEDIA/media/secret.png",
        "s3://media/media/a\\..\\b.png",
    ]
    said = []
    for uri in outside:
        for read in (store.fetch, store.exists):
            with pytest.raises(MediaError) as refused:
                await read(uri)
            assert not isinstance(refused.value, MediaNotFound)
            said.append(str(refused.value).replace(repr(uri[:200]), "<uri>"))
    assert set(said) == {
        "Media URI <uri> is outside this agent's media store (s3://media/media/...); agents that share "
        "media must share media.bucket and media.prefix"
    }


async def test_s3_failures_name_no_bucket_to_the_caller(
    s3: S3Server, aws: None, caplog: pytest.LogCaptureFixture
) -> None:
    absent = S3MediaStore("absent", endpoint=s3.endpoint)
    with caplog.at_level(logging.WARNING, "mesh_framework.media"):
        with pytest.raises(MediaError) as writing:
            await absent.upload(b"x", "a.png", "image/png")
        with pytest.raises(MediaError) as reading:
            await absent.fetch("s3://absent/media/a.png")
    assert str(writing.value) == (
        f"Media store S3 bucket 'absent' at {s3.endpoint} refused to write 's3://absent/media/a.png'; "
        "the agent's log says why"
    )
    assert str(reading.value) == str(writing.value).replace("write", "read")
    assert not isinstance(reading.value, MediaNotFound)
    lines = [r.getMessage() for r in caplog.records if r.name == "mesh_framework.media"]
    assert len(lines) == 2 and all("NoSuchBucket" in line and "\n" not in line for line in lines), lines
    assert lines[0].startswith("S3 put_object of s3://absent/media/a.png refused: NoSuchBucket")


async def test_media_read_back_takes_the_type_its_bytes_prove(tmp_path: Path) -> None:
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "drawing.png").write_bytes(SVG)  # an SVG named as a PNG
    (tmp_path / "media" / "photo.bin").write_bytes(png(100))
    store = LocalMediaStore(tmp_path)
    drawing = f"file://{tmp_path}/media/drawing.png"
    assert (await store.fetch(drawing)).mime_type == "image/svg+xml"
    assert (await store.fetch(f"file://{tmp_path}/media/photo.bin")).mime_type == "image/png"
    with pytest.raises(MediaError, match=r"is image/svg\+xml, but image/\* is expected"):
        await MediaRef(drawing, "image/*").read(store)
    assert (await MediaRef(drawing, "image/svg+xml").read(store)).data == SVG


async def test_s3_read_back_takes_the_type_its_bytes_prove(s3: S3Server, aws: None) -> None:
    s3.client().put_object(Bucket="media", Key="media/drawing.png", Body=SVG, ContentType="image/png")
    store = S3MediaStore("media", "media/", endpoint=s3.endpoint)
    assert (await store.fetch("s3://media/media/drawing.png")).mime_type == "image/svg+xml"


async def test_s3_store_down_is_a_clear_error(s3: S3Server, aws: None) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    down = S3MediaStore("media", endpoint=f"http://127.0.0.1:{port}", timeout=1)
    with pytest.raises(MediaStoreUnavailable, match=r"cannot be reached; check media\.endpoint") as failed:
        await down.upload(png(100), "down.png", "image/png")
    assert "s3://" not in str(failed.value)  # boto's text (the object's URL) stays in the log
    keys = [o["Key"] for o in s3.client().list_objects_v2(Bucket="media").get("Contents", [])]
    assert "media/down.png" not in keys
