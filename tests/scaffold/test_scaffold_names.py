"""`mesh new` names: what is accepted, the names made from it, and clear errors for the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh_framework.errors import MeshError
from mesh_framework.scaffold import InvalidNameError, create_project
from mesh_framework.scaffold.names import agent_names, project_names


def test_names_made_from_a_project_name() -> None:
    names = project_names("my-shop")
    assert (names.package, names.agent, names.class_name) == ("my_shop", "my-shop", "MyShopAgent")
    assert project_names("starter_app").agent == "starter-app"


def test_names_of_other_agents() -> None:
    project = project_names("shop")
    agents = agent_names(["billing", "order-book"], project)
    assert [(a.module, a.name, a.class_name) for a in agents] == [
        ("billing", "billing", "BillingAgent"),
        ("order_book", "order-book", "OrderBookAgent"),
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "the project name is empty; use lowercase letters, digits, '-' and '_'"),
        ("   ", "the project name is empty"),
        ("My App", "project name 'My App' is not allowed: use lowercase letters, digits, '-' and '_', "),
        ("1st-agent", "starting with a letter"),
        ("agent-", "ending with a letter or digit"),
        ("a.b", "project name 'a.b' is not allowed"),
        ("class", "'class' is a Python keyword"),
        ("json", "'json' is a module of Python's standard library"),
        ("mesh-framework", "would hide the framework itself"),
        ("mcp", "would hide the installed package 'mcp'"),
        ("config", "would hide the project's own 'config' folder"),
        ("tests", "would hide the project's own 'tests' folder"),
    ],
)
def test_invalid_project_names_say_what_is_allowed(name: str, message: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        project_names(name)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, MeshError)


def test_a_fixable_name_comes_with_a_suggestion() -> None:
    with pytest.raises(InvalidNameError, match="try 'my-app'"):
        project_names("My App")


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        (["tools"], "agent name 'tools': the package already has a module 'tools'"),
        (["shop"], "the project's first agent is already named 'shop'"),
        (["billing", "billing"], "agent name 'billing' is given twice"),
        (["Billing"], "agent name 'Billing' is not allowed"),
        (["def"], "'def' is a Python keyword"),
        ([""], "the agent name is empty"),
    ],
)
def test_invalid_agent_names(agents: list[str], message: str) -> None:
    with pytest.raises(InvalidNameError) as caught:
        agent_names(agents, project_names("shop"))
    assert message in str(caught.value)


def test_create_project_checks_names_before_writing(tmp_path: Path) -> None:
    with pytest.raises(InvalidNameError, match="keyword"):
        create_project("shop", directory=tmp_path / "shop", agents=["import"])
    assert not (tmp_path / "shop").exists()
    with pytest.raises(TypeError, match="agents is a list of names"):
        create_project("shop", directory=tmp_path / "shop", agents="billing")
