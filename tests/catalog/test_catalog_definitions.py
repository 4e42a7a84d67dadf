"""Server definitions and McpServerCatalog: validation naming the server, secrets out of repr, lookups."""

from __future__ import annotations

import pytest

from mesh_framework.catalog import (
    HttpDefinition,
    McpServerCatalog,
    SseDefinition,
    StdioDefinition,
    masked,
    select_servers,
)
from mesh_framework.errors import CatalogError


def test_definitions_have_a_type_a_locality_and_the_file_format() -> None:
    stdio = StdioDefinition("npx", ["-y", "pkg"], {"TOKEN": "s3cret"}, "/srv", name="fs")
    assert (stdio.type, stdio.is_local) == ("stdio", True)
    assert stdio.to_dict() == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "pkg"],
        "env": {"TOKEN": "s3cret"},
        "cwd": "/srv",
    }
    web = HttpDefinition("https://h/mcp", {"Authorization": "Bearer t"})
    assert (web.type, web.is_local) == ("http", False)
    assert SseDefinition("http://h/sse").to_dict() == {"type": "sse", "url": "http://h/sse"}
    assert stdio == StdioDefinition("npx", ("-y", "pkg"), {"TOKEN": "s3cret"}, "/srv")
    assert len({stdio, StdioDefinition("npx", ["-y", "pkg"], {"TOKEN": "s3cret"}, "/srv")}) == 1


def test_repr_names_env_and_header_keys_never_their_values() -> None:
    text = repr(StdioDefinition("npx", [], {"TOKEN": "s3cret"})) + repr(
        HttpDefinition("https://h/mcp", {"Authorization": "Bearer t0ken"})
    )
    assert "TOKEN" in text and "Authorization" in text
    assert "s3cret" not in text and "t0ken" not in text


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: StdioDefinition("", name="fs"), "MCP server 'fs': 'command' is missing"),
        (lambda: StdioDefinition("npx", "-y", name="fs"), "MCP server 'fs': 'args' must be a list"),
        (lambda: HttpDefinition("", name="web"), "MCP server 'web': 'url' is missing"),
        (lambda: SseDefinition("ftp://h", name="web"), "url 'ftp://h' is not an http(s) URL"),
        (lambda: StdioDefinition("x", env="A=secret", name="fs"), "must be an object of strings, not str"),
    ],
)
def test_bad_definitions_name_the_server(make: object, message: str) -> None:
    with pytest.raises(CatalogError, match=None) as caught:
        make()  # type: ignore[operator]
    assert message in str(caught.value)
    assert "secret" not in str(caught.value)


def test_masked_hides_env_values_and_credential_headers() -> None:
    assert masked(StdioDefinition("npx", [], {"A": "1"})) == {
        "type": "stdio",
        "command": "npx",
        "env": {"A": "******"},
    }
    headers = {
        "Authorization": "Bearer t",
        "X-Api-Key": "k",
        "Cookie": "c",
        "X-Session-Token": "s",
        "Accept": "a",
    }
    assert masked(HttpDefinition("https://h/mcp", headers))["headers"] == {
        "Authorization": "******",
        "X-Api-Key": "******",
        "Cookie": "******",
        "X-Session-Token": "******",
        "Accept": "a",
    }


def test_catalog_lookups_resolution_and_merge_keep_origins() -> None:
    fs, web = StdioDefinition("npx"), HttpDefinition("https://h/mcp")
    catalog = McpServerCatalog({"fs": fs, "web": web}, origins={"fs": "a.json", "web": "b.json"})
    assert list(catalog) == ["fs", "web"] and len(catalog) == 2 and "fs" in catalog
    assert catalog.get("fs") is fs and catalog.get("nope") is None and catalog.contains("web")
    assert catalog.origin_of("web") == "b.json"
    assert list(catalog.resolve(["web", "fs", "web"])) == ["web", "fs"]
    with pytest.raises(CatalogError) as caught:
        catalog.resolve(["fs", "gh", "db"])
    assert "unknown MCP server(s): gh, db (the catalog has: fs, web)" in str(caught.value)
    other = McpServerCatalog.builder().add("web", SseDefinition("https://o/sse")).build()
    merged = catalog.merged(other)
    assert merged.get("web") == SseDefinition("https://o/sse")
    assert (merged.origin_of("fs"), merged.origin_of("web")) == ("a.json", None)


def test_select_servers_is_the_defaults_plus_the_request_all_missing_names_at_once() -> None:
    catalog = McpServerCatalog.of({n: HttpDefinition(f"https://{n}/mcp") for n in ("a", "b", "c")})
    assert list(select_servers(catalog, ["a"], ["c", "a"])) == ["a", "c"]
    assert list(select_servers(catalog, ["b"])) == ["b"]
    with pytest.raises(CatalogError, match=r"unknown MCP server\(s\): x, y"):
        select_servers(catalog, ["x"], ["a", "y"])


def test_builder_rejects_a_name_twice_and_catalog_rejects_non_definitions() -> None:
    with pytest.raises(CatalogError, match="added twice"):
        McpServerCatalog.builder().add("a", StdioDefinition("x")).add("a", StdioDefinition("y"))
    with pytest.raises(CatalogError, match="expected a StdioDefinition"):
        McpServerCatalog({"a": {"command": "x"}})  # type: ignore[dict-item]
