"""Uploads into the media store, from a real agent's routes: each upload stored under a name of its own
(a route opts in to overwrite), SVG refused as an image unless named, the size limit enforced while the
body arrives (a 200 MiB upload is refused after the limit, not after reading it), and a fuzz of the
upload surface (never a 5xx, never a traceback). Also the sniffing and type rules these rest on."""

from __future__ import annotations

import codecs
import os
import re
import select
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh_framework.media.sniff import sniff
from mesh_framework.media.store import matches_type
from mesh_framework.media.uploads import FORM_OVERHEAD_BYTES, unique_name
from tests.agents import AgentProcess, loopback, run_agent
from tests.media_files import PDF, SVG, png

pytestmark = pytest.mark.timeout(120)

LIMIT = 20_000
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
ROUTES = ["/api/upload", "/api/replace", "/api/drawing", "/api/form-upload"]


@pytest.fixture(scope="module")
def media_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="module")
def agent(media_folder: Path) -> Iterator[AgentProcess]:
    env = {
        "MCP_MESH_MEDIA_STORAGE_PATH": str(media_folder),
        "MESH_MEDIA__MAX_UPLOAD_BYTES": str(LIMIT),
        # The whole-body limit far above the media limit: what stops a large upload is the media's own.
        "MESH_SERVER__MAX_BODY_BYTES": str(512 * 1024 * 1024),
    }
    with run_agent("tests.apps.media_app", env=env) as running:
        yield running
    log = running.text()
    assert "Traceback" not in log, log[-3000:]


def upload(
    agent: AgentProcess, name: str, data: bytes, mime_type: str, route: str = "/api/upload"
) -> httpx2.Response:
    files = {"file": (name, data, mime_type)}
    return loopback.post(agent.base_url + route, files=files, timeout=10)


def stored(uri: str) -> bytes:
    return Path(uri.removeprefix("file://")).read_bytes()


# --- the rules ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        SVG,
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"  \n<SVG onload='x()'></SVG>",
        b"<svg:svg xmlns:svg='http://www.w3.org/2000/svg'/>",
        b"<!--" + b"x" * 200_000 + b"--><svg>",  # the root far behind a long comment
        b"<!DOCTYPE svg [<!ENTITY a '>'>]><?pi x?><svg/>",
        codecs.BOM_UTF8 + b"<svg/>",
        codecs.BOM_UTF16_LE + "<?xml version='1.0'?><svg/>".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "<svg/>".encode("utf-16-be"),
    ],
)
def test_svg_is_sniffed_as_svg(data: bytes) -> None:
    assert sniff(data) == "image/svg+xml"


@pytest.mark.parametrize(
    ("data", "found"),
    [
        pytest.param(png(100), "image/png", id="png"),  # random pixels: a stable id for pytest -n
        (PDF, "application/pdf"),
        (b"<html><body><svg/></body></html>", None),  # HTML, not an SVG document
        (b"<svgx/>", None),
        (b"<!-- unterminated <svg/>", None),
        (b"BMW sales went up", None),  # two letters are not a BMP header
        (b"BM" + bytes(4) + bytes(4) + bytes(4), "image/bmp"),
        (b"", None),
    ],
)
def test_other_bytes_are_not_svg(data: bytes, found: str | None) -> None:
    assert sniff(data) == found


def test_svg_fits_only_a_pattern_naming_it() -> None:
    assert not matches_type("image/svg+xml", "image/*")
    assert not matches_type("image/svg+xml", "*/*")
    assert not matches_type("IMAGE/SVG+XML; charset=utf-8", "image/*,application/pdf")
    assert matches_type("image/svg+xml", "image/*, image/svg+xml")
    assert matches_type("image/png", "image/*") and matches_type("image/png", "*/*")


@pytest.mark.parametrize(
    ("sent", "mime_type", "shape"),
    [
        ("receipt.png", "image/png", r"receipt-[0-9a-f]{12}\.png"),
        ("photo.JPEG", "image/jpeg", r"photo-[0-9a-f]{12}\.JPEG"),
        ("../../etc/passwd", "image/png", r"passwd-[0-9a-f]{12}\.png"),
        ("..\\win.ini", "application/pdf", r"win\.ini-[0-9a-f]{12}\.pdf"),
        ("page.html", "image/png", r"page\.html-[0-9a-f]{12}\.png"),  # the extension says the type
        ("My Receipt (1).png", "image/png", r"My_Receipt_1-[0-9a-f]{12}\.png"),
        ("квитанция.pdf", "application/pdf", r"квитанция-[0-9a-f]{12}\.pdf"),
        ("..", "image/png", r"upload-[0-9a-f]{12}\.png"),
        ("a\0b\r\n.png", "image/png", r"a_b-[0-9a-f]{12}\.png"),
        ("x" * 5000 + ".png", "image/png", r"x{80}-[0-9a-f]{12}\.png"),
        ("é" * 300, "application/x-unknown", r"é{60}-[0-9a-f]{12}\.bin"),
    ],
)
def test_an_upload_gets_a_stored_name_of_its_own(sent: str, mime_type: str, shape: str) -> None:
    name = unique_name(sent, mime_type)
    assert re.fullmatch(shape, name), name
    assert len(name.encode()) <= 200 and name != unique_name(sent, mime_type)


