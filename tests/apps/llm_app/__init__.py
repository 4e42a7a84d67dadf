"""An agent with LLM tools: local tool callbacks, a prompt template, structured answers."""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import MeshLlmAgent, ToolExecutionError, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="llm-app", version="1.0.0")
class LlmAgentApp:
    pass


def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def divide(a: int, b: int) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolExecutionError("division by zero")
    return a / b


class Plan(BaseModel):
    goal: str
    steps: list[str]


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini", tools=[multiply, divide], system_prompt="file://prompts/ask.j2")
async def ask(question: str, llm: MeshLlmAgent) -> str:
    """Answer a question, with arithmetic tools."""
    return str(await llm(question, context={"question": question, "user": "ada"}))


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini", max_iterations=3, temperature=0.3)
async def plan(goal: str, llm: MeshLlmAgent) -> Plan:
    """Plan the steps towards a goal."""
    result: Plan = await llm(f"Plan: {goal}")
    return result
