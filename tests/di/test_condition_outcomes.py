"""A `@configuration` class's early conditions (settings, profiles, classes, `@conditional` tests) are
evaluated once, not again for each of its beans and of the classes it imports (each of which carries
them): a test that scans the app costs once. Every bean still lists the outcomes, as `mesh beans` shows."""

from __future__ import annotations

import pytest

from mesh_framework import (
    bean,
    conditional,
    conditional_on_missing_bean,
    conditional_on_property,
    configuration,
    imports,
)
from mesh_framework.config.settings import MeshSettings
from mesh_framework.di.conditions import ConditionContext
from mesh_framework.di.definitions import select_beans

pytestmark = pytest.mark.timeout(30)

ASKED: list[str] = []


def _wanted(context: ConditionContext) -> tuple[bool, str]:
    ASKED.append("wanted")
    return True, "the test wants it"


class Clock:
    pass


class Pool:
    pass


class Journal:
    pass


@configuration
class Imported:
    @bean
    def journal(self) -> Journal:
        return Journal()


@configuration
@conditional(_wanted, "wanted")
@conditional_on_property("demo.enabled", match_if_missing=True)
@imports(Imported)
class Gated:
    @bean
    def clock(self) -> Clock:
        return Clock()

    @bean
    @conditional_on_missing_bean()
    def pool(self) -> Pool:
        return Pool()


def test_a_class_s_conditions_are_evaluated_once_for_all_its_beans() -> None:
    ASKED.clear()
    selection = select_beans([], [Gated], [], MeshSettings())
    assert [b.name for b in selection.beans] == ["clock", "pool", "journal"]
    assert ASKED == ["wanted"]
    for definition in selection.beans:
        early = [(o.condition, o.matched) for o in definition.outcomes][:2]
        assert early == [
            ("@conditional('wanted')", True),
            ("@conditional_on_property('demo.enabled', match_if_missing=True)", True),
        ]
    pool = next(b for b in selection.beans if b.name == "pool")
    assert pool.outcomes[-1].reason == "no bean of type Pool"  # a late one, evaluated for its own bean
