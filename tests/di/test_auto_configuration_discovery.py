"""Finding the installed auto-configurations reads every distribution's `entry_points.txt` but parses only
those that mention the group; what it finds is what `importlib.metadata.entry_points(group=...)` finds."""

from __future__ import annotations

import importlib.metadata
import re
import textwrap
from pathlib import Path

import pytest

from mesh_framework.di.auto_configuration import ENTRY_POINT_GROUP, discover_auto_configurations

pytestmark = pytest.mark.timeout(30)

CONFIGURATION = """
from mesh_framework import configuration


@configuration
class {name}:
    pass
"""


def _distribution(folder: Path, name: str, entry_points: str, *, package: str = "", cls: str = "") -> None:
    """A distribution as an installer leaves it: its `.dist-info` (and a module declaring `cls`)."""
    folder.mkdir(exist_ok=True)
    if package:
        (folder / f"{package}.py").write_text(textwrap.dedent(CONFIGURATION.format(name=cls)))
    info = folder / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_the_group_is_found_as_importlib_finds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _distribution(
        first,
        "disc-extra",
        f"""
        [console_scripts]
        disc-extra = disc_first:main

        [{ENTRY_POINT_GROUP}]
        disc = disc_first:DiscFirst
        """,
        package="disc_first",
        cls="DiscFirst",
    )
    # the same distribution name later on the path: shadowed, as importlib.metadata shadows it
    _distribution(
        second,
        "disc-extra",
        f"[{ENTRY_POINT_GROUP}]\ndisc_shadowed = disc_second:DiscSecond\n",
        package="disc_second",
        cls="DiscSecond",
    )
    # the group's name in another group's value only: no entry point of the group
    _distribution(second, "disc-other", f"[console_scripts]\nx = {ENTRY_POINT_GROUP}:main\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))

    found, problems = discover_auto_configurations([])

    assert problems == []
    expected = sorted(p.name for p in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    assert sorted(a.name for a in found) == expected
    ours = [a for a in found if a.name.startswith("disc")]
    assert [(a.name, a.cls.__name__, a.package) for a in ours] == [("disc", "DiscFirst", "disc-extra")]
    framework = {a.package for a in found if not a.name.startswith("disc")}
    assert framework == {"mesh-framework"}  # each distribution's name read from its METADATA


def test_the_private_name_discovery_reads_is_the_public_name_normalized() -> None:
    """Discovery uniques distributions by the stdlib's private `_normalized_name` (no METADATA parse), else
    by the public name normalized the same way: this breaks if the two ever disagree."""
    names = [
        (dist._normalized_name, dist.name)  # type: ignore[attr-defined]
        for dist in importlib.metadata.distributions()
        if getattr(dist, "_normalized_name", None)
    ]
    assert names, "no distribution has _normalized_name any more: discovery uses the public name"
    assert all(private == re.sub(r"[-_.]+", "_", public).lower() for private, public in names)
