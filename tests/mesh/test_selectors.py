"""MCP Mesh dependency resolution: the verified resolution table, version constraints, tag expressions."""

from __future__ import annotations

from typing import Any

import pytest

from mesh_framework.mesh.selectors import (
    Candidate,
    choose_provider,
    compare_versions,
    match_tags,
    match_version,
    parse_constraint,
    parse_selector,
    parse_version,
    rank_providers,
)
from mesh_framework.specs import Selector

P1 = Candidate("p1", "svc", "1.0.0", ("fast", "python"))
P2 = Candidate("p2", "svc", "2.0.0", ("slow", "typescript"))

# Every row of the resolution table in interop/MCP_MESH.md (verified against the real registry).
RESOLUTION_TABLE: list[tuple[dict[str, Any], str | None]] = [
    ({"capability": "svc"}, "p2"),
    ({"capability": "svc", "tags": ["fast"]}, "p1"),
    ({"capability": "svc", "tags": ["+fast"]}, "p1"),
    ({"capability": "svc", "tags": ["-slow"]}, "p1"),
    ({"capability": "svc", "tags": ["gpu"]}, None),
    ({"capability": "svc", "tags": [["python", "typescript"]]}, "p2"),
    ({"capability": "svc", "tags": ["+fast", "-fast"]}, "p2"),
    ({"capability": "svc", "version": ">=2.0.0"}, "p2"),
    ({"capability": "svc", "version": "1.0.0"}, "p1"),
    ({"capability": "svc", "version": "^1.0"}, "p1"),
    ({"capability": "svc", "version": ">=3"}, None),
    ({"capability": "svc", "tags": ["+python"], "version": ">=1.0.0"}, "p1"),
]


@pytest.mark.parametrize(("selector", "chosen"), RESOLUTION_TABLE, ids=[str(r[0]) for r in RESOLUTION_TABLE])
def test_resolution_table(selector: dict[str, Any], chosen: str | None) -> None:
    for candidates in ([P1, P2], [P2, P1]):
        winner = choose_provider(selector, candidates)
        assert (winner.agent_id if winner else None) == chosen


def test_selector_object_resolves_like_its_wire_form() -> None:
    selector = Selector("svc", tags=["+fast", ["python", "go"]], version="^1")
    assert choose_provider(selector, [P1, P2]) is P1
    assert choose_provider(selector.to_wire(), [P1, P2]) is P1


def test_unhealthy_and_other_capabilities_are_skipped() -> None:
    sick = Candidate("p0", "svc", "9.0.0", ("fast",), healthy=False)
    other = Candidate("p9", "other", "9.0.0")
    assert choose_provider({"capability": "svc"}, [sick, other, P1]) is P1
    assert choose_provider({"capability": "nope"}, [P1, P2]) is None


def test_namespace_selector_then_consumer_namespace() -> None:
    remote = Candidate("p3", "svc", "3.0.0", namespace="prod")
    assert choose_provider({"capability": "svc"}, [P1, remote]) is remote  # no namespace given: any
    assert choose_provider({"capability": "svc"}, [P1, remote], namespace="default") is P1
    assert (
        choose_provider({"capability": "svc", "namespace": "prod"}, [P1, remote], namespace="default")
        is remote
    )


def test_rank_order_score_then_version_then_agent_id() -> None:
    a = Candidate("b-agent", "svc", "1.0.0", ("x",))
    b = Candidate("a-agent", "svc", "1.0.0", ("x",))
    c = Candidate("c-agent", "svc", "1.5.0", ("x",))
    d = Candidate("d-agent", "svc", "0.1.0", ("x", "gpu"))
    ranked = rank_providers({"capability": "svc", "tags": ["x", "+gpu"]}, [a, b, c, d])
    assert [p.agent_id for p in ranked] == ["d-agent", "c-agent", "a-agent", "b-agent"]
    assert rank_providers({"capability": "svc", "tags": ["-x"]}, [a, b, c, d]) == []


def test_same_agent_two_tools_ties_break_on_function_name() -> None:
    one = Candidate("a", "svc", function_name="zeta")
    two = Candidate("a", "svc", function_name="alpha")
    assert [c.function_name for c in rank_providers({"capability": "svc"}, [one, two])] == ["alpha", "zeta"]


@pytest.mark.parametrize(
    ("tags", "provider", "score"),
    [
        (["a"], ["a", "b"], 5),
        (["+a"], ["b"], 0),
        (["+a"], ["a"], 10),
        (["-a"], ["a"], None),
        (["-a"], ["b"], 0),
        (["a", "+b", "-c"], ["a", "b"], 15),
        (["a", "+b", "-c"], ["a", "b", "c"], None),
        ([["a", "b"]], ["b"], 5),
        ([["a", "b"]], ["c"], None),
        ([["a", "+b"]], ["a", "b"], 10),
        ([["a", "-b"]], ["a", "b"], None),
        ([["-b"]], ["a"], None),  # a group of exclusions alone never matches
        ([["x", "y"], ["z"]], ["y", "z"], 10),
        (["", "+", "-"], [], 0),  # empty tags are ignored
        ([], [], 0),
    ],
)
def test_tag_expressions(tags: list[Any], provider: list[str], score: int | None) -> None:
    assert match_tags(tags, provider) == score


