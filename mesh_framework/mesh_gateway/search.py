"""Progressive discovery: the gateway serves `search_tools`, `describe_tool` and `call_tool` instead of
every tool of the mesh, so a client loads three small tool definitions, not hundreds.

`search_tools` ranks the served tools with Okapi BM25 over each tool's name, description, tags and
parameter names (the name counted twice: it says most in fewest words). BM25 is written here, in a few
lines over the standard library: the libraries that implement it need numpy (and scipy), which the
gateway would load for a few hundred short documents. The index is rebuilt whenever the tool set changes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

from .._frozen import frozen
from ..errors import ToolExecutionError
from ..specs import ToolSpec
from ..tools.context import ToolContext
from ..tools.signature import analyze_signature
from ..tools.wrapper import MeshToolWrapper, error_result
from ..tools.wrapper_registry import MeshToolWrapperRegistry

__all__ = ["Bm25Index", "discovery_tools", "tokens"]

MAX_LIMIT = 50
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "get",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "what",
        "when",
        "which",
        "with",
        "you",
        "your",
    ]
)


def tokens(text: str) -> list[str]:
    """Lowercase word stems of `text`: camelCase and snake_case split, stop words out, plurals folded."""
    words = (w.lower() for w in _WORD.findall(text))
    return [_stem(w) for w in words if w not in _STOP]


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


@frozen
class _Document:
    name: str
    terms: Counter[str]
    length: int


class Bm25Index:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over `(name, text)` documents."""

    def __init__(self, documents: Iterable[tuple[str, str]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._docs = [_Document(name, Counter(t := tokens(text)), len(t)) for name, text in documents]
        self._average = sum(d.length for d in self._docs) / len(self._docs) if self._docs else 0.0
        frequency: Counter[str] = Counter(term for d in self._docs for term in d.terms)
        n = len(self._docs)
        self._idf = {term: math.log(1 + (n - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def __len__(self) -> int:
        return len(self._docs)

    def search(self, query: str, limit: int, admit: Callable[[str], bool] = lambda _n: True) -> list[str]:
        """The names of the best `limit` documents for `query` (only those `admit` lets through)."""
        terms = set(tokens(query))
        scored: list[tuple[float, str]] = []
        for doc in self._docs:
            if not admit(doc.name):
                continue
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * doc.length / (self._average or 1.0))
            for term in terms:
                tf = doc.terms.get(term)
                if tf:
                    score += self._idf[term] * tf * (self.k1 + 1) / (tf + norm)
            if score > 0:
                scored.append((score, doc.name))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [name for _score, name in scored[:limit]]


def document_of(wrapper: MeshToolWrapper) -> str:
    """What a tool is found by: its name (twice), description, tags and parameter names."""
    schema = wrapper.descriptor.get("inputSchema") or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    parameters = " ".join(properties) if isinstance(properties, Mapping) else ""
    name = wrapper.name
    return " ".join([name, name, wrapper.descriptor.get("description") or "", *wrapper.spec.tags, parameters])


class ToolSearch:
    """The served tools (`tools`, kept current by the gateway) and their index, rebuilt by `reindex`."""

    def __init__(self, tools: MeshToolWrapperRegistry) -> None:
        self.tools = tools
        self.index = Bm25Index(())

    def reindex(self) -> None:
        self.index = Bm25Index((w.name, document_of(w)) for w in self.tools)

    def find(self, query: str, limit: int, tags: Sequence[str] | None) -> list[dict[str, Any]]:
        if not query.strip():
            raise ToolExecutionError(
                "search_tools needs a query: a few words saying what the tool should do, "
                "e.g. 'convert currency'"
            )
        if not 1 <= limit <= MAX_LIMIT:
            raise ToolExecutionError(f"search_tools: limit must be between 1 and {MAX_LIMIT}, not {limit}")
        wanted = set(tags or ())

        def admit(name: str) -> bool:
            wrapper = self.tools.get(name)
            return wrapper is not None and wanted <= set(wrapper.spec.tags)

        found = []
        for name in self.index.search(query, limit, admit):
            wrapper = self.tools.get(name)
            if wrapper is None:  # gone since the index was built
                continue
            schema = wrapper.descriptor.get("inputSchema") or {}
            found.append(
                {
                    "name": name,
                    "description": wrapper.descriptor.get("description") or "",
                    "parameters": list(schema.get("properties") or {}),
                }
            )
        return found

    def describe(self, name: str) -> dict[str, Any]:
        return dict(self._tool(name, "describe_tool").descriptor)

    def _tool(self, name: str, asked_by: str) -> MeshToolWrapper:
        wrapper = self.tools.get(name)
        if wrapper is None:
            raise ToolExecutionError(
                f"{asked_by}: no tool named '{name}' is served now; search_tools finds the tools there are"
            )
        return wrapper


class CallTool(MeshToolWrapper):
    """`call_tool(name, arguments)`: the named tool's own call, its answer unchanged (errors, streamed
    chunks and input rounds included)."""

    __slots__ = ("search",)

    def __init__(self, search: ToolSearch, base: MeshToolWrapper) -> None:
        super().__init__(
            key=base.key,
            name=base.name,
            spec=base.spec,
            signature=base.signature,
            target=_unused,
            description=base.descriptor["description"],
            timeout=None,
        )
        self.search = search

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        given = dict(arguments or {})
        name, tool_arguments = given.get("name"), given.get("arguments", {})
        unexpected = sorted(set(given) - {"name", "arguments"})
        if not isinstance(name, str) or not name:
            return error_result("call_tool needs 'name': the name of a tool search_tools found")
        if not isinstance(tool_arguments, dict):
            return error_result(f"call_tool: 'arguments' must be an object, not {tool_arguments!r}")
        if unexpected:
            return error_result(
                f"call_tool takes 'name' and 'arguments' only; put {', '.join(unexpected)} in 'arguments'"
            )
        try:
            tool = self.search._tool(name, "call_tool")
        except ToolExecutionError as exc:
            return error_result(str(exc))
        return await tool.call(tool_arguments, context, deadline=deadline)


async def _unused() -> None:  # pragma: no cover - CallTool.call replaces the body
    """call_tool's body is its wrapper's call."""


def discovery_tools(search: ToolSearch) -> MeshToolWrapperRegistry:
    """The three tools a client sees in search mode."""

    async def search_tools(
        query: Annotated[str, Field(description="what the tool should do, in a few words")],
        limit: Annotated[int, Field(description=f"how many tools to return (1 to {MAX_LIMIT})")] = 5,
        tags: Annotated[list[str] | None, Field(description="only tools carrying every one of these")] = None,
    ) -> list[dict[str, Any]]:
        """Find tools of the mesh by what they do: the best matches' names, descriptions and parameter
        names. describe_tool gives a tool's full input schema; call_tool calls it."""
        return search.find(query, limit, tags)

    async def describe_tool(
        name: Annotated[str, Field(description="a tool name search_tools returned")],
    ) -> dict[str, Any]:
        """The full definition of a tool: name, description and input schema."""
        return search.describe(name)

    async def call_tool(
        name: Annotated[str, Field(description="a tool name search_tools returned")],
        arguments: Annotated[
            dict[str, Any], Field(description="the tool's arguments, as its input schema says")
        ],
        ctx: ToolContext,
    ) -> None:
        """Call a tool of the mesh by name; answers what the tool answers."""

    registry = MeshToolWrapperRegistry()
    for function in (search_tools, describe_tool):
        registry.add(_wrapper(function))
    registry.add(CallTool(search, _wrapper(call_tool)))
    return registry


def _wrapper(function: Callable[..., Any]) -> MeshToolWrapper:
    name = function.__name__
    signature = analyze_signature(function, model_name=f"{name}_arguments", dependency_count=0)
    description = " ".join((function.__doc__ or "").split())
    return MeshToolWrapper(
        key=f"mesh_gateway.{name}",
        name=name,
        spec=ToolSpec(function=function, name=name, capability=name, description=description),
        signature=signature,
        target=function,
        description=description,
        timeout=None,
    )
