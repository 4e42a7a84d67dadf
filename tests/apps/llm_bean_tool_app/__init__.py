"""`@mesh_llm(tools=[...])` local tools that take a bean by type, on a tool and on a route: the bean is
injected when the model calls them and is no part of the schema the model sees."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mesh_framework import MeshLlmAgent, component, mesh_agent, mesh_llm, mesh_route, mesh_tool


@mesh_agent(name="shelf-keeper", version="1.0.0")
class ShelfKeeper:
    pass


@component
class Shelf:
    """What the local tool reads: a bean of this agent."""

    def __init__(self) -> None:
        self.books = {"dune": "Frank Herbert", "emma": "Jane Austen"}


def author_of(title: Annotated[str, Field(description="The book's title")], shelf: Shelf) -> str:
    """The author of a book on the shelf."""
    return shelf.books.get(title.lower(), "unknown")


@mesh_tool(capability="librarian")
@mesh_llm(provider="openai/gpt-fake", tools=[author_of])
async def librarian(question: str, llm: MeshLlmAgent) -> str:
    return str(await llm(question))


@mesh_route("/api/librarian")
@mesh_llm(provider="openai/gpt-fake", tools=[author_of])
async def ask_librarian(question: str, llm: MeshLlmAgent) -> dict[str, str]:
    return {"answer": str(await llm(question))}
