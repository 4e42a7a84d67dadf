"""docs/architecture.md lists every module of mesh_framework with its docstring's summary, and every module
has a docstring: the page's module map is generated (`python -m tests.module_map`) and kept equal here."""

from __future__ import annotations

import pytest

from ..module_map import BEGIN, END, PAGE, module_docstrings, render, updated

pytestmark = pytest.mark.timeout(60)

REGENERATE = "run: .venv/bin/python -m tests.module_map"


def test_every_module_has_a_docstring() -> None:
    modules = module_docstrings()
    assert len(modules) > 100 and "errors.py" in dict(modules)  # the walk sees the package
    missing = [module for module, docstring in modules if not docstring or not docstring.strip()]
    assert missing == [], f"give each module a docstring (its first paragraph says what it is): {missing}"


def test_the_page_lists_every_module_with_its_docstring_summary() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert BEGIN in page and END in page, (
        f"the module map's markers (tests/module_map.py BEGIN and END) are gone from {PAGE.name}: put them "
        f"back where the map goes, then {REGENERATE}"
    )
    shown = page[page.index(BEGIN) : page.index(END) + len(END)]
    assert shown == render(), f"the module map of {PAGE.name} is out of date; {REGENERATE}"


def test_the_map_shows_packages_then_their_modules() -> None:
    rows = [line for line in render().splitlines() if line.startswith("| `")]
    shown = [row.split("`")[1] for row in rows]
    assert shown[0] == "__init__.py"
    assert shown.index("a2a/") < shown.index("a2a/client.py") < shown.index("a2a/wire.py")
    assert shown.index("sse.py") > shown.index("security/")  # top-level modules among the packages, by name
    sse = rows[shown.index("sse.py")]
    assert "one encoder, the one decoder" in sse  # the docstring's first paragraph, on one line


def test_regenerating_replaces_only_the_section_between_the_markers() -> None:
    page = f"# Title\n\nBefore.\n\n{BEGIN}\nstale rows\n{END}\n\nAfter.\n"
    assert updated(page) == f"# Title\n\nBefore.\n\n{render()}\n\nAfter.\n"
    assert updated(updated(page)) == updated(page)
    with pytest.raises(ValueError, match="markers"):
        updated("# A page without them\n")


# Names that say what a module is to its package (its errors, its store, its client, its planning, ...): with
# the package in front they are unambiguous, and the same role keeps the same name in every package. The
# framework's conventions are role names too: `auto_configuration` and `beans` in every feature package.
# fmt: off
ROLE_NAMES = frozenset({
    "__init__", "__main__", "auto_configuration", "beans", "board", "call_scoped", "client", "clients",
    "content", "context", "decorator", "definitions", "discovery", "errors", "events", "failures", "guard",
    "injection", "loading", "local", "masking", "media", "messages", "model", "naming", "placeholders",
    "plan", "planning", "policy", "provider", "push", "route", "routes", "runner", "state", "store",
    "streaming", "tool", "tools", "wire", "wiring",
})
# fmt: on


def test_module_names_repeat_across_folders_only_for_role_names() -> None:
    """A name that is a thing (a server, a catalog, a console, a gateway, marks) names one module: five
    `server.py` in five folders read the same in a traceback, an editor's tab and a grep."""
    homes: dict[str, list[str]] = {}
    for module, _ in module_docstrings():
        if module.endswith(
            ".py"
        ):  # a package may share a module's name: `registry/jobs.py` is the registry's
            homes.setdefault(module.rsplit("/", 1)[-1].removesuffix(".py"), []).append(module)
    repeated = {name: found for name, found in homes.items() if len(found) > 1 and name not in ROLE_NAMES}
    assert repeated == {}, (
        f"module names that repeat across folders: {repeated}; name each after what it is in its package "
        "(a2a/a2a_server.py, routes/route_marks.py), or, for a role every package has, add it to ROLE_NAMES"
    )
    assert homes["a2a_server"] == ["a2a/a2a_server.py"]  # the walk sees modules in folders
