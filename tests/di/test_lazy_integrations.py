"""The container module imports dependency-injector's `containers` without FastAPI, Werkzeug or FastDepends
(mesh_framework/di/lazy_integrations.py), and dependency-injector's wiring still recognises their objects."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from itertools import pairwise

import dependency_injector
import dependency_injector.wiring

from mesh_framework.tested_versions import is_tested
from tests.agents import ROOT

# In a fresh interpreter: the framework's container first, then FastAPI and Werkzeug, used by the wiring.
SCRIPT = textwrap.dedent(
    """
    import sys, types
    import mesh_framework.di.container
    print("hidden", "fastapi" in sys.modules, "werkzeug" in sys.modules)

    from dependency_injector import containers, providers
    from dependency_injector.wiring import Provide, inject
    from fastapi import Depends
    from werkzeug.local import LocalProxy

    class Services(containers.DeclarativeContainer):
        answer = providers.Object(42)

    module = types.ModuleType("wired")
    exec('''
    from dependency_injector.wiring import Provide, inject
    from fastapi import Depends

    @inject
    def read(value: int = Depends(Provide["answer"])) -> int:
        return value
    ''', module.__dict__)
    def refuse():
        raise RuntimeError("a LocalProxy outside its context was inspected")
    module.proxy = LocalProxy(refuse)  # wiring must skip it, as it does when it imports Werkzeug itself
    sys.modules["wired"] = module
    container = Services()
    container.wire(modules=[module])
    print("wired", module.read())
    """
)


def test_the_container_loads_without_fastapi_and_wiring_still_reads_its_markers() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["hidden False False", "wired 42"]


def test_the_wiring_checks_replaced_are_the_ones_dependency_injector_makes() -> None:
    """What lazy_integrations.py replaces, as this dependency-injector writes it: a change here (a new check,
    a renamed list) means the replacement must be revisited."""
    assert is_tested("dependency-injector", dependency_injector.__version__)
    source = inspect.getsource(dependency_injector.wiring)
    for line in (
        "MARKER_EXTRACTORS: List[Callable[[Any], Any]] = []",
        "INSPECT_EXCLUSION_FILTERS: List[Callable[[Any], bool]] = [isbuiltin]",
        "from fastapi.params import Depends as FastAPIDepends",
        "MARKER_EXTRACTORS.append(extract_marker_from_fastapi)",
        "from fast_depends.dependencies.model import (",
        "MARKER_EXTRACTORS.append(extract_marker_from_dependant_fast_depends)",
        "from fast_depends.dependencies import (",
        "MARKER_EXTRACTORS.append(extract_marker_from_fast_depends)",
        "from werkzeug.local import LocalProxy as WerkzeugLocalProxy",
        "INSPECT_EXCLUSION_FILTERS.append(is_werkzeug_local_proxy)",
    ):
        assert line in source, line
    # the optional imports are of the three packages hidden and of Starlette (which the agent imports anyway)
    lines = source.splitlines()
    optional = {
        following.split()[1].split(".")[0]
        for line, following in pairwise(lines)
        if line.startswith("with suppress(ImportError)")
    }
    assert optional == {"fastapi", "fast_depends", "werkzeug", "starlette"}