# --- a real agent --------------------------------------------------------------------------------------


def test_two_uploads_of_the_same_name_never_overwrite_each_other(agent: AgentProcess) -> None:
    first, second = png(300), png(400)
    one = upload(agent, "receipt.png", first, "image/png").json()["uri"]
    other = upload(agent, "receipt.png", second, "image/png").json()["uri"]
    assert one != other
    assert (stored(one), stored(other)) == (first, second)


def test_a_route_that_opts_in_overwrites_by_the_name_sent(agent: AgentProcess, media_folder: Path) -> None:
    first, second = png(300), png(400)
    one = upload(agent, "avatar.png", first, "image/png", route="/api/replace").json()["uri"]
    assert one == f"file://{media_folder}/media/avatar.png"
    again = upload(agent, "avatar.png", second, "image/png", route="/api/replace").json()["uri"]
    assert again == one and stored(one) == second


@pytest.mark.parametrize(
    ("route", "declared", "said"),
    [
        ("/api/upload", "image/svg+xml", "is image/svg+xml; this route accepts image/*,application/pdf"),
        ("/api/upload", "application/octet-stream", "is image/svg+xml; this route accepts image/*"),
        ("/api/upload", "image/png", "is declared image/png but its bytes are image/svg+xml"),
        ("/api/drawing", "image/png", "is declared image/png but its bytes are image/svg+xml"),
        ("/api/drawing", "text/xml", "is text/xml; this route accepts image/*,image/svg+xml"),
        ("/api/replace", "image/svg+xml", "is image/svg+xml; this route accepts image/png"),
    ],
)
def test_svg_is_not_taken_as_an_image(
    agent: AgentProcess, media_folder: Path, route: str, declared: str, said: str
) -> None:
    answer = upload(agent, "drawing.svg", SVG, declared, route=route)
    assert answer.status_code == 415, answer.text
    assert said in answer.json()["detail"]
    assert not list((media_folder / "media").glob("drawing*"))


def test_svg_is_taken_where_the_route_names_it(agent: AgentProcess) -> None:
    answer = upload(agent, "drawing.svg", SVG, "image/svg+xml", route="/api/drawing")
    assert answer.status_code == 200, answer.text
    assert stored(answer.json()["uri"]) == SVG
    fake = upload(agent, "fake.svg", png(200), "image/svg+xml", route="/api/drawing")
    assert fake.status_code == 415
    assert "is declared image/svg+xml but its bytes are image/png" in fake.json()["detail"]


def _send_chunked_upload(agent: AgentProcess, route: str, total: int) -> tuple[int, int, bytes]:
    """POST a multipart upload of `total` bytes with chunked encoding, stopping as soon as the server
    answers; (bytes of the file sent, status, body)."""
    host, port = "127.0.0.1", agent.port
    boundary = "mediaboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode() + b"\x89PNG\r\n\x1a\n"
    chunk = bytes(256 * 1024)
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(
            f"POST {route} HTTP/1.1\r\nHost: {host}:{port}\r\nTransfer-Encoding: chunked\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n".encode()
        )
        sock.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        sent = 0
        try:
            while sent < total:
                if select.select([sock], [], [], 0)[0]:
                    break  # the answer came: stop sending
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            else:
                tail = f"\r\n--{boundary}--\r\n".encode()
                sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(tail), tail))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: its answer is read below
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status = int(answer.split(b" ", 2)[1])
    return sent, status, answer.partition(b"\r\n\r\n")[2]


def _length(answer: bytes) -> int:
    match = re.search(rb"(?i)\r\ncontent-length: *(\d+)", answer.partition(b"\r\n\r\n")[0])
    return int(match.group(1)) if match else 1 << 30


def test_an_upload_over_the_limit_is_refused_while_it_arrives(
    agent: AgentProcess, media_folder: Path
) -> None:
    total = 200 * 1024 * 1024
    sent, status, body = _send_chunked_upload(agent, "/api/upload", total)
    assert status == 413, body
    assert b"larger than 20000 bytes (media.max_upload_bytes)" in body
    # Read past the limit: at most the form's allowance, one chunk, and what the sockets buffer.
    assert sent < LIMIT + FORM_OVERHEAD_BYTES + 32 * 1024 * 1024, sent
    assert not list((media_folder / "media").glob("big*"))
    assert upload(agent, "after.png", png(300), "image/png").status_code == 200  # the agent still serves