def test_bad_tag_is_rejected() -> None:
    with pytest.raises(ValueError, match="tag must be a string"):
        match_tags([3], ["a"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("version", "constraint", "ok"),
    [
        ("1.2.3", ">=1.2.3", True),
        ("1.2.2", ">=1.2.3", False),
        ("1.2.3", ">1.2.3", False),
        ("1.2.4", ">1.2.3", True),
        ("1.2.3", "<=1.2.3", True),
        ("1.2.3", "<1.2.3", False),
        ("1.0.0", "1", True),  # bare = exact, missing parts are 0
        ("1.0.1", "1", False),
        ("1.2.0", "1.2", True),
        ("1.2.0", "=1.2.0", True),
        ("1.2.0", "==1.2", True),
        ("1.2.1", "!=1.2.0", True),
        ("1.2.0", "!=1.2.0", False),
        ("1.9.9", "^1.2.3", True),
        ("2.0.0", "^1.2.3", False),
        ("1.2.2", "^1.2.3", False),
        ("0.2.9", "^0.2.3", True),
        ("0.3.0", "^0.2.3", False),
        ("0.0.3", "^0.0.3", True),
        ("0.0.4", "^0.0.3", False),
        ("0.0.9", "^0.0", True),
        ("0.1.0", "^0.0", False),
        ("0.9.0", "^0", True),
        ("1.0.0", "^0", False),
        ("1.9.0", "^1", True),
        ("1.2.9", "~1.2.3", True),
        ("1.3.0", "~1.2.3", False),
        ("1.2.0", "~1.2", True),
        ("1.3.0", "~1.2", False),
        ("1.9.0", "~1", True),
        ("2.0.0", "~1", False),
        ("0.2.5", "~>0.2.3", True),
        ("1.5.0", ">=1.0, <2.0", True),
        ("2.0.0", ">=1.0, <2.0", False),
        ("1.5.0", " >= 1.0 ,  < 2 ", True),
        ("1.5.0", ">=1.0 <2.0", True),
        ("3.1.0", "^1 || >=3", True),
        ("2.1.0", "^1 || >=3", False),
        ("9.9.9", "*", True),
        ("9.9.9", "", True),
        ("1.7.0", "1.x", True),
        ("2.0.0", "1.x", False),
        ("1.2.7", "1.2.*", True),
        ("1.3.0", "1.2.x", False),
        ("v1.2.3", "1.2.3", True),
        ("1.2.3", "v1.2.3", True),
        ("1.2.3+build.5", "1.2.3", True),  # build metadata ignored
        ("2.0.0-beta.1", "<2.0.0", True),  # a pre-release sorts below its release
        ("2.0.0-beta.1", "^1.0.0", False),  # ... but not below the range's exclusive upper bound
        ("2.0.0-beta.1", ">=2.0.0-alpha", True),
        ("2.0.0-alpha", ">=2.0.0-beta", False),
        ("1.0.0-rc.2", ">1.0.0-rc.10", False),  # numeric identifiers compare numerically
        ("weird", ">=0", False),  # an unparseable version satisfies no constraint ...
        ("weird", "*", True),  # ... except "any"
        ("", ">=1", False),
    ],
)
def test_version_constraints(version: str, constraint: str, ok: bool) -> None:
    assert match_version(version, constraint) is ok


@pytest.mark.parametrize("constraint", ["abc", ">>1", "^", "1.2.3.4", "1.0 - 2.0", ">=1 ||", "!=*", ">1.x"])
def test_invalid_constraint_is_a_clear_value_error(constraint: str) -> None:
    with pytest.raises(ValueError, match="constraint"):
        parse_constraint(constraint)


def test_invalid_constraint_in_a_selector_raises() -> None:
    with pytest.raises(ValueError, match="'>>1'"):
        parse_selector({"capability": "svc", "version": ">>1"})
    with pytest.raises(ValueError, match="capability"):
        parse_selector({"tags": ["a"]})


def test_version_ordering() -> None:
    assert compare_versions("1.10.0", "1.9.0") == 1
    assert compare_versions("1", "1.0.0") == 0
    assert compare_versions("1.0.0-rc.1", "1.0.0") == -1
    assert compare_versions("garbage", "0.0.1") == -1
    assert parse_version("2.3") == (2, 3, 0, 1, ())
    with pytest.raises(ValueError, match="not a valid version"):
        parse_version("two")


def test_unparseable_candidate_version_sorts_last() -> None:
    odd = Candidate("a", "svc", "dev")
    assert rank_providers({"capability": "svc"}, [odd, P1]) == [P1, odd]
