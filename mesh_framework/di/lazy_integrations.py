"""dependency-injector's `containers` module, imported without loading FastAPI, Werkzeug or FastDepends.

Importing `dependency_injector.containers` imports its `wiring` module, which imports FastAPI, Werkzeug and
FastDepends when they are installed, to recognise their objects while it wires (a FastAPI `Depends` marker,
a Werkzeug `LocalProxy` it must not inspect). The framework never uses that wiring, yet an agent whose
environment merely has FastAPI (the `fastapi` extra) paid about 0.13 s of CPU at every start for it.

Here the module is imported with those packages hidden from this thread's imports, then `wiring`'s checks
for them are added back in a form that reads them from `sys.modules`: an object of one of them can only
exist once its package is imported, so the checks answer as the eager ones do. A package imported before
this module, or a dependency-injector outside the tested versions (`tested_versions.py`), is imported as
usual; tests/di/test_lazy_integrations.py breaks if `wiring`'s lists change.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..tested_versions import is_tested

__all__ = ["containers"]

HIDDEN = ("fastapi", "werkzeug", "fast_depends")


class _Hide:
    """A meta path finder that refuses `packages` to one thread's imports (other threads import as usual)."""

    def __init__(self, packages: Sequence[str]) -> None:
        self.packages = tuple(packages)
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if threading.get_ident() == self.thread and name.split(".", maxsplit=1)[0] in self.packages:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


@contextmanager
def _hidden(packages: Sequence[str]) -> Iterator[None]:
    finder = _Hide(packages)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _fastapi_marker(param: Any) -> Any:
    params = sys.modules.get("fastapi.params")
    if params is not None and isinstance(param, params.Depends):
        return param.dependency
    return None


def _fast_depends_marker(param: Any) -> Any:
    for module, name in (
        ("fast_depends.dependencies.model", "Dependant"),  # FastDepends >= 3
        ("fast_depends.dependencies", "Depends"),  # FastDepends < 3
    ):
        found = getattr(sys.modules.get(module), name, None)
        if isinstance(found, type) and isinstance(param, found):
            return getattr(param, "dependency", None)
    return None


def _is_werkzeug_local_proxy(obj: Any) -> bool:
    local = sys.modules.get("werkzeug.local")
    return local is not None and isinstance(obj, local.LocalProxy)


def _import_containers() -> ModuleType:
    import dependency_injector

    hidden = [name for name in HIDDEN if name not in sys.modules]
    if (
        not hidden
        or "dependency_injector.wiring" in sys.modules  # its checks are made already
        or not is_tested("dependency-injector", dependency_injector.__version__)
    ):
        return importlib.import_module("dependency_injector.containers")
    with _hidden(hidden):
        module = importlib.import_module("dependency_injector.containers")
    wiring = sys.modules["dependency_injector.wiring"]
    if "fastapi" in hidden:
        wiring.MARKER_EXTRACTORS.append(_fastapi_marker)
    if "fast_depends" in hidden:
        wiring.MARKER_EXTRACTORS.append(_fast_depends_marker)
    if "werkzeug" in hidden:
        wiring.INSPECT_EXCLUSION_FILTERS.append(_is_werkzeug_local_proxy)
    return module


if TYPE_CHECKING:
    from dependency_injector import containers
else:
    containers = _import_containers()
