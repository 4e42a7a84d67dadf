"""Suite-wide pytest set-up: the pytester plugin, the `no_servers` mark, Ctrl-C for the processes tests
start, garbage collection paused while collecting, and the process-wide tracing state kept from leaking
between modules (pytest -n runs modules in any order, in several processes).

`no_servers` marks every test of a module that starts no server process: no agent or registry
(`tests.agents.run_agent`, `run_registry`, `run_mesh`, the pytest kit's `MeshCluster`), no MCP server from
npm (`tests.mcp_servers`), no MCP Mesh, Node, PostgreSQL or browser; nor runs the project's scripts or
installs it (those use `.venv` or a fresh venv, not the Python running the tests). Those tests need
nothing but the Python environment, so scripts/test.sh runs them on further supported Pythons
(`pytest -m no_servers`). `quick` marks the `no_servers` modules that start no process at all (no `mesh`
command, no stdio MCP server, no command tool, no wheel build, no pytest in a child):
`scripts/test.sh --quick` runs those (and each further Python all of them, with a share of the others).
A module is classified by the helpers its source names, so a new test module is placed without a list.
"""

from __future__ import annotations

import gc
import os
import re
import signal
from collections.abc import Generator, Iterator
from functools import cache
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

STARTS_SERVERS = re.compile(
    r"\b(run_agent|run_registry|run_mesh|run_starter_with_model|MeshCluster|mesh_cluster|mcp_servers"
    r"|MESH_PYTHON|NODE|playwright|postgres|bootstrap)\b|run\.sh"
)
STARTS_PROCESSES = re.compile(
    r"\b(subprocess|Popen|run_cli|sys\.executable|create_subprocess_\w+|runpytest_subprocess|fixture_stdio"
    r"|run_page|build_wheel|mesh_imports|click_app|forks)\b"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "no_servers: the test's module starts no server process (tests/conftest.py)"
    )
    config.addinivalue_line("markers", "quick: the module starts no process at all (tests/conftest.py)")
    take_ctrl_c()
    no_global_tracer_provider()


def take_ctrl_c() -> None:
    """A shell starts a background job (`./scripts/test.sh &`, a CI step run in the background) with SIGINT
    ignored, and every process it starts inherits that: Python then never turns SIGINT into
    KeyboardInterrupt, so a command a test interrupts as Ctrl-C would (`mesh call --wait`) ignores it and
    the test times out. A handled signal is reset to its default in a child at exec, so handling SIGINT
    here gives every process the tests start the Ctrl-C a terminal gives its foreground command."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def no_global_tracer_provider() -> None:
    """OpenTelemetry's global tracer provider can be set once per process, and the first app built with
    tracing on makes its provider the global one: from then on, the MCP SDK's own spans put a
    `traceparent` in every request's `_meta` (and its tracers keep the provider they found). A test would
    then see what modules before it in the same process did; with a no-op global provider set first, every
    module sees the same (an app's tracing keeps its own provider: `tracer_provider()`)."""
    from opentelemetry import trace

    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        trace.set_tracer_provider(trace.NoOpTracerProvider())


@cache
def starts_servers(path: Path) -> bool:
    """Whether the test module at `path` names a helper that starts a server process (or runs the
    project's scripts, or installs it)."""
    return bool(STARTS_SERVERS.search(path.read_text()))


@cache
def starts_processes(path: Path) -> bool:
    """Whether the test module at `path` starts any process: a server, or a command it runs to the end."""
    return starts_servers(path) or bool(STARTS_PROCESSES.search(path.read_text()))


@pytest.fixture(autouse=True, scope="module")
def tracing_per_module() -> Iterator[None]:
    """Tracing is per process (the tracer an app's build installs, `mesh_framework.observation`, and the
    tracing feature's `mesh_framework.tracing.state`): an app built with tracing on leaves it on for
    whatever runs next in the process. Each module ends with the tracer and state it began with, so what a
    module sees does not depend on which modules ran before it (pytest -n gives each worker its own mix)."""
    from mesh_framework import observation
    from mesh_framework.tracing.state import state

    tracer = observation.tracer
    kept = {name: getattr(state, name) for name in type(state).__slots__}
    yield
    observation.install(tracer)
    for name, value in kept.items():
        setattr(state, name, value)


COLLECTION_GC = pytest.StashKey[tuple[int, int, bool]]()
"""At the end of collection: the objects frozen, those left to the collector, whether it is on."""


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Collecting imports every test module (each pytest -n worker collects them all) and builds what they
    define at import: hundreds of thousands of objects that live as long as the process, which the
    collector's full passes walked again and again (~1.3 of ~5.6 CPU-s). Paused while collecting, then
    what collection left is frozen out of later collections, as `mesh run` does with start-up's objects."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if collecting:
            gc.collect()
            gc.freeze()
            gc.enable()
        # what tests/project/test_collection_cost.py checks (a test may unfreeze later: serve() freezes)
        session.config.stash[COLLECTION_GC] = (gc.get_freeze_count(), len(gc.get_objects()), gc.isenabled())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not starts_servers(item.path):
            item.add_marker(pytest.mark.no_servers)
        if not starts_processes(item.path):
            item.add_marker(pytest.mark.quick)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # pytest -n hands out modules in this order: the slow ones (they start processes) first, so the
        # quick ones fill the workers' last minutes instead of one long module running alone at the end.
        items.sort(key=lambda item: (not starts_servers(item.path), not starts_processes(item.path)))
