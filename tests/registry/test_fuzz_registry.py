"""The registry API against its OpenAPI description: the description matches the real routes, and
schemathesis fuzzes a real registry process from it (no 5xx, answers as described, bounded budget)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.routing import Route

import mesh_framework.registry as registry_package
from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from tests.agents import AgentProcess, loopback, run_registry

SPEC = Path(registry_package.__file__).parent / "openapi.yaml"
# Routes described on their own pages (job API, push streams, the mesh page and its console, its icon,
# Prometheus metrics in docs/operations.md), not in openapi.yaml; tests/registry/test_fuzz_registry_routes.py
# fuzzes every route.
ELSEWHERE = ("/jobs", "/topology/", "/ui", "/console/", "/metrics", "/favicon.ico")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))

schema = schemathesis.openapi.from_path(SPEC)


def test_the_description_matches_the_routes() -> None:
    described = {
        (path, method.upper())
        for path, operations in yaml.safe_load(SPEC.read_text())["paths"].items()
        for method in operations
    }
    store = RegistryStore(None)
    try:
        app = build_registry_app(store)
    finally:
        store.close()
    served = {
        (route.path, method)
        for route in app.routes
        if isinstance(route, Route) and not route.path.startswith(ELSEWHERE)
        for method in (route.methods or ())
        if not (method == "HEAD" and "GET" in (route.methods or ()) and (route.path, "HEAD") not in described)
    }
    assert described == served


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry() as running:
        yield running
    log = running.text()
    assert "Traceback" not in log, log[-3000:]


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_registry_answers_as_described(case: schemathesis.Case, registry: AgentProcess) -> None:
    response = case.call(base_url=registry.base_url, timeout=10)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )


def test_the_registry_still_answers_after_fuzzing(registry: AgentProcess) -> None:
    assert loopback.get(registry.base_url + "/health", timeout=10).status_code == 200
