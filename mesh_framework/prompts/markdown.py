"""Prompts kept as Markdown files: YAML front matter for the name, description and arguments, then a
Jinja2 body rendered with the arguments.

    ---
    name: code_review
    description: Review a piece of code
    arguments:
      - name: code
        description: The code to review
        required: true
      - name: language
        values: [python, go, rust]    # offered by completion/complete
    ---
    Review this {{ language or "code" }}:

    {{ code }}

A malformed file stops start-up with its path and line; so does a body that uses a name the front matter
does not declare.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml

from .._frozen import frozen
from ..errors import MeshError, display_path
from .arguments import Argument

__all__ = ["MarkdownPrompt", "PromptFileError", "load_prompt_file", "load_prompt_folder"]

_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
_KEYS = {"name", "title", "description", "arguments", "role"}
_ARGUMENT_KEYS = {"name", "description", "required", "values"}
_LINE = "__line__"

if TYPE_CHECKING:
    import jinja2


@functools.cache
def _environment() -> jinja2.Environment:
    """Jinja2, imported on the first prompt file (an agent without any does not pay for the import)."""
    import jinja2

    return jinja2.Environment(autoescape=False, keep_trailing_newline=False)


class PromptFileError(MeshError, ValueError):
    """A prompt file cannot be served; the message starts with `path:line`."""


@frozen
class MarkdownPrompt:
    name: str
    description: str
    arguments: tuple[Argument, ...]
    template: jinja2.Template
    path: Path
    title: str | None = None
    role: Literal["user", "assistant"] = "user"

    def render(self, values: dict[str, Any]) -> str:
        return self.template.render(values).strip()


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping, so problems in an `arguments` entry can point at it."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep=deep)
        mapping[_LINE] = node.start_mark.line
        return mapping


class _FastLineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """`_LineLoader` over libyaml's parser, when PyYAML has it (8x faster); front matter it refuses is
    parsed again by the Python one, whose messages the problems quote."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        mapping[_LINE] = node.start_mark.line
        return mapping


def _front_matter(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_FastLineLoader)  # a SafeLoader
    except yaml.YAMLError:
        return yaml.load(text, Loader=_LineLoader)


def load_prompt_folder(folder: Path) -> tuple[list[MarkdownPrompt], list[str]]:
    """Every `*.md` file below `folder` (sorted), and the problems of those that cannot be served."""
    prompts: list[MarkdownPrompt] = []
    problems: list[str] = []
    for path in sorted(folder.rglob("*.md")):
        try:
            prompts.append(load_prompt_file(path))
        except PromptFileError as exc:
            problems.append(str(exc))
    return prompts, problems


def load_prompt_file(path: Path) -> MarkdownPrompt:
    """One prompt file. Raises PromptFileError naming the file and the line."""
    where = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(f"{where}:1: cannot read the prompt file ({exc})") from None
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise PromptFileError(
            f"{where}:1: a prompt file starts with YAML front matter between '---' lines "
            "(name, description, arguments)"
        )
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise PromptFileError(f"{where}:1: the front matter opened here is never closed by a '---' line")
    try:
        meta = _front_matter("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        # An unclosed bracket or quote is reported where parsing gave up; its opening line is more useful.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        context, problem = getattr(exc, "context", None), getattr(exc, "problem", None)
        reason = ", ".join(str(p) for p in (context, problem) if p) or str(exc).splitlines()[0]
        raise PromptFileError(f"{where}:{line}: invalid YAML front matter: {reason}") from None
    if not isinstance(meta, dict):
        raise PromptFileError(f"{where}:2: the front matter must be a mapping (name: ..., description: ...)")
    meta.pop(_LINE, None)

    def fail(line: int, message: str) -> PromptFileError:
        return PromptFileError(f"{where}:{line}: {message}")

    unknown = sorted(set(meta) - _KEYS)
    if unknown:
        line = _line_of(lines, end, unknown[0])
        raise fail(line, f"unknown front matter key(s) {', '.join(unknown)}; use {', '.join(sorted(_KEYS))}")
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or not _NAME.match(name):
        raise fail(
            _line_of(lines, end, "name"),
            f"name {name!r} is invalid: use 1-128 letters, digits, '_', '-' or '.'",
        )
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise fail(_line_of(lines, end, "description"), "description must be text")
    role = meta.get("role", "user")
    if role not in ("user", "assistant"):
        raise fail(_line_of(lines, end, "role"), f"role {role!r} must be 'user' or 'assistant'")
    title = meta.get("title")
    arguments = _arguments(meta.get("arguments") or [], fail, _line_of(lines, end, "arguments"))
    template = _template(lines[end + 1 :], end + 2, {a.name for a in arguments}, fail)
    return MarkdownPrompt(
        name=name,
        description=description,
        arguments=arguments,
        template=template,
        path=path,
        title=str(title) if title is not None else None,
        role=role,
    )


def _template(body: list[str], start: int, declared: set[str], fail: Any) -> jinja2.Template:
    """The compiled body (`start`: the file line of its first line); a syntax error, or a name the
    arguments do not declare, names its line."""
    import jinja2
    import jinja2.meta

    environment = _environment()
    try:
        parsed = environment.parse("\n".join(body))
        template = environment.from_string(parsed)
    except jinja2.TemplateSyntaxError as exc:
        raise fail(start + (exc.lineno or 1) - 1, f"template syntax error: {exc.message}") from None
    for variable in sorted(jinja2.meta.find_undeclared_variables(parsed) - declared):
        pattern = re.compile(rf"\b{re.escape(variable)}\b")
        line = next((start + i for i, row in enumerate(body) if pattern.search(row)), start)
        raise fail(line, f"the body uses '{variable}', which the front matter's arguments do not declare")
    return template


def _arguments(raw: Any, fail: Any, line: int) -> tuple[Argument, ...]:
    if not isinstance(raw, list):
        raise fail(line, "arguments must be a list of {name, description, required} entries")
    arguments: list[Argument] = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise fail(line, f"each argument is a mapping with a name, not {entry!r}")
        at = entry.pop(_LINE, line - 2) + 2
        unknown = sorted(set(entry) - _ARGUMENT_KEYS)
        if unknown:
            raise fail(
                at, f"unknown argument key(s) {', '.join(unknown)}; use {', '.join(sorted(_ARGUMENT_KEYS))}"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise fail(at, f"argument name {name!r} must be an identifier (letters, digits, '_')")
        if any(a.name == name for a in arguments):
            raise fail(at, f"argument '{name}' is declared twice")
        required = entry.get("required", False)
        if not isinstance(required, bool):
            raise fail(at, f"argument '{name}': required must be true or false, not {required!r}")
        values = entry.get("values", [])
        if not isinstance(values, list):
            raise fail(at, f"argument '{name}': values must be a list")
        description = entry.get("description")
        arguments.append(
            Argument(
                name=name,
                description=str(description) if description is not None else None,
                required=required,
                choices=tuple(str(v) for v in values),
            )
        )
    return tuple(arguments)


def _line_of(lines: list[str], end: int, key: str) -> int:
    """The 1-based line of a top-level front matter key (2 when it cannot be found)."""
    for index in range(1, end):
        if lines[index].startswith(f"{key}:"):
            return index + 1
    return 2
