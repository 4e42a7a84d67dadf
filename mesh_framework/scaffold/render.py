"""Rendering the project's templates (Jinja2, package data under `templates/`)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import jinja2

from .plan import PlannedFile

__all__ = ["render"]

LINE_LENGTH = 110  # the generated project's (pyproject's [tool.ruff]), as this repository's


def render(files: Sequence[PlannedFile], values: Mapping[str, Any]) -> dict[str, str]:
    """Each file's path (relative, `/`-separated) and text."""
    environment = _environment()
    return {
        file.path: environment.get_template(file.template).render({**values, **file.values}) for file in files
    }


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("mesh_framework.scaffold", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    environment.filters["py_list"] = _py_list
    environment.filters["quoted"] = _quoted
    environment.filters["ljust"] = lambda text, width: str(text).ljust(width)
    environment.filters["shell"] = shlex.quote  # one word in bash and zsh (`[openai]` is a zsh glob)
    return environment


def _py_list(values: Sequence[str], indent: int, prefix: str = "", suffix: str = "") -> str:
    """A list of string literals, on one line when it fits, else one item a line (ruff format's way)."""
    items = [json.dumps(value) for value in values]
    line = "[" + ", ".join(items) + "]"
    if indent + len(prefix) + len(line) + len(suffix) <= LINE_LENGTH:
        return line
    inner = " " * (indent + 4)
    return "[\n" + "".join(f"{inner}{item},\n" for item in items) + " " * indent + "]"


def _quoted(text: str) -> str:
    """A TOML (or JSON) basic string."""
    return json.dumps(text, ensure_ascii=False)
