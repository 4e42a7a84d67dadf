"""The agent whose tools ask the client for input, called by `relay_front`'s tools
(tests/clients/test_relayed_input.py): `ask_name` asks once, `ask_date` asks with a state of its own, and
`nested_name` calls `ask_name` in this same process, so its question crosses one more hop."""

from __future__ import annotations

from mesh_framework import InputRequired, McpMeshTool, ToolContext, elicit, mesh_agent, mesh_tool


@mesh_agent(name="relay-back", version="1.0.0")
class RelayBack:
    pass


@mesh_tool(capability="ask_name")
async def ask_name(ctx: ToolContext) -> str | InputRequired:
    """Ask the user for a name, then answer it."""
    answer = ctx.input_responses.get("who")
    if answer is None or answer.get("action") != "accept":
        return InputRequired({"who": elicit("Who is there?", {"name": {"type": "string"}}, ["name"])})
    return f"name={answer['content']['name']}"


@mesh_tool(capability="ask_date")
async def ask_date(ctx: ToolContext) -> str | InputRequired:
    """Ask the user for a date, keeping a state of its own between the rounds."""
    answer = ctx.input_responses.get("when")
    if answer is None or ctx.request_state is None:
        form = elicit("When?", {"date": {"type": "string"}}, ["date"])
        return InputRequired({"when": form}, state={"asked": "when"})
    return f"date={answer['content']['date']} (state {ctx.request_state['asked']})"


@mesh_tool(capability="nested_name", dependencies=["ask_name"])
async def nested_name(ask_name: McpMeshTool | None = None) -> str:
    """`ask_name` of this same agent, called in process."""
    assert ask_name is not None
    return f"nested {await ask_name()}"