def test_media_is_served_with_its_proven_type_and_svg_as_a_sandboxed_download(
    agent: AgentProcess, media_folder: Path
) -> None:
    def show(uri: str) -> httpx2.Response:
        return loopback.get(agent.base_url + "/api/media", params={"uri": uri}, timeout=10)

    image = png(300)
    picture = show(upload(agent, "photo.png", image, "image/png").json()["uri"])
    assert picture.status_code == 200 and picture.content == image
    assert picture.headers["content-type"] == "image/png"
    assert picture.headers["x-content-type-options"] == "nosniff"
    assert "content-disposition" not in picture.headers and "content-security-policy" not in picture.headers
    drawing = upload(agent, "drawing.svg", SVG, "image/svg+xml", route="/api/drawing").json()["uri"]
    (media_folder / "media" / "disguised.png").write_bytes(SVG)  # an SVG under an image's name
    for uri in (drawing, f"file://{media_folder}/media/disguised.png"):
        served = show(uri)
        assert served.status_code == 200 and served.content == SVG
        assert served.headers["content-type"] == "image/svg+xml"
        assert served.headers["x-content-type-options"] == "nosniff"
        assert served.headers["content-disposition"].startswith("attachment; filename=")
        assert served.headers["content-security-policy"] == "sandbox; default-src 'none'"
    assert show("s3://elsewhere/x.png").status_code == 400
    assert show(f"file://{media_folder}/media/none.png").status_code == 404


# --- fuzz ----------------------------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=40)
_header_text = st.one_of(_text, st.binary(max_size=40).map(lambda b: b.decode("latin-1")))
_payload = st.one_of(
    st.sampled_from([png(200), PDF, SVG, b"", png(30_000)]),
    st.binary(max_size=300),
    st.binary(max_size=40).map(lambda b: b"\x89PNG\r\n\x1a\n" + b),
)


@st.composite
def _multipart(draw: st.DrawFn) -> tuple[dict[str, str], bytes]:
    boundary = draw(st.sampled_from(["b0undary", ""]) | st.text("abcXYZ-_'0 ", min_size=1, max_size=72))
    parts = []
    for _ in range(draw(st.integers(0, 3))):
        field = draw(st.sampled_from(["file", "other"]) | _header_text)
        filename = draw(st.none() | _header_text)
        disposition = f'form-data; name="{field}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        headers = [f"Content-Disposition: {disposition}"]
        mime = draw(
            st.none() | st.sampled_from(["image/png", "image/svg+xml", "application/pdf"]) | _header_text
        )
        if mime is not None:
            headers.append(f"Content-Type: {mime}")
        head = "\r\n".join(headers).encode("utf-8", "surrogatepass")
        parts.append(b"--" + boundary.encode() + b"\r\n" + head + b"\r\n\r\n" + draw(_payload) + b"\r\n")
    body = b"".join(parts) + (b"--" + boundary.encode() + b"--\r\n" if draw(st.booleans()) else b"")
    if draw(st.booleans()):  # damage it
        cut = draw(st.integers(0, len(body)))
        body = body[:cut] + draw(st.binary(max_size=20))
    content_type = draw(
        st.sampled_from(
            [
                f"multipart/form-data; boundary={boundary}",
                f'multipart/form-data; boundary="{boundary}"',
                "multipart/form-data",
                f"multipart/form-data; boundary={boundary}; charset="
                + draw(st.sampled_from(["x", "utf-16"])),
            ]
        )
    )
    return {"content-type": content_type.strip()}, body  # an HTTP client sends no trailing space


@given(route=st.sampled_from(ROUTES), request=_multipart())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_upload_surface_never_fails_on_what_is_sent(
    agent: AgentProcess, route: str, request: tuple[dict[str, str], bytes]
) -> None:
    headers, body = request
    answer = loopback.post(agent.base_url + route, content=body, headers=headers, timeout=10)
    assert answer.status_code < 500, (answer.status_code, answer.text)
    assert answer.status_code in (200, 400, 413, 415), (answer.status_code, answer.text)
    assert "Traceback" not in answer.text


@given(
    uri=st.one_of(
        _text,
        st.tuples(st.sampled_from(["file://", "s3://", "file:///tmp/", "s3://media/media/"]), _text).map(
            "".join
        ),
    )
)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_serving_media_never_fails_on_the_uri_sent(agent: AgentProcess, uri: str) -> None:
    answer = loopback.get(agent.base_url + "/api/media", params={"uri": uri}, timeout=10)
    assert answer.status_code in (200, 400, 404), (answer.status_code, answer.text)


def test_the_store_folder_a_null_byte_or_an_endless_name_is_no_media(
    agent: AgentProcess, media_folder: Path
) -> None:
    folder = f"file://{media_folder}/media/"
    for uri in (folder, folder + "a\0b.png", folder + "a" * 5000 + ".png"):
        answer = loopback.get(agent.base_url + "/api/media", params={"uri": uri}, timeout=10)
        assert answer.status_code in (400, 404), (answer.status_code, answer.text)
