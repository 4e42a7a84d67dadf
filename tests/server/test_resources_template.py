"""URI templates, resource contents and static files, as units."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from mesh_framework import EmbeddedResource
from mesh_framework.resources import UriTemplate, find_files, to_contents


def test_simple_variables_match_one_segment_and_reserved_ones_the_rest() -> None:
    template = UriTemplate("logs://{service}/{day}")
    assert template.variables == ("service", "day")
    assert template.match("logs://billing/3") == {"service": "billing", "day": "3"}
    assert template.match("logs://billing/3/extra") is None
    assert template.match("logs://billing") is None
    assert template.match("other://billing/3") is None
    wide = UriTemplate("files://{root}/{+path}")
    assert wide.match("files://home/a/b%20c.txt") == {"root": "home", "path": "a/b c.txt"}


@pytest.mark.parametrize(
    ("template", "words"),
    [("search://{?q}", "use {name} or {+name}"), ("a://{x}/{x}", "uses {x} twice"), ("a://{x", "use {name}")],
)
def test_unsupported_templates_are_refused_with_the_reason(template: str, words: str) -> None:
    with pytest.raises(ValueError, match="URI template") as caught:
        UriTemplate(template)
    assert words in str(caught.value)


def test_values_become_text_blob_or_json_contents() -> None:
    assert to_contents("a://x", "hi", None) == [{"uri": "a://x", "mimeType": "text/plain", "text": "hi"}]
    [blob] = to_contents("a://x", b"\x00\x01", None)
    assert (blob["mimeType"], base64.b64decode(blob["blob"])) == ("application/octet-stream", b"\x00\x01")
    assert to_contents("a://x", {"a": [1]}, None)[0]["text"] == '{"a":[1]}'
    embedded = EmbeddedResource("a://y", "text/csv", text="a,b")
    assert to_contents("a://x", embedded, None) == [{"uri": "a://y", "mimeType": "text/csv", "text": "a,b"}]
    with pytest.raises(TypeError, match="a resource returns str, bytes, JSON data"):
        to_contents("a://x", object(), None)


def test_static_files_get_uris_below_the_entry_and_types_from_extensions(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "deep").mkdir(parents=True)
    (folder / "guide.md").write_text("# Guide")
    (folder / "deep" / "data.json").write_text("{}")
    (folder / "raw").write_bytes(b"\xff\xfe\x00binary")
    (folder / "notes").write_text("plain words")
    (folder / ".secret").write_text("hidden")
    found = {f.uri: f for f in find_files(folder, "file:///")}
    assert {uri: f.mime_type for uri, f in found.items()} == {
        "file:///docs/deep/data.json": "application/json",
        "file:///docs/guide.md": "text/markdown",
        "file:///docs/notes": "text/plain",
        "file:///docs/raw": "application/octet-stream",
    }
    assert found["file:///docs/guide.md"].read() == [
        {"uri": "file:///docs/guide.md", "mimeType": "text/markdown", "text": "# Guide"}
    ]
    assert "blob" in found["file:///docs/raw"].read()[0]
    [single] = find_files(folder / "guide.md", "kb://")
    assert single.uri == "kb://guide.md"


def test_a_text_file_without_an_extension_is_text_even_when_its_sniffed_head_cuts_a_character(
    tmp_path: Path,
) -> None:
    """The first 4096 bytes decide; a UTF-8 character they cut in two is no sign of binary (as for skills)."""
    text = "a" * 4095 + "é and more"  # é's two bytes straddle byte 4096
    (tmp_path / "notes").write_text(text, encoding="utf-8")
    [notes] = find_files(tmp_path / "notes", "file:///")
    assert notes.mime_type == "text/plain"
    assert notes.read() == [{"uri": "file:///notes", "mimeType": "text/plain", "text": text}]
