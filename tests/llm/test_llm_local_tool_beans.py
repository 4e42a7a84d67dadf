"""`@mesh_llm(tools=[f])` local tools that take a bean by type: the agent starts (it used to stop with a
raw pydantic schema error), the bean is hidden from the schema the model is offered, as injected
parameters are from MCP's, and injected when the model calls the tool; on a tool and on a route."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesh_framework import MeshApplication, WiringError
from mesh_framework.llm.model import LlmModel
from mesh_framework.testing import ScriptedLlm, mesh_client

call = ScriptedLlm.call


def offered(model: ScriptedLlm) -> dict[str, object]:
    [tool] = model.requests[0].tools
    function = tool["function"]
    assert function["name"] == "author_of"
    assert function["description"] == "The author of a book on the shelf."
    return function["parameters"]  # type: ignore[no-any-return]


async def test_a_local_tool_of_an_llm_tool_gets_its_bean() -> None:
    app = MeshApplication.load("tests.apps.llm_bean_tool_app", environ={})
    model = ScriptedLlm([call("author_of", title="Dune"), "Dune is by Frank Herbert"])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            result = await client.call_tool("librarian", {"question": "Who wrote Dune?"})
    assert result["structuredContent"] == {"result": "Dune is by Frank Herbert"}
    assert model.requests[1].tool_results() == ["Frank Herbert"]  # the Shelf bean answered
    parameters = offered(model)
    assert parameters["properties"] == {"title": {"type": "string", "description": "The book's title"}}
    assert parameters["required"] == ["title"]


async def test_a_local_tool_of_an_llm_route_gets_its_bean() -> None:
    app = MeshApplication.load("tests.apps.llm_bean_tool_app", environ={})
    model = ScriptedLlm([call("author_of", title="Emma"), "Jane Austen"])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            answer = await client.http.get("/api/librarian", params={"question": "Who wrote Emma?"})
    assert answer.status_code == 200 and answer.json() == {"answer": "Jane Austen"}
    assert model.requests[1].tool_results() == ["Jane Austen"]
    assert "shelf" not in offered(model)["properties"]  # type: ignore[operator]


def test_a_local_tool_taking_a_type_that_is_no_bean_is_one_clear_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "unwired_app.py").write_text(
        "from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool\n"
        "class Ledger:\n"
        "    pass\n"
        "def balance(account: str, ledger: Ledger) -> int:\n"
        "    return 0\n"
        "@mesh_agent(name='unwired')\n"
        "class Unwired:\n"
        "    pass\n"
        "@mesh_tool(capability='teller')\n"
        "@mesh_llm(provider='openai/gpt-fake', tools=[balance])\n"
        "async def teller(question: str, llm: MeshLlmAgent) -> str:\n"
        "    return str(await llm(question))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as raised:
        MeshApplication.load("unwired_app", environ={})
    [problem] = raised.value.problems
    assert problem.endswith(
        "tool 'teller': local tool 'balance' (tools=[...]): a parameter typed <class 'unwired_app.Ledger'> "
        "is neither data the model can send (a pydantic type) nor a bean of this agent; make it a "
        "@component or change the type"
    )


def test_a_local_tool_that_is_a_tool_of_the_agent_takes_its_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its signature is analyzed once, for the agent's tool; the local tool has no default timeout."""
    (tmp_path / "shared_tool_app.py").write_text(
        "from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool\n"
        "@mesh_agent(name='shared')\n"
        "class Shared:\n"
        "    pass\n"
        "@mesh_tool(capability='add')\n"
        "async def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "def double(a: int) -> int:\n"
        "    return 2 * a\n"
        "@mesh_tool(capability='ask')\n"
        "@mesh_llm(provider='openai/gpt-fake', tools=[add, double])\n"
        "async def ask(question: str, llm: MeshLlmAgent) -> str:\n"
        "    return str(await llm(question))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    app = MeshApplication.load("shared_tool_app", cli={"tools": {"timeout": 7.0}}, environ={})
    [tool] = [p for p in app.container.tool_plans() if p.name == "add"]
    add, double = app.container.llm_configs().configs["ask"].callbacks
    assert add.signature is tool.signature and add.key == tool.key == "shared_tool_app.add"
    assert (tool.timeout, add.timeout) == (7.0, None)
    assert double.name == "double" and double.timeout is None  # not a tool of the agent: planned here
