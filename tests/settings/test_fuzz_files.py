"""Fuzzing what users write by hand: application.yaml, MESH_/MCP_MESH_ environment values, catalog files.

Whatever the content, loading either succeeds or raises the framework's own error (ConfigError,
CatalogError) whose message names the problem on readable lines; never another exception.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh_framework.catalog.loading import load_catalog
from mesh_framework.config.loader import load_settings
from mesh_framework.errors import MeshError

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

SECTIONS = {
    "server": [
        "port",
        "host",
        "path",
        "max_body_bytes",
        "keep_alive_timeout",
        "body_timeout",
        "max_concurrency",
    ],
    "registry": ["url", "heartbeat_interval", "timeout", "enabled", "embedded_port"],
    "agent": ["name", "id", "version", "namespace", "host"],
    "tools": ["timeout"],
    "client": ["keepalive_expiry"],
    "logging": ["level"],
    "mcp": ["catalog", "servers", "fail_fast"],
    "profiles": [],
}
ENV_NAMES = [
    "MCP_MESH_HTTP_PORT",
    "MCP_MESH_HTTP_HOST",
    "MCP_MESH_REGISTRY_URL",
    "MCP_MESH_AGENT_NAME",
    "MCP_MESH_HEALTH_INTERVAL",
    "MCP_MESH_NAMESPACE",
    "MESH_SERVER__PORT",
    "MESH_SERVER__MAX_BODY_BYTES",
    "MESH_SERVER__BODY_TIMEOUT",
    "MESH_CLIENT__KEEPALIVE_EXPIRY",
    "MESH_TOOLS__TIMEOUT",
    "MESH_PROFILES_ACTIVE",
    "MESH_LOGGING__LEVEL",
]

scalar = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
value = st.recursive(
    scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
section = st.sampled_from(sorted(SECTIONS)).flatmap(
    lambda name: st.tuples(
        st.just(name),
        st.dictionaries(st.sampled_from(SECTIONS[name] or ["x"]) | st.text(max_size=6), value, max_size=3)
        if SECTIONS[name]
        else st.lists(st.text(max_size=6), max_size=2),
    )
)
env_text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=20)


def _problem_lines(error: MeshError) -> list[str]:
    lines = [line for line in str(error).splitlines() if line.strip()]
    assert lines, "an error without a message"
    assert "Traceback" not in str(error)
    return lines


@FUZZ
@given(document=st.dictionaries(st.just("x"), st.none()) | st.lists(section, max_size=4).map(dict) | value)
def test_application_yaml(document: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "application.yaml").write_text(yaml.safe_dump(document))
        try:
            load_settings(config_dir=Path(folder), environ={})
        except MeshError as error:
            _problem_lines(error)


@FUZZ
@given(text=st.text(max_size=200))
def test_application_yaml_that_is_not_yaml(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "application.yaml").write_text(text)
        try:
            load_settings(config_dir=Path(folder), environ={})
        except MeshError as error:
            _problem_lines(error)


@FUZZ
@given(environ=st.dictionaries(st.sampled_from(ENV_NAMES), env_text, max_size=4))
def test_environment_values(environ: dict[str, str]) -> None:
    try:
        load_settings(environ=environ)
    except MeshError as error:
        _problem_lines(error)


server_entry = st.fixed_dictionaries(
    {},
    optional={
        "command": scalar,
        "args": st.lists(scalar, max_size=3) | scalar,
        "env": st.dictionaries(st.text(max_size=5), scalar, max_size=2) | scalar,
        "url": st.sampled_from(["http://127.0.0.1:1/mcp", "${MISSING}", "ftp://x", ""]) | scalar,
        "type": st.sampled_from(["stdio", "sse", "http", "streamable-http", "bogus"]) | scalar,
        "headers": st.dictionaries(st.text(max_size=5), scalar, max_size=2) | scalar,
    },
)
catalog = st.fixed_dictionaries(
    {},
    optional={"mcpServers": st.dictionaries(st.text(max_size=8), server_entry | value, max_size=3) | value},
) | st.fixed_dictionaries({"servers": st.dictionaries(st.text(max_size=8), server_entry, max_size=3)})


@FUZZ
@given(document=catalog | value, raw=st.booleans(), text=st.text(max_size=50))
def test_catalog_files(document: Any, raw: bool, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "servers.json")
        path.write_text(text if raw else json.dumps(document))
        try:
            load_catalog([path], environ={})
        except MeshError as error:
            _problem_lines(error)
