"""The Python examples of docs/production.md run, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mesh_framework import ConfigError
from mesh_framework.config.loader import load_settings

from ..agents import ROOT
from ..docs_examples import framework_site, new_project, run_page  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "production.md"


def test_production_page_examples_run(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    run_page(DOC.read_text(), DOC, new_project(tmp_path), framework_site, files=set(), runs=3)


def test_production_page_has_the_sections_operators_look_for() -> None:
    headings = re.findall(r"^## (.+)$", DOC.read_text(), flags=re.M)
    for section in (
        "Registry on PostgreSQL with replicas",
        "TLS",
        "Tokens and authorization",
        "Limits",
        "Faults",
    ):
        assert section in headings


def _auth_blocks() -> list[str]:
    return [b for b in re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.S) if b.startswith("auth:")]


def test_the_token_placeholders_of_the_page_resolve_as_it_says(tmp_path: Path) -> None:
    tokens, credentials = _auth_blocks()
    environ = {"CI_TOKEN": "ci", "CLIENT_TOKEN": "client", "ADD_SERVICE_TOKEN": "add"}
    for block in (tokens, credentials):
        (tmp_path / "application.yaml").write_text(block)
        loaded = load_settings(config_dir=tmp_path, environ=environ)
        auth = loaded.settings.auth
        secrets = [t.token for t in auth.tokens] + [auth.client_token, *auth.dependency_tokens.values()]
        assert {s.get_secret_value() for s in secrets if s is not None} <= set(environ.values())
    assert auth.client_token is not None and auth.client_token.get_secret_value() == "client"
    (tmp_path / "application.yaml").write_text(tokens)
    origin = load_settings(config_dir=tmp_path, environ=environ).origin_of("auth.tokens")
    assert origin.endswith("application.yaml:4 via environment variable CI_TOKEN")
    assert "`config/application.yaml:4 via environment variable CI_TOKEN`" in DOC.read_text()
    with pytest.raises(
        ConfigError, match=r"auth\.tokens\.0\.token \(from .*application\.yaml:4\): \$\{CI_TOKEN\}"
    ):
        load_settings(config_dir=tmp_path, environ={})
