"""Every public exception of the framework is a `MeshError`, so `except MeshError` catches whatever the
framework raises on purpose (and a failure logs one line, not a traceback: `failures.log_failure`).

Public means: named in `mesh_framework.__all__` or in the `__all__` of one of its packages, or named in
backticks in the documentation (docs/*.md, README.md) while defined in a module of the framework. A
builtin base callers catch stays beside it (`class PromptError(MeshError, ValueError)`)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import mesh_framework
from mesh_framework.errors import MeshError

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


def modules() -> Iterator[tuple[str, bool]]:
    """Every module of the framework, imported, with whether it is a package (`__main__` modules run a
    command when imported: they are left out)."""
    yield "mesh_framework", True
    for info in pkgutil.walk_packages(mesh_framework.__path__, "mesh_framework."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            yield info.name, info.ispkg


def exported_exceptions() -> dict[str, type[BaseException]]:
    """`package.Name` -> class, for each exception class in a package's `__all__`."""
    found = {}
    for name, is_package in modules():
        if not is_package:
            continue
        package = importlib.import_module(name)
        for public in getattr(package, "__all__", ()):
            value = getattr(package, public)
            if inspect.isclass(value) and issubclass(value, BaseException):
                found[f"{name}.{public}"] = value
    return found


def documented_names() -> set[str]:
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    spans = (span for page in pages for span in re.findall(r"`([^`\n]+)`", page.read_text(encoding="utf-8")))
    return {word for span in spans for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}


def documented_exceptions() -> dict[str, type[BaseException]]:
    """`module.Name` -> class, for each exception class defined in the framework and named in the docs."""
    names = documented_names()
    found = {}
    for name, _is_package in modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if (
                attribute in names
                and inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[f"{name}.{attribute}"] = value
    return found


def test_every_exported_exception_is_a_mesh_error() -> None:
    exported = exported_exceptions()
    assert "mesh_framework.ToolExecutionError" in exported  # the walk sees the public API
    assert "mesh_framework.prompts.PromptError" in exported  # and the packages' own
    outside = sorted(name for name, cls in exported.items() if not issubclass(cls, MeshError))
    assert outside == [], f"derive each from mesh_framework.errors.MeshError: {outside}"


def test_every_documented_exception_is_a_mesh_error() -> None:
    documented = documented_exceptions()
    assert "mesh_framework.input_required.InputNotPossible" in documented  # docs/jobs.md names it
    outside = sorted(name for name, cls in documented.items() if not issubclass(cls, MeshError))
    assert outside == [], f"derive each from mesh_framework.errors.MeshError: {outside}"


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("mesh_framework.prompts.PromptError", ValueError),
        ("mesh_framework.prompts.PromptFileError", ValueError),
        ("mesh_framework.prompts.ArgumentError", ValueError),
        ("mesh_framework.resources.ResourceError", ValueError),
        ("mesh_framework.registry.PayloadError", ValueError),
        ("mesh_framework.registry.console.PushError", ValueError),
        ("mesh_framework.schemas.SchemaTypeError", TypeError),
    ],
)
def test_builtin_bases_callers_catch_are_kept(name: str, builtin: type[BaseException]) -> None:
    cls = exported_exceptions()[name]
    assert issubclass(cls, MeshError) and issubclass(cls, builtin)
