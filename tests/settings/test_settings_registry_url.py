"""The registry URL is validated like every other setting, from whichever layer it comes: the MCP Mesh
variable, `registry.url`/`registry.urls` in a file, or `--registry-url`."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh_framework import ConfigError
from mesh_framework.config.loader import load_settings

from ..agents import run_cli

REASON = "is not an http(s) URL with a host; e.g. http://registry.example.com:8000"


@pytest.mark.parametrize("url", ["notaurl", "localhost:8000", "ftp://registry", "http://", "http://:80"])
def test_a_registry_url_that_is_not_one_stops_start_up(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={"MCP_MESH_REGISTRY_URL": url})
    assert caught.value.problems == [
        f"registry.url = {url!r} (from environment variable MCP_MESH_REGISTRY_URL): {url!r} {REASON}"
    ]


def test_ports_and_every_url_of_a_list_are_checked(tmp_path: Path) -> None:
    (tmp_path / "application.yaml").write_text(
        "registry:\n  url: http://a:8000,http://b:99999\n  urls: [https://c, c:8000]\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config_dir=tmp_path, environ={})
    url_problem, urls_problem = caught.value.problems
    assert url_problem.startswith("registry.url = 'http://a:8000,http://b:99999' (from ")
    assert "application.yaml:2): 'http://b:99999' is not a registry URL (Port out of range" in url_problem
    assert "application.yaml:3): 'c:8000' " + REASON in urls_problem


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000", "https://registry.example.com", "http://[::1]:8000/", "http://a:1,http://b:2"],
)
def test_usable_urls_are_accepted(url: str) -> None:
    assert load_settings(environ={"MCP_MESH_REGISTRY_URL": url}).settings.registry.url == url


def test_mesh_run_stops_on_a_bad_registry_url_from_the_environment() -> None:
    result = run_cli(["run", "starter_app", "--port", "0"], env={"MCP_MESH_REGISTRY_URL": "notaurl"})
    assert result.returncode == 1
    assert result.stderr.startswith("mesh run: starter_app: ")
    assert (
        f"registry.url = 'notaurl' (from environment variable MCP_MESH_REGISTRY_URL): 'notaurl' {REASON}"
        in (result.stderr)
    )


def test_mesh_config_names_the_option() -> None:
    result = run_cli(["config", "starter_app", "--registry-url", "notaurl"])
    assert result.returncode == 1
    assert (
        f"registry.url = 'notaurl' (from command line (--registry-url)): 'notaurl' {REASON}" in result.stderr
    )
